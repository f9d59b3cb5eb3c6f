/* bcsr.c - CSR to r x c block CSR, its fill ratio, and the AoS <-> SoA
 * value layouts. The fill ratio (stored block entries / true nonzeros) is
 * OSKI's measure of what a block shape costs: a 4x4 BCSR with fill 1.6
 * moves 60% more values than CSR and must win that back with fewer index
 * loads and register blocking. */
#include "csr.h"

#include <stdlib.h>
#include <string.h>

static fb_status check_shape(const fb_csr *A, int r, int c)
{
    fb_status status = FB_OK;
    if (r < 1 || c < 1 || r > FB_BCSR_MAX_BLOCK || c > FB_BCSR_MAX_BLOCK)
        FB_FAIL(FB_ERR_USAGE, "block shape %dx%d: each side must be 1..%d", r, c, FB_BCSR_MAX_BLOCK);
    if (A->nrows < 0 || A->ncols < 0) FB_FAIL(FB_ERR_INPUT, "malformed matrix");
fail:
    return status;
}

/* Distinct block columns of block row br. `stamp` (nbcols, per thread)
 * holds the last block row that saw each block column; when `list` is not
 * NULL the block columns are appended there in first-seen order. */
/* Scalar rows [*i0, *i1) of block row br (64-bit: br * r + r may pass INT_MAX). */
static void block_rows(const fb_csr *A, int r, int br, int *i0, int *i1)
{
    int64_t lo = (int64_t)br * r, hi = lo + r < A->nrows ? lo + r : A->nrows;
    *i0 = (int)lo;
    *i1 = (int)hi;
}

static int block_row_columns(const fb_csr *A, int r, int c, int br, int *stamp, int *list)
{
    int n = 0, i0 = 0, i_end = 0;
    block_rows(A, r, br, &i0, &i_end);
    for (int i = i0; i < i_end; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int bc = A->colidx[p] / c;
            if (stamp[bc] == br) continue;
            stamp[bc] = br;
            if (list) list[n] = bc;
            ++n;
        }
    return n;
}

/* Blocks of block row br for every width c = 1..cmax at once (added to
 * count[c - 1]). Rows are sorted, so merging the r rows gives the columns
 * in order, and a new block of width c starts whenever a column reaches
 * the end of the current one: no marker array, and a division only when a
 * block starts. */
static void count_block_row(const fb_csr *A, int r, int br, int cmax, int64_t *count)
{
    int head[FB_BCSR_MAX_BLOCK], end[FB_BCSR_MAX_BLOCK], n = 0, i0 = 0, i1 = 0;
    int64_t limit[FB_BCSR_MAX_BLOCK] = {0};
    block_rows(A, r, br, &i0, &i1);
    for (int i = i0; i < i1; ++i)
        if (A->rowptr[i] < A->rowptr[i + 1]) head[n] = A->rowptr[i], end[n++] = A->rowptr[i + 1];
    while (n > 0) {
        int k = 0;
        for (int m = 1; m < n; ++m)
            if (A->colidx[head[m]] < A->colidx[head[k]]) k = m;
        int64_t col = A->colidx[head[k]];
        if (++head[k] == end[k]) head[k] = head[--n], end[k] = end[n];
        for (int c = 1; c <= cmax; ++c)
            if (col >= limit[c - 1]) {
                count[c - 1]++;
                limit[c - 1] = (col / c + 1) * c;
            }
    }
}

static int nblocks_of(int n, int b) { return (int)(((int64_t)n + b - 1) / b); }

/* Blocks per block row for one shape into counts[nbrows] (may be NULL). */
static int64_t count_blocks(const fb_csr *A, int r, int c, int *counts)
{
    int64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 1024)
    for (int br = 0; br < nblocks_of(A->nrows, r); ++br) {
        int64_t n[FB_BCSR_MAX_BLOCK] = {0};
        count_block_row(A, r, br, c, n);
        if (counts) counts[br] = (int)n[c - 1];
        sum += n[c - 1];
    }
    return sum;
}

fb_status fb_csr_bcsr_fill_table(const fb_csr *A, int rmax, int cmax, int64_t *nblocks)
{
    fb_status status = FB_OK;
    FB_CHECK(check_shape(A, rmax, cmax));
    for (int r = 1; r <= rmax; ++r) {
        int64_t sum[FB_BCSR_MAX_BLOCK] = {0};
#pragma omp parallel for reduction(+ : sum[:FB_BCSR_MAX_BLOCK]) schedule(dynamic, 1024)
        for (int br = 0; br < nblocks_of(A->nrows, r); ++br)
            count_block_row(A, r, br, cmax, sum);
        memcpy(nblocks + (r - 1) * cmax, sum, (size_t)cmax * sizeof *sum);
    }
fail:
    return status;
}

fb_status fb_csr_bcsr_count(const fb_csr *A, int r, int c, int64_t *nblocks, double *fill)
{
    fb_status status = FB_OK;
    FB_CHECK(check_shape(A, r, c));
    *nblocks = count_blocks(A, r, c, NULL);
    *fill = A->nnz ? (double)*nblocks * r * c / (double)A->nnz : 1.0;
fail:
    return status;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Fills block row br: sorted block columns, then each scalar entry into its
 * block (AoS). `slot[bc]` is the block's position while stamp[bc] == br. */
static void fill_block_row(const fb_csr *A, fb_bcsr *B, int br, int *stamp, int *slot)
{
    int r = B->r, c = B->c, start = B->browptr[br];
    int *list = B->bcolidx + start;
    int n = block_row_columns(A, r, c, br, stamp, list);
    qsort(list, (size_t)n, sizeof *list, cmp_int);
    for (int k = 0; k < n; ++k)
        slot[list[k]] = start + k;
    int i0 = 0, i_end = 0;
    block_rows(A, r, br, &i0, &i_end);
    for (int i = i0; i < i_end; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p], b = slot[j / c];
            B->values[((int64_t)b * r + (i - i0)) * c + (j % c)] = A->values[p];
        }
}

static fb_status fill_blocks(const fb_csr *A, fb_bcsr *B)
{
    fb_status status = FB_OK;
    int failed = 0;
#pragma omp parallel reduction(+ : failed)
    {
        int *stamp = malloc(((size_t)B->nbcols + 1) * sizeof *stamp);
        int *slot = malloc(((size_t)B->nbcols + 1) * sizeof *slot);
        failed = !stamp || !slot;
        for (int k = 0; !failed && k < B->nbcols; ++k)
            stamp[k] = -1;
#pragma omp for schedule(dynamic, 1024)
        for (int br = 0; br < B->nbrows; ++br)
            if (stamp && slot) fill_block_row(A, B, br, stamp, slot);
        free(stamp);
        free(slot);
    }
    if (failed) FB_FAIL(FB_ERR_NOMEM, "out of host memory converting to BCSR");
fail:
    return status;
}

fb_status fb_csr_to_bcsr(const fb_csr *A, int r, int c, fb_bcsr *out)
{
    fb_status status = FB_OK;
    int64_t total = 0;
    memset(out, 0, sizeof *out);
    FB_CHECK(check_shape(A, r, c));
    *out = (fb_bcsr){.nrows = A->nrows,
                     .ncols = A->ncols,
                     .r = r,
                     .c = c,
                     .nbrows = nblocks_of(A->nrows, r),
                     .nbcols = nblocks_of(A->ncols, c),
                     .layout = FB_BLOCK_AOS,
                     .nnz = A->nnz};
    FB_ALLOC(out->browptr, (int64_t)out->nbrows + 1, "BCSR block row pointers");
    total = count_blocks(A, r, c, out->browptr + 1);
    if (total * r * c > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_INPUT, "%dx%d BCSR would store %lld values: flowbench keeps 32-bit indices (< 2^31)", r, c,
                (long long)(total * r * c));
    for (int br = 0; br < out->nbrows; ++br)
        out->browptr[br + 1] += out->browptr[br];
    out->nblocks = total;
    FB_ALLOC(out->bcolidx, total, "BCSR block columns");
    int64_t nvalues = total * r * c; /* a variable: FB_ALLOC tests its count */
    FB_ALLOC(out->values, nvalues, "BCSR values");
    FB_CHECK(fill_blocks(A, out));
    return FB_OK;
fail:
    fb_bcsr_free(out);
    return status;
}

fb_status fb_bcsr_set_layout(fb_bcsr *B, fb_block_layout layout)
{
    fb_status status = FB_OK;
    double *v = NULL;
    int rc = B->r * B->c;
    if (B->layout == layout) return FB_OK;
    int64_t nvalues = B->nblocks * rc;
    FB_ALLOC(v, nvalues, "BCSR values in the other layout");
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < B->nblocks; ++b)
        for (int k = 0; k < rc; ++k) {
            if (layout == FB_BLOCK_SOA)
                v[k * B->nblocks + b] = B->values[b * rc + k];
            else
                v[b * rc + k] = B->values[k * B->nblocks + b];
        }
    free(B->values);
    B->values = v;
    B->layout = layout;
fail:
    return status;
}

double fb_bcsr_fill(const fb_bcsr *B) { return B->nnz ? (double)B->nblocks * B->r * B->c / (double)B->nnz : 1.0; }

void fb_bcsr_multiply(const fb_bcsr *B, const double *x, double *y)
{
    for (int br = 0; br < B->nbrows; ++br)
        for (int i = 0; i < B->r; ++i) {
            double s = 0.0;
            for (int b = B->browptr[br]; b < B->browptr[br + 1]; ++b)
                for (int j = 0; j < B->c; ++j)
                    s += fb_bcsr_value(B, b, i, j) * x[B->bcolidx[b] * B->c + j];
            y[br * B->r + i] = s;
        }
}

void fb_bcsr_free(fb_bcsr *B)
{
    if (!B) return;
    free(B->browptr);
    free(B->bcolidx);
    free(B->values);
    memset(B, 0, sizeof *B);
}
