/* signature.h - what tuned parameters depend on in a problem, as a value:
 * each family gives its problem's signature (fb_family.signature), the
 * tuning cache (tune/cache.h) keys and compares entries by it and the
 * prior (tune/prior.h) reads a matrix's features from it; no family's
 * record object is read back for it.
 *
 * A signature is of one kind, the kind of problem its family runs on:
 *   matrix  spmv: rows, nnz, entries per row (mean, stddev, max), block size
 *   grid    heat2d, fv-surface: nx, ny, nz (1 for 2D), stretch
 *   mesh    the solver's kernels ("ns"): nodes, directed edges, neighbours
 *           per node (mean, stddev, max)
 */
#ifndef FB_BENCH_SIGNATURE_H
#define FB_BENCH_SIGNATURE_H

typedef enum fb_signature_kind { FB_SIGNATURE_MATRIX, FB_SIGNATURE_GRID, FB_SIGNATURE_MESH } fb_signature_kind;

/* What the tuned parameters depend on in a matrix. */
typedef struct fb_matrix_signature {
    long long rows, nnz;
    double row_mean, row_stddev, row_max; /* stored entries per row */
    int block;                            /* BCSR block size, 1 for CSR */
    double block_fill; /* stored / structural entries of the blocks (1 for CSR): the prior reads it; no part of
                          the cache's key, and 0 in a signature read from a cache file */
} fb_matrix_signature;

/* ... in a structured grid: its extent along each axis and its stretch. */
typedef struct fb_grid_signature {
    long long nx, ny, nz; /* cells per axis, each >= 1; nz = 1 for a 2D grid */
    double stretch;       /* widest / narrowest cell, >= 1; 1 for a uniform grid */
} fb_grid_signature;

/* ... in the solver's mesh: the edge graph its kernels walk, a node per
 * work-item. */
typedef struct fb_mesh_signature {
    long long nodes, edges;                        /* edges: directed, J != I */
    double degree_mean, degree_stddev, degree_max; /* neighbours per node */
} fb_mesh_signature;

typedef struct fb_signature {
    fb_signature_kind kind;
    union {
        fb_matrix_signature matrix;
        fb_grid_signature grid;
        fb_mesh_signature mesh;
    };
} fb_signature;

/* A mesh's signature from its pressure matrix's row statistics (a row per
 * node: its neighbours and the diagonal), the way the solver computes it
 * and the way entries stored before signatures had kinds are read back,
 * so both agree to the bit on the same mesh. */
static inline fb_mesh_signature fb_mesh_signature_of_rows(long long rows, long long nnz, double row_mean,
                                                          double row_stddev, double row_max)
{
    return (fb_mesh_signature){rows, nnz - rows, row_mean - 1, row_stddev, row_max - 1};
}

#endif
