/* ns_csr.c - see ns_csr.h. */
#include "solver/ns_csr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/csr.h"

/* Row i's entries with the diagonal before its first larger column (the
 * edge rows are sorted, edge_ops.h and ns_order.h; fill_row checks it). */
static fb_status fill_row(fb_ns_csr *c, int i, const int *rowptr, const int *col)
{
    fb_status status = FB_OK;
    int at = c->rowptr[i], diag_done = 0;
    for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
        if (e > rowptr[i] && col[e] <= col[e - 1])
            FB_FAIL(FB_ERR_INPUT, "edge row %d is not sorted by column: no CSR pattern from it", i);
        if (col[e] == i) FB_FAIL(FB_ERR_INPUT, "edge row %d holds its own node", i);
        if (!diag_done && col[e] > i) c->col[at] = i, c->diagpos[i] = at++, diag_done = 1;
        c->col[at] = col[e], c->epos[e] = at++;
    }
    if (!diag_done) c->col[at] = i, c->diagpos[i] = at;
fail:
    return status;
}

fb_status fb_ns_csr_build(int n, const int *rowptr, const int *col, fb_ns_csr *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    const int nedges = rowptr[n];
    out->n = n, out->nnz = (long long)nedges + n;
    if (out->nnz > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_INPUT, "the pressure matrix has %lld entries: over the int limit", out->nnz);
    FB_ALLOC(out->rowptr, (size_t)n + 1, "the pressure matrix's row pointers");
    FB_ALLOC(out->col, out->nnz > 0 ? (size_t)out->nnz : 1, "the pressure matrix's columns");
    FB_ALLOC(out->epos, nedges > 0 ? (size_t)nedges : 1, "the pressure matrix's edge positions");
    FB_ALLOC(out->diagpos, n > 0 ? (size_t)n : 1, "the pressure matrix's diagonal positions");
    for (int i = 0; i <= n; ++i)
        out->rowptr[i] = rowptr[i] + i;
    for (int i = 0; i < n; ++i)
        FB_CHECK(fill_row(out, i, rowptr, col));
    return FB_OK;
fail:
    fb_ns_csr_free(out);
    return status;
}

fb_status fb_ns_csr_record(const fb_ns_csr *c, const char *name, json_t **out, fb_signature *sig)
{
    fb_status status = FB_OK;
    fb_csr_stats s;
    char hash[32];
    double *ones = NULL;
    FB_ALLOC(ones, c->nnz > 0 ? (size_t)c->nnz : 1, "unit values of the pressure pattern");
    for (long long k = 0; k < c->nnz; ++k)
        ones[k] = 1.0;
    const fb_csr A = {c->n, c->n, c->nnz, c->rowptr, c->col, ones};
    FB_CHECK(fb_csr_stats_compute(&A, &s));
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s.hash);
    *out = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:i, s:f}, s:I, s:s}", "name", name, "source",
                     "the solver's pressure matrix (edge rows with the diagonal)", "origin", "solver", "hash", hash,
                     "rows", s.nrows, "cols", s.ncols, "nnz", (json_int_t)s.nnz, "nnz_per_row", "min", s.row_min,
                     "mean", s.row_mean, "max", s.row_max, "stddev", s.row_stddev, "bandwidth", (json_int_t)s.bandwidth,
                     "symmetry", fb_symmetry_name(s.symmetry));
    if (!*out) FB_FAIL(FB_ERR_NOMEM, "the pressure matrix record");
    if (sig)
        *sig = (fb_signature){.kind = FB_SIGNATURE_MATRIX,
                              .matrix = {s.nrows, s.nnz, s.row_mean, s.row_stddev, s.row_max, 1, 1.0}};
fail:
    free(ones);
    return status;
}

void fb_ns_csr_free(fb_ns_csr *c)
{
    free(c->rowptr), free(c->col), free(c->epos), free(c->diagpos);
    memset(c, 0, sizeof *c);
}
