/* ns_order.c - the device solver's node order and edge layout (contracts
 * in ns_order.h). */
#include "solver/ns_order.h"

#include <stdlib.h>
#include <string.h>

#include "matrix/csr.h"

/* perm[new] = old by increasing neighbour count, the mesh's order kept
 * among equals (a stable counting sort: nodes of one degree stay as close
 * as the mesh had them). */
static fb_status order_by_degree(const fb_ns *ns, int *perm)
{
    fb_status status = FB_OK;
    const int n = ns->E.n; /* the owned rows; a row's length counts its halo columns too */
    int maxdeg = 0, *start = NULL;
    for (int i = 0; i < n; ++i)
        if (ns->rowptr[i + 1] - ns->rowptr[i] > maxdeg) maxdeg = ns->rowptr[i + 1] - ns->rowptr[i];
    FB_ALLOC(start, maxdeg + 2, "the degree histogram");
    for (int i = 0; i < n; ++i)
        ++start[ns->rowptr[i + 1] - ns->rowptr[i] + 1];
    for (int d = 1; d <= maxdeg + 1; ++d)
        start[d] += start[d - 1];
    for (int i = 0; i < n; ++i)
        perm[start[ns->rowptr[i + 1] - ns->rowptr[i]]++] = i;
fail:
    free(start);
    return status;
}

/* RCM on the graph between the owned nodes (all nodes on one process):
 * the pattern, without values, is all it reads. */
static fb_status order_rcm(const fb_ns *ns, int *perm)
{
    fb_status status = FB_OK;
    const int n = ns->E.n;
    fb_csr owned = {n, n, 0, NULL, NULL, NULL};
    FB_ALLOC(owned.rowptr, n + 1, "the owned rows' pattern");
    FB_ALLOC(owned.colidx, ns->rowptr[n] > 0 ? ns->rowptr[n] : 1, "the owned rows' columns");
    for (int i = 0; i < n; ++i) {
        owned.rowptr[i + 1] = owned.rowptr[i];
        for (int e = ns->rowptr[i]; e < ns->rowptr[i + 1]; ++e)
            if (ns->col[e] < n) owned.colidx[owned.rowptr[i + 1]++] = ns->col[e];
    }
    owned.nnz = owned.rowptr[n];
    FB_CHECK(fb_csr_rcm(&owned, perm));
fail:
    free(owned.rowptr), free(owned.colidx);
    return status;
}

static int compare_pairs(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Row r of the new order: old row perm[r]'s edges with their columns
 * renumbered and sorted; emap keeps where each came from. */
static void renumber_row(fb_ns_order *o, const fb_ns *ns, int r, int (*pairs)[2])
{
    const int i = o->perm[r], begin = ns->rowptr[i], len = ns->rowptr[i + 1] - begin;
    for (int k = 0; k < len; ++k)
        pairs[k][0] = o->inv[ns->col[begin + k]], pairs[k][1] = begin + k;
    qsort(pairs, (size_t)len, sizeof *pairs, compare_pairs);
    for (int k = 0; k < len; ++k)
        o->col[o->rowptr[r] + k] = pairs[k][0], o->emap[o->rowptr[r] + k] = pairs[k][1];
    o->rowptr[r + 1] = o->rowptr[r] + len;
}

static fb_status renumber_edges(fb_ns_order *o, const fb_ns *ns)
{
    fb_status status = FB_OK;
    int maxdeg = 0, (*pairs)[2] = NULL;
    for (int i = 0; i < o->nown; ++i)
        if (ns->rowptr[i + 1] - ns->rowptr[i] > maxdeg) maxdeg = ns->rowptr[i + 1] - ns->rowptr[i];
    FB_ALLOC(o->rowptr, o->nown + 1, "the renumbered edge rows");
    FB_ALLOC(o->col, o->nedges, "the renumbered edge columns");
    FB_ALLOC(o->emap, o->nedges, "the edge map");
    FB_ALLOC(pairs, maxdeg, "a row's edges");
    o->owns_structure = 1;
    for (int r = 0; r < o->nown; ++r)
        renumber_row(o, ns, r, pairs);
fail:
    free(pairs);
    return status;
}

fb_status fb_ns_order_build(const fb_ns *ns, int method, fb_ns_order *o)
{
    fb_status status = FB_OK;
    memset(o, 0, sizeof *o);
    /* owned rows first: their edges are the front of the edge arrays */
    o->n = ns->mesh->nnodes, o->nown = ns->E.n, o->nedges = ns->rowptr[ns->E.n];
    if (method == FB_NS_ORDER_MESH) {
        o->rowptr = ns->rowptr, o->col = ns->col;
        return FB_OK;
    }
    if (method != FB_NS_ORDER_RCM && method != FB_NS_ORDER_DEGREE)
        FB_FAIL(FB_ERR_USAGE, "solver: RENUMBER=%d is not 0, 1 or 2", method);
    FB_ALLOC(o->perm, o->n, "the node permutation");
    FB_ALLOC(o->inv, o->n, "the inverse node permutation");
    FB_CHECK(method == FB_NS_ORDER_RCM ? order_rcm(ns, o->perm) : order_by_degree(ns, o->perm));
    for (int r = o->nown; r < o->n; ++r) /* the halo stays where the exchange writes it */
        o->perm[r] = r;
    for (int r = 0; r < o->n; ++r)
        o->inv[o->perm[r]] = r;
    FB_CHECK(renumber_edges(o, ns));
    return FB_OK;
fail:
    fb_ns_order_free(o);
    return status;
}

int fb_ns_order_new(const fb_ns_order *o, int i) { return o->inv ? o->inv[i] : i; }

int fb_ns_order_old(const fb_ns_order *o, int r) { return o->perm ? o->perm[r] : r; }

void fb_ns_order_gather(const fb_ns_order *o, const double *in, int width, double *out)
{
    for (int r = 0; r < o->n; ++r)
        for (int c = 0; c < width; ++c)
            out[(size_t)width * r + c] = in[(size_t)width * fb_ns_order_old(o, r) + c];
}

void fb_ns_order_scatter(const fb_ns_order *o, const double *in, int width, double *out)
{
    for (int r = 0; r < o->n; ++r)
        for (int c = 0; c < width; ++c)
            out[(size_t)width * fb_ns_order_old(o, r) + c] = in[(size_t)width * r + c];
}

/* dst[stride e + at + c] = src[width old(e) + c] for c < width. */
static void place_edges(const fb_ns_order *o, const double *src, int width, double *dst, int stride, int at)
{
    for (int e = 0; e < o->nedges; ++e) {
        const int from = o->emap ? o->emap[e] : e;
        for (int c = 0; c < width; ++c)
            dst[(size_t)stride * e + at + c] = src[(size_t)width * from + c];
    }
}

fb_status fb_ns_order_edge_data(const fb_ns_order *o, const fb_ns *ns, int packed, double **nd, double **dn,
                                double **ls)
{
    fb_status status = FB_OK;
    const size_t e = (size_t)o->nedges;
    *nd = *dn = *ls = NULL;
    if (packed) {
        FB_ALLOC(*nd, 16 * e, "the packed edge records");
        place_edges(o, ns->nd, 3, *nd, 16, 0);
        place_edges(o, ns->dn, 3, *nd, 16, 3);
        place_edges(o, ns->ls, 6, *nd, 16, 6);
        return FB_OK;
    }
    FB_ALLOC(*nd, 3 * e, "the edge coefficients nd");
    FB_ALLOC(*dn, 3 * e, "the edge coefficients dn");
    FB_ALLOC(*ls, 6 * e, "the edge coefficients ls");
    place_edges(o, ns->nd, 3, *nd, 3, 0);
    place_edges(o, ns->dn, 3, *dn, 3, 0);
    place_edges(o, ns->ls, 6, *ls, 6, 0);
    return FB_OK;
fail:
    free(*nd), free(*dn), free(*ls);
    *nd = *dn = *ls = NULL;
    return status;
}

void fb_ns_order_free(fb_ns_order *o)
{
    if (o->owns_structure) free(o->rowptr), free(o->col);
    free(o->perm), free(o->inv), free(o->emap);
    memset(o, 0, sizeof *o);
}
