/* fuzz_common.h - what every fuzz target does with a matrix a reader
 * accepted: the CSR invariants must hold (abort otherwise, so libFuzzer
 * reports it), and the code that trusts them (statistics, BCSR, RCM) runs
 * on it. Sizes are capped so one input stays fast. */
#ifndef FB_FUZZ_COMMON_H
#define FB_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include "matrix/csr.h"

static void fuzz_exercise(const fb_csr *A)
{
    fb_csr_stats s;
    int64_t table[9];
    fb_bcsr B;
    if (fb_csr_validate(A, "fuzz") != FB_OK) abort();
    if (A->nnz > 100000 || A->nrows > 100000 || A->ncols > 100000) return;
    fb_csr_stats_compute(A, &s);
    fb_csr_bcsr_fill_table(A, 3, 3, table);
    if (fb_csr_to_bcsr(A, 2, 3, &B) == FB_OK) {
        if (B.nblocks != table[1 * 3 + 2]) abort();
        fb_bcsr_set_layout(&B, FB_BLOCK_SOA);
        fb_bcsr_free(&B);
    }
    if (A->nrows == A->ncols) {
        int *perm = malloc(((size_t)A->nrows + 1) * sizeof *perm);
        fb_csr P;
        if (perm && fb_csr_rcm(A, perm) == FB_OK && fb_csr_permute(A, perm, &P) == FB_OK) {
            if (P.nnz != A->nnz) abort();
            fb_csr_free(&P);
        }
        free(perm);
    }
}

#endif
