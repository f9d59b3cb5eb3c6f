/* source.h - SRC, the one way every command names a matrix.
 *
 *   SRC      := BASE { ":" OPTION }
 *   BASE     := PATH.mtx | PATH.mtx.gz | PATH.mm | PATH.msh | PATH.su2
 *             | gen:cube:N | gen:cube:level=0|1|2
 *   OPTION   := block=K            K x K BCSR, K = 1..5; on a mesh every
 *                                  node coupling becomes a dense K x K block
 *                                  (fb_csr_kron_block), on a .mtx matrix the
 *                                  scalar matrix is blocked as it is
 *             | matrix=laplacian   meshes: the P1 Laplacian (default)
 *             | matrix=graph       meshes: the node graph, values 1
 *             | reader=cholmod     .mtx: read with CHOLMOD instead
 *             | reorder=rcm|none   renumber by reverse Cuthill-McKee first
 *                                  (as the option reorder_rcm, which a single
 *                                  run's --reorder rcm sets; in SRC a plan,
 *                                  a suite or tune can name the order too)
 *
 * Options are recognised from the right, so a path may contain ':' as
 * long as its last piece is not KEY=VALUE with a known key.
 * Reordering renumbers with reverse Cuthill-McKee before blocking (on a
 * mesh: the nodes, so blocks stay per node).
 */
#ifndef FB_MATRIX_SOURCE_H
#define FB_MATRIX_SOURCE_H

#include "csr.h"

typedef struct fb_matrix {
    char source[512];              /* SRC as given */
    char origin[96];               /* "matrix market (coordinate real symmetric)", "gmsh mesh", "gen:cube" ... */
    fb_csr A;                      /* scalar CSR: what info and export show */
    int block;                     /* K of :block=K, 0 without */
    fb_bcsr B;                     /* K x K BCSR of A in AoS layout (block > 0) */
    int is_vector;                 /* an n x 1 Matrix Market array */
    int64_t mesh_nodes, mesh_tets; /* from a mesh, else 0 */
    int reordered;                 /* RCM was applied */
    int order_named;               /* SRC named an order (reorder=rcm or reorder=none) */
    int symmetric;                 /* A equals its transpose, value for value (set by the spmv problem) */
    int64_t bandwidth_before;      /* of the scalar matrix before RCM */
    double load_seconds;           /* reading and building, wall clock */
} fb_matrix;

typedef struct fb_matrix_options {
    int reorder_rcm;
} fb_matrix_options;

/* The options a SRC may end in, in the order of their keys' table. */
typedef enum { FB_SRC_BLOCK, FB_SRC_MATRIX, FB_SRC_READER, FB_SRC_REORDER, FB_SRC_NOPTIONS } fb_source_option;

/* Which option the piece after a ':' is ("reorder=rcm": FB_SRC_REORDER),
 * -1 for none; *value, when not NULL, is set to the text after its '='.
 * The one reading of the keys, for the loader and for whoever cuts options
 * off a name (spmv_record.c). */
int fb_source_option_of(const char *piece, const char **value);

/* Resolves SRC and builds the matrix. Errors: FB_ERR_USAGE for a bad spec,
 * FB_ERR_INPUT / FB_ERR_IO for bad or missing files, FB_ERR_NOMEM. */
fb_status fb_matrix_load(const char *src, const fb_matrix_options *opt, fb_matrix *out);
void fb_matrix_free(fb_matrix *m);

#endif
