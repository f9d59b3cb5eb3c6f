/* ns_device.c - the solver's time step as a launch sequence of the
 * kernels/ns/ns.cl kernels on one device (contracts in ns_device.h). The
 * order of operations is ns.c's, loop for loop; the decisions (dt, the
 * watch, the CG's stopping test) are ns.c's own functions, fed with the
 * scalars the device reduced. The pressure CG is ns_device_cg.c; what the
 * two share (the device state, the launch helpers) is
 * ns_device_internal.h. */
#include "solver/ns_device.h"
#include "solver/ns_device_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "core/measure.h"
#include "ns/ns_kernels.h"
#include "solver/ns_dist.h"
#include "solver/ns_order.h"

const fb_param_point *fb_ns_device_point(const fb_ns *ns) { return ns->dev ? &ns->dev->point : NULL; }

/* ---- launches ---- */

/* One launch over items, one work-item each (none when items is 0). A
 * launch capped at a few groups per compute unit, the items striding over
 * the rest (ns.cl's NS_FOR_EACH allows it), ran 3x slower on PoCL. */
fb_status fb_nsd_launch(struct fb_ns_device *dv, fb_ns_kernel_id k, size_t items, const fb_arg *args, int nargs)
{
    if (items == 0) return FB_OK;
    fb_launch l = fb_launch_1d(items, (size_t)dv->wg);
    return fb_target_launch(dv->t, dv->k[k], &l, args, nargs, NULL);
}

/* scal[slot + v - v0] = op over the groups' partials v0 .. v0 + nvals - 1. */
fb_status fb_nsd_reduce(struct fb_ns_device *dv, int v0, int nvals, int op, int slot)
{
    const fb_arg a[] = {INT(dv->stride), INT(dv->stride), INT(v0),   INT(nvals),
                        INT(op),         BUF(partial),    BUF(scal), INT(slot)};
    fb_launch l = fb_launch_1d((size_t)dv->wg, (size_t)dv->wg);
    return fb_target_launch(dv->t, dv->k[FB_NS_REDUCE], &l, a, NARGS(a), NULL);
}

fb_status fb_nsd_read_scalars(struct fb_ns_device *dv)
{
    return fb_target_copy_out(dv->t, dv->scal_host, dv->scal, sizeof dv->scal_host);
}

/* The whole array: the read before it made every slot current, and no
 * kernel runs in between, so only the slots changed on the host change. */
fb_status fb_nsd_write_scalars(struct fb_ns_device *dv)
{
    return fb_target_copy_in(dv->t, dv->scal, dv->scal_host, sizeof dv->scal_host);
}

fb_status fb_nsd_read_scalars_summed(fb_ns *ns, int slot, int count)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_nsd_read_scalars(ns->dev));
    if (!ns->dist) return FB_OK;
    fb_ns_dist_sum(ns, ns->dev->scal_host + slot, count);
    FB_CHECK(fb_nsd_write_scalars(ns->dev));
fail:
    return status;
}

/* ---- the halo on several ranks ---- */

/* The owned entries neighbours read are packed on the device
 * (ns_halo_pack), copied out, exchanged by fb_halo, copied back and
 * unpacked into the halo slots (ns_halo_unpack). The exchange's counters
 * get the device's part too (packing, copies, unpacking: on a GPU the
 * copies cross the bus), so the record's halo time is what a step spends
 * on it; the kernels queued before are finished first, not counted. */
fb_status fb_nsd_share(fb_ns *ns, fb_buffer *v, int ncomp)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    fb_halo *h = ns->dist ? &ns->dist->lp.halo : NULL;
    if (!h || h->nneighbours == 0) return FB_OK;
    const int nsend = h->send_start[h->nneighbours], nrecv = h->recv_start[h->nneighbours];
    double *recv = dv->halo_host + (size_t)3 * nsend;
    const fb_arg pack[] = {INT(nsend), INT(ncomp), BUF(halo_send), fb_arg_buffer(v), BUF(halo_buf)};
    const fb_arg unpack[] = {INT(nrecv), INT(ncomp), BUF(halo_recv), BUF(halo_buf), fb_arg_buffer(v)};
    FB_CHECK(fb_target_finish(dv->t));
    const double t0 = fb_now();
    FB_CHECK(fb_nsd_launch(dv, FB_NS_HALO_PACK, (size_t)nsend, pack, NARGS(pack)));
    FB_CHECK(fb_target_copy_out(dv->t, dv->halo_host, dv->halo_buf, sizeof(double) * (size_t)ncomp * nsend));
    const double t1 = fb_now();
    fb_halo_exchange_packed(h, dv->halo_host, recv, ncomp);
    const double t2 = fb_now();
    FB_CHECK(fb_target_copy_in(dv->t, dv->halo_buf, recv, sizeof(double) * (size_t)ncomp * nrecv));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_HALO_UNPACK, (size_t)nrecv, unpack, NARGS(unpack)));
    FB_CHECK(fb_target_finish(dv->t));
    h->seconds += (t1 - t0) + (fb_now() - t2);
fail:
    return status;
}

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

/* The pressure system and ||b||^2 (ns.c's step 2 up to the CG). */
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
    if (!fb_ns_has_fixed_pressure(ns)) { /* ns.c's make_compatible */
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
        FB_CHECK(fb_target_launch(dv->t, dv->k[FB_NS_REFERENCE_SHIFT], &one, read, NARGS(read), NULL));
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

/* ---- setup ---- */

/* A device buffer of bytes (at least one double: a boundary list may be
 * empty), filled from host when host is not NULL. */
fb_status fb_nsd_upload(fb_target *t, fb_buffer **out, const void *host, size_t bytes)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_target_alloc(t, bytes ? bytes : sizeof(double), out));
    if (host && bytes) FB_CHECK(fb_target_copy_in(t, *out, host, bytes));
fail:
    return status;
}

/* A node array of width values per node, in the device's order. */
fb_status fb_nsd_put_nodes(struct fb_ns_device *dv, fb_buffer *buf, const double *host, int width)
{
    fb_status status = FB_OK;
    double *ordered = NULL;
    const size_t bytes = sizeof(double) * (size_t)width * (size_t)dv->order.n;
    if (!dv->order.perm) return fb_target_copy_in(dv->t, buf, host, bytes);
    FB_ALLOC(ordered, (size_t)width * (size_t)dv->order.n, "a node array in the device's order");
    fb_ns_order_gather(&dv->order, host, width, ordered);
    FB_CHECK(fb_target_copy_in(dv->t, buf, ordered, bytes));
fail:
    free(ordered);
    return status;
}

/* The device's node array back into the mesh's order. */
fb_status fb_nsd_get_nodes(struct fb_ns_device *dv, double *host, fb_buffer *buf, int width)
{
    fb_status status = FB_OK;
    double *ordered = NULL;
    const size_t bytes = sizeof(double) * (size_t)width * (size_t)dv->order.n;
    if (!dv->order.perm) return fb_target_copy_out(dv->t, host, buf, bytes);
    FB_ALLOC(ordered, (size_t)width * (size_t)dv->order.n, "a node array in the device's order");
    FB_CHECK(fb_target_copy_out(dv->t, ordered, buf, bytes));
    fb_ns_order_scatter(&dv->order, ordered, width, host);
fail:
    free(ordered);
    return status;
}

static fb_status upload_nodes_of(struct fb_ns_device *dv, fb_buffer **out, const double *host, int width)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_nsd_upload(dv->t, out, NULL, sizeof(double) * (size_t)width * (size_t)dv->order.n));
    FB_CHECK(fb_nsd_put_nodes(dv, *out, host, width));
fail:
    return status;
}

/* A mask of bytes as ints in the device's order (the kernels read int:
 * OpenCL C and CUDA agree on it). */
static fb_status upload_mask(struct fb_ns_device *dv, fb_buffer **out, const unsigned char *mask)
{
    fb_status status = FB_OK;
    const int n = dv->order.n;
    int *wide = NULL;
    FB_ALLOC(wide, n > 0 ? n : 1, "a node mask");
    for (int r = 0; r < n; ++r)
        wide[r] = mask[fb_ns_order_old(&dv->order, r)];
    FB_CHECK(fb_nsd_upload(dv->t, out, wide, sizeof(int) * (size_t)n));
fail:
    free(wide);
    return status;
}

/* A list of node numbers, renumbered into the device's order (its order,
 * which other arrays follow, kept). */
static fb_status upload_list(struct fb_ns_device *dv, fb_buffer **out, const int *nodes, int count)
{
    fb_status status = FB_OK;
    int *renumbered = NULL;
    FB_ALLOC(renumbered, count > 0 ? count : 1, "a boundary node list");
    for (int k = 0; k < count; ++k)
        renumbered[k] = fb_ns_order_new(&dv->order, nodes[k]);
    FB_CHECK(fb_nsd_upload(dv->t, out, renumbered, sizeof(int) * (size_t)count));
fail:
    free(renumbered);
    return status;
}

static fb_status upload_edges(struct fb_ns_device *dv, const fb_ns *ns)
{
    fb_status status = FB_OK;
    /* the owned rows (all rows on one process), the only ones computed */
    const size_t n = (size_t)dv->order.nown, e = (size_t)dv->order.nedges, D = sizeof(double);
    double *nd = NULL, *dn = NULL, *ls = NULL;
    FB_CHECK(fb_nsd_upload(dv->t, &dv->rowptr, dv->order.rowptr, sizeof(int) * (n + 1)));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->col, dv->order.col, sizeof(int) * e));
    FB_CHECK(fb_ns_order_edge_data(&dv->order, ns, dv->packed, &nd, &dn, &ls));
    if (dv->packed) {
        FB_CHECK(fb_nsd_upload(dv->t, &dv->nd, nd, 16 * D * e));
        dv->dn = dv->ls = dv->nd; /* the kernels read all three from the records */
    } else {
        FB_CHECK(fb_nsd_upload(dv->t, &dv->nd, nd, 3 * D * e));
        FB_CHECK(fb_nsd_upload(dv->t, &dv->dn, dn, 3 * D * e));
        FB_CHECK(fb_nsd_upload(dv->t, &dv->ls, ls, 6 * D * e));
    }
    FB_CHECK(fb_nsd_upload(dv->t, &dv->A, NULL, D * e));
fail:
    free(nd), free(dn), free(ls);
    return status;
}

static fb_status upload_nodes(struct fb_ns_device *dv, const fb_ns *ns)
{
    fb_status status = FB_OK;
    const fb_boundary *bnd = ns->bnd;
    FB_CHECK(upload_nodes_of(dv, &dv->mass, ns->mass, 1));
    FB_CHECK(upload_nodes_of(dv, &dv->h, ns->h, 1));
    FB_CHECK(upload_nodes_of(dv, &dv->bnorm, ns->bnorm, 3));
    FB_CHECK(upload_nodes_of(dv, &dv->u, ns->u, 3));
    FB_CHECK(upload_nodes_of(dv, &dv->p, ns->p, 1));
    FB_CHECK(upload_nodes_of(dv, &dv->p_nm1, ns->p_nm1, 1));
    FB_CHECK(upload_nodes_of(dv, &dv->slip_normal, bnd->slip_normal, 3));
    FB_CHECK(upload_mask(dv, &dv->vfixed, ns->vfixed));
    FB_CHECK(upload_mask(dv, &dv->pfixed, bnd->p_fixed));
    FB_CHECK(upload_list(dv, &dv->fixed, bnd->fixed, bnd->nfixed));
    FB_CHECK(upload_list(dv, &dv->slip, bnd->slip, bnd->nslip));
    FB_CHECK(upload_list(dv, &dv->pfixed_list, bnd->pfixed_list, bnd->npfixed));
fail:
    return status;
}

/* The arrays the steps write before they read them (halo entries
 * included: on several ranks they are exchanged). */
static fb_status alloc_work(struct fb_ns_device *dv, const fb_ns *ns)
{
    fb_status status = FB_OK;
    const size_t n = (size_t)dv->order.n, D = sizeof(double);
    fb_buffer **by3[] = {&dv->u1, &dv->u2, &dv->acc, &dv->pic, &dv->pip};
    fb_buffer **by1[] = {&dv->tau, &dv->p_old, &dv->invdiag, &dv->b, &dv->r, &dv->z, &dv->d, &dv->d2, &dv->q};
    for (size_t k = 0; k < sizeof by3 / sizeof *by3; ++k)
        FB_CHECK(fb_nsd_upload(dv->t, by3[k], NULL, 3 * D * n));
    for (size_t k = 0; k < sizeof by1 / sizeof *by1; ++k)
        FB_CHECK(fb_nsd_upload(dv->t, by1[k], NULL, D * n));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->ubc, NULL, 3 * D * (size_t)ns->bnd->nfixed));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->pvals, NULL, D * (size_t)ns->bnd->npfixed));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->partial, NULL, 3 * D * (size_t)dv->stride));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->scal, dv->scal_host, sizeof dv->scal_host));
    fb_buffer **pipelined[] = {&dv->cg_w, &dv->cg_n, &dv->cg_z, &dv->cg_y, &dv->cg_mn[0], &dv->cg_mn[1]};
    for (size_t k = 0; dv->cg_variant == 2 && k < sizeof pipelined / sizeof *pipelined; ++k)
        FB_CHECK(fb_nsd_upload(dv->t, pipelined[k], NULL, D * n));
    FB_ALLOC(dv->pvals_host, ns->bnd->npfixed > 0 ? ns->bnd->npfixed : 1, "prescribed pressures");
fail:
    return status;
}

/* Every kernel the launch sequence uses: the halo's only on several
 * ranks (each is a compile on drivers that build per kernel). */
static fb_status build_kernels(struct fb_ns_device *dv, int ranks)
{
    fb_status status = FB_OK;
    char wg[16], reduce[4], layout[4];
    snprintf(wg, sizeof wg, "%d", dv->wg);
    snprintf(reduce, sizeof reduce, "%d", dv->group_reduce);
    snprintf(layout, sizeof layout, "%d", dv->packed);
    /* EDGE_LAYOUT only where it changes the code: the programs of the NVRTC compile test (ns_family.c) */
    const fb_define defines[] = {
        {"REAL", "double"}, {"WG_SIZE", wg}, {"GROUP_REDUCE", reduce}, {"EDGE_LAYOUT", layout}};
    const char *text = fb_kernel_source(FB_NS_SOURCE);
    if (!text) FB_FAIL(FB_ERR_INPUT, "kernel source %s is not embedded", FB_NS_SOURCE);
    for (int k = 0; k < FB_NS_NKERNELS; ++k) {
        if (!ranks && (k == FB_NS_HALO_PACK || k == FB_NS_HALO_UNPACK)) continue;
        const int ndefines = dv->packed && fb_ns_kernel_reads_edges((fb_ns_kernel_id)k) ? 4 : 3;
        const fb_program_spec spec = {FB_NS_SOURCE, text, fb_ns_kernel_names[k], defines, ndefines, NULL};
        FB_CHECK(fb_target_build(dv->t, &spec, &dv->k[k]));
    }
fail:
    return status;
}

/* Why the device or the point cannot run the solver, or FB_OK. */
static fb_status check_point(const fb_device_info *info, const fb_param_point *point)
{
    const int wg = point->values[FB_NS_WG_SIZE_AXIS], group_reduce = point->values[FB_NS_GROUP_REDUCE_AXIS];
    const int cg_variant = point->values[FB_NS_CG_VARIANT_AXIS], layout = point->values[FB_NS_EDGE_LAYOUT_AXIS];
    fb_status status = FB_OK;
    if (!strcmp(info->backend, "openmp"))
        FB_FAIL(FB_ERR_USAGE, "openmp runs the solver's own OpenMP loops (ns_omp.c); the device kernels are for "
                              "opencl and cuda");
    if (wg < 1 || (wg & (wg - 1)) || wg > 1024)
        FB_FAIL(FB_ERR_USAGE, "solver: WG_SIZE=%d is not a power of two in 1..1024", wg);
    if (info->max_work_group_size && (size_t)wg > info->max_work_group_size)
        FB_FAIL(FB_ERR_USAGE, "solver: WG_SIZE=%d exceeds %s's limit %zu", wg, info->id, info->max_work_group_size);
    if (group_reduce != 0 && group_reduce != 1)
        FB_FAIL(FB_ERR_USAGE, "solver: GROUP_REDUCE=%d is not 0 or 1", group_reduce);
    if (cg_variant < 0 || cg_variant > 2) FB_FAIL(FB_ERR_USAGE, "solver: CG_VARIANT=%d is not 0, 1 or 2", cg_variant);
    if (layout != 0 && layout != 1) FB_FAIL(FB_ERR_USAGE, "solver: EDGE_LAYOUT=%d is not 0 or 1", layout);
    FB_CHECK(fb_nsd_check_cg_spmv(point));
    if (!info->double_support) FB_FAIL(FB_ERR_UNAVAILABLE, "%s: the solver needs double precision", info->id);
fail:
    return status;
}

/* Several ranks: the exchange's lists in the device's order (the halo
 * keeps its places, ns_order.h), one device buffer for what is sent and
 * then what arrives, and its host copy. */
static fb_status open_halo(struct fb_ns_device *dv, const fb_ns *ns)
{
    fb_status status = FB_OK;
    const fb_halo *h = &ns->dist->lp.halo;
    const int nk = h->nneighbours, nsend = nk ? h->send_start[nk] : 0, nrecv = nk ? h->recv_start[nk] : 0;
    const size_t most = (size_t)(nsend > nrecv ? nsend : nrecv);
    FB_CHECK(upload_list(dv, &dv->halo_send, h->send_idx, nsend));
    FB_CHECK(upload_list(dv, &dv->halo_recv, h->recv_idx, nrecv));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->halo_buf, NULL, 3 * sizeof(double) * most));
    FB_ALLOC(dv->halo_host, 3 * ((size_t)nsend + (size_t)nrecv) + 1, "the halo's host copy");
fail:
    return status;
}

fb_status fb_ns_device_check_ranks(const fb_param_point *point)
{
    fb_status status = FB_OK;
    const int cg_variant = point->values[FB_NS_CG_VARIANT_AXIS], cg_spmv = point->values[FB_NS_CG_SPMV_AXIS];
    if (cg_variant == 2)
        FB_FAIL(FB_ERR_USAGE,
                "solver on several ranks: CG_VARIANT=2 (the pipelined CG) runs on one rank: it hides its reduction "
                "behind the product, which a halo exchange staged through the host every iteration serialises "
                "again; use CG_VARIANT=1 (the default) or 0");
    if (cg_spmv != 0)
        FB_FAIL(FB_ERR_USAGE,
                "solver on several ranks: CG_SPMV=%d runs on one rank: the SpMV family's kernels multiply a square "
                "matrix, and a rank's rows reach into its halo; use CG_SPMV=0 (the fused edge product)",
                cg_spmv);
fail:
    return status;
}

/* One untimed step, then the state put back as uploaded: drivers that
 * compile a kernel at its first launch (PoCL does, per work-group size)
 * would otherwise put the compiles into the first step's time. A step
 * that fails here is left to fail again, timed and reported, in the run. */
static fb_status warm_up(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const double t = ns->t, dt_prev = ns->dt_prev;
    const int step = ns->step;
    fb_ns_step_info info;
    status = fb_ns_device_step(ns, 0.0, &info);
    if (status != FB_OK && status != FB_ERR_CHECK) goto fail;
    status = FB_OK;
    /* the boundary values are recomputed at the next use (NaN: not held) */
    ns->t = t, ns->dt_prev = dt_prev, ns->ubc_time = NAN, ns->step = step;
    dv->ubc_uploaded = 0;
    FB_CHECK(fb_nsd_put_nodes(dv, dv->u, ns->u, 3));
    FB_CHECK(fb_nsd_put_nodes(dv, dv->p, ns->p, 1));
    FB_CHECK(fb_nsd_put_nodes(dv, dv->p_nm1, ns->p_nm1, 1));
    FB_CHECK(fb_target_finish(dv->t));
fail:
    return status;
}

fb_status fb_ns_device_open(fb_ns *ns, fb_target *t, const fb_param_point *point, double *upload_s, double *setup_s)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = NULL;
    FB_CHECK(check_point(fb_target_info(t), point));
    if (ns->dist) FB_CHECK(fb_ns_device_check_ranks(point));
    FB_ALLOC(dv, 1, "the device solver");
    dv->t = t, dv->point = *point, dv->wg = point->values[FB_NS_WG_SIZE_AXIS];
    dv->group_reduce = point->values[FB_NS_GROUP_REDUCE_AXIS], dv->cg_variant = point->values[FB_NS_CG_VARIANT_AXIS];
    dv->packed = point->values[FB_NS_EDGE_LAYOUT_AXIS], dv->cg_spmv = point->values[FB_NS_CG_SPMV_AXIS];
    dv->stride = (ns->E.n + dv->wg - 1) / dv->wg * (dv->group_reduce ? 1 : dv->wg);
    ns->dev = dv;
    const double begin = fb_now();
    FB_CHECK(build_kernels(dv, ns->dist != NULL));
    FB_CHECK(fb_ns_order_build(ns, point->values[FB_NS_RENUMBER_AXIS], &dv->order));
    const double start = fb_now();
    FB_CHECK(upload_edges(dv, ns));
    FB_CHECK(upload_nodes(dv, ns));
    FB_CHECK(alloc_work(dv, ns));
    if (dv->cg_spmv) FB_CHECK(fb_nsd_open_spmv(dv));
    if (ns->dist) FB_CHECK(open_halo(dv, ns));
    FB_CHECK(fb_target_finish(t));
    if (upload_s) *upload_s = fb_now() - start;
    if (setup_s) *setup_s = fb_now() - begin;
    if (!ns->dist) FB_CHECK(fb_ns_device_warm_up(ns, setup_s));
    return FB_OK;
fail:
    if (ns->dev) fb_ns_device_close(ns);
    return status;
}

fb_status fb_ns_device_warm_up(fb_ns *ns, double *setup_s)
{
    fb_status status = FB_OK;
    const double begin = fb_now();
    FB_CHECK(warm_up(ns));
    if (ns->dist) { /* the warm-up's exchanges and reductions are no step's */
        fb_halo_stats_reset(&ns->dist->lp.halo);
        fb_comm_stats_take();
    }
    if (setup_s) *setup_s += fb_now() - begin;
fail:
    return status;
}

fb_status fb_ns_device_download(fb_ns *ns, double *seconds)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const double start = fb_now();
    if (dv) {
        FB_CHECK(fb_nsd_get_nodes(dv, ns->u, dv->u, 3));
        FB_CHECK(fb_nsd_get_nodes(dv, ns->p, dv->p, 1));
    }
    if (seconds) *seconds = dv ? fb_now() - start : 0.0;
fail:
    return status;
}

void fb_ns_device_close(fb_ns *ns)
{
    struct fb_ns_device *dv = ns->dev;
    if (!dv) return;
    if (dv->packed) dv->dn = dv->ls = NULL; /* aliases of nd */
    fb_buffer *all[] = {dv->rowptr,      dv->col,         dv->nd,       dv->dn,          dv->ls,         dv->mass,
                        dv->h,           dv->bnorm,       dv->vfixed,   dv->pfixed,      dv->fixed,      dv->slip,
                        dv->slip_normal, dv->pfixed_list, dv->u,        dv->p,           dv->u1,         dv->u2,
                        dv->acc,         dv->tau,         dv->pic,      dv->pip,         dv->p_old,      dv->p_nm1,
                        dv->A,           dv->invdiag,     dv->b,        dv->r,           dv->z,          dv->d,
                        dv->d2,          dv->q,           dv->ubc,      dv->pvals,       dv->partial,    dv->scal,
                        dv->csr_rowptr,  dv->csr_col,     dv->csr_epos, dv->csr_diagpos, dv->csr_values, dv->halo_send,
                        dv->halo_recv,   dv->halo_buf};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        if (all[k]) fb_target_release(dv->t, all[k]);
    fb_buffer *pipelined[] = {dv->cg_w, dv->cg_n, dv->cg_z, dv->cg_y, dv->cg_mn[0], dv->cg_mn[1]};
    for (size_t k = 0; k < sizeof pipelined / sizeof *pipelined; ++k)
        if (pipelined[k]) fb_target_release(dv->t, pipelined[k]);
    free(dv->pvals_host);
    free(dv->halo_host);
    fb_ns_order_free(&dv->order);
    free(dv);
    ns->dev = NULL;
}
