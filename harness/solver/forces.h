/* forces.h - the force a flow exerts on a wall (the Ahmed body's drag and
 * lift), from a P1 solution on a tetrahedral mesh, and the boundary faces of
 * such a mesh.
 *
 * Sign convention. Each boundary face belongs to one fluid tetrahedron (its
 * owner). The face's area vector S = A n has n pointing OUT OF THE OWNING
 * TETRAHEDRON, i.e. out of the fluid and into the wall or body. With
 * density 1 and stress sigma = -p I + tau, tau = nu (grad u + grad u^T), the
 * force the fluid exerts on the surface is
 *
 *   F = -integral sigma n dA = integral (p n - tau n) dA
 *
 * so a positive pressure pushes the body along n (inwards), and a flow along
 * +x over a wall drags the wall along +x. Pressures are kinematic
 * (pressure / density), so F is a force per unit density: multiply by rho
 * for newtons. */
#ifndef FB_SOLVER_FORCES_H
#define FB_SOLVER_FORCES_H

#include "core/status.h"
#include "matrix/mesh.h"

/* The force the fluid exerts on the surface made of `nfaces` boundary faces
 * (node triples face_nodes[3 f .. 3 f + 2], owned by tetrahedron
 * face_tet[f]; the order of a face's nodes does not matter: the orientation
 * comes from the owner). u is 3 per node, interleaved (u0 v0 w0 u1 ...); p
 * is one per node.
 *
 *   f_pressure = sum over faces of mean(p at the 3 nodes) * A n
 *                (exact for P1 pressure);
 *   f_viscous  = -sum over faces of tau(owner) A n, with the owner's
 *                constant P1 velocity gradient.
 *
 * Errors (FB_ERR_INPUT, naming the face): a node or owner index out of
 * range, a repeated node, a face node that is not a node of its owner, a
 * degenerate owner. Outputs are written only on success. */
fb_status fb_surface_force(const fb_mesh *m, const int *face_nodes, const int *face_tet, int nfaces, const double *u,
                           const double *p, double nu, double f_pressure[3], double f_viscous[3]);

/* Drag and lift coefficients of a force f: cd = f_x / (rho U^2 area / 2),
 * cl = f_z / (rho U^2 area / 2) (drag along +x, the free-stream direction;
 * lift along +z, up). Pass rho = 1 for the kinematic forces above. */
void fb_force_coefficients(const double f[3], double rho, double U, double area, double *cd, double *cl);

/* Every boundary face of a tetrahedral mesh: the faces that belong to one
 * tetrahedron only. On success *face_nodes (3 per face) and *face_tet (the
 * owner) are new arrays the caller frees, and the nodes of each face are
 * ordered so that (x1 - x0) x (x2 - x0) points out of the owner (out of
 * the fluid). A face shared by more than two tetrahedra is an FB_ERR_INPUT
 * (a non-manifold mesh). Faces are listed in the order of their sorted node
 * triples, independent of the tetrahedron order. */
fb_status fb_mesh_boundary_faces(const fb_mesh *m, int **face_nodes, int **face_tet, int *nfaces);

#endif
