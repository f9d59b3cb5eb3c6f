/* ns_step.c - the solver's time step as a launch sequence of the
 * kernels/ns/ns.cl kernels on the backend the state lives on (ns_device.h):
 * OpenCL or CUDA, or their OpenMP twins on openmp. The decisions (dt, the
 * watches, the CG's stopping test, the pressure level) are ns.c's, fed
 * with the scalars the backend reduced; the pressure CG is ns_device_cg.c. */
#include "solver/ns_device.h"
#include "solver/ns_device_internal.h"

#include <math.h>
#include <string.h>

#include "core/measure.h"
#include "solver/ns_dist.h"
#include "solver/ns_order.h"

/* ---- boundary values ---- */

static fb_status impose_velocity(fb_ns *ns, fb_buffer *u, double t)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const fb_boundary *bnd = ns->bnd;
    fb_ns_update_ubc(ns, t);
    if (!dv->ubc_uploaded || dv->ubc_time != ns->ubc_time) {
        if (bnd->nfixed) FB_CHECK(fb_target_copy_in(dv->t, dv->ubc, ns->ubc, 3 * sizeof(double) * bnd->nfixed));
        dv->ubc_uploaded = 1, dv->ubc_time = ns->ubc_time;
    }
    const fb_arg fixed[] = {INT(bnd->nfixed), BUF(fixed), BUF(ubc), fb_arg_buffer(u)};
    const fb_arg slip[] = {INT(bnd->nslip), BUF(slip), BUF(slip_normal), fb_arg_buffer(u)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_APPLY_FIXED, (size_t)bnd->nfixed, fixed, NARGS(fixed)));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_APPLY_SLIP, (size_t)bnd->nslip, slip, NARGS(slip)));
fail:
    return status;
}

static fb_status impose_pressure(fb_ns *ns, double t)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int count = ns->bnd->npfixed;
    if (!count) return FB_OK;
    for (int k = 0; k < count; ++k)
        dv->pvals_host[k] = fb_ns_pressure_at(ns, ns->bnd->pfixed_list[k], t);
    FB_CHECK(fb_target_copy_in(dv->t, dv->pvals, dv->pvals_host, sizeof(double) * count));
    const fb_arg a[] = {INT(count), BUF(pfixed_list), BUF(pvals), BUF(p)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_SET_VALUES, (size_t)count, a, NARGS(a)));
fail:
    return status;
}

/* ---- the three steps ---- */

static fb_status choose_dt(fb_ns *ns, double t_end, int k, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg a[] = {INT(n), BUF(u), BUF(h), BUF(vfixed), DBL(ns->cfg.nu), BUF(partial), INT(dv->stride)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_RATE, (size_t)n, a, NARGS(a)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 2, OP_MAX, S_RATE));
    FB_CHECK(fb_nsd_reduce(dv, 2, 1, OP_MIN, S_BAD));
    FB_CHECK(fb_nsd_read_scalars(dv));
    const double bad = dv->scal_host[S_BAD];
    const int bad_node = bad < n ? fb_ns_order_old(&dv->order, (int)bad) : -1;
    FB_CHECK(fb_ns_pick_dt(ns, t_end, k, dv->scal_host[S_RATE], dv->scal_host[S_CONV], bad_node, info));
fail:
    return status;
}

/* One Runge-Kutta stage (ns_rk_stage's stage: 0 first, 1 middle, 2 last). */
static fb_status rk_stage(fb_ns *ns, fb_buffer *u_in, fb_buffer *u_out, double c_dt, double w_dt, int stage)
{
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg a[] = {INT(n),
                        BUF(rowptr),
                        BUF(col),
                        BUF(nd),
                        BUF(dn),
                        BUF(ls),
                        BUF(mass),
                        BUF(bnorm),
                        DBL(ns->cfg.nu),
                        BUF(tau),
                        BUF(pic),
                        BUF(p),
                        fb_arg_buffer(u_in),
                        BUF(u),
                        BUF(acc),
                        BUF(acc),
                        fb_arg_buffer(u_out),
                        DBL(c_dt),
                        DBL(w_dt),
                        INT(stage)};
    return fb_nsd_launch(dv, FB_NS_RK_STAGE, (size_t)n, a, NARGS(a));
}

/* A stage, its boundary values at time t, and (several ranks) its halo
 * for the next stage's edge loop. */
static fb_status rk_stage_imposed(fb_ns *ns, fb_buffer *u_in, fb_buffer *u_out, double c_dt, double w_dt, int stage,
                                  double t)
{
    fb_status status = FB_OK;
    FB_CHECK(rk_stage(ns, u_in, u_out, c_dt, w_dt, stage));
    FB_CHECK(impose_velocity(ns, u_out, t));
    FB_CHECK(fb_nsd_share(ns, u_out, 3));
fail:
    return status;
}

/* tau and the projections, and the divergence watch. */
static fb_status projections(fb_ns *ns, int k, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg a[] = {INT(n),   BUF(rowptr),     BUF(col),      BUF(nd),      BUF(mass),
                        BUF(h),   DBL(ns->cfg.nu), DBL(info->dt), BUF(u),       BUF(p),
                        BUF(tau), BUF(pic),        BUF(pip),      BUF(partial), INT(dv->stride)};
    FB_CHECK(fb_nsd_share(ns, dv->u, 3));
    FB_CHECK(fb_nsd_share(ns, dv->p, 1));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_PROJECTIONS, (size_t)n, a, NARGS(a)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 1, OP_SUM, S_DIV2));
    FB_CHECK(fb_nsd_read_scalars(dv));
    FB_CHECK(fb_ns_watch_divergence(ns, k, fb_ns_sum_ranks(ns, dv->scal_host[S_DIV2]), info));
    FB_CHECK(fb_nsd_share(ns, dv->tau, 1));
    FB_CHECK(fb_nsd_share(ns, dv->pic, 3));
    FB_CHECK(fb_nsd_share(ns, dv->pip, 3));
fail:
    return status;
}

static fb_status step1(fb_ns *ns, int k, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const double dt = info->dt, t = ns->t;
    FB_CHECK(projections(ns, k, info));
    FB_CHECK(rk_stage_imposed(ns, dv->u, dv->u1, dt / 2, dt / 6, 0, t + dt / 2));
    FB_CHECK(rk_stage_imposed(ns, dv->u1, dv->u2, dt / 2, dt / 3, 1, t + dt / 2));
    FB_CHECK(rk_stage_imposed(ns, dv->u2, dv->u1, dt, dt / 3, 1, t + dt));
    FB_CHECK(rk_stage_imposed(ns, dv->u1, dv->u2, 0, dt / 6, 2, t + dt));
fail:
    return status;
}

/* The pressure system and ||b||^2 (step 2 up to the CG). Without
 * fixed-pressure nodes the pressure matrix is singular (constants are its
 * null space, zero row sums): the system is consistent when sum b = 0, so
 * the mean of b is removed (the discrepancy, from the stabilisation terms
 * and the boundary flux of the interpolated boundary velocity, spreads
 * over all nodes instead of becoming a mass source at a pinned node), and
 * the CG stays in the range of the matrix. */
static fb_status pressure_system(fb_ns *ns, double dt, double *b2)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg setup[] = {INT(n),      BUF(rowptr), BUF(col),     BUF(nd),  BUF(dn),      BUF(ls),
                            BUF(pfixed), BUF(bnorm),  DBL(dt),      BUF(tau), BUF(p_old),   BUF(pip),
                            BUF(u2),     BUF(A),      BUF(invdiag), BUF(b),   BUF(partial), INT(dv->stride)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_PRESSURE_SETUP, (size_t)n, setup, NARGS(setup)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 1, OP_SUM, S_B2));
    if (!fb_ns_has_fixed_pressure(ns)) { /* the compatible right-hand side */
        const fb_arg sum[] = {INT(n), BUF(b), BUF(partial), INT(dv->stride)};
        const fb_arg mean[] = {
            INT(n), BUF(b), BUF(scal), INT(S_BSUM), DBL((double)fb_ns_global_nodes(ns)), BUF(partial), INT(dv->stride)};
        FB_CHECK(fb_nsd_launch(dv, FB_NS_SUM, (size_t)n, sum, NARGS(sum)));
        FB_CHECK(fb_nsd_reduce(dv, 0, 1, OP_SUM, S_BSUM));
        if (ns->dist) FB_CHECK(fb_nsd_read_scalars_summed(ns, S_BSUM, 1));
        FB_CHECK(fb_nsd_launch(dv, FB_NS_REMOVE_MEAN, (size_t)n, mean, NARGS(mean)));
        FB_CHECK(fb_nsd_reduce(dv, 0, 1, OP_SUM, S_B2));
    }
    FB_CHECK(fb_nsd_read_scalars(dv));
    *b2 = fb_ns_sum_ranks(ns, dv->scal_host[S_B2]);
fail:
    return status;
}

/* The pressure level: p(reference node) = the prescribed value. On
 * several ranks the owner of the reference node computes the shift and
 * every rank gets it (fb_ns_dist_reference_shift). */
static fb_status shift_to_reference(fb_ns *ns, double t)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int r = ns->bnd->p_ref; /* on several ranks: on the owner only */
    const fb_arg add[] = {INT(ns->E.n), BUF(p), BUF(scal), INT(S_SHIFT)};
    fb_launch one = {.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
    if (r >= 0) {
        const fb_arg read[] = {BUF(p), INT(fb_ns_order_new(&dv->order, r)), DBL(fb_ns_pressure_at(ns, r, t)), BUF(scal),
                               INT(S_SHIFT)};
        FB_CHECK(fb_nsd_launch_at(dv, dv->k[FB_NS_REFERENCE_SHIFT], FB_NS_REFERENCE_SHIFT, &one, read, NARGS(read)));
    }
    if (ns->dist) {
        FB_CHECK(fb_nsd_read_scalars(dv));
        dv->scal_host[S_SHIFT] = fb_ns_dist_reference_shift(ns, dv->scal_host[S_SHIFT]);
        FB_CHECK(fb_nsd_write_scalars(dv));
    }
    FB_CHECK(fb_nsd_launch(dv, FB_NS_ADD_SCALAR, (size_t)ns->E.n, add, NARGS(add)));
fail:
    return status;
}

static fb_status step2(fb_ns *ns, int k, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const double dt = info->dt;
    double b2, res2;
    const fb_arg extra[] = {INT(n), DBL(fb_ns_extrapolation_ratio(ns, dt)), BUF(p), BUF(p_nm1), BUF(p_old)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_EXTRAPOLATE, (size_t)n, extra, NARGS(extra)));
    FB_CHECK(impose_pressure(ns, ns->t + dt));
    FB_CHECK(fb_nsd_share(ns, dv->p_old, 1));
    FB_CHECK(pressure_system(ns, dt, &b2));
    if (!isfinite(b2)) FB_FAIL(FB_ERR_CHECK, "step %d: the pressure right-hand side is not finite: the run blew up", k);
    if (dv->cg_spmv) FB_CHECK(fb_nsd_csr_values(dv, n));
    FB_CHECK(fb_nsd_run_cg(ns, ns->cfg.cg_tol * ns->cfg.cg_tol * b2, &info->cg_its, &res2));
    FB_CHECK(fb_ns_watch_cg(ns, k, b2, res2, info));
    if (fb_ns_has_reference(ns)) FB_CHECK(shift_to_reference(ns, ns->t + dt));
    FB_CHECK(fb_nsd_share(ns, dv->p, 1));
fail:
    return status;
}

static fb_status step3(fb_ns *ns, double dt)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg a[] = {INT(n),  BUF(rowptr), BUF(col),   BUF(nd), BUF(mass),
                        DBL(dt), BUF(p),      BUF(p_old), BUF(u2), BUF(u)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CORRECT, (size_t)n, a, NARGS(a)));
    FB_CHECK(impose_velocity(ns, dv->u, ns->t + dt));
fail:
    return status;
}

/* The time at the end of the device work queued so far. */
static fb_status clock_after(struct fb_ns_device *dv, double *when)
{
    fb_status status = fb_target_finish(dv->t);
    *when = fb_now();
    return status;
}

fb_status fb_ns_device_step(fb_ns *ns, double t_end, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    const int k = ns->step + 1;
    double times[4];
    memset(info, 0, sizeof *info);
    info->step = k;
    times[0] = fb_now();
    FB_CHECK(choose_dt(ns, t_end, k, info));
    FB_CHECK(step1(ns, k, info));
    FB_CHECK(clock_after(ns->dev, &times[1]));
    FB_CHECK(step2(ns, k, info));
    FB_CHECK(clock_after(ns->dev, &times[2]));
    FB_CHECK(step3(ns, info->dt));
    FB_CHECK(clock_after(ns->dev, &times[3]));
    fb_ns_step_done(ns, info, times);
    if (ns->dist) fb_ns_dist_step_done(ns, info);
fail:
    return status;
}

fb_status fb_ns_step(fb_ns *ns, double t_end, fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    if (!ns->dev) FB_FAIL(FB_ERR_USAGE, "the solver's state is on no backend (fb_ns_device_open first)");
    status = fb_ns_device_step(ns, t_end, info);
fail:
    return status;
}
