/* ns_dist.h - the solver on several MPI ranks (docs/scaling.md).
 *
 * The mesh's node graph is split with METIS (rank 0 partitions, every
 * rank gets the same partition); each rank runs the one time step
 * (ns_step.c) on its part, on its backend (OpenMP twins or a device): its
 * owned nodes plus one layer of halo nodes, assembled from every
 * tetrahedron that touches an owned node, so the edge operators of owned
 * rows are complete. The kernels run over the owned rows only (ns->E.n =
 * owned nodes; columns reach into the halo). Before each edge loop, the
 * values it reads at neighbours are exchanged (ns_launch.c packs them on
 * the backend, fb_halo sends them); every sum and maximum is reduced
 * over ranks (fb_comm_allreduce), the pressure-reference shift here.
 *
 * Each rank keeps its part only; the fields come together on rank 0 only
 * at the end (fb_ns_dist_gather), for validation and output.
 */
#ifndef FB_SOLVER_NS_DIST_H
#define FB_SOLVER_NS_DIST_H

#include "matrix/partition.h"
#include "solver/ns.h"

typedef struct fb_ns_dist {
    fb_local_part lp;
    fb_mesh mesh;    /* this rank's nodes and tetrahedra, local numbering */
    fb_boundary bnd; /* the case's boundary restricted to the owned nodes */
    int64_t nglobal; /* nodes of the whole mesh */
    int64_t cut;     /* edges METIS cut */
    int has_ref;     /* the whole case has a pressure reference node */
    int has_fixed;   /* the whole case has fixed-pressure nodes */
} fb_ns_dist;

/* This rank's part of (m, bnd): partitions among all ranks, builds the
 * part and its local mesh and boundary (collective). fb_ns_init_part
 * (ns.h) then sets the solver up on it. */
fb_status fb_ns_dist_split(fb_ns_dist *d, const fb_mesh *m, const fb_boundary *bnd);

/* ---- what ns.c and ns_step.c call when ns->dist is set ---- */

/* The lowest mesh number of a node with a non-finite velocity over all
 * ranks (bad: this rank's lowest local one, or -1); -1 when none. */
int64_t fb_ns_dist_bad_node(fb_ns *ns, int bad);
/* The pressure reference: the shift the owner of the reference node
 * computed (prescribed minus current: mine, ignored on the other ranks),
 * the same on every rank. */
double fb_ns_dist_reference_shift(fb_ns *ns, double mine);

/* Per step, after fb_ns_step_done: the step times replaced by their
 * maximum over ranks (the step ends when its slowest rank does), the
 * max/min ratios, halo and reduction seconds, bytes and messages. */
void fb_ns_dist_step_done(fb_ns *ns, fb_ns_step_info *info);

/* Collective: u (3 per node) and p of the whole mesh on rank 0, in the
 * mesh's numbering (u_all, p_all: rank 0 only, nglobal entries). */
fb_status fb_ns_dist_gather(const fb_ns *ns, double *u_all, double *p_all);

void fb_ns_dist_free(fb_ns_dist *d);

#endif
