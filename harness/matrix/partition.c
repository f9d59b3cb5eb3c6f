/* partition.c - METIS k-way partition of a node graph and one rank's part
 * of it (contracts in partition.h). */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

#ifdef FB_HAVE_MPI
#include <metis.h>
#endif

#ifdef FB_HAVE_MPI
/* METIS wants the graph without its diagonal, in its own index type. */
static fb_status metis_kway(const fb_csr *g, int nparts, int *part, int64_t *cut)
{
    fb_status status = FB_OK;
    idx_t n = g->nrows, ncon = 1, np = nparts, objval = 0;
    idx_t *xadj = NULL, *adj = NULL, *where = NULL;
    FB_ALLOC(xadj, (size_t)n + 1, "METIS row pointers");
    FB_ALLOC(adj, (size_t)g->nnz, "METIS adjacency");
    FB_ALLOC(where, (size_t)n, "METIS partition");
    int64_t k = 0;
    for (int i = 0; i < g->nrows; ++i) {
        xadj[i] = (idx_t)k;
        for (int e = g->rowptr[i]; e < g->rowptr[i + 1]; ++e)
            if (g->colidx[e] != i) adj[k++] = g->colidx[e];
    }
    xadj[n] = (idx_t)k;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1; /* the same partition on every rank and every run */
    options[METIS_OPTION_CONTIG] = 1;
    int rc = METIS_PartGraphKway(&n, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, options, &objval, where);
    if (rc != METIS_OK) {
        /* contiguous parts are not always possible (a disconnected mesh): retry without */
        options[METIS_OPTION_CONTIG] = 0;
        rc = METIS_PartGraphKway(&n, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, options, &objval, where);
    }
    if (rc != METIS_OK) FB_FAIL(FB_ERR_BACKEND, "METIS_PartGraphKway failed (code %d) for %d parts", rc, nparts);
    for (int i = 0; i < g->nrows; ++i)
        part[i] = (int)where[i];
    if (cut) *cut = objval;
fail:
    free(xadj);
    free(adj);
    free(where);
    return status;
}
#endif

fb_status fb_partition_graph(const fb_csr *graph, int nparts, int *part, int64_t *cut)
{
    fb_status status = FB_OK;
    int *count = NULL;
    if (cut) *cut = 0;
    if (nparts < 1 || nparts > graph->nrows)
        FB_FAIL(FB_ERR_USAGE, "%d nodes cannot be split among %d ranks", graph->nrows, nparts);
    if (nparts == 1) {
        memset(part, 0, sizeof *part * (size_t)graph->nrows);
        return FB_OK;
    }
#ifdef FB_HAVE_MPI
    FB_CHECK(metis_kway(graph, nparts, part, cut));
#else
    FB_FAIL(FB_ERR_UNAVAILABLE, "partitioning into %d parts needs METIS (built without FLOWBENCH_MPI)", nparts);
#endif
    FB_ALLOC(count, nparts, "part sizes");
    for (int i = 0; i < graph->nrows; ++i)
        count[part[i]]++;
    for (int r = 0; r < nparts; ++r)
        if (count[r] == 0)
            FB_FAIL(FB_ERR_USAGE, "%d nodes cannot be split among %d ranks (METIS left rank %d empty)", graph->nrows,
                    nparts, r);
fail:
    free(count);
    return status;
}

/* Owned nodes, then halo nodes grouped by owner: l2g and g2l. */
static fb_status number_nodes(const fb_csr *g, const int *part, int rank, fb_local_part *lp)
{
    fb_status status = FB_OK;
    const int n = g->nrows;
    FB_ALLOC(lp->g2l, n, "global-to-local numbers");
    for (int i = 0; i < n; ++i)
        lp->g2l[i] = -1;
    int nlocal = 0;
    for (int i = 0; i < n; ++i)
        if (part[i] == rank) lp->g2l[i] = nlocal++;
    lp->nown = nlocal;
    for (int i = 0; i < n; ++i) /* mark the halo: -2 until numbered */
        if (part[i] == rank)
            for (int e = g->rowptr[i]; e < g->rowptr[i + 1]; ++e)
                if (part[g->colidx[e]] != rank) lp->g2l[g->colidx[e]] = -2;
    for (int q = 0; q < lp->nparts; ++q)
        for (int i = 0; i < n; ++i)
            if (lp->g2l[i] == -2 && part[i] == q) lp->g2l[i] = nlocal++;
    lp->nlocal = nlocal;
    FB_ALLOC(lp->l2g, nlocal, "local-to-global numbers");
    for (int i = 0; i < n; ++i)
        if (lp->g2l[i] >= 0) lp->l2g[lp->g2l[i]] = i;
fail:
    return status;
}

/* Does owned node i (global) have a neighbour owned by q? */
static int touches(const fb_csr *g, const int *part, int i, int q)
{
    for (int e = g->rowptr[i]; e < g->rowptr[i + 1]; ++e)
        if (part[g->colidx[e]] == q) return 1;
    return 0;
}

/* The exchange lists: from q we receive our halo nodes q owns (in local
 * order, which is q's global order); to q we send our owned nodes next
 * to one of q's, by global number: the same list q builds as its receive
 * list from us. */
static fb_status build_halo(const fb_csr *g, const int *part, fb_local_part *lp)
{
    fb_status status = FB_OK;
    fb_halo *h = &lp->halo;
    int *nrecv = NULL;
    FB_ALLOC(nrecv, lp->nparts, "halo counts");
    for (int l = lp->nown; l < lp->nlocal; ++l)
        nrecv[part[lp->l2g[l]]]++;
    int nk = 0, nsend = 0;
    for (int q = 0; q < lp->nparts; ++q)
        nk += nrecv[q] > 0;
    FB_ALLOC(h->rank, nk ? nk : 1, "halo neighbours");
    FB_ALLOC(h->recv_start, nk + 1, "halo receive offsets");
    FB_ALLOC(h->send_start, nk + 1, "halo send offsets");
    FB_ALLOC(h->recv_idx, lp->nlocal - lp->nown + 1, "halo receive list");
    for (int q = 0, k = 0; q < lp->nparts; ++q)
        if (nrecv[q]) h->rank[k++] = q;
    h->nneighbours = nk;
    for (int k = 0, off = 0; k < nk; ++k) {
        h->recv_start[k] = off;
        off += nrecv[h->rank[k]];
        h->recv_start[k + 1] = off;
    }
    for (int l = lp->nown; l < lp->nlocal; ++l)
        h->recv_idx[l - lp->nown] = l;
    for (int k = 0; k < nk; ++k)
        for (int l = 0; l < lp->nown; ++l)
            nsend += touches(g, part, lp->l2g[l], h->rank[k]);
    FB_ALLOC(h->send_idx, nsend + 1, "halo send list");
    for (int k = 0, s = 0; k < nk; ++k) {
        h->send_start[k] = s;
        for (int l = 0; l < lp->nown; ++l)
            if (touches(g, part, lp->l2g[l], h->rank[k])) h->send_idx[s++] = l;
        h->send_start[k + 1] = s;
    }
fail:
    free(nrecv);
    return status;
}

static fb_status find_border(const fb_csr *g, const int *part, fb_local_part *lp)
{
    fb_status status = FB_OK;
    FB_ALLOC(lp->border, lp->nown + 1, "border rows");
    lp->nborder = 0;
    for (int l = 0; l < lp->nown; ++l) {
        int i = lp->l2g[l], foreign = 0;
        for (int e = g->rowptr[i]; e < g->rowptr[i + 1] && !foreign; ++e)
            foreign = part[g->colidx[e]] != lp->rank;
        if (foreign) lp->border[lp->nborder++] = l;
    }
fail:
    return status;
}

fb_status fb_local_part_build(const fb_csr *graph, const int *part, int nparts, int rank, fb_local_part *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    out->rank = rank, out->nparts = nparts, out->nglobal = graph->nrows;
    FB_CHECK(number_nodes(graph, part, rank, out));
    FB_CHECK(build_halo(graph, part, out));
    FB_CHECK(find_border(graph, part, out));
fail:
    if (status != FB_OK) fb_local_part_free(out);
    return status;
}

/* Does the tetrahedron with nodes v[0..3] have a node this rank owns? */
static int has_owned(const fb_local_part *lp, const int *v)
{
    for (int a = 0; a < 4; ++a)
        if (lp->g2l[v[a]] >= 0 && lp->g2l[v[a]] < lp->nown) return 1;
    return 0;
}

fb_status fb_mesh_restrict(const fb_mesh *m, const fb_local_part *lp, fb_mesh *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    int64_t nt = 0;
    for (int64_t t = 0; t < m->ntets; ++t)
        nt += has_owned(lp, m->tets + 4 * t);
    FB_ALLOC(out->xyz, 3 * (size_t)lp->nlocal, "local mesh coordinates");
    FB_ALLOC(out->tets, 4 * (size_t)(nt ? nt : 1), "local mesh tetrahedra");
    out->nnodes = lp->nlocal;
    for (int l = 0; l < lp->nlocal; ++l)
        memcpy(out->xyz + 3 * (int64_t)l, m->xyz + 3 * (int64_t)lp->l2g[l], 3 * sizeof(double));
    for (int64_t t = 0, k = 0; t < m->ntets; ++t) {
        const int *v = m->tets + 4 * t;
        if (!has_owned(lp, v)) continue;
        for (int a = 0; a < 4; ++a) /* every node of such a tet is owned or in the halo (a tet is a clique) */
            out->tets[4 * k + a] = lp->g2l[v[a]];
        ++k;
    }
    out->ntets = (int)nt;
fail:
    if (status != FB_OK) fb_mesh_free(out);
    return status;
}

void fb_local_part_free(fb_local_part *lp)
{
    free(lp->l2g);
    free(lp->g2l);
    free(lp->border);
    fb_halo_free(&lp->halo);
    memset(lp, 0, sizeof *lp);
}
