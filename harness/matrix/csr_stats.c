/* csr_stats.c - what `flowbench matrix info` and every results record say
 * about a matrix: entries per row, bandwidth, symmetry and a content hash.
 * All are single passes over the CSR arrays, parallel where it pays on a
 * 100-million-entry matrix. */
#include "csr.h"

#include <math.h>
#include <string.h>

#include "../core/hash.h"

const char *fb_symmetry_name(fb_symmetry s)
{
    switch (s) {
    case FB_SYM_RECTANGULAR: return "rectangular";
    case FB_SYM_UNSYMMETRIC: return "unsymmetric";
    case FB_SYM_STRUCTURAL: return "structurally symmetric";
    case FB_SYM_SYMMETRIC: return "symmetric";
    case FB_SYM_SKEW: return "skew-symmetric";
    }
    return "unknown";
}

static void row_stats(const fb_csr *A, fb_csr_stats *s)
{
    int mn = A->nrows ? A->rowptr[1] - A->rowptr[0] : 0, mx = 0, empty = 0;
    double sum2 = 0.0;
    double mean = A->nrows ? (double)A->nnz / A->nrows : 0.0;
#pragma omp parallel for reduction(min : mn) reduction(max : mx) reduction(+ : empty, sum2) schedule(static)
    for (int i = 0; i < A->nrows; ++i) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        mn = len < mn ? len : mn;
        mx = len > mx ? len : mx;
        empty += len == 0;
        sum2 += (len - mean) * (len - mean);
    }
    s->row_min = mn;
    s->row_max = mx;
    s->row_mean = mean;
    s->row_stddev = A->nrows ? sqrt(sum2 / A->nrows) : 0.0;
    s->empty_rows = empty;
}

static void bandwidth(const fb_csr *A, fb_csr_stats *s)
{
    int64_t lo = 0, up = 0;
#pragma omp parallel for reduction(max : lo, up) schedule(static)
    for (int i = 0; i < A->nrows; ++i) {
        int p0 = A->rowptr[i], p1 = A->rowptr[i + 1];
        if (p0 == p1) continue;
        /* columns are sorted: the extremes are the first and last entries */
        int64_t l = (int64_t)i - A->colidx[p0], u = (int64_t)A->colidx[p1 - 1] - i;
        lo = l > lo ? l : lo;
        up = u > up ? u : up;
    }
    s->lower_bandwidth = lo;
    s->upper_bandwidth = up;
    s->bandwidth = lo > up ? lo : up;
}

/* Position of column j in row i, or -1 (columns sorted). */
static int64_t find(const fb_csr *A, int i, int j)
{
    int lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->colidx[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < A->rowptr[i + 1] && A->colidx[lo] == j ? lo : -1;
}

static fb_symmetry symmetry(const fb_csr *A)
{
    if (A->nrows != A->ncols) return FB_SYM_RECTANGULAR;
    int pattern = 1, sym = 1, skew = 1;
#pragma omp parallel for reduction(&& : pattern, sym, skew) schedule(dynamic, 4096)
    for (int i = 0; i < A->nrows; ++i) {
        if (!pattern) continue; /* a missing mirror decides it: stop early */
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int64_t q = find(A, A->colidx[p], i);
            if (q < 0) {
                pattern = 0;
                break;
            }
            sym = sym && A->values[q] == A->values[p];
            skew = skew && A->values[q] == -A->values[p];
        }
    }
    if (!pattern) return FB_SYM_UNSYMMETRIC;
    if (sym) return FB_SYM_SYMMETRIC;
    return skew ? FB_SYM_SKEW : FB_SYM_STRUCTURAL;
}

#define HASH_PIECE ((size_t)1 << 20)

static uint64_t hash_array(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    int64_t npieces = (int64_t)((bytes + HASH_PIECE - 1) / HASH_PIECE);
    for (int64_t base = 0; base < npieces; base += 256) {
        uint64_t piece[256];
        int64_t n = npieces - base < 256 ? npieces - base : 256;
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < n; ++k) {
            size_t off = (size_t)(base + k) * HASH_PIECE, len = bytes - off < HASH_PIECE ? bytes - off : HASH_PIECE;
            piece[k] = fb_hash_bytes(FB_HASH_SEED, p + off, len);
        }
        h = fb_hash_bytes(h, piece, (size_t)n * sizeof piece[0]);
    }
    return h;
}

uint64_t fb_csr_hash(const fb_csr *A)
{
    int64_t shape[3] = {A->nrows, A->ncols, A->nnz};
    uint64_t h = fb_hash_str(FB_HASH_SEED, "flowbench-csr-1");
    h = fb_hash_bytes(h, shape, sizeof shape);
    h = hash_array(h, A->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr);
    h = hash_array(h, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    return hash_array(h, A->values, (size_t)A->nnz * sizeof *A->values);
}

int64_t fb_csr_bandwidth(const fb_csr *A)
{
    fb_csr_stats s;
    bandwidth(A, &s);
    return s.bandwidth;
}

fb_status fb_csr_stats_compute(const fb_csr *A, fb_csr_stats *out)
{
    memset(out, 0, sizeof *out);
    out->nrows = A->nrows;
    out->ncols = A->ncols;
    out->nnz = A->nnz;
    row_stats(A, out);
    bandwidth(A, out);
    out->symmetry = symmetry(A);
    out->hash = fb_csr_hash(A);
    return FB_OK;
}
