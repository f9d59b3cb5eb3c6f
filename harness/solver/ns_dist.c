/* ns_dist.c - the solver's part on one of several ranks: partition, local
 * mesh and boundary, the exchanges and reductions ns.c calls, the
 * distributed pressure CG, and the gather at the end (contracts in
 * ns_dist.h). */
#include "solver/ns_dist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/measure.h"

/* Rank 0 partitions (METIS's answer does not depend on the rank, but one
 * answer broadcast cannot differ between hosts or library builds). */
static fb_status partition(const fb_mesh *m, fb_ns_dist *d, int **part)
{
    fb_status status = FB_OK;
    fb_csr graph = {0};
    int64_t head[2] = {FB_OK, 0}; /* rank 0's status and the cut */
    const int nranks = fb_comm_size();
    FB_ALLOC(*part, m->nnodes, "node partition");
    FB_CHECK(fb_mesh_graph(m, &graph));
    if (fb_comm_rank() == 0) head[0] = fb_partition_graph(&graph, nranks, *part, &head[1]);
    fb_comm_bcast(head, sizeof head, 0);
    if (head[0] != FB_OK) {
        /* every rank fails the same way; rank 0 holds METIS's message */
        status = (fb_status)head[0];
        if (fb_comm_rank() != 0)
            FB_FAIL(status, "%d nodes could not be split among %d ranks (rank 0 says why)", m->nnodes, nranks);
        goto fail;
    }
    fb_comm_bcast(*part, sizeof **part * (size_t)m->nnodes, 0);
    d->cut = head[1];
    FB_CHECK(fb_local_part_build(&graph, *part, nranks, fb_comm_rank(), &d->lp));
fail:
    free(graph.rowptr), free(graph.colidx), free(graph.values);
    return status;
}

/* The owned nodes of list (global numbers, increasing) in local numbers. */
static fb_status restrict_list(const fb_local_part *lp, const int *list, int n, int **out, int *nout)
{
    fb_status status = FB_OK;
    *nout = 0;
    FB_ALLOC(*out, n + 1, "local boundary list");
    for (int k = 0; k < n; ++k) {
        int l = lp->g2l[list[k]];
        if (l >= 0 && l < lp->nown) (*out)[(*nout)++] = l;
    }
fail:
    return status;
}

/* The case's boundary seen from this rank: per-node data on every local
 * node, the lists the step walks on owned nodes only (each rank imposes
 * its own; halo values arrive by exchange). Faces stay with the global
 * boundary: the step does not read them. */
static fb_status restrict_boundary(const fb_boundary *g, const fb_local_part *lp, fb_boundary *b)
{
    fb_status status = FB_OK;
    const int n = lp->nlocal;
    memset(b, 0, sizeof *b);
    b->nnodes = n;
    b->p_ref = -1;
    FB_ALLOC(b->normal, 3 * (size_t)n, "local boundary normals");
    FB_ALLOC(b->slip_normal, 3 * (size_t)n, "local slip normals");
    FB_ALLOC(b->kind, n, "local boundary kinds");
    FB_ALLOC(b->p_fixed, n, "local pressure mask");
    for (int l = 0; l < n; ++l) {
        const int64_t i = lp->l2g[l];
        memcpy(b->normal + 3 * l, g->normal + 3 * i, 3 * sizeof(double));
        memcpy(b->slip_normal + 3 * l, g->slip_normal + 3 * i, 3 * sizeof(double));
        b->kind[l] = g->kind[i], b->p_fixed[l] = g->p_fixed[i];
        if (l < lp->nown) b->count[g->kind[i]]++;
    }
    FB_CHECK(restrict_list(lp, g->fixed, g->nfixed, &b->fixed, &b->nfixed));
    FB_CHECK(restrict_list(lp, g->slip, g->nslip, &b->slip, &b->nslip));
    FB_CHECK(restrict_list(lp, g->pfixed_list, g->npfixed, &b->pfixed_list, &b->npfixed));
    if (g->p_ref >= 0 && lp->g2l[g->p_ref] >= 0 && lp->g2l[g->p_ref] < lp->nown) b->p_ref = lp->g2l[g->p_ref];
fail:
    return status;
}

fb_status fb_ns_dist_split(fb_ns_dist *d, const fb_mesh *m, const fb_boundary *bnd)
{
    fb_status status = FB_OK;
    int *part = NULL;
    memset(d, 0, sizeof *d);
    d->nglobal = m->nnodes;
    d->has_ref = bnd->p_ref >= 0;
    d->has_fixed = bnd->npfixed > 0;
    FB_CHECK(partition(m, d, &part));
    FB_CHECK(fb_mesh_restrict(m, &d->lp, &d->mesh));
    FB_CHECK(restrict_boundary(bnd, &d->lp, &d->bnd));
    FB_CHECK(fb_halo_prepare(&d->lp.halo, 3));
fail:
    free(part);
    return status;
}

int64_t fb_ns_dist_bad_node(fb_ns *ns, int bad)
{
    int64_t g = bad >= 0 ? ns->dist->lp.l2g[bad] : INT64_MAX;
    fb_comm_allreduce_i64(&g, 1, FB_COMM_MIN);
    return g == INT64_MAX ? -1 : g;
}

double fb_ns_dist_reference_shift(fb_ns *ns, double mine)
{
    /* p_ref is local, set on the owning rank only */
    double shift = ns->bnd->p_ref >= 0 ? mine : 0.0;
    fb_comm_allreduce(&shift, 1, FB_COMM_SUM);
    return shift;
}

void fb_ns_dist_step_done(fb_ns *ns, fb_ns_step_info *info)
{
    fb_halo *h = &ns->dist->lp.halo;
    fb_comm_stats red = fb_comm_stats_take();
    double v[8] = {info->t_step1,  info->t_step2,  info->t_step3, -info->t_step1,
                   -info->t_step2, -info->t_step3, h->seconds,    red.allreduce_s};
    int64_t traffic[2] = {h->bytes, h->messages};
    fb_comm_allreduce(v, 8, FB_COMM_MAX);
    fb_comm_allreduce_i64(traffic, 2, FB_COMM_SUM);
    fb_comm_stats_take(); /* the two above are bookkeeping, not the step's */
    info->t_step1 = v[0], info->t_step2 = v[1], info->t_step3 = v[2];
    for (int k = 0; k < 3; ++k)
        info->imbalance[k] = -v[3 + k] > 0 ? v[k] / -v[3 + k] : 1.0;
    info->halo_s = v[6], info->allreduce_s = v[7];
    info->halo_bytes = traffic[0], info->halo_messages = traffic[1];
    info->ranks = fb_comm_size();
    fb_halo_stats_reset(h);
}

fb_status fb_ns_dist_gather(const fb_ns *ns, double *u_all, double *p_all)
{
    fb_status status = FB_OK;
    const fb_local_part *lp = &ns->dist->lp;
    double *mine = NULL, *all = NULL;
    /* per owned node: global number, u (3), p */
    FB_ALLOC(mine, 5 * (size_t)lp->nown + 1, "the fields to gather");
    for (int l = 0; l < lp->nown; ++l) {
        double *o = mine + 5 * (size_t)l;
        o[0] = lp->l2g[l];
        memcpy(o + 1, ns->u + 3 * (size_t)l, 3 * sizeof(double));
        o[4] = ns->p[l];
    }
    FB_CHECK(fb_comm_gather(mine, 5 * sizeof(double) * (size_t)lp->nown, 0, (void **)&all, NULL));
    if (fb_comm_rank() == 0)
        for (int64_t k = 0; k < ns->dist->nglobal; ++k) {
            const double *o = all + 5 * k;
            const int64_t i = (int64_t)o[0];
            memcpy(u_all + 3 * i, o + 1, 3 * sizeof(double));
            p_all[i] = o[4];
        }
fail:
    free(mine);
    free(all);
    return status;
}

void fb_ns_dist_free(fb_ns_dist *d)
{
    fb_local_part_free(&d->lp);
    fb_mesh_free(&d->mesh);
    fb_boundary_free(&d->bnd);
    memset(d, 0, sizeof *d);
}
