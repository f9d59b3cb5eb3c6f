/* ns_order.h - the node order the device solver holds (RENUMBER in
 * kernels/ns/ns_kernels.h) and the edge coefficients in the layout its
 * kernels read (EDGE_LAYOUT). The host solver keeps the mesh's order; the
 * device driver (ns_device.c) gathers every node array into the device's
 * order on upload and scatters it back on download, so the renumbering
 * changes where data lives and the order of sums, nothing else.
 *
 * Why renumber: in gather form a work-item reads its neighbours' values,
 * so the spread of neighbour indices decides how many cache lines (GPU:
 * sectors) a group touches (reverse Cuthill-McKee narrows the band); and a
 * GPU runs a warp as long as its longest edge row (ordering by neighbour
 * count makes the rows of a warp equally long, as the paper's
 * implementation does). Which wins is measured (docs/solver.md).
 *
 * On several ranks (ns_dist.h) a rank's node arrays hold its owned nodes
 * 0..nown-1 then its halo nodes; only the owned rows are computed. The
 * order permutes the owned nodes among themselves (by the graph between
 * them) and keeps every halo node where it is, so the halo exchange's
 * receive slots and the columns that point into the halo are unchanged;
 * on one process nown = n and nothing differs. */
#ifndef FB_SOLVER_NS_ORDER_H
#define FB_SOLVER_NS_ORDER_H

#include "solver/ns.h"

enum { FB_NS_ORDER_MESH, FB_NS_ORDER_RCM, FB_NS_ORDER_DEGREE };

typedef struct fb_ns_order {
    int n;             /* node entries: owned and halo (ns->mesh->nnodes) */
    int nown;          /* the rows: owned nodes 0..nown-1 (ns->E.n), the only ones permuted */
    int nedges;        /* edges of the owned rows */
    int *perm;         /* perm[new] = old, n entries (the identity past nown); NULL for the mesh's order */
    int *inv;          /* inv[old] = new; NULL for the mesh's order */
    int *rowptr, *col; /* the owned rows in the new order, columns sorted (the solver's own arrays when perm is NULL) */
    int *emap;         /* emap[new edge] = old edge; NULL for the mesh's order */
    int owns_structure; /* rowptr and col are copies */
} fb_ns_order;

/* The order method (FB_NS_ORDER_*) gives on the graph of ns's owned rows. */
fb_status fb_ns_order_build(const fb_ns *ns, int method, fb_ns_order *o);

/* The new number of old node i, and the old number of new node r. */
int fb_ns_order_new(const fb_ns_order *o, int i);
int fb_ns_order_old(const fb_ns_order *o, int r);

/* out[width r + c] = in[width perm[r] + c]: a node array (n entries) into the new order. */
void fb_ns_order_gather(const fb_ns_order *o, const double *in, int width, double *out);

/* out[width perm[r] + c] = in[width r + c]: back into the mesh's order. */
void fb_ns_order_scatter(const fb_ns_order *o, const double *in, int width, double *out);

/* The edge coefficients the kernels read, in the new order: packed 0 gives
 * three arrays (nd 3, dn 3, ls 6 per edge) in *nd, *dn, *ls; packed 1 one
 * array of 16 per edge (nd at 0, dn at 3, ls at 6, 4 zeros) in *nd, with
 * *dn and *ls NULL. The caller frees what is returned. */
fb_status fb_ns_order_edge_data(const fb_ns_order *o, const fb_ns *ns, int packed, double **nd, double **dn,
                                double **ls);

void fb_ns_order_free(fb_ns_order *o);

#endif
