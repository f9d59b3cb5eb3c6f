/* partition.h - a mesh's node graph split among ranks (METIS k-way), and
 * one rank's part of it: the nodes it owns, one layer of halo nodes (the
 * neighbours it reads but another rank owns), the tetrahedra it needs to
 * assemble its own rows completely, and the halo exchange pattern.
 *
 * Local numbering: owned nodes first, by increasing global number; then
 * the halo, grouped by owning rank (increasing) and by global number
 * within a group. Every rank derives the same lists from the same global
 * graph and partition, so the shared nodes are listed in the same order
 * on both sides of an exchange and no index travels at run time.
 */
#ifndef FB_MATRIX_PARTITION_H
#define FB_MATRIX_PARTITION_H

#include "comm.h"
#include "csr.h"
#include "mesh.h"

/* part[i] = the rank that owns node i (graph->nrows entries) for nparts
 * parts: METIS_PartGraphKway with a fixed seed (the same answer on every
 * rank and run), every part non-empty, else FB_ERR_USAGE ("N nodes cannot
 * be split among P ranks"). FB_ERR_UNAVAILABLE for nparts > 1 in a build
 * without METIS. *cut = edges cut (may be NULL). */
fb_status fb_partition_graph(const fb_csr *graph, int nparts, int *part, int64_t *cut);

typedef struct fb_local_part {
    int rank, nparts;
    int nglobal;
    int nown, nlocal; /* owned nodes are 0 .. nown-1, halo nodes nown .. nlocal-1 */
    int *l2g;         /* nlocal: global number of each local node */
    int *g2l;         /* nglobal: local number, -1 where not local */
    int *border;      /* owned nodes with a halo neighbour (their rows wait for the exchange) */
    int nborder;
    fb_halo halo; /* recv_idx: the halo nodes; send_idx: owned nodes a neighbour reads */
} fb_local_part;

/* Rank `rank`'s part of graph (symmetric, diagonal optional) under part. */
fb_status fb_local_part_build(const fb_csr *graph, const int *part, int nparts, int rank, fb_local_part *out);

/* The mesh this rank assembles on: its local nodes (local numbering) and
 * every tetrahedron with an owned node, so owned rows get every element
 * contribution and halo rows get only some (they are never used: the
 * exchange overwrites halo values). */
fb_status fb_mesh_restrict(const fb_mesh *m, const fb_local_part *lp, fb_mesh *out);

void fb_local_part_free(fb_local_part *lp);

#endif
