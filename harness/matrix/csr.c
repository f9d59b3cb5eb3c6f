/* csr.c - CSR construction: allocation with the 32-bit limits checked once,
 * coordinate triples to CSR (the last step of every reader and of FE
 * assembly), dense to CSR, and the serial reference product. */
#include "csr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

fb_status fb_csr_alloc(fb_csr *A, int64_t nrows, int64_t ncols, int64_t nnz)
{
    fb_status status = FB_OK;
    memset(A, 0, sizeof *A);
    if (nrows < 0 || ncols < 0 || nrows > FB_CSR_MAX_DIM || ncols > FB_CSR_MAX_DIM)
        FB_FAIL(FB_ERR_INPUT, "a %lld x %lld matrix is too large: rows and columns are 32-bit (< 2^31)",
                (long long)nrows, (long long)ncols);
    if (nnz < 0 || nnz > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_INPUT, "%lld nonzeros is too many: flowbench keeps 32-bit indices (nnz < 2^31)", (long long)nnz);
    A->nrows = (int)nrows;
    A->ncols = (int)ncols;
    A->nnz = nnz;
    FB_ALLOC(A->rowptr, nrows + 1, "CSR row pointers");
    FB_ALLOC(A->colidx, nnz, "CSR column indices");
    FB_ALLOC(A->values, nnz, "CSR values");
    return FB_OK;
fail:
    fb_csr_free(A);
    return status;
}

void fb_csr_free(fb_csr *A)
{
    if (!A) return;
    free(A->rowptr);
    free(A->colidx);
    free(A->values);
    memset(A, 0, sizeof *A);
}

fb_status fb_csr_copy(const fb_csr *A, fb_csr *out)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_csr_alloc(out, A->nrows, A->ncols, A->nnz));
    memcpy(out->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr);
    memcpy(out->colidx, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    memcpy(out->values, A->values, (size_t)A->nnz * sizeof *A->values);
fail:
    return status;
}

void fb_dense_free(fb_dense *X)
{
    if (!X) return;
    free(X->values);
    memset(X, 0, sizeof *X);
}

typedef struct col_val {
    int col;
    double val;
} col_val;

static int cmp_col_val(const void *a, const void *b)
{
    int x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
    return (x > y) - (x < y);
}

/* Sorts one row by column (stable for equal columns is not needed: they are
 * summed next). Rows from Matrix Market files are usually already sorted,
 * so check first; short rows use insertion sort, long ones qsort. */
static void sort_row(int *col, double *val, int len, col_val *tmp)
{
    int sorted = 1;
    for (int k = 1; k < len && sorted; ++k)
        sorted = col[k - 1] <= col[k];
    if (sorted) return;
    if (len <= 32) {
        for (int k = 1; k < len; ++k) {
            int c = col[k], m = k;
            double v = val[k];
            for (; m > 0 && col[m - 1] > c; --m) {
                col[m] = col[m - 1];
                val[m] = val[m - 1];
            }
            col[m] = c;
            val[m] = v;
        }
        return;
    }
    for (int k = 0; k < len; ++k)
        tmp[k] = (col_val){col[k], val[k]};
    qsort(tmp, (size_t)len, sizeof *tmp, cmp_col_val);
    for (int k = 0; k < len; ++k) {
        col[k] = tmp[k].col;
        val[k] = tmp[k].val;
    }
}

/* Sums runs of equal columns in a sorted row; returns the new length. */
static int sum_duplicates(int *col, double *val, int len)
{
    int w = 0;
    for (int k = 0; k < len; ++k) {
        if (w > 0 && col[w - 1] == col[k]) {
            val[w - 1] += val[k];
        } else {
            col[w] = col[k];
            val[w] = val[k];
            ++w;
        }
    }
    return w;
}

/* First row r with rowptr[r] >= pos. */
static int first_row_at(const fb_csr *A, int64_t pos)
{
    int lo = 0, hi = A->nrows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->rowptr[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Thread t scatters the triples of rows [lo, hi): every thread reads all
 * row indices but writes only its own rows, so no atomics are needed and
 * the order inside a row is the file order (deterministic). */
static void scatter_rows(const fb_csr *A, int64_t n, const int *row, const int *col, const double *val, int *next)
{
#pragma omp parallel
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        /* rows split by nonzeros (a dense row does not serialise the rest):
         * thread t owns the rows that start in its share of the entries */
        int lo = first_row_at(A, A->nnz * t / nt), hi = first_row_at(A, A->nnz * (t + 1) / nt);
        if (t == nt - 1) hi = A->nrows;
        for (int64_t k = 0; k < n; ++k) {
            int r = row[k];
            if (r < lo || r >= hi) continue;
            int p = next[r]++;
            A->colidx[p] = col[k];
            A->values[p] = val ? val[k] : 1.0;
        }
    }
}

/* Removes the gaps left by summed duplicates (serial: rows move left and
 * would overwrite rows still being read by another thread). */
static void compact_rows(fb_csr *A, const int *newlen)
{
    int64_t w = 0;
    for (int r = 0; r < A->nrows; ++r) {
        int start = A->rowptr[r];
        if (w != start) {
            memmove(A->colidx + w, A->colidx + start, (size_t)newlen[r] * sizeof *A->colidx);
            memmove(A->values + w, A->values + start, (size_t)newlen[r] * sizeof *A->values);
        }
        A->rowptr[r] = (int)w;
        w += newlen[r];
    }
    A->rowptr[A->nrows] = (int)w;
    A->nnz = w;
}

int64_t fb_csr_first_nonfinite(const fb_csr *A, int r0, int r1, int *row)
{
    for (int r = r0; r < r1; ++r)
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; ++p)
            if (!isfinite(A->values[p])) {
                *row = r;
                return p;
            }
    return -1;
}

/* Inputs are finite (the readers refuse inf and nan), so a value that is
 * not was made by summing duplicates: refused, or it would be exported as
 * "inf", which no reader takes back. */
static fb_status check_sums(const fb_csr *A, int bad_row)
{
    fb_status status = FB_OK;
    int r = 0;
    if (bad_row >= A->nrows) return FB_OK;
    int64_t p = fb_csr_first_nonfinite(A, bad_row, bad_row + 1, &r);
    FB_FAIL(FB_ERR_INPUT, "entry (%d, %d): duplicate entries sum to %g, not a finite double", r + 1, A->colidx[p] + 1,
            A->values[p]);
fail:
    return status;
}

fb_status fb_csr_canonicalize(fb_csr *A)
{
    fb_status status = FB_OK;
    int *newlen = NULL, maxlen = 0, dups = 0, failed = 0, bad_row = A->nrows;
    FB_ALLOC(newlen, A->nrows, "row lengths");
    for (int r = 0; r < A->nrows; ++r)
        if (A->rowptr[r + 1] - A->rowptr[r] > maxlen) maxlen = A->rowptr[r + 1] - A->rowptr[r];
#pragma omp parallel reduction(+ : dups, failed) reduction(min : bad_row)
    {
        /* scratch for qsort of long rows, one per thread */
        col_val *tmp = maxlen > 32 ? malloc((size_t)maxlen * sizeof *tmp) : NULL;
        failed = maxlen > 32 && !tmp;
#pragma omp for schedule(dynamic, 4096)
        for (int r = 0; r < A->nrows; ++r) {
            int s = A->rowptr[r], len = A->rowptr[r + 1] - s;
            if (failed) continue;
            sort_row(A->colidx + s, A->values + s, len, tmp);
            newlen[r] = sum_duplicates(A->colidx + s, A->values + s, len);
            dups += newlen[r] != len;
            for (int k = s; k < s + newlen[r] && newlen[r] != len; ++k)
                if (!isfinite(A->values[k]) && r < bad_row) bad_row = r;
        }
        free(tmp);
    }
    if (failed) FB_FAIL(FB_ERR_NOMEM, "out of host memory sorting a row of %d entries", maxlen);
    if (dups > 0) compact_rows(A, newlen);
    FB_CHECK(check_sums(A, bad_row));
fail:
    free(newlen);
    return status;
}

fb_status fb_csr_from_coo(int64_t nrows, int64_t ncols, int64_t n, const int *row, const int *col, const double *val,
                          fb_csr *out)
{
    fb_status status = FB_OK;
    int *next = NULL;
    FB_CHECK(fb_csr_alloc(out, nrows, ncols, n));
    for (int64_t k = 0; k < n; ++k)
        out->rowptr[row[k] + 1]++;
    for (int r = 0; r < out->nrows; ++r)
        out->rowptr[r + 1] += out->rowptr[r];
    FB_ALLOC(next, out->nrows + 1, "CSR scatter cursors");
    memcpy(next, out->rowptr, ((size_t)out->nrows + 1) * sizeof *next);
    scatter_rows(out, n, row, col, val, next);
    FB_CHECK(fb_csr_canonicalize(out));
    free(next);
    return FB_OK;
fail:
    free(next);
    fb_csr_free(out);
    return status;
}

fb_status fb_csr_from_dense(const fb_dense *X, fb_csr *out)
{
    fb_status status = FB_OK;
    int64_t n = (int64_t)X->nrows * X->ncols;
    FB_CHECK(fb_csr_alloc(out, X->nrows, X->ncols, n));
    for (int i = 0; i < X->nrows; ++i) {
        out->rowptr[i + 1] = (int)((int64_t)(i + 1) * X->ncols);
        for (int j = 0; j < X->ncols; ++j) {
            int64_t p = (int64_t)i * X->ncols + j;
            out->colidx[p] = j;
            out->values[p] = X->values[(int64_t)j * X->nrows + i];
        }
    }
fail:
    return status;
}

void fb_csr_multiply(const fb_csr *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; ++i) {
        double s = 0.0;
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
            s += A->values[p] * x[A->colidx[p]];
        y[i] = s;
    }
}

fb_status fb_csr_validate(const fb_csr *A, const char *what)
{
    fb_status status = FB_OK;
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || !A->rowptr || (A->nnz > 0 && (!A->colidx || !A->values)))
        FB_FAIL(FB_ERR_INPUT, "%s: malformed CSR header", what);
    if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
        FB_FAIL(FB_ERR_INPUT, "%s: row pointers do not span the %lld entries", what, (long long)A->nnz);
    for (int i = 0; i < A->nrows; ++i) {
        if (A->rowptr[i + 1] < A->rowptr[i]) FB_FAIL(FB_ERR_INPUT, "%s: row pointer %d decreases", what, i + 1);
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (j < 0 || j >= A->ncols) FB_FAIL(FB_ERR_INPUT, "%s: row %d: column %d out of range", what, i, j);
            if (p > A->rowptr[i] && A->colidx[p - 1] >= j)
                FB_FAIL(FB_ERR_INPUT, "%s: row %d: columns not sorted and distinct", what, i);
        }
    }
fail:
    return status;
}
