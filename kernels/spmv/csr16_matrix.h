/* csr16_matrix.h - CSR with 16-bit column offsets (spmv/csr16.cl): the
 * column index of an entry becomes a 16-bit offset from a base column kept
 * once per block of BASE_ROWS rows, so an SpMV reads 2 bytes per nonzero
 * fewer (10 instead of 12 in double; 6 instead of 12 with the mixed
 * kernel's single-precision values). A block whose columns span 65536 or
 * more keeps its 32-bit columns (wide): the fallback is per block, so one
 * long-range coupling costs its block 2 bytes per entry, not the matrix.
 * Built from the CSR view, timed apart from the product (as SELL's
 * conversion: a solver converts once and multiplies many times). */
#ifndef FB_CSR16_MATRIX_H
#define FB_CSR16_MATRIX_H

#include <stdint.h>

#include "spmv.h"

#define FB_CSR16_SPAN 65536 /* a block's columns must lie in [base, base + span) */

typedef struct fb_csr16 {
    int nrows, base_rows;
    int nbases;           /* ceil(nrows / base_rows) */
    int wide_bases;       /* blocks kept at 32 bits */
    int64_t nnz;          /* entries (as the CSR) */
    int64_t wide_entries; /* entries of the wide blocks */
    int *bases;           /* nbases: >= 0 the block's least column; < 0 wide (csr16.cl) */
    uint16_t *offsets;    /* nnz: column - base (0, unread, in a wide block) */
    int *wide;            /* max(wide_entries, 1): the wide blocks' columns in entry order */
    double seconds;       /* wall time of the conversion */
} fb_csr16;

/* Converts the CSR view A (fb_spmv_csr) with blocks of base_rows rows, a
 * power of two (FB_ERR_USAGE otherwise). */
fb_status fb_csr16_from_csr(const fb_spmv_matrix *A, int base_rows, fb_csr16 *out);

/* Entry j's column, as the kernels decode it (the tests' reference). */
int fb_csr16_column(const fb_csr16 *M, int row, int64_t j);

void fb_csr16_free(fb_csr16 *M);

/* The encoding's three arrays (bases, offsets, wide columns) onto t, for
 * csr16's run and sell16's (sell_run.c). */
fb_status fb_csr16_upload_columns(fb_target *t, const fb_csr16 *M, fb_buffer **bases, fb_buffer **offsets,
                                  fb_buffer **wide);

/* fb_spmv_run for the csr16 kernels: converts A with the point's
 * BASE_ROWS, uploads (values in single precision for the mixed format),
 * builds, measures and checks as fb_spmv_run does; out->conversion says
 * what the conversion cost and how much fell back to 32 bits. */
fb_status fb_spmv_run_csr16(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out);

#endif
