/* csr.h - the in-memory sparse formats every kernel reads: CSR, block CSR
 * (array-of-structures and structure-of-arrays values), a dense column-major
 * array for Matrix Market "array" files, and what can be said about a
 * matrix without running it (row statistics, bandwidth, symmetry, content
 * hash, BCSR fill, reverse Cuthill-McKee).
 *
 * Indices are 32-bit: row pointers and column indices are int, so a matrix
 * holds at most FB_CSR_MAX_NNZ entries. 64-bit indices would cost 25% of the
 * CSR bandwidth ceiling (docs/matrices.md); larger matrices are refused with
 * a message, never truncated.
 *
 * Invariants of an fb_csr built here: rowptr[0] = 0, rowptr is
 * non-decreasing, rowptr[nrows] = nnz, column indices are sorted and
 * distinct within a row, explicit zeros are kept (they are structure).
 */
#ifndef FB_MATRIX_CSR_H
#define FB_MATRIX_CSR_H

#include <stdint.h>

#include "../core/status.h"

#define FB_CSR_MAX_NNZ INT64_C(2147483647) /* 2^31 - 1: rowptr is int */
#define FB_CSR_MAX_DIM 2147483647          /* rows and columns are int */
#define FB_BCSR_MAX_BLOCK 8

typedef struct fb_csr {
    int nrows, ncols;
    int64_t nnz;
    int *rowptr;    /* nrows + 1 */
    int *colidx;    /* nnz */
    double *values; /* nnz */
} fb_csr;

/* A dense matrix, column-major (Matrix Market "array"); a vector is n x 1. */
typedef struct fb_dense {
    int nrows, ncols;
    double *values; /* nrows * ncols */
} fb_dense;

typedef enum fb_block_layout {
    FB_BLOCK_AOS, /* block b, entry (i, j): values[(b * r + i) * c + j] (SU2's layout) */
    FB_BLOCK_SOA  /* entry (i, j) of block b: values[(i * c + j) * nblocks + b] */
} fb_block_layout;

/* Block CSR with r x c blocks. Block rows past nrows / columns past ncols
 * (when r or c does not divide them) are padded with explicit zeros. */
typedef struct fb_bcsr {
    int nrows, ncols;   /* scalar shape */
    int r, c;           /* block shape */
    int nbrows, nbcols; /* ceil(nrows / r), ceil(ncols / c) */
    int64_t nblocks;
    int *browptr;   /* nbrows + 1 */
    int *bcolidx;   /* nblocks */
    double *values; /* nblocks * r * c, in `layout` */
    fb_block_layout layout;
    int64_t nnz; /* scalar entries of the CSR it came from */
} fb_bcsr;

typedef enum fb_symmetry {
    FB_SYM_RECTANGULAR,
    FB_SYM_UNSYMMETRIC,
    FB_SYM_STRUCTURAL, /* pattern symmetric, values not */
    FB_SYM_SYMMETRIC,
    FB_SYM_SKEW /* A^T = -A (zero diagonal) */
} fb_symmetry;

typedef struct fb_csr_stats {
    int nrows, ncols;
    int64_t nnz;
    int row_min, row_max;
    double row_mean, row_stddev; /* population stddev of entries per row */
    int empty_rows;
    int64_t bandwidth; /* max |i - j| over stored entries */
    int64_t lower_bandwidth, upper_bandwidth;
    fb_symmetry symmetry;
    uint64_t hash; /* fb_csr_hash */
} fb_csr_stats;

/* ---- CSR ------------------------------------------------------------- */

/* Allocates the three arrays (zeroed); refuses shapes over the int limits. */
fb_status fb_csr_alloc(fb_csr *A, int64_t nrows, int64_t ncols, int64_t nnz);
void fb_csr_free(fb_csr *A);
fb_status fb_csr_copy(const fb_csr *A, fb_csr *out);

/* Builds CSR from n coordinate triples (0-based, in range): sorts each row
 * by column and sums duplicates, as every Matrix Market reader does. The
 * triples are not modified. Finite values can sum to infinity:
 * FB_ERR_INPUT "entry (i, j): duplicate entries sum to inf, ..." (1-based). */
fb_status fb_csr_from_coo(int64_t nrows, int64_t ncols, int64_t n, const int *row, const int *col, const double *val,
                          fb_csr *out);

/* Sorts every row by column and sums duplicate columns (rowptr may shrink);
 * FB_ERR_INPUT when a sum is not finite, as fb_csr_from_coo. */
fb_status fb_csr_canonicalize(fb_csr *A);

/* Position in values of the first value that is not finite in rows
 * [r0, r1), row-major, or -1; *row gets its row. */
int64_t fb_csr_first_nonfinite(const fb_csr *A, int r0, int r1, int *row);

/* Every entry stored, zeros included (a dense matrix is dense). */
fb_status fb_csr_from_dense(const fb_dense *X, fb_csr *out);

/* y = A x, serial, for tests and checks. */
void fb_csr_multiply(const fb_csr *A, const double *x, double *y);

/* Structural checks of the invariants above (FB_ERR_INPUT naming `what`). */
fb_status fb_csr_validate(const fb_csr *A, const char *what);

void fb_dense_free(fb_dense *X);

/* ---- BCSR ------------------------------------------------------------ */

/* Number of r x c blocks needed to hold A's pattern. fill = blocks*r*c/nnz
 * (OSKI's fill ratio; 1 means no explicit zeros were added). */
fb_status fb_csr_bcsr_count(const fb_csr *A, int r, int c, int64_t *nblocks, double *fill);

/* Blocks for every shape r x c, 1 <= r <= rmax, 1 <= c <= cmax, in one pass
 * per r: nblocks[(r - 1) * cmax + (c - 1)]. */
fb_status fb_csr_bcsr_fill_table(const fb_csr *A, int rmax, int cmax, int64_t *nblocks);

/* Converts A to r x c BCSR in AoS layout, 1 <= r, c <= FB_BCSR_MAX_BLOCK. */
fb_status fb_csr_to_bcsr(const fb_csr *A, int r, int c, fb_bcsr *out);

/* Rewrites the values in the other layout (same index structure). */
fb_status fb_bcsr_set_layout(fb_bcsr *B, fb_block_layout layout);

/* Value (i, j) of block b, whatever the layout. */
static inline double fb_bcsr_value(const fb_bcsr *B, int64_t b, int i, int j)
{
    if (B->layout == FB_BLOCK_AOS) return B->values[(b * B->r + i) * B->c + j];
    return B->values[(int64_t)(i * B->c + j) * B->nblocks + b];
}

double fb_bcsr_fill(const fb_bcsr *B);

/* y = B x over the padded shape (x: nbcols*c, y: nbrows*r), serial. */
void fb_bcsr_multiply(const fb_bcsr *B, const double *x, double *y);

void fb_bcsr_free(fb_bcsr *B);

/* ---- what can be said about a matrix ----------------------------------- */

fb_status fb_csr_stats_compute(const fb_csr *A, fb_csr_stats *out);

/* FNV-1a content hash of the shape, row pointers, column indices and value
 * bits. Arrays are hashed in fixed 1 MiB pieces (so threads can share the
 * work) and the piece hashes are hashed in order: the result depends on the
 * content only, never on the thread count. */
uint64_t fb_csr_hash(const fb_csr *A);

/* max |i - j| over stored entries (cheaper than fb_csr_stats_compute). */
int64_t fb_csr_bandwidth(const fb_csr *A);

const char *fb_symmetry_name(fb_symmetry s);

/* ---- reordering -------------------------------------------------------- */

/* Reverse Cuthill-McKee on the pattern of A + A^T (A square): perm[new] =
 * old. Each connected component starts from a pseudo-peripheral node
 * (George-Liu), neighbours are visited by increasing degree. */
fb_status fb_csr_rcm(const fb_csr *A, int *perm);

/* out = P A P^T with perm[new] = old (A square). */
fb_status fb_csr_permute(const fb_csr *A, const int *perm, fb_csr *out);

/* The bandwidth P A P^T would have under RCM's perm, without forming it:
 * what renumbering would give, for a hint (A square). */
fb_status fb_csr_rcm_bandwidth(const fb_csr *A, int64_t *bandwidth);

#endif
