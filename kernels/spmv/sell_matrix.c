/* sell_matrix.c - CSR to SELL-C-sigma (see sell_matrix.h). */
#include "sell_matrix.h"

#include <stdlib.h>
#include <string.h>

#include "core/measure.h"

typedef struct row_len {
    int len, row;
} row_len;

/* Longest first; equal lengths keep their order (a stable sort), so
 * sigma = 1 and windows of equal rows leave the natural order alone. */
static int longer_first(const void *a, const void *b)
{
    const row_len *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* perm[pos] = the row at sorted position pos; -1 past nrows. */
static fb_status sort_windows(const fb_spmv_matrix *A, fb_sell *S)
{
    fb_status status = FB_OK;
    row_len *w = NULL;
    const int n = S->nrows, sigma = S->sigma;
    FB_ALLOC(w, sigma < n ? sigma : n, "SELL sort window");
    for (int pos = 0; pos < S->nslices * S->C; ++pos)
        S->perm[pos] = pos < n ? pos : -1;
    if (sigma > 1)
        for (int start = 0; start < n; start += sigma) {
            int count = n - start < sigma ? n - start : sigma;
            for (int i = 0; i < count; ++i)
                w[i] = (row_len){A->ptr[start + i + 1] - A->ptr[start + i], start + i};
            qsort(w, (size_t)count, sizeof *w, longer_first);
            for (int i = 0; i < count; ++i) {
                S->perm[start + i] = w[i].row;
                S->permuted |= w[i].row != start + i;
            }
        }
fail:
    free(w);
    return status;
}

static int row_length(const fb_spmv_matrix *A, int row) { return row < 0 ? 0 : A->ptr[row + 1] - A->ptr[row]; }

/* slice_ptr from each slice's longest row; refuses offsets past 32 bits
 * (with room for a work-item's last stride past the end). */
static fb_status slice_offsets(const fb_spmv_matrix *A, fb_sell *S)
{
    fb_status status = FB_OK;
    int64_t at = 0;
    for (int s = 0; s < S->nslices; ++s) {
        int width = 0;
        for (int r = 0; r < S->C; ++r) {
            int len = row_length(A, S->perm[(int64_t)s * S->C + r]);
            if (len > width) width = len;
        }
        S->slice_ptr[s] = (int)at;
        at += (int64_t)width * S->C;
        if (at > INT32_MAX - 4096)
            FB_FAIL(FB_ERR_INPUT, "SELL-%d-%d of this matrix stores over 2^31 entries with its padding", S->C,
                    S->sigma);
    }
    S->slice_ptr[S->nslices] = (int)at;
    S->stored = at;
fail:
    return status;
}

/* A column some row of slice s reads (0 when none reads any): the padding
 * of its empty rows and of its rows past the matrix's end. */
static int slice_column(const fb_spmv_matrix *A, const fb_sell *S, int s)
{
    for (int r = 0; r < S->C; ++r) {
        const int row = S->perm[(int64_t)s * S->C + r];
        if (row_length(A, row) > 0) return A->idx[A->ptr[row]];
    }
    return 0;
}

/* One slice, column-major: entry j of row r at slice_ptr[s] + j * C + r. */
static void fill_slice(const fb_spmv_matrix *A, fb_sell *S, int s)
{
    const int C = S->C, begin = S->slice_ptr[s], width = (S->slice_ptr[s + 1] - begin) / C;
    const int slice_col = slice_column(A, S, s);
    for (int r = 0; r < C; ++r) {
        const int row = S->perm[(int64_t)s * C + r], len = row_length(A, row);
        const int first = row < 0 ? 0 : A->ptr[row];
        /* Padding reads x at a column the row (or, for a row without
         * entries, the slice) reads anyway: no new cache line, and sell16's
         * slice keeps its span. */
        const int pad_col = len > 0 ? A->idx[first + len - 1] : slice_col;
        for (int j = 0; j < width; ++j) {
            const int at = begin + j * C + r;
            S->colidx[at] = j < len ? A->idx[first + j] : pad_col;
            S->values[at] = j < len ? A->values[first + j] : 0.0;
        }
    }
}

fb_status fb_sell_from_csr(const fb_spmv_matrix *A, int C, int sigma, fb_sell *out)
{
    fb_status status = FB_OK;
    double t0 = fb_now();
    memset(out, 0, sizeof *out);
    if (A->format != &fb_spmv_csr) FB_FAIL(FB_ERR_USAGE, "SELL-C-sigma is built from a CSR matrix");
    if (C < 1 || sigma < 1) FB_FAIL(FB_ERR_USAGE, "SELL-C-sigma needs C >= 1 and sigma >= 1 (got %d, %d)", C, sigma);
    out->nrows = A->shape.nrows;
    out->ncols = A->shape.ncols;
    out->C = C;
    out->sigma = sigma;
    out->nnz = A->shape.nnz;
    out->nslices = (int)(((int64_t)out->nrows + C - 1) / C);
    FB_ALLOC(out->slice_ptr, (size_t)out->nslices + 1, "SELL slice pointers");
    FB_ALLOC(out->perm, (size_t)out->nslices * (size_t)C, "SELL row permutation");
    FB_CHECK(sort_windows(A, out));
    FB_CHECK(slice_offsets(A, out));
    FB_ALLOC(out->colidx, (size_t)out->stored, "SELL column indices");
    FB_ALLOC(out->values, (size_t)out->stored, "SELL values");
#pragma omp parallel for schedule(static)
    for (int s = 0; s < out->nslices; ++s)
        fill_slice(A, out, s);
    out->seconds = fb_now() - t0;
    return FB_OK;
fail:
    fb_sell_free(out);
    return status;
}

fb_status fb_sell_narrow_columns(fb_sell *S)
{
    fb_spmv_matrix slices = {.format = &fb_spmv_csr,
                             .shape = {.nrows = S->nslices, .ncols = S->ncols, .nnz = S->stored},
                             .ptr = S->slice_ptr,
                             .idx = S->colidx};
    fb_status status = fb_csr16_from_csr(&slices, 1, &S->narrow);
    S->seconds += S->narrow.seconds;
    return status;
}

double fb_sell_padding(const fb_sell *S) { return S->nnz > 0 ? (double)(S->stored - S->nnz) / (double)S->nnz : 0.0; }

void fb_sell_free(fb_sell *S)
{
    free(S->slice_ptr);
    free(S->colidx);
    free(S->values);
    free(S->perm);
    fb_csr16_free(&S->narrow);
    memset(S, 0, sizeof *S);
}
