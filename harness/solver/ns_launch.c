/* ns_launch.c - what the solver's time step, its CG and its setup share
 * (contracts in ns_device_internal.h): one launch over the nodes, the
 * reduction of partials into the scalar array and its reads, the halo
 * exchange of a device array on several ranks, and node arrays moved to
 * and from the device's node order. */
#include "solver/ns_device_internal.h"

#include <stdlib.h>

#include "core/measure.h"
#include "solver/ns_dist.h"

/* ---- launches ---- */

fb_status fb_nsd_launch_at(struct fb_ns_device *dv, fb_kernel *k, int slot, const fb_launch *l, const fb_arg *args,
                           int nargs)
{
    double s = 0;
    fb_status status = fb_target_launch(dv->t, k, l, args, nargs, dv->time_kernels ? &s : NULL);
    dv->kernel_s[slot] += s;
    dv->kernel_calls[slot] += dv->time_kernels;
    return status;
}

/* One launch over items, one work-item each (none when items is 0). A
 * launch capped at a few groups per compute unit, the items striding over
 * the rest (ns.cl's NS_FOR_EACH allows it), ran 3x slower on PoCL. */
fb_status fb_nsd_launch(struct fb_ns_device *dv, fb_ns_kernel_id k, size_t items, const fb_arg *args, int nargs)
{
    if (items == 0) return FB_OK;
    fb_launch l = fb_launch_1d(items, (size_t)dv->wg);
    return fb_nsd_launch_at(dv, dv->k[k], k, &l, args, nargs);
}

/* scal[slot + v - v0] = op over the groups' partials v0 .. v0 + nvals - 1:
 * one work-group folds them, after dv->fold_groups groups have folded
 * their shares into dv->folds when there are many (a partial per node). */
fb_status fb_nsd_reduce(struct fb_ns_device *dv, int v0, int nvals, int op, int slot)
{
    fb_status status = FB_OK;
    const int two = dv->fold_groups > 1;
    const int ngroups = two ? dv->fold_groups : dv->stride, first = two ? 0 : v0;
    const int runs = fb_target_info(dv->t)->host_cpu; /* ns.cl: streamed runs per item on a CPU device */
    const fb_arg shares[] = {INT(dv->stride), INT(dv->stride), INT(v0),    INT(nvals),
                             INT(op),         BUF(partial),    BUF(folds), INT(runs)};
    const fb_arg a[] = {INT(ngroups), INT(ngroups), INT(first),
                        INT(nvals),   INT(op),      fb_arg_buffer(two ? dv->folds : dv->partial),
                        BUF(scal),    INT(slot)};
    fb_launch many = fb_launch_1d((size_t)dv->fold_groups * dv->wg, (size_t)dv->wg);
    fb_launch one = fb_launch_1d((size_t)dv->wg, (size_t)dv->wg);
    if (two)
        FB_CHECK(fb_nsd_launch_at(dv, dv->k[FB_NS_REDUCE_GROUPS], FB_NS_REDUCE_GROUPS, &many, shares, NARGS(shares)));
    FB_CHECK(fb_nsd_launch_at(dv, dv->k[FB_NS_REDUCE], FB_NS_REDUCE, &one, a, NARGS(a)));
fail:
    return status;
}

fb_status fb_nsd_read_scalars(struct fb_ns_device *dv)
{
    const double start = dv->time_kernels ? fb_now() : 0;
    fb_status status = fb_target_copy_out(dv->t, dv->scal_host, dv->scal, sizeof dv->scal_host);
    dv->reads_s += dv->time_kernels ? fb_now() - start : 0;
    dv->reads += dv->time_kernels;
    return status;
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
    fb_comm_allreduce(ns->dev->scal_host + slot, count, FB_COMM_SUM);
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

/* ---- uploads ---- */

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
