/* ns_device.c - the solver's state on a backend (contracts in
 * ns_device.h): the point checked, the kernels built, the state uploaded in
 * the device's node order, the untimed warm-up step, the download and the
 * release. The step itself is ns_step.c, its CG ns_device_cg.c; what they
 * share is ns_device_internal.h (ns_launch.c). */
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

/* Pinned, not the devices' defaults, so a change of those for a GPU does
 * not move the baseline. Measured on cavity level 2 (docs/solver.md, "One
 * driver"): the single-reduction CG and RCM order 1.2-1.5x faster than the
 * loops the baseline ran before; the packed edges and the classic CG slower. */
fb_param_point fb_ns_openmp_point(void)
{
    fb_param_point p = fb_ns_default_point();
    p.values[FB_NS_GROUP_REDUCE_AXIS] = 0; /* ignored by the twins */
    p.values[FB_NS_CG_VARIANT_AXIS] = 1;
    p.values[FB_NS_EDGE_LAYOUT_AXIS] = 0;
    p.values[FB_NS_RENUMBER_AXIS] = 1;
    p.values[FB_NS_CG_SPMV_AXIS] = 0;
    return p;
}

/* ---- uploads ---- */

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
    FB_CHECK(fb_nsd_upload(dv->t, &dv->folds, NULL, 3 * D * FB_NSD_FOLD_GROUPS));
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
        const fb_program_spec spec = {FB_NS_SOURCE, text, fb_ns_kernel_names[k], defines, ndefines, fb_ns_host_kernels};
        FB_CHECK(fb_target_build(dv->t, &spec, &dv->k[k]));
    }
fail:
    return status;
}

/* Why the device or the point cannot run the solver, or FB_OK. */
fb_status fb_ns_device_check_point(const fb_device_info *info, const fb_param_point *point)
{
    const int wg = point->values[FB_NS_WG_SIZE_AXIS], group_reduce = point->values[FB_NS_GROUP_REDUCE_AXIS];
    const int cg_variant = point->values[FB_NS_CG_VARIANT_AXIS], layout = point->values[FB_NS_EDGE_LAYOUT_AXIS];
    fb_status status = FB_OK;
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

/* Work-groups of a reduction's first fold: on a CPU device, which runs a
 * group's items one after another and pays a few microseconds a group,
 * one per compute unit (64 groups made a fold at cavity level 1 on PoCL
 * cost 0.2 ms, most of it the groups); on a GPU one per 4096 partials; at
 * most FB_NSD_FOLD_GROUPS; 1 (one fold) for a few partials per group. */
static int fold_groups(const fb_device_info *d, int stride)
{
    int g = d->host_cpu ? (int)d->compute_units : stride / 4096;
    if (g > FB_NSD_FOLD_GROUPS) g = FB_NSD_FOLD_GROUPS;
    return g > 1 && stride > 8 * g ? g : 1;
}

fb_status fb_ns_device_open(fb_ns *ns, fb_target *t, const fb_param_point *point, double *upload_s, double *setup_s)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = NULL;
    if (!ns->dn || !ns->ls)
        FB_FAIL(FB_ERR_USAGE, "the host's edge coefficients were dropped (fb_ns_drop_upload_copies): open a "
                              "backend before dropping them");
    FB_CHECK(fb_ns_device_check_point(fb_target_info(t), point));
    if (ns->dist) FB_CHECK(fb_ns_device_check_ranks(point));
    FB_ALLOC(dv, 1, "the device solver");
    dv->t = t, dv->point = *point, dv->wg = point->values[FB_NS_WG_SIZE_AXIS];
    dv->group_reduce = point->values[FB_NS_GROUP_REDUCE_AXIS], dv->cg_variant = point->values[FB_NS_CG_VARIANT_AXIS];
    dv->packed = point->values[FB_NS_EDGE_LAYOUT_AXIS], dv->cg_spmv = point->values[FB_NS_CG_SPMV_AXIS];
    dv->stride = (ns->E.n + dv->wg - 1) / dv->wg * (dv->group_reduce ? 1 : dv->wg);
    dv->fold_groups = fold_groups(fb_target_info(t), dv->stride);
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

void fb_ns_device_time_kernels(fb_ns *ns)
{
    struct fb_ns_device *dv = ns->dev;
    if (!dv) return;
    dv->time_kernels = 1;
    memset(dv->kernel_s, 0, sizeof dv->kernel_s), memset(dv->kernel_calls, 0, sizeof dv->kernel_calls);
    dv->reads_s = 0, dv->reads = 0;
}

static json_t *time_json(long calls, double seconds)
{
    return json_pack("{s:I, s:f}", "calls", (json_int_t)calls, "total_s", seconds);
}

json_t *fb_ns_device_kernel_times(const fb_ns *ns)
{
    const struct fb_ns_device *dv = ns->dev;
    if (!dv || !dv->time_kernels) return NULL;
    json_t *out = json_object();
    for (int k = 0; k < FB_NSD_TIME_SLOTS; ++k)
        if (dv->kernel_calls[k])
            json_object_set_new(out, k == FB_NSD_SPMV_SLOT ? dv->spmv->name : fb_ns_kernel_names[k],
                                time_json(dv->kernel_calls[k], dv->kernel_s[k]));
    json_object_set_new(out, "scalar_reads", time_json(dv->reads, dv->reads_s));
    return out;
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

/* A host node array of width values for a download, allocated once. */
static fb_status host_nodes(double **p, const fb_ns *ns, int width)
{
    fb_status status = FB_OK;
    if (!*p) FB_ALLOC(*p, (size_t)width * (size_t)ns->dev->order.n, "a node array of the last step");
fail:
    return status;
}

fb_status fb_ns_device_download_step(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    if (!dv) FB_FAIL(FB_ERR_USAGE, "the solver's state is on no backend");
    FB_CHECK(fb_ns_device_download(ns, NULL));
    FB_CHECK(host_nodes(&ns->tau, ns, 1));
    FB_CHECK(host_nodes(&ns->p_old, ns, 1));
    FB_CHECK(host_nodes(&ns->pip, ns, 3));
    FB_CHECK(host_nodes(&ns->u2, ns, 3));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->tau, dv->tau, 1));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->p_old, dv->p_old, 1));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->pip, dv->pip, 3));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->u2, dv->u2, 3));
fail:
    return status;
}

void fb_ns_device_close(fb_ns *ns)
{
    struct fb_ns_device *dv = ns->dev;
    if (!dv) return;
    if (dv->packed) dv->dn = dv->ls = NULL; /* aliases of nd */
    fb_buffer *all[] = {dv->rowptr,      dv->col,         dv->nd,       dv->dn,       dv->ls,          dv->mass,
                        dv->h,           dv->bnorm,       dv->vfixed,   dv->pfixed,   dv->fixed,       dv->slip,
                        dv->slip_normal, dv->pfixed_list, dv->u,        dv->p,        dv->u1,          dv->u2,
                        dv->acc,         dv->tau,         dv->pic,      dv->pip,      dv->p_old,       dv->p_nm1,
                        dv->A,           dv->invdiag,     dv->b,        dv->r,        dv->z,           dv->d,
                        dv->d2,          dv->q,           dv->ubc,      dv->pvals,    dv->partial,     dv->scal,
                        dv->folds,       dv->csr_rowptr,  dv->csr_col,  dv->csr_epos, dv->csr_diagpos, dv->csr_values,
                        dv->halo_send,   dv->halo_recv,   dv->halo_buf, dv->cg_w,     dv->cg_n,        dv->cg_z,
                        dv->cg_y,        dv->cg_mn[0],    dv->cg_mn[1]};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        if (all[k]) fb_target_release(dv->t, all[k]);
    free(dv->pvals_host);
    free(dv->halo_host);
    fb_ns_order_free(&dv->order);
    free(dv);
    ns->dev = NULL;
}

void fb_ns_free(fb_ns *ns)
{
    fb_ns_device_close(ns);
    fb_ns_free_host(ns);
}
