/* ns_device_cg.c - the solver's pressure CG on its backend (contracts in
 * ns_device.h; the kernels are kernels/ns/ns.cl's ns_cg* and their OpenMP
 * twins): the classic CG,
 * the single-reduction CG (with the solver's fused edge product or, by
 * CG_SPMV, a kernel of the SpMV family on the pressure matrix as CSR) and
 * the pipelined CG; and the resident pressure system handed to the peers
 * (solve --peer). The variants are the same Jacobi PCG in exact
 * arithmetic and stop alike: ns.c's test on the residual the backend
 * reduced. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "core/measure.h"
#include "core/stats.h"
#include "solver/ns_csr.h"
#include "solver/ns_device.h"
#include "solver/ns_device_internal.h"
#include "solver/ns_dist.h"

/* ---- the variants ---- */

/* by CG_VARIANT: classic, single reduction, pipelined (the CGs below);
 * the single-reduction CG with an external product (CG_SPMV) launches its
 * dot products apart: update, SpMV, dots, reduction */
static const int cg_launches[] = {4, 3, 2};

int fb_ns_device_launches_per_cg_iteration(const fb_ns *ns)
{
    if (!ns->dev) return 0;
    return ns->dev->cg_variant == 1 && ns->dev->cg_spmv ? 4 : cg_launches[ns->dev->cg_variant];
}

/* Every CG starts alike: r = b - A p, z = M^-1 r, both direction buffers
 * zeroed, partials r.z and r.r (on several ranks p's halo first: the
 * start is the extrapolated p). */
static fb_status cg_start(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg a[] = {INT(n), BUF(rowptr), BUF(col), BUF(A),  BUF(invdiag), BUF(b),         BUF(p),
                        BUF(r), BUF(z),      BUF(d),   BUF(d2), BUF(partial), INT(dv->stride)};
    FB_CHECK(fb_nsd_share(ns, dv->p, 1));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG_START, (size_t)n, a, NARGS(a)));
fail:
    return status;
}

/* ---- the product from the SpMV family (CG_SPMV 1..3) ---- */

/* The pressure matrix's CSR values from the per-edge A of this step. */
fb_status fb_nsd_csr_values(struct fb_ns_device *dv, int n)
{
    const fb_arg a[] = {INT(n), BUF(rowptr), BUF(A), BUF(csr_epos), BUF(csr_diagpos), BUF(csr_values)};
    return fb_nsd_launch(dv, FB_NS_CSR_VALUES, (size_t)n, a, NARGS(a));
}

/* y = A x by the SpMV family's kernel, at its own geometry. */
static fb_status spmv_product(struct fb_ns_device *dv, fb_kernel *k, fb_buffer *x, fb_buffer *y)
{
    const fb_arg a[] = {INT(dv->spmv_shape.nrows), BUF(csr_rowptr),  BUF(csr_col),
                        BUF(csr_values),           fb_arg_buffer(x), fb_arg_buffer(y)};
    return fb_nsd_launch_at(dv, k, FB_NSD_SPMV_SLOT, &dv->spmv_launch, a, NARGS(a));
}

/* w = A u and the partials (r, u), (w, u), (r, r) of the single-reduction
 * CG (u in z, w in q): ns_cg1_matvec's fused edge product, or (CG_SPMV)
 * the SpMV kernel and ns_cg1_dots. On several ranks u's halo first, the
 * one exchange of an iteration. */
static fb_status cg1_product(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    FB_CHECK(fb_nsd_share(ns, dv->z, 1));
    if (!dv->cg_spmv) {
        const fb_arg a[] = {INT(n), BUF(rowptr), BUF(col),     BUF(A),         BUF(r),
                            BUF(z), BUF(q),      BUF(partial), INT(dv->stride)};
        FB_CHECK(fb_nsd_launch(dv, FB_NS_CG1_MATVEC, (size_t)n, a, NARGS(a)));
    } else {
        const fb_arg dots[] = {INT(n), BUF(r), BUF(z), BUF(q), BUF(partial), INT(dv->stride)};
        FB_CHECK(spmv_product(dv, dv->spmv_kernel, dv->z, dv->q));
        FB_CHECK(fb_nsd_launch(dv, FB_NS_CG1_DOTS, (size_t)n, dots, NARGS(dots)));
    }
fail:
    return status;
}

/* ---- the CGs ---- */

/* What one CG iteration launches, ending with the reduction into its scalar
 * slots of the next parity; the loop around it is cg_loop's. */
typedef fb_status (*cg_iteration_fn)(fb_ns *ns, int k);

typedef struct cg_scheme {
    int slots; /* the scalar slots of parity 0; parity 1 follows at slots + width */
    int width; /* slots per parity */
    int rr;    /* (r, r)'s place among them */
    int nsums; /* the first nsums of them are dot products (the rest, alpha, the kernels' own) */
    cg_iteration_fn iterate;
} cg_scheme;

static int cg_slots(const cg_scheme *s, int parity) { return s->slots + s->width * (parity & 1); }

/* The loop every variant shares, so all stop alike:
 * the start has reduced into parity 0; iterate while ||r||^2 > tol2, finite
 * and under the cap, one scalar read per iteration (on several ranks the
 * dot products summed over ranks and written back, so every rank takes the
 * same alpha, beta and decision). */
static fb_status cg_loop(fb_ns *ns, const cg_scheme *s, double tol2, int *its, double *res2)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    int k = 0;
    FB_CHECK(fb_nsd_read_scalars_summed(ns, cg_slots(s, 0), s->nsums));
    double rr = dv->scal_host[cg_slots(s, 0) + s->rr];
    while (k < ns->cfg.cg_max_its && rr > tol2 && isfinite(rr)) {
        FB_CHECK(s->iterate(ns, k));
        FB_CHECK(fb_nsd_read_scalars_summed(ns, cg_slots(s, k + 1), s->nsums));
        rr = dv->scal_host[cg_slots(s, k + 1) + s->rr];
        ++k;
    }
    *its = k;
    *res2 = isfinite(rr) ? rr : NAN;
fail:
    return status;
}

/* The single-reduction CG (ns.cl's ns_cg1_*): r, u = M^-1 r from
 * ns_cg_start, then w = A u and its three dot products; per iteration the
 * vector updates, w = A u again with its dot products, one reduction. p
 * and s live in d and d2 (zeroed by the start). Per parity the scalars are
 * gamma, delta, rr, alpha. */
static const cg_scheme single_reduction;

static fb_status cg1_iteration(fb_ns *ns, int k)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n, cur = cg_slots(&single_reduction, k), next = cg_slots(&single_reduction, k + 1);
    const fb_arg upd[] = {INT(n),  BUF(p),       BUF(r),    BUF(z),   BUF(q),    BUF(d),
                          BUF(d2), BUF(invdiag), BUF(scal), INT(cur), INT(next), INT(k == 0)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG1_UPDATE, (size_t)n, upd, NARGS(upd)));
    FB_CHECK(cg1_product(ns));
    FB_CHECK(fb_nsd_reduce(dv, 0, 3, OP_SUM, next));
fail:
    return status;
}

static const cg_scheme single_reduction = {S_CG1, 4, 2, 3, cg1_iteration};

static fb_status cg_single_reduction(fb_ns *ns, double tol2, int *its, double *res2)
{
    fb_status status = FB_OK;
    FB_CHECK(cg_start(ns));
    FB_CHECK(cg1_product(ns));
    FB_CHECK(fb_nsd_reduce(ns->dev, 0, 3, OP_SUM, S_CG1));
    FB_CHECK(cg_loop(ns, &single_reduction, tol2, its, res2));
fail:
    return status;
}

/* The pipelined CG's start: after cg_start (r, u = M^-1 r in z, p and s
 * zeroed in d and d2), w = A u with the first dot products (ns_cg1_matvec),
 * then n = A M^-1 w, mn = M^-1 n into parity 0, and z, q, y zeroed. */
static fb_status cg_pipelined_start(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n;
    const fb_arg matvec[] = {INT(n), BUF(rowptr), BUF(col),     BUF(A),         BUF(r),
                             BUF(z), BUF(cg_w),   BUF(partial), INT(dv->stride)};
    const fb_arg start[] = {INT(n),    BUF(rowptr),   BUF(col),  BUF(A), BUF(invdiag), BUF(cg_w),
                            BUF(cg_n), BUF(cg_mn[0]), BUF(cg_z), BUF(q), BUF(cg_y)};
    FB_CHECK(cg_start(ns));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG1_MATVEC, (size_t)n, matvec, NARGS(matvec)));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG2_START, (size_t)n, start, NARGS(start)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 3, OP_SUM, S_CG1));
fail:
    return status;
}

/* The pipelined CG (ns.cl's ns_cg2_*): per iteration one fused kernel
 * (every recurrence and the product, with the next dot products) and one
 * reduction. Iteration k gathers M^-1 n of parity k and writes that of
 * parity k + 1; u, p, s live in z, d, d2. The scalars are the
 * single-reduction CG's: rr after iteration k is ||r_{k+1}||^2 of the
 * recurrence residual. */
static fb_status cg2_iteration(fb_ns *ns, int k)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n, in = k & 1, out = (k + 1) & 1;
    const int cur = cg_slots(&single_reduction, k), next = cg_slots(&single_reduction, k + 1);
    const fb_arg it[] = {INT(n),    BUF(rowptr), BUF(col),    BUF(A),         BUF(invdiag),    BUF(p),
                         BUF(r),    BUF(z),      BUF(d),      BUF(d2),        BUF(q),          BUF(cg_w),
                         BUF(cg_n), BUF(cg_z),   BUF(cg_y),   BUF(cg_mn[in]), BUF(cg_mn[out]), BUF(scal),
                         INT(cur),  INT(next),   INT(k == 0), BUF(partial),   INT(dv->stride)};
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG2_ITERATE, (size_t)n, it, NARGS(it)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 3, OP_SUM, next));
fail:
    return status;
}

static fb_status cg_pipelined(fb_ns *ns, double tol2, int *its, double *res2)
{
    fb_status status = FB_OK;
    const cg_scheme pipelined = {S_CG1, 4, 2, 3, cg2_iteration};
    FB_CHECK(cg_pipelined_start(ns));
    FB_CHECK(cg_loop(ns, &pipelined, tol2, its, res2));
fail:
    return status;
}

/* The classic CG: 4 launches per iteration. The new direction
 * alternates between d and d2 by parity (d the old one at k = 0); per
 * parity the scalars are r.z and r.r, and (d, q) sits at S_DQ. Each row
 * recomputes its neighbours' new direction from their z and old direction,
 * so on several ranks both halos are exchanged first (the old direction's
 * at k = 0 holds the start's zeros), and (d, q) is summed over ranks
 * before the update reads it. */
static const cg_scheme classic;

static fb_status cg_classic_iteration(fb_ns *ns, int k)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    const int n = ns->E.n, cur = cg_slots(&classic, k), next = cg_slots(&classic, k + 1);
    fb_buffer *dold = k & 1 ? dv->d2 : dv->d, *dnew = k & 1 ? dv->d : dv->d2;
    const fb_arg dir[] = {
        INT(n), BUF(rowptr), BUF(col), BUF(A),    BUF(z),      fb_arg_buffer(dold), fb_arg_buffer(dnew),
        BUF(q), BUF(scal),   INT(cur), INT(next), INT(k == 0), BUF(partial),        INT(dv->stride)};
    const fb_arg upd[] = {INT(n), BUF(p),    BUF(r),   BUF(z),    BUF(invdiag), fb_arg_buffer(dnew),
                          BUF(q), BUF(scal), INT(cur), INT(S_DQ), BUF(partial), INT(dv->stride)};
    FB_CHECK(fb_nsd_share(ns, dv->z, 1));
    FB_CHECK(fb_nsd_share(ns, dold, 1));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG_DIRECTION, (size_t)n, dir, NARGS(dir)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 1, OP_SUM, S_DQ));
    if (ns->dist) FB_CHECK(fb_nsd_read_scalars_summed(ns, S_DQ, 1));
    FB_CHECK(fb_nsd_launch(dv, FB_NS_CG_UPDATE, (size_t)n, upd, NARGS(upd)));
    FB_CHECK(fb_nsd_reduce(dv, 0, 2, OP_SUM, next));
fail:
    return status;
}

static const cg_scheme classic = {S_CG, 2, 1, 2, cg_classic_iteration};

static fb_status cg(fb_ns *ns, double tol2, int *its, double *res2)
{
    fb_status status = FB_OK;
    FB_CHECK(cg_start(ns));
    FB_CHECK(fb_nsd_reduce(ns->dev, 0, 2, OP_SUM, S_CG));
    FB_CHECK(cg_loop(ns, &classic, tol2, its, res2));
fail:
    return status;
}

/* The point's CG (CG_VARIANT) on the resident system, into dv->p. */
fb_status fb_nsd_run_cg(fb_ns *ns, double tol2, int *its, double *res2)
{
    switch (ns->dev->cg_variant) {
    case 2: return cg_pipelined(ns, tol2, its, res2);
    case 1: return cg_single_reduction(ns, tol2, its, res2);
    default: return cg(ns, tol2, its, res2);
    }
}

/* ---- setup of the SpMV family's product ---- */

/* CG_SPMV: 0..3, and an external product only for the single-reduction
 * CG (the classic one fuses its product with the new direction). */
fb_status fb_nsd_check_cg_spmv(const fb_param_point *point)
{
    fb_status status = FB_OK;
    const int cg_spmv = point->values[FB_NS_CG_SPMV_AXIS], cg_variant = point->values[FB_NS_CG_VARIANT_AXIS];
    if (cg_spmv < 0 || cg_spmv > 3) FB_FAIL(FB_ERR_USAGE, "solver: CG_SPMV=%d is not 0, 1, 2 or 3", cg_spmv);
    if (cg_spmv && cg_variant != 1)
        FB_FAIL(FB_ERR_USAGE,
                "solver: CG_SPMV=%d needs the single-reduction CG (CG_VARIANT=1): CG_VARIANT=%d fuses its product "
                "with the new direction",
                cg_spmv, cg_variant);
fail:
    return status;
}

static const char *const spmv_kernel_names[] = {NULL, "csr-scalar", "csr-vector", "csr-multirow"};

static int axis_has(const fb_param_axis *a, int v)
{
    for (int i = 0; i < a->nvalues; ++i)
        if (a->values[i] == v) return 1;
    return 0;
}

/* Why the SpMV kernel cannot run at p on this device and matrix, or FB_OK:
 * every value on its axis, then the kernel's own allowed(). */
static fb_status check_spmv_point(const struct fb_ns_device *dv, const fb_param_point *p)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = dv->spmv;
    char why[256] = "";
    for (int i = 0; i < k->nparams; ++i)
        if (!axis_has(&k->params[i], p->values[i]))
            FB_FAIL(FB_ERR_USAGE, "solver: %s's %s=%d is not one of its values", k->name, k->params[i].name,
                    p->values[i]);
    if (!k->allowed(p, fb_target_info(dv->t), &dv->spmv_shape, why, sizeof why))
        FB_FAIL(FB_ERR_USAGE, "solver: CG_SPMV=%d (%s) cannot run on %s: %s", dv->cg_spmv, k->name,
                fb_target_info(dv->t)->id, why);
fail:
    return status;
}

/* The SpMV kernel from its own source at p, in double (REAL and its
 * parameters as defines, as kernels/spmv builds it; on openmp its twin). */
static fb_status build_spmv(struct fb_ns_device *dv, const fb_param_point *p, fb_kernel **out)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = dv->spmv;
    fb_define defines[FB_MAX_PARAMS + 1] = {{"REAL", "double"}};
    char values[FB_MAX_PARAMS][16];
    for (int i = 0; i < k->nparams; ++i) {
        snprintf(values[i], sizeof values[i], "%d", p->values[i]);
        defines[i + 1] = (fb_define){k->params[i].name, values[i]};
    }
    const char *text = fb_kernel_source(k->source);
    if (!text) FB_FAIL(FB_ERR_INPUT, "kernel source %s is not embedded", k->source);
    const fb_program_spec spec = {k->source, text, k->kernel, defines, 1 + k->nparams, fb_spmv_host_kernels};
    FB_CHECK(fb_target_build(dv->t, &spec, out));
fail:
    return status;
}

/* Checks p, builds the kernel at p, and takes both (the old ones kept on
 * failure). */
static fb_status use_spmv_point(struct fb_ns_device *dv, const fb_param_point *p)
{
    fb_status status = FB_OK;
    fb_kernel *k = NULL;
    fb_launch fixup;
    int nthreads;
    FB_CHECK(check_spmv_point(dv, p));
    FB_CHECK(build_spmv(dv, p, &k));
    dv->spmv_point = *p, dv->spmv_kernel = k;
    dv->spmv->geometry(p, &dv->spmv_shape, &dv->spmv_launch, &fixup, &nthreads);
fail:
    return status;
}

/* The pressure matrix's CSR pattern in the device's order, uploaded once
 * (values filled each step by ns_csr_values), and the SpMV kernel at its
 * defaults (fb_ns_device_set_spmv_point sets a tuned point). */
fb_status fb_nsd_open_spmv(struct fb_ns_device *dv)
{
    fb_status status = FB_OK;
    fb_ns_csr c;
    const int n = dv->order.n, I = (int)sizeof(int);
    FB_CHECK(fb_ns_csr_build(n, dv->order.rowptr, dv->order.col, &c));
    dv->spmv = fb_spmv_kernel_find(spmv_kernel_names[dv->cg_spmv]);
    if (!dv->spmv) FB_FAIL(FB_ERR_INPUT, "the SpMV family has no kernel %s", spmv_kernel_names[dv->cg_spmv]);
    dv->spmv_shape = (fb_spmv_shape){.nrows = n,
                                     .ncols = n,
                                     .nnz = c.nnz,
                                     .block = 1,
                                     .nbrows = n,
                                     .nblocks = c.nnz,
                                     .real_bytes = (int)sizeof(double)};
    const fb_param_point defaults = fb_spmv_default_point(dv->spmv);
    FB_CHECK(use_spmv_point(dv, &defaults));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->csr_rowptr, c.rowptr, (size_t)I * ((size_t)n + 1)));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->csr_col, c.col, (size_t)I * (size_t)c.nnz));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->csr_epos, c.epos, (size_t)I * (size_t)dv->order.nedges));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->csr_diagpos, c.diagpos, (size_t)I * (size_t)n));
    FB_CHECK(fb_nsd_upload(dv->t, &dv->csr_values, NULL, sizeof(double) * (size_t)c.nnz));
fail:
    fb_ns_csr_free(&c);
    return status;
}

const fb_spmv_kernel_def *fb_ns_device_spmv_kernel(const fb_ns *ns) { return ns->dev ? ns->dev->spmv : NULL; }

const fb_param_point *fb_ns_device_spmv_point(const fb_ns *ns)
{
    return ns->dev && ns->dev->spmv ? &ns->dev->spmv_point : NULL;
}

/* After the new kernel is built, one product (into the CG's scratch q) so
 * a driver that compiles at the first launch does it here, not in step 1. */
fb_status fb_ns_device_set_spmv_point(fb_ns *ns, const fb_param_point *p)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    if (!dv) FB_FAIL(FB_ERR_USAGE, "the CG's SpMV point is for a device run (fb_ns_device_open first)");
    if (!dv->spmv)
        FB_FAIL(FB_ERR_USAGE, "solver: CG_SPMV=0 runs the CG's own edge product: no SpMV kernel to set a point for");
    FB_CHECK(use_spmv_point(dv, p));
    FB_CHECK(spmv_product(dv, dv->spmv_kernel, dv->z, dv->q));
    FB_CHECK(fb_target_finish(dv->t));
fail:
    return status;
}

/* The device's order when open (the matrix the kernel multiplies), else
 * the mesh's: the signature (rows, nnz, row statistics) is the same. */
fb_status fb_ns_pressure_matrix_record(const fb_ns *ns, json_t **out, fb_signature *sig)
{
    fb_status status = FB_OK;
    fb_ns_csr c;
    const struct fb_ns_device *dv = ns->dev;
    *out = NULL;
    FB_CHECK(fb_ns_csr_build(ns->E.n, dv ? dv->order.rowptr : ns->E.rowptr, dv ? dv->order.col : ns->E.col, &c));
    FB_CHECK(fb_ns_csr_record(&c, "ns-pressure", out, sig));
fail:
    fb_ns_csr_free(&c);
    return status;
}

/* ---- the resident pressure system, for the peers ---- */

/* The device's per-edge array back into the mesh's edge order. */
static fb_status get_edges(struct fb_ns_device *dv, double *host, fb_buffer *buf)
{
    fb_status status = FB_OK;
    double *ordered = NULL;
    const size_t e = (size_t)dv->order.nedges;
    if (!dv->order.emap) return fb_target_copy_out(dv->t, host, buf, sizeof(double) * e);
    FB_ALLOC(ordered, e, "an edge array in the device's order");
    FB_CHECK(fb_target_copy_out(dv->t, ordered, buf, sizeof(double) * e));
    for (size_t k = 0; k < e; ++k)
        host[dv->order.emap[k]] = ordered[k];
fail:
    free(ordered);
    return status;
}

fb_status fb_ns_device_pressure_system(fb_ns *ns)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    if (!dv) FB_FAIL(FB_ERR_USAGE, "the pressure system is on the device only in a device run");
    FB_CHECK(get_edges(dv, ns->A, dv->A));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->invdiag, dv->invdiag, 1));
    FB_CHECK(fb_nsd_get_nodes(dv, ns->b, dv->b, 1));
fail:
    return status;
}

/* ||b||^2 of the resident right-hand side (its stopping test's scale). */
static fb_status resident_b2(fb_ns *ns, double *b2)
{
    fb_status status = FB_OK;
    double *b = NULL;
    const int n = ns->E.n;
    FB_ALLOC(b, n, "a copy of the pressure right-hand side");
    FB_CHECK(fb_target_copy_out(ns->dev->t, b, ns->dev->b, sizeof(double) * (size_t)n));
    *b2 = 0.0;
    for (int i = 0; i < n; ++i)
        *b2 += b[i] * b[i];
    if (ns->dist) fb_comm_allreduce(b2, 1, FB_COMM_SUM); /* every rank stops on the whole system's ||b|| */
fail:
    free(b);
    return status;
}

/* The CG functions solve into dv->p; a scratch buffer takes its place for
 * the solve, so the solver's pressure stays as the run left it. */
fb_status fb_ns_device_cg_solve(fb_ns *ns, const double *x0, double *x, fb_ns_cg_run *out)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    fb_buffer *scratch = NULL, *p = NULL;
    double b2 = 0.0, res2 = NAN;
    memset(out, 0, sizeof *out);
    if (!dv) FB_FAIL(FB_ERR_USAGE, "the device CG runs in a device run only");
    FB_CHECK(resident_b2(ns, &b2));
    FB_CHECK(fb_nsd_upload(dv->t, &scratch, NULL, sizeof(double) * (size_t)dv->order.n));
    FB_CHECK(fb_nsd_put_nodes(dv, scratch, x0, 1));
    FB_CHECK(fb_target_finish(dv->t));
    p = dv->p, dv->p = scratch;
    const double start = fb_now();
    FB_CHECK(fb_nsd_run_cg(ns, ns->cfg.cg_tol * ns->cfg.cg_tol * b2, &out->its, &res2));
    FB_CHECK(fb_target_finish(dv->t));
    out->seconds = fb_now() - start;
    out->res = b2 > 0 ? sqrt(res2 / b2) : 0.0;
    FB_CHECK(fb_nsd_get_nodes(dv, x, scratch, 1));
fail:
    if (p) dv->p = p;
    if (scratch) fb_target_release(dv->t, scratch);
    return status;
}

fb_status fb_ns_device_time_matvec(fb_ns *ns, int repeats, double *median_s)
{
    fb_status status = FB_OK;
    struct fb_ns_device *dv = ns->dev;
    double *times = NULL;
    FB_ALLOC(times, repeats, "matvec times");
    for (int k = 0; k < repeats; ++k) {
        FB_CHECK(fb_target_finish(dv->t));
        const double start = fb_now();
        FB_CHECK(cg1_product(ns));
        FB_CHECK(fb_target_finish(dv->t));
        times[k] = fb_now() - start;
    }
    *median_s = fb_median(times, (size_t)repeats);
fail:
    free(times);
    return status;
}
