/* edge_ops.h - the edge-based finite-element operators of the
 * Navier-Stokes solver, precomputed once from the P1 tetrahedra.
 *
 * For every node I and every neighbour J != I (a node sharing a
 * tetrahedron with I) one "edge" IJ is stored, in a CSR-like layout with
 * 32-bit indices: rowptr[I] .. rowptr[I + 1] - 1 are I's edges, col[e] = J,
 * sorted. Both directions IJ and JI are stored (they differ). Per edge,
 * summed over the tetrahedra that hold both nodes (N the P1 basis):
 *
 *   mc[e]          = int N_I N_J                        (consistent mass)
 *   ld[9 e + 3k+l] = int dN_I/dx_k dN_J/dx_l            ("Ld", 3x3)
 *   nd[3 e + k]    = int N_I dN_J/dx_k                  ("nabla", Ni_DNj)
 *   dn[3 e + k]    = int dN_I/dx_k N_J                  ("G", DNi_Nj)
 *
 * and per node the lumped mass mass[I] = int N_I and the consistent mass
 * diagonal mc_diag[I] = int N_I^2. The diagonal terms of the other
 * operators are not stored: sum_J N_J = 1 gives zero row sums over all J
 * (J = I included) of ld and nd, so every operator is written in the
 * difference form sum_{J != I} c_IJ (v_J - v_I). dn's row sum is the
 * boundary integral int_Gamma N_I n (zero inside), see boundary.h.
 *
 * All quantities are exact integrals of P1 functions: int N_I N_J = vol/20
 * (vol/10 on the diagonal), int N_I = vol/4, gradients are constant.
 */
#ifndef FB_SOLVER_EDGE_OPS_H
#define FB_SOLVER_EDGE_OPS_H

#include <stdint.h>

#include "core/status.h"
#include "matrix/mesh.h"

typedef struct fb_edge_ops {
    int nnodes, nedges; /* nedges: directed edges, J != I */
    int *rowptr;        /* nnodes + 1 */
    int *col;           /* nedges, sorted per row */
    double *mc;         /* nedges */
    double *ld;         /* 9 nedges, row-major 3x3 per edge */
    double *nd;         /* 3 nedges */
    double *dn;         /* 3 nedges */
    double *mass;       /* nnodes: lumped mass int N_I */
    double *mc_diag;    /* nnodes: int N_I^2 */
} fb_edge_ops;

/* Builds the edge structure and operators of mesh m (tetrahedra of either
 * orientation). A zero-volume tetrahedron is refused (FB_ERR_INPUT, naming
 * it); more than
 * 2^31 - 1 edges is refused (32-bit indices). */
fb_status fb_edge_ops_build(const fb_mesh *m, fb_edge_ops *out);

/* The edge e of I -> J, or -1 when J is not a neighbour of I. */
int fb_edge_find(const fb_edge_ops *ops, int i, int j);

void fb_edge_ops_free(fb_edge_ops *ops);

/* fb_tet_gradients (matrix/mesh.h) gives each tetrahedron's P1 gradients
 * and signed volume, for the assembly here and in the tests. */

#endif
