/* mesh.h - linear tetrahedral meshes, where CFD matrices come from: the
 * generated unit cube (`gen:cube:N`), Gmsh `.msh` (ASCII 2.2 and 4.1) and
 * SU2 native `.su2` files, and the matrices built on them (fem.c): the node
 * graph and the P1 finite-element Laplacian.
 *
 * Readers keep the nodes that tetrahedra use, numbered in the order the
 * file lists them (nodes only on lower-dimensional entities, if any, are
 * dropped: they would be empty rows). Points, lines, triangles and quads
 * are skipped (boundary elements); any other volume element (hexahedra,
 * prisms, pyramids, second-order tetrahedra) is refused with its line.
 */
#ifndef FB_MATRIX_MESH_H
#define FB_MATRIX_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"

typedef struct fb_mesh {
    int nnodes, ntets;
    double *xyz; /* 3 per node */
    int *tets;   /* 4 per tetrahedron, 0-based node numbers */
} fb_mesh;

/* ---- the generated cube ------------------------------------------------ */

/* The unit cube as N x N x N nodes (N >= 2), each of the (N-1)^3 cells cut
 * into 6 tetrahedra around its main diagonal (Kuhn / Freudenthal), the
 * same way in every cell, so the mesh is conforming and refining N -> 2N-1
 * is the 8-way split of every tetrahedron. Exact counts: N^3 nodes,
 * 6 (N-1)^3 tetrahedra, node-graph nonzeros fb_mesh_cube_nnz(N). */
fb_status fb_mesh_cube(int n, fb_mesh *out);
int64_t fb_mesh_cube_nnz(int64_t n);

/* N of the cavity benchmark's refinement levels 0, 1, 2: 15, 29, 57
 * (N = 14 * 2^level + 1); 0 for another level. */
int fb_mesh_cube_level(int level);

/* ---- files ------------------------------------------------------------- */

/* By extension (format.h): .msh (Gmsh) or .su2. */
fb_status fb_mesh_read(const char *path, fb_mesh *out);
fb_status fb_mesh_read_gmsh(const char *path, fb_mesh *out);
fb_status fb_mesh_read_su2(const char *path, fb_mesh *out);
fb_status fb_mesh_read_gmsh_memory(const char *name, const void *data, size_t n, fb_mesh *out);
fb_status fb_mesh_read_su2_memory(const char *name, const void *data, size_t n, fb_mesh *out);

void fb_mesh_free(fb_mesh *m);

/* ---- matrices on a mesh (fem.c) ---------------------------------------- */

/* Gradients of the 4 barycentric (P1) functions of tetrahedron t,
 * g[a][k] = dN_a/dx_k, and its signed volume (negative for a left-handed
 * vertex order): the element quantities of every P1 operator. */
double fb_tet_gradients(const fb_mesh *m, int64_t t, double g[4][3]);

/* FB_ERR_INPUT "tetrahedron #T (in file order) has zero volume: corners
 * ..." for the first tetrahedron of zero (or non-finite) volume; the
 * caller prefixes the file's name. */
fb_status fb_mesh_check_volumes(const fb_mesh *m);

/* Node adjacency including the diagonal, every value 1 (the pattern of
 * every P1 operator on the mesh). */
fb_status fb_mesh_graph(const fb_mesh *m, fb_csr *out);

/* The P1 stiffness matrix K_ij = sum over tetrahedra of vol * grad(phi_i) .
 * grad(phi_j): symmetric, zero row sums, positive diagonal. Its pattern is
 * the node graph (entries that cancel to 0 are kept as structure). A
 * zero-volume tetrahedron is refused. */
fb_status fb_mesh_laplacian(const fb_mesh *m, fb_csr *out);

/* A (x) M with the fixed dense K x K block M_ab = 1 / (1 + |a - b|): every
 * scalar coupling becomes a dense K x K block, as in a coupled solver with
 * K unknowns per node (4: u, v, w, p; 5: compressible). Symmetric A stays
 * symmetric, zero row sums stay zero. */
fb_status fb_csr_kron_block(const fb_csr *A, int k, fb_csr *out);

#endif
