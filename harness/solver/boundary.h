/* boundary.h - the boundary of a tetrahedral mesh as the Navier-Stokes
 * solver needs it: boundary faces (faces of exactly one tetrahedron) with
 * outward area vectors, each tagged with a condition by the case, and per
 * node the condition that wins, the nodal normals and the node lists the
 * time loop walks.
 *
 * Where faces of different kinds meet (the cavity lid's edges, the
 * tunnel's corners) the node takes the kind of highest priority, in the
 * order of the enum: WALL (no-slip, u = 0) beats VELOCITY (a prescribed
 * velocity: lid, inlet, an exact solution) beats SLIP (u . n = 0) beats
 * OUTLET (velocity free). So the cavity lid's boundary edges are walls,
 * which keeps the cavity closed: no mass crosses the side walls. A node
 * on any OUTLET face has its pressure fixed as well, whatever its velocity
 * kind. */
#ifndef FB_SOLVER_BOUNDARY_H
#define FB_SOLVER_BOUNDARY_H

#include "core/status.h"
#include "matrix/mesh.h"

typedef enum fb_bc_kind {
    FB_BC_FREE = 0, /* interior node, or no condition */
    FB_BC_OUTLET,   /* velocity free, pressure fixed */
    FB_BC_SLIP,     /* normal velocity zero */
    FB_BC_VELOCITY, /* velocity prescribed by the case */
    FB_BC_WALL,     /* velocity zero */
    FB_BC_NKINDS
} fb_bc_kind;

/* The condition of one boundary face, from its centroid and unit outward
 * normal. Must return one of FB_BC_OUTLET .. FB_BC_WALL. */
typedef fb_bc_kind (*fb_face_tag_fn)(void *ctx, const double centroid[3], const double unit_normal[3]);

typedef struct fb_boundary {
    int nnodes;
    int nfaces;
    int *face_nodes;           /* 3 per face, (x1-x0) x (x2-x0) points out of the domain */
    int *face_tet;             /* owning tetrahedron */
    unsigned char *face_kind;  /* fb_bc_kind per face */
    double *normal;            /* 3 per node: int_Gamma N_I n dA over every boundary face */
    unsigned char *kind;       /* fb_bc_kind per node */
    unsigned char *p_fixed;    /* 1 where the pressure is fixed */
    double *slip_normal;       /* 3 per node: unit normal of the node's slip faces (0 elsewhere) */
    int nfixed, *fixed;        /* nodes of kind WALL or VELOCITY, increasing */
    int nslip, *slip;          /* nodes of kind SLIP */
    int npfixed, *pfixed_list; /* nodes with p_fixed */
    int p_ref;                 /* pressure reference node, -1 if none */
    int count[FB_BC_NKINDS];   /* nodes of each kind */
} fb_boundary;

/* Finds the boundary faces of m and classifies faces and nodes with tag.
 * A tag outside OUTLET..WALL is an FB_ERR_INPUT naming the face. */
fb_status fb_boundary_build(const fb_mesh *m, fb_face_tag_fn tag, void *ctx, fb_boundary *out);

/* The pressure reference point of a domain without fixed-pressure faces
 * (every velocity given on the boundary: the pressure is defined up to a
 * constant). The solver solves the pressure equation in the compatible,
 * singular form and then shifts p so that p(node) takes the prescribed
 * value: the point fixes the level without removing the continuity
 * equation at that node (which would make it a mass source). */
fb_status fb_boundary_set_pressure_reference(fb_boundary *b, int node);

/* Centroid and area vector (area times unit normal, along
 * (x1-x0) x (x2-x0)) of the triangle with nodes f[0..2]. */
void fb_face_geometry(const fb_mesh *m, const int *f, double centroid[3], double area[3]);

const char *fb_bc_kind_name(fb_bc_kind k);

void fb_boundary_free(fb_boundary *b);

#endif
