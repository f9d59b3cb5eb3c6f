/* ns.c - the fractional-step solver's host side and policy (contracts in
 * ns.h): setup (operators packed, the initial state), boundary values, the
 * time step's choice, the watches, the CG's start, the reductions over
 * ranks, and the byte and flop models. The step itself is ns_step.c's. */
#include "solver/ns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/ns_dist.h"

fb_ns_config fb_ns_config_defaults(double nu)
{
    fb_ns_config c = {
        .nu = nu, .cfl = 0.5, .dt_fixed = 0, .cfl_limit = 5.0, .div_limit = 1.0, .cg_tol = 1e-6, .cg_max_its = 2000};
    return c;
}

/* 64-byte aligned, not yet touched: the first touch is the caller's
 * parallel loop, so pages land by the loops' static partition. */
static fb_status alloc_raw(void **p, size_t bytes, const char *what)
{
    fb_status status = FB_OK;
    size_t rounded = (bytes + 63) / 64 * 64;
    *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!*p) FB_FAIL(FB_ERR_NOMEM, "out of host memory allocating %s (%zu bytes)", what, bytes);
fail:
    return status;
}

/* A per-node array of k doubles, zeroed in parallel by node. */
static fb_status node_array(double **p, int n, int k, const char *what)
{
    fb_status status = FB_OK;
    FB_CHECK(alloc_raw((void **)p, (size_t)n * k * sizeof **p, what));
    double *a = *p;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < k; ++c)
            a[(long)k * i + c] = 0.0;
fail:
    return status;
}

/* Copies the edge structure and the hot edge data, each row written by the
 * thread that will read it; Ld is reduced to its symmetric part, all the
 * scheme uses (u . Ld u and trace Ld). */
static fb_status pack_edges(fb_ns *ns, const fb_edge_ops *ops)
{
    fb_status status = FB_OK;
    const int n = ops->nnodes;
    FB_CHECK(alloc_raw((void **)&ns->rowptr, ((size_t)n + 1) * sizeof(int), "edge row pointers"));
    FB_CHECK(alloc_raw((void **)&ns->col, (size_t)ops->nedges * sizeof(int), "edge columns"));
    FB_CHECK(alloc_raw((void **)&ns->nd, (size_t)ops->nedges * 3 * sizeof(double), "edge nabla"));
    FB_CHECK(alloc_raw((void **)&ns->dn, (size_t)ops->nedges * 3 * sizeof(double), "edge G"));
    FB_CHECK(alloc_raw((void **)&ns->ls, (size_t)ops->nedges * 6 * sizeof(double), "edge Ld"));
    ns->rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        ns->rowptr[i + 1] = ops->rowptr[i + 1];
        for (long e = ops->rowptr[i]; e < ops->rowptr[i + 1]; ++e) {
            const double *l = ops->ld + 9 * e;
            ns->col[e] = ops->col[e];
            for (int k = 0; k < 3; ++k)
                ns->nd[3 * e + k] = ops->nd[3 * e + k], ns->dn[3 * e + k] = ops->dn[3 * e + k];
            double *s = ns->ls + 6 * e;
            s[0] = l[0], s[1] = 0.5 * (l[1] + l[3]), s[2] = 0.5 * (l[2] + l[6]);
            s[3] = l[4], s[4] = 0.5 * (l[5] + l[7]), s[5] = l[8];
        }
    }
    ns->E = (fb_ns_edges){
        .n = n, .nedges = ops->nedges, .rowptr = ns->rowptr, .col = ns->col, .nd = ns->nd, .dn = ns->dn, .ls = ns->ls};
fail:
    return status;
}

static fb_status alloc_state(fb_ns *ns, const fb_edge_ops *ops)
{
    fb_status status = FB_OK;
    const int n = ops->nnodes;
    double **per_node3[] = {&ns->bnorm, &ns->u};
    double **per_node1[] = {&ns->mass, &ns->h, &ns->p, &ns->p_nm1, &ns->invdiag, &ns->b, &ns->q};
    for (size_t k = 0; k < sizeof per_node3 / sizeof *per_node3; ++k)
        FB_CHECK(node_array(per_node3[k], n, 3, "solver vectors"));
    for (size_t k = 0; k < sizeof per_node1 / sizeof *per_node1; ++k)
        FB_CHECK(node_array(per_node1[k], n, 1, "solver vectors"));
    FB_CHECK(alloc_raw((void **)&ns->A, (size_t)ops->nedges * sizeof(double), "pressure matrix"));
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        for (int e = ops->rowptr[i]; e < ops->rowptr[i + 1]; ++e)
            ns->A[e] = 0.0;
    const int64_t nfixed3 = 3 * (int64_t)ns->bnd->nfixed;
    FB_ALLOC(ns->ubc, nfixed3, "boundary velocities");
    FB_ALLOC(ns->vfixed, n, "fixed-velocity mask");
    for (int k = 0; k < ns->bnd->nfixed; ++k)
        ns->vfixed[ns->bnd->fixed[k]] = 1;
    ns->volume = 0.0;
    for (int i = 0; i < n; ++i) {
        ns->mass[i] = ops->mass[i];
        ns->h[i] = cbrt(ops->mass[i]);
        ns->volume += ops->mass[i];
        for (int k = 0; k < 3; ++k)
            ns->bnorm[3 * (int64_t)i + k] = ns->bnd->normal[3 * (int64_t)i + k];
    }
fail:
    return status;
}

fb_status fb_ns_init(fb_ns *ns, const fb_mesh *m, const fb_boundary *bnd, const fb_ns_config *cfg, const fb_ns_bc *bc)
{
    fb_status status = FB_OK;
    fb_edge_ops ops = {0};
    memset(ns, 0, sizeof *ns);
    ns->mesh = m;
    ns->bnd = bnd;
    ns->cfg = *cfg;
    ns->bc = *bc;
    ns->ubc_time = NAN;
    FB_CHECK(fb_edge_ops_build(m, &ops));
    FB_CHECK(pack_edges(ns, &ops));
    FB_CHECK(alloc_state(ns, &ops));
fail:
    fb_edge_ops_free(&ops);
    if (status != FB_OK) fb_ns_free_host(ns);
    return status;
}

fb_status fb_ns_init_part(fb_ns *ns, fb_ns_dist *d, const fb_ns_config *cfg, const fb_ns_bc *bc)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_ns_init(ns, &d->mesh, &d->bnd, cfg, bc));
    /* the loops run over owned rows; halo rows were assembled from part
     * of their elements and are never computed */
    ns->E.n = d->lp.nown;
    ns->dist = d;
    double volume = 0.0;
    for (int i = 0; i < d->lp.nown; ++i)
        volume += ns->mass[i];
    fb_comm_allreduce(&volume, 1, FB_COMM_SUM);
    ns->volume = volume;
    fb_halo_stats_reset(&d->lp.halo);
    fb_comm_stats_take();
fail:
    return status;
}

/* Boundary velocities at time t (evaluated once when constant in time). */
int fb_ns_update_ubc(fb_ns *ns, double t)
{
    if (ns->ubc_time == t || (!ns->bc.time_dependent && !isnan(ns->ubc_time))) return 0;
    const fb_boundary *b = ns->bnd;
    for (int k = 0; k < b->nfixed; ++k) {
        int i = b->fixed[k];
        double *v = ns->ubc + 3 * (int64_t)k;
        v[0] = v[1] = v[2] = 0.0;
        if (b->kind[i] == FB_BC_VELOCITY && ns->bc.velocity)
            ns->bc.velocity(ns->bc.ctx, ns->mesh->xyz + 3 * (int64_t)i, t, v);
    }
    ns->ubc_time = t;
    return 1;
}

static void impose_velocity(fb_ns *ns, double *u, double t)
{
    fb_ns_update_ubc(ns, t);
    fb_ns_omp_apply_bc(ns->bnd->nfixed, ns->bnd->fixed, ns->ubc, ns->bnd->nslip, ns->bnd->slip, ns->bnd->slip_normal,
                       u);
}

double fb_ns_pressure_at(const fb_ns *ns, int node, double t)
{
    return ns->bc.pressure ? ns->bc.pressure(ns->bc.ctx, ns->mesh->xyz + 3 * (int64_t)node, t) : 0.0;
}

static void impose_pressure(fb_ns *ns, double *p, double t)
{
    for (int k = 0; k < ns->bnd->npfixed; ++k)
        p[ns->bnd->pfixed_list[k]] = fb_ns_pressure_at(ns, ns->bnd->pfixed_list[k], t);
}

void fb_ns_impose(fb_ns *ns)
{
    impose_velocity(ns, ns->u, ns->t);
    impose_pressure(ns, ns->p, ns->t);
}

fb_status fb_ns_pick_dt(fb_ns *ns, double t_end, int k, double rate, double conv, int bad, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    if (ns->dist) {
        double v[2] = {rate, conv};
        fb_comm_allreduce(v, 2, FB_COMM_MAX);
        rate = v[0], conv = v[1];
        const int64_t global = fb_ns_dist_bad_node(ns, bad);
        if (global >= 0) /* the mesh's number: local numbers differ from rank to rank */
            FB_FAIL(FB_ERR_CHECK, "step %d: velocity is not finite at node %lld of the mesh: the run blew up", k,
                    (long long)global);
        bad = -1;
    }
    if (bad >= 0) {
        const double *x = ns->mesh->xyz + 3 * (int64_t)bad;
        FB_FAIL(FB_ERR_CHECK, "step %d: velocity is not finite at node %d (%g, %g, %g): the run blew up", k, bad, x[0],
                x[1], x[2]);
    }
    double dt = ns->cfg.dt_fixed > 0 ? ns->cfg.dt_fixed : ns->cfg.cfl / rate;
    if (t_end > 0) {
        /* the steps left share what is left equally: a last sliver of a
         * step would divide the pressure update by a tiny dt */
        double left = t_end - ns->t, nleft = ceil(left / dt - 1e-9);
        dt = left / (nleft > 1 ? nleft : 1);
    }
    if (!(dt > 0) || !isfinite(dt)) FB_FAIL(FB_ERR_CHECK, "step %d: no usable time step (dt = %g)", k, dt);
    info->dt = dt;
    info->cfl = dt * conv;
    if (info->cfl > ns->cfg.cfl_limit)
        FB_FAIL(FB_ERR_CHECK, "step %d: CFL %.3g is above the limit %.3g (dt %g, max |u|/h %g): the run is unstable", k,
                info->cfl, ns->cfg.cfl_limit, dt, conv);
fail:
    return status;
}

double fb_ns_sum_ranks(fb_ns *ns, double x)
{
    if (ns->dist) fb_comm_allreduce(&x, 1, FB_COMM_SUM);
    return x;
}

int64_t fb_ns_global_nodes(const fb_ns *ns) { return ns->dist ? ns->dist->nglobal : ns->E.n; }

int fb_ns_has_fixed_pressure(const fb_ns *ns) { return ns->dist ? ns->dist->has_fixed : ns->bnd->npfixed > 0; }

int fb_ns_has_reference(const fb_ns *ns) { return ns->dist ? ns->dist->has_ref : ns->bnd->p_ref >= 0; }

fb_status fb_ns_watch_divergence(const fb_ns *ns, int k, double div2, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    info->div_norm = sqrt(div2);
    double rel = info->dt * info->div_norm / sqrt(ns->volume);
    if (!(rel <= ns->cfg.div_limit))
        FB_FAIL(FB_ERR_CHECK, "step %d: divergence %.3g (dt ||div u|| / sqrt(volume)) is above the limit %.3g", k, rel,
                ns->cfg.div_limit);
fail:
    return status;
}

double fb_ns_extrapolation_ratio(fb_ns *ns, double dt)
{
    /* CG starts from p extrapolated linearly in time from p^{n-1} and p^n:
     * the pressure moves smoothly, and this start saves iterations */
    const double ratio = ns->step > 0 && ns->dt_prev > 0 ? dt / ns->dt_prev : 0.0;
    ns->dt_prev = dt;
    return ratio;
}

fb_status fb_ns_watch_cg(const fb_ns *ns, int k, double b2, double res2, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    const double tol2 = ns->cfg.cg_tol * ns->cfg.cg_tol * b2;
    info->cg_res = b2 > 0 ? sqrt(res2 / b2) : 0.0;
    if (isnan(res2)) FB_FAIL(FB_ERR_CHECK, "step %d: the pressure CG broke down (residual not finite)", k);
    if (res2 > tol2)
        FB_FAIL(FB_ERR_CHECK,
                "step %d: the pressure CG did not converge in %d iterations (relative residual %.3g, "
                "tolerance %.3g)",
                k, info->cg_its, info->cg_res, ns->cfg.cg_tol);
fail:
    return status;
}

void fb_ns_step_done(fb_ns *ns, fb_ns_step_info *info, const double times[4])
{
    ns->t += info->dt;
    ns->step = info->step;
    info->t = ns->t;
    info->t_step1 = times[1] - times[0], info->t_step2 = times[2] - times[1], info->t_step3 = times[3] - times[2];
}

void fb_ns_divergence(const fb_ns *ns, double *norm, double *net)
{
    double s2 = 0.0, s = 0.0;
    fb_ns_omp_divergence(&ns->E, ns->u, ns->q);
    for (int i = 0; i < ns->E.n; ++i) {
        s2 += ns->q[i] * ns->q[i] / ns->mass[i];
        s += ns->q[i];
    }
    if (norm) *norm = sqrt(s2);
    if (net) *net = s;
}

void fb_ns_bytes_split(const fb_ns *ns, double cg_its, double bytes[3])
{
    const double E = ns->E.nedges, N = ns->E.n, F = ns->bnd->nfixed + ns->bnd->nslip;
    double rate = 33 * N;
    double proj = 28 * E + 108 * N;
    double rk = 400 * E + 712 * N + 4 * 52 * F;
    double setup = 108 * E + 149 * N + (ns->bnd->npfixed ? 0 : 24 * N) + (ns->bnd->p_ref >= 0 ? 16 * N : 0);
    double cg = 12 * E + 60 * N + cg_its * (12 * E + 100 * N);
    double correct = 28 * E + 76 * N + 52 * F;
    bytes[0] = rate + proj + rk;
    bytes[1] = setup + cg;
    bytes[2] = correct;
}

/* Floating-point operations counted from the kernels' bodies
 * (ns_omp_node.h, ns.cl), a multiply-add as two, a division or square root
 * as one, per directed edge E and owned node N; S slip nodes (their
 * normal removed after each stage and after step 3). Step 1: the rate (10
 * per node), the projections (27 per edge, 22 per node), four RK stages
 * (59 per edge; per node 24 for the right-hand side and 12 for the
 * update, 6 in the last stage). Step 2: the extrapolation (3), the
 * pressure system (28 per edge, 12 per node), a singular system's mean (4
 * per node), the reference shift (1 per node), the CG's start (3 per
 * edge, 7 per node) and first product, and per iteration the
 * single-reduction CG's (the baseline's and the devices' default): the
 * product (3 per edge) with its three dot products (6 per node) and the
 * update (9 per node). Step 3: the correction (8 per edge, 8 per node). */
void fb_ns_flops_split(const fb_ns *ns, double cg_its, double flops[3])
{
    const double E = ns->E.nedges, N = ns->E.n, S = ns->bnd->nslip;
    const double rk = 4 * 59 * E + (3 * 36 + 30) * N + 4 * 11 * S;
    const double setup = 3 * N + 28 * E + 12 * N + (ns->bnd->npfixed ? 0 : 4 * N) + (ns->bnd->p_ref >= 0 ? N : 0);
    const double cg = (3 * E + 7 * N) + (3 * E + 6 * N) + cg_its * (3 * E + 15 * N);
    flops[0] = 10 * N + (27 * E + 22 * N) + rk;
    flops[1] = setup + cg;
    flops[2] = 8 * E + 8 * N + 11 * S;
}

double fb_ns_bytes_per_step(const fb_ns *ns, double cg_its)
{
    double b[3];
    fb_ns_bytes_split(ns, cg_its, b);
    return b[0] + b[1] + b[2];
}

double fb_ns_bytes_resident(const fb_ns *ns)
{
    const double E = ns->E.nedges, N = ns->E.n;
    /* per edge: col, nd, dn, Ls, A; per node: rowptr, 7 vectors of 3, 13 of 1, the mask */
    return E * (4 + 3 * 8 + 3 * 8 + 6 * 8 + 8) + N * (4 + 8 * (7 * 3 + 13) + 1) + 8.0 * 3 * ns->bnd->nfixed;
}

void fb_ns_drop_upload_copies(fb_ns *ns)
{
    free(ns->dn), free(ns->ls);
    ns->dn = ns->ls = NULL;
    ns->E.dn = ns->E.ls = NULL;
}

void fb_ns_free_host(fb_ns *ns)
{
    void *arrays[] = {ns->rowptr, ns->col,    ns->nd,      ns->dn,  ns->ls,  ns->mass, ns->h,
                      ns->bnorm,  ns->u,      ns->p,       ns->A,   ns->b,   ns->q,    ns->ubc,
                      ns->p_nm1,  ns->vfixed, ns->invdiag, ns->tau, ns->pip, ns->u2,   ns->p_old};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; ++k)
        free(arrays[k]);
    memset(ns, 0, sizeof *ns);
}
