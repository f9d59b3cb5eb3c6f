/* ns_device_internal.h - what the parts of the solver's backend side
 * share, private to them: ns_device.c (the point, the build, the upload in
 * the node order), ns_step.c (the time step's launch sequence),
 * ns_device_cg.c (the pressure CG's variants, its SpMV from the family,
 * the resident system for the peers) and ns_launch.c (their launches,
 * reductions, scalar reads, halo and node-array copies). Nothing else
 * includes it; the contracts are ns_device.h. */
#ifndef FB_SOLVER_NS_DEVICE_INTERNAL_H
#define FB_SOLVER_NS_DEVICE_INTERNAL_H

#include "backends/target.h"
#include "core/comm.h"
#include "ns/ns_kernels.h"
#include "solver/ns.h"
#include "solver/ns_order.h"
#include "spmv/spmv_kernels.h"

/* Slots of the device's scalar array. The CG keeps r.z and r.r of two
 * consecutive iterations (parity 0 and 1), so beta = rz_k / rz_{k-1} is
 * read on the device and no slot needs copying. */
enum {
    S_RATE, /* max rate, max |u|/h, lowest bad node: one ns_rate reduction */
    S_CONV,
    S_BAD,
    S_DIV2,
    S_B2,
    S_BSUM,
    S_SHIFT,
    S_CG = 8, /* rz, rr of parity 0 at 8, 9; of parity 1 at 10, 11 */
    S_DQ = 12,
    S_CG1 = 13, /* single-reduction and pipelined CG: gamma, delta, rr, alpha of parity 0 at 13..16, of parity 1
                   at 17..20 */
    NSCAL = 21
};

enum { OP_SUM, OP_MAX, OP_MIN }; /* NS_SUM, NS_MAX, NS_MIN in ns.cl */

/* The totals --kernel-times keeps: one per ns.cl kernel, then the CG's
 * SpMV kernel (CG_SPMV != 0). */
#define FB_NSD_SPMV_SLOT FB_NS_NKERNELS
#define FB_NSD_TIME_SLOTS (FB_NS_NKERNELS + 1)

struct fb_ns_device {
    fb_target *t;
    int wg;
    int group_reduce;  /* GROUP_REDUCE in ns.cl: 1 a partial per work-group, 0 one per item */
    int cg_variant;    /* CG_VARIANT: 0 classic, 1 single reduction, 2 pipelined */
    int packed;        /* EDGE_LAYOUT 1: nd, dn and ls are one buffer of 16-REAL records */
    fb_ns_order order; /* RENUMBER: the node order the device holds */
    fb_param_point point;
    int stride;      /* partials of one value: work-groups (or items) of a launch over the nodes */
    int fold_groups; /* work-groups of a reduction's first fold (1: one fold; ns_device.c's fold_groups) */
    fb_kernel *k[FB_NS_NKERNELS];
    /* read-only after the upload */
    fb_buffer *rowptr, *col, *nd, *dn, *ls, *mass, *h, *bnorm, *vfixed, *pfixed, *fixed, *slip, *slip_normal,
        *pfixed_list;
    /* the state and the work arrays */
    fb_buffer *u, *p, *u1, *u2, *acc, *tau, *pic, *pip, *p_old, *p_nm1, *A, *invdiag, *b, *r, *z, *d, *d2, *q;
    fb_buffer *ubc, *pvals, *partial, *scal;
    fb_buffer *folds; /* FB_NSD_FOLD_GROUPS values per reduced value: the first fold of many partials */
    fb_buffer *cg_w, *cg_n, *cg_z, *cg_y, *cg_mn[2]; /* the pipelined CG's own vectors (CG_VARIANT 2 only) */
    double scal_host[NSCAL];
    double *pvals_host;
    int ubc_uploaded;
    double ubc_time; /* ns->ubc_time when ubc was last uploaded */
    /* CG_SPMV != 0: the pressure matrix as CSR (ns_csr.h) and the SpMV
     * family's kernel at its own point; all NULL when 0 */
    int cg_spmv;
    const fb_spmv_kernel_def *spmv;
    fb_param_point spmv_point;
    fb_spmv_shape spmv_shape;
    fb_launch spmv_launch;
    fb_kernel *spmv_kernel;
    fb_buffer *csr_rowptr, *csr_col, *csr_epos, *csr_diagpos, *csr_values;
    /* several ranks (ns->dist): the halo exchange's lists in the device's
     * order, the device buffer it packs into and unpacks from, and its
     * host copy (what is sent, then what arrives); all NULL on one */
    fb_buffer *halo_send, *halo_recv, *halo_buf;
    double *halo_host;
    /* fb_ns_device_time_kernels: each launch timed by its event (which
     * waits for it) and added to its kernel's total, the scalar reads by
     * the clock; off (0) unless asked */
    int time_kernels;
    double kernel_s[FB_NSD_TIME_SLOTS], reads_s;
    long kernel_calls[FB_NSD_TIME_SLOTS], reads;
};

#define BUF(x) fb_arg_buffer(dv->x)
#define INT(v) fb_arg_i32(v)
#define DBL(v) fb_arg_real(1, v)
#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- ns_launch.c ---- */

/* The most work-groups of the first fold when a reduction has many
 * partials (fb_nsd_reduce, dv->fold_groups): few enough for one group to
 * fold after. */
#define FB_NSD_FOLD_GROUPS 64

/* Every launch goes through here: kernel k (one of dv->k, or the CG's
 * SpMV kernel) at its geometry, timed into the totals of `slot` (its
 * fb_ns_kernel_id, or FB_NSD_SPMV_SLOT) when the device times its
 * kernels (fb_ns_device_time_kernels). */
fb_status fb_nsd_launch_at(struct fb_ns_device *dv, fb_kernel *k, int slot, const fb_launch *l, const fb_arg *args,
                           int nargs);
/* One launch of kernel k over items, one work-item each (none when 0). */
fb_status fb_nsd_launch(struct fb_ns_device *dv, fb_ns_kernel_id k, size_t items, const fb_arg *args, int nargs);
/* scal[slot + v - v0] = op over the partials of values v0 .. v0 + nvals - 1
 * (in two folds when they are many). */
fb_status fb_nsd_reduce(struct fb_ns_device *dv, int v0, int nvals, int op, int slot);
/* The scalar array into dv->scal_host, and back. */
fb_status fb_nsd_read_scalars(struct fb_ns_device *dv);
fb_status fb_nsd_write_scalars(struct fb_ns_device *dv);
/* fb_nsd_read_scalars; on several ranks slots slot .. slot + count - 1
 * are then this rank's sums: summed over ranks and written back, so the
 * kernels that read them (the mean of b, the CG's alpha and beta) see the
 * global values. */
fb_status fb_nsd_read_scalars_summed(fb_ns *ns, int slot, int count);
/* On several ranks: the halo entries of the device array v (ncomp per
 * node) from their owners, before a kernel reads v at neighbours (ns.c's
 * share). Nothing on one process. */
fb_status fb_nsd_share(fb_ns *ns, fb_buffer *v, int ncomp);
/* A device buffer of bytes (at least one double), filled from host unless NULL. */
fb_status fb_nsd_upload(fb_target *t, fb_buffer **out, const void *host, size_t bytes);
/* A node array of width values per node into the device's order, and back. */
fb_status fb_nsd_put_nodes(struct fb_ns_device *dv, fb_buffer *buf, const double *host, int width);
fb_status fb_nsd_get_nodes(struct fb_ns_device *dv, double *host, fb_buffer *buf, int width);

/* ---- ns_device_cg.c ---- */

/* The point's CG (CG_VARIANT, CG_SPMV) on the resident system, into dv->p:
 * iterations, and the last ||r||^2 (NaN when not finite). */
fb_status fb_nsd_run_cg(fb_ns *ns, double tol2, int *its, double *res2);
/* CG_SPMV: the CSR values of this step's per-edge A. */
fb_status fb_nsd_csr_values(struct fb_ns_device *dv, int n);
/* CG_SPMV: the CSR pattern uploaded, the SpMV kernel built at its defaults. */
fb_status fb_nsd_open_spmv(struct fb_ns_device *dv);
/* Why CG_SPMV cannot run with the point's CG_VARIANT, or FB_OK. */
fb_status fb_nsd_check_cg_spmv(const fb_param_point *point);

#endif
