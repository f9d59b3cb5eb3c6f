/* ns_omp_twins.c - the OpenMP twins of the solver's kernels (ns.cl), so
 * that the one time step (harness/solver/ns_step.c) runs on the openmp
 * backend as on a device: the OpenMP baseline. The same names and argument
 * order, double only (the solver runs in double), one parallel loop with
 * a static schedule over the items, each item's body in ns_omp_node.h.
 * EDGE_LAYOUT is read from the defines; WG_SIZE and GROUP_REDUCE mean
 * nothing here and are ignored.
 *
 * Reduction convention between the twins (heat2d's): a twin that
 * produces partials does its whole reduction (sums in a fixed order,
 * below; maxima and minima with a reduction clause) and leaves value v in
 * partial[v * stride] alone; ns_reduce folds entry 0 of each value into
 * scal, whatever the number of groups. A fold over one partial per item
 * would be a serial pass over the nodes, several per CG iteration. */
#include <omp.h>

#include "ns_kernels.h"
#include "ns_omp_node.h"

enum { NS_SUM, NS_MAX, NS_MIN }; /* ns.cl's ops */

/* ns.cl's ns_combine and ns_identity. */
static double combine(int op, double a, double b)
{
    return op == NS_SUM ? a + b : op == NS_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

static double identity(int op) { return op == NS_SUM ? 0.0 : op == NS_MAX ? 0.0 : 1e300; }

/* Sums in a fixed order. An OpenMP reduction clause adds the threads'
 * sums in the order they arrive, so with three threads or more two runs
 * differed in the last bits; here each thread keeps its block's sums in
 * its slot and the slots are added in thread order: the same bits every
 * run at a given thread count (the baseline's property before the twins).
 * The blocks are schedule(static)'s, as in every other loop. */
enum { NS_MAX_THREADS = 512, NS_MAX_SUMS = 3 };
typedef struct ns_slot {
    double v[8]; /* NS_MAX_SUMS used; a cache line each, so threads write apart */
} ns_slot;
static ns_slot slots[NS_MAX_THREADS];
static int team; /* the size of the last team that kept its sums */

static int sum_threads(void)
{
    const int t = omp_get_max_threads();
    return t < NS_MAX_THREADS ? t : NS_MAX_THREADS;
}

/* In the parallel region, once per thread after its block. */
static void keep_sums(int nvals, const double *v)
{
    const int me = omp_get_thread_num();
    for (int k = 0; k < nvals; ++k)
        slots[me].v[k] = v[k];
    if (me == 0) team = omp_get_num_threads();
}

/* After the region: value k of the sums into partial[k * stride]. */
static void fold_sums(int nvals, double *partial, long stride)
{
    for (int k = 0; k < nvals; ++k) {
        double s = 0.0;
        for (int t = 0; t < team; ++t)
            s += slots[t].v[k];
        partial[k * stride] = s;
    }
}

/* The kernel's edge view: rowptr and col at 1 and 2, the coefficients at
 * nd, dn, ls (a kernel that reads nd only names it thrice); packed, the
 * three are one buffer of 16-REAL records. */
static ns_edge_view edge_view(const fb_host_arg *a, int nd, int dn, int ls, const fb_host_defines *defs)
{
    const double *pnd = a[nd].ptr, *pdn = a[dn].ptr, *pls = a[ls].ptr;
    if (fb_host_define_int(defs, "EDGE_LAYOUT", 0))
        return (ns_edge_view){a[1].ptr, a[2].ptr, pnd, pdn + 3, pls + 6, 16, 16, 16};
    return (ns_edge_view){a[1].ptr, a[2].ptr, pnd, pdn, pls, 3, 3, 6};
}

/* ns_reduce(ngroups, stride, v0, nvals, op, partial, scal, slot) */
static void ns_reduce_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int stride = a[1].i32, v0 = a[2].i32, nvals = a[3].i32, op = a[4].i32, slot = a[7].i32;
    const double *partial = a[5].ptr;
    double *scal = a[6].ptr;
    for (int v = v0; v < v0 + nvals; ++v)
        scal[slot + v - v0] = combine(op, identity(op), partial[(long)v * stride]);
}

/* ns_reduce_groups(ngroups, stride, v0, nvals, op, partial, out, runs): each
 * value is whole at partial[v * stride] already; the first group's slot
 * of out takes it, the one ns_reduce then reads. */
static void ns_reduce_groups_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)defs;
    const int stride = a[1].i32, v0 = a[2].i32, nvals = a[3].i32;
    const long groups = (long)(launch->global[0] / launch->local[0]);
    const double *partial = a[5].ptr;
    double *out = a[6].ptr;
    for (int v = v0; v < v0 + nvals; ++v)
        out[(v - v0) * groups] = partial[(long)v * stride];
}

/* ns_rate(n, u, h, fixed, nu, partial, stride) */
static void ns_rate_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *fixed = a[3].ptr;
    const long stride = a[6].i32;
    const double *u = a[1].ptr, *h = a[2].ptr, nu = a[4].f64;
    double *partial = a[5].ptr, rate = 0.0, conv = 0.0;
    int bad = n;
#pragma omp parallel for schedule(static) reduction(max : rate, conv) reduction(min : bad)
    for (int i = 0; i < n; ++i)
        ns_rate_node(i, u, h, fixed[i], nu, &rate, &conv, &bad);
    partial[0] = rate, partial[stride] = conv, partial[2 * stride] = bad;
}

/* ns_projections(n, rowptr, col, nd, mass, h, nu, dt, u, p, tau, pic, pip, partial, stride) */
static void ns_projections_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const ns_edge_view V = edge_view(a, 3, 3, 3, defs);
    const int n = a[0].i32;
    const double *mass = a[4].ptr, *h = a[5].ptr, nu = a[6].f64, dt = a[7].f64, *u = a[8].ptr, *p = a[9].ptr;
    double *tau = a[10].ptr, *pic = a[11].ptr, *pip = a[12].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double div2 = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            div2 += ns_projections_row(&V, i, mass, h, nu, dt, u, p, tau, pic, pip);
        keep_sums(1, &div2);
    }
    fold_sums(1, a[13].ptr, 0);
}

/* ns_rk_stage(n, rowptr, col, nd, dn, ls, mass, bnorm, nu, tau, pic, p, u_in, u0, acc_in, acc_out, u_out, c_dt,
 * w_dt, stage): stage 0 builds on u0, 1 on acc_in, both writing acc_out; 2 (the last) writes u_out only. */
static void ns_rk_stage_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const ns_edge_view V = edge_view(a, 3, 4, 5, defs);
    const int n = a[0].i32, stage = a[19].i32;
    const double *mass = a[6].ptr, *bnorm = a[7].ptr, nu = a[8].f64, *tau = a[9].ptr, *pic = a[10].ptr;
    const double *p = a[11].ptr, *u_in = a[12].ptr, *u0 = a[13].ptr, *acc_in = a[14].ptr;
    const double *base = stage == 0 ? u0 : acc_in, c_dt = a[17].f64, w_dt = a[18].f64;
    double *acc_out = stage < 2 ? a[15].ptr : NULL, *u_out = a[16].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        ns_rk_stage_row(&V, i, mass, bnorm, nu, tau, pic, p, u_in, u0, base, acc_out, u_out, c_dt, w_dt);
}

/* ns_apply_fixed(nfixed, fixed, ubc, u) */
static void ns_apply_fixed_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = a[0].i32, *fixed = a[1].ptr;
    const double *ubc = a[2].ptr;
    double *u = a[3].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k)
        ns_fix_node(k, fixed, ubc, u);
}

/* ns_apply_slip(nslip, slip, normal, u) */
static void ns_apply_slip_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = a[0].i32, *slip = a[1].ptr;
    const double *normal = a[2].ptr;
    double *u = a[3].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k)
        ns_slip_node(k, slip, normal, u);
}

/* ns_extrapolate(n, ratio, p, p_nm1, p_old) */
static void ns_extrapolate_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const double ratio = a[1].f64;
    double *p = a[2].ptr, *p_nm1 = a[3].ptr, *p_old = a[4].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        const double pn = p[i];
        p[i] = pn + ratio * (pn - p_nm1[i]);
        p_nm1[i] = pn, p_old[i] = pn;
    }
}

/* ns_set_values(count, list, values, p) */
static void ns_set_values_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = a[0].i32, *list = a[1].ptr;
    const double *values = a[2].ptr;
    double *p = a[3].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k)
        p[list[k]] = values[k];
}

/* ns_pressure_setup(n, rowptr, col, nd, dn, ls, p_fixed, bnorm, dt, tau, p, pip, ut, A, invdiag, b, partial,
 * stride) */
static void ns_pressure_setup_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const ns_edge_view V = edge_view(a, 3, 4, 5, defs);
    const int n = a[0].i32, *p_fixed = a[6].ptr;
    const double *bnorm = a[7].ptr, dt = a[8].f64, *tau = a[9].ptr, *p = a[10].ptr, *pip = a[11].ptr;
    const double *ut = a[12].ptr;
    double *A = a[13].ptr, *invdiag = a[14].ptr, *b = a[15].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double b2 = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            b2 += ns_pressure_row(&V, i, p_fixed[i], bnorm, dt, tau, p, pip, ut, A, invdiag, b);
        keep_sums(1, &b2);
    }
    fold_sums(1, a[16].ptr, 0);
}

/* ns_sum(n, v, partial, stride) */
static void ns_sum_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const double *v = a[1].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double sum = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            sum += v[i];
        keep_sums(1, &sum);
    }
    fold_sums(1, a[2].ptr, 0);
}

/* ns_remove_mean(n, b, scal, slot, count, partial, stride) */
static void ns_remove_mean_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const double *scal = a[2].ptr, mean = scal[a[3].i32] / a[4].f64;
    double *b = a[1].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double b2 = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            const double bi = b[i] - mean;
            b[i] = bi;
            b2 += bi * bi;
        }
        keep_sums(1, &b2);
    }
    fold_sums(1, a[5].ptr, 0);
}

/* ns_reference_shift(p, ref, want, scal, slot): one item. */
static void ns_reference_shift_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const double *p = a[0].ptr;
    double *scal = a[3].ptr;
    scal[a[4].i32] = a[2].f64 - p[a[1].i32];
}

/* ns_add_scalar(n, p, scal, slot) */
static void ns_add_scalar_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const double *scal = a[2].ptr, shift = scal[a[3].i32];
    double *p = a[1].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        p[i] += shift;
}

/* ---- the CGs: the hot path, one pass each, no more than the kernel's ---- */

/* ns_cg_start(n, rowptr, col, A, invdiag, b, x, r, z, d, d2, partial, stride) */
static void ns_cg_start_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *col = a[2].ptr;
    const long stride = a[12].i32;
    const double *A = a[3].ptr, *invdiag = a[4].ptr, *b = a[5].ptr, *x = a[6].ptr;
    double *r = a[7].ptr, *z = a[8].ptr, *d = a[9].ptr, *d2 = a[10].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double sums[2] = {0.0, 0.0};
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            ns_cg_start_row(rowptr, col, A, invdiag, b, x, r, z, d, d2, i, &sums[0], &sums[1]);
        keep_sums(2, sums);
    }
    fold_sums(2, a[11].ptr, stride);
}

/* ns_cg_direction(n, rowptr, col, A, z, dold, dnew, q, scal, rz, rz_prev, first, partial, stride) */
static void ns_cg_direction_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *col = a[2].ptr;
    const double *A = a[3].ptr, *z = a[4].ptr, *dold = a[5].ptr, *scal = a[8].ptr;
    const double beta = a[11].i32 ? 0.0 : scal[a[9].i32] / scal[a[10].i32];
    double *dnew = a[6].ptr, *q = a[7].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double dq = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            dq += ns_cg_direction_row(rowptr, col, A, z, dold, beta, i, dnew, q);
        keep_sums(1, &dq);
    }
    fold_sums(1, a[12].ptr, 0);
}

/* ns_cg_update(n, x, r, z, invdiag, d, q, scal, rz, dq, partial, stride) */
static void ns_cg_update_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const long stride = a[11].i32;
    const double *invdiag = a[4].ptr, *d = a[5].ptr, *q = a[6].ptr, *scal = a[7].ptr;
    const double alpha = scal[a[8].i32] / scal[a[9].i32];
    double *x = a[1].ptr, *r = a[2].ptr, *z = a[3].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double sums[2] = {0.0, 0.0};
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            ns_cg_update_row(i, alpha, x, r, z, invdiag, d, q, &sums[0], &sums[1]);
        keep_sums(2, sums);
    }
    fold_sums(2, a[10].ptr, stride);
}

/* ns_cg1_matvec(n, rowptr, col, A, r, u, w, partial, stride) */
static void ns_cg1_matvec_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *col = a[2].ptr;
    const long stride = a[8].i32;
    const double *A = a[3].ptr, *r = a[4].ptr, *u = a[5].ptr;
    double *w = a[6].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double gamma = 0.0, delta = 0.0, rr = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            const double ui = u[i], ri = r[i], s = ns_edge_product(rowptr, col, A, u, i);
            w[i] = s;
            gamma += ri * ui, delta += s * ui, rr += ri * ri;
        }
        keep_sums(3, (const double[]){gamma, delta, rr});
    }
    fold_sums(3, a[7].ptr, stride);
}

/* The single-reduction CG's alpha and beta from the scalars of parities
 * cur and prev (ns.cl's ns_cg1_update and ns_cg2_iterate); alpha kept at
 * cur + 3 for the next iteration. */
static void cg1_scalars(double *scal, int cur, int prev, int first, double *alpha, double *beta)
{
    const double gamma = scal[cur], delta = scal[cur + 1];
    *beta = first ? 0.0 : gamma / scal[prev];
    *alpha = first ? gamma / delta : gamma / (delta - *beta * gamma / scal[prev + 3]);
    scal[cur + 3] = *alpha;
}

/* ns_cg1_update(n, x, r, u, w, p, s, invdiag, scal, cur, prev, first) */
static void ns_cg1_update_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const double *w = a[4].ptr, *invdiag = a[7].ptr;
    double *x = a[1].ptr, *r = a[2].ptr, *u = a[3].ptr, *p = a[5].ptr, *s = a[6].ptr, alpha, beta;
    cg1_scalars(a[8].ptr, a[9].i32, a[10].i32, a[11].i32, &alpha, &beta);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        const double pi = u[i] + beta * p[i], si = w[i] + beta * s[i];
        p[i] = pi, s[i] = si;
        x[i] += alpha * pi;
        const double ri = r[i] - alpha * si;
        r[i] = ri, u[i] = invdiag[i] * ri;
    }
}

/* ns_cg2_start(n, rowptr, col, A, invdiag, w, nv, mn, z, q, y) */
static void ns_cg2_start_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *col = a[2].ptr;
    const double *A = a[3].ptr, *invdiag = a[4].ptr, *w = a[5].ptr;
    double *nv = a[6].ptr, *mn = a[7].ptr, *z = a[8].ptr, *q = a[9].ptr, *y = a[10].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        const double di = invdiag[i], mi = di * w[i];
        double acc = 0.0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            acc += A[e] * (invdiag[j] * w[j] - mi);
        }
        nv[i] = acc, mn[i] = di * acc, z[i] = 0.0, q[i] = 0.0, y[i] = 0.0;
    }
}

/* ns_cg2_iterate(n, rowptr, col, A, invdiag, x, r, u, p, s, q, w, nv, z, y, mn_in, mn_out, scal, cur, prev, first,
 * partial, stride): every recurrence of one pipelined iteration in one pass. */
static void ns_cg2_iterate_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *col = a[2].ptr;
    const long stride = a[22].i32;
    const double *A = a[3].ptr, *invdiag = a[4].ptr, *mn_in = a[15].ptr;
    double *x = a[5].ptr, *r = a[6].ptr, *u = a[7].ptr, *p = a[8].ptr, *s = a[9].ptr, *q = a[10].ptr;
    double *w = a[11].ptr, *nv = a[12].ptr, *z = a[13].ptr, *y = a[14].ptr, *mn_out = a[16].ptr;
    double alpha, beta;
    cg1_scalars(a[17].ptr, a[18].i32, a[19].i32, a[20].i32, &alpha, &beta);
#pragma omp parallel num_threads(sum_threads())
    {
        double gamma = 0.0, delta = 0.0, rr = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            const double t = ns_edge_product(rowptr, col, A, mn_in, i);
            const double di = invdiag[i], wi = w[i], ni = nv[i];
            const double yi = t + beta * y[i], zi = ni + beta * z[i], qi = di * wi + beta * q[i];
            const double si = wi + beta * s[i], pi = u[i] + beta * p[i];
            const double ri = r[i] - alpha * si, ui = u[i] - alpha * qi, wn = wi - alpha * zi, nn = ni - alpha * yi;
            x[i] += alpha * pi;
            y[i] = yi, z[i] = zi, q[i] = qi, s[i] = si, p[i] = pi;
            r[i] = ri, u[i] = ui, w[i] = wn, nv[i] = nn, mn_out[i] = di * nn;
            gamma += ri * ui, delta += wn * ui, rr += ri * ri;
        }
        keep_sums(3, (const double[]){gamma, delta, rr});
    }
    fold_sums(3, a[21].ptr, stride);
}

/* ns_csr_values(n, rowptr, A, epos, diagpos, values) */
static void ns_csr_values_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32, *rowptr = a[1].ptr, *epos = a[3].ptr, *diagpos = a[4].ptr;
    const double *A = a[2].ptr;
    double *values = a[5].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        double diag = 0.0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            values[epos[e]] = A[e];
            diag -= A[e];
        }
        values[diagpos[i]] = diag;
    }
}

/* ns_cg1_dots(n, r, u, w, partial, stride) */
static void ns_cg1_dots_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int n = a[0].i32;
    const long stride = a[5].i32;
    const double *r = a[1].ptr, *u = a[2].ptr, *w = a[3].ptr;
#pragma omp parallel num_threads(sum_threads())
    {
        double gamma = 0.0, delta = 0.0, rr = 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            const double ui = u[i], ri = r[i];
            gamma += ri * ui, delta += w[i] * ui, rr += ri * ri;
        }
        keep_sums(3, (const double[]){gamma, delta, rr});
    }
    fold_sums(3, a[4].ptr, stride);
}

/* ns_correct(n, rowptr, col, nd, mass, dt, p, p_old, ut, u_out) */
static void ns_correct_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const ns_edge_view V = edge_view(a, 3, 3, 3, defs);
    const int n = a[0].i32;
    const double *mass = a[4].ptr, dt = a[5].f64, *p = a[6].ptr, *p_old = a[7].ptr, *ut = a[8].ptr;
    double *u_out = a[9].ptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        ns_correct_row(&V, i, mass, dt, p, p_old, ut, u_out);
}

/* ns_halo_pack(count, ncomp, idx, v, buf) and ns_halo_unpack(count, ncomp, idx, buf, v): buf in the exchange's
 * order, v at the nodes idx names. */
static void ns_halo_pack_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = a[0].i32, ncomp = a[1].i32, *idx = a[2].ptr;
    const double *v = a[3].ptr;
    double *buf = a[4].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k)
        for (int c = 0; c < ncomp; ++c)
            buf[(long)ncomp * k + c] = v[(long)ncomp * idx[k] + c];
}

static void ns_halo_unpack_omp(const fb_host_arg *a, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = a[0].i32, ncomp = a[1].i32, *idx = a[2].ptr;
    const double *buf = a[3].ptr;
    double *v = a[4].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k)
        for (int c = 0; c < ncomp; ++c)
            v[(long)ncomp * idx[k] + c] = buf[(long)ncomp * k + c];
}

// clang-format off
const fb_host_kernel fb_ns_host_kernels[] = {
    {"ns_reduce", "double", 8, ns_reduce_omp},
    {"ns_rate", "double", 7, ns_rate_omp},
    {"ns_projections", "double", 15, ns_projections_omp},
    {"ns_rk_stage", "double", 20, ns_rk_stage_omp},
    {"ns_apply_fixed", "double", 4, ns_apply_fixed_omp},
    {"ns_apply_slip", "double", 4, ns_apply_slip_omp},
    {"ns_extrapolate", "double", 5, ns_extrapolate_omp},
    {"ns_set_values", "double", 4, ns_set_values_omp},
    {"ns_pressure_setup", "double", 18, ns_pressure_setup_omp},
    {"ns_sum", "double", 4, ns_sum_omp},
    {"ns_remove_mean", "double", 7, ns_remove_mean_omp},
    {"ns_reference_shift", "double", 5, ns_reference_shift_omp},
    {"ns_add_scalar", "double", 4, ns_add_scalar_omp},
    {"ns_cg_start", "double", 13, ns_cg_start_omp},
    {"ns_cg_direction", "double", 14, ns_cg_direction_omp},
    {"ns_cg_update", "double", 12, ns_cg_update_omp},
    {"ns_cg1_matvec", "double", 9, ns_cg1_matvec_omp},
    {"ns_cg1_update", "double", 12, ns_cg1_update_omp},
    {"ns_cg2_start", "double", 11, ns_cg2_start_omp},
    {"ns_cg2_iterate", "double", 23, ns_cg2_iterate_omp},
    {"ns_csr_values", "double", 6, ns_csr_values_omp},
    {"ns_cg1_dots", "double", 6, ns_cg1_dots_omp},
    {"ns_correct", "double", 10, ns_correct_omp},
    {"ns_halo_pack", "double", 5, ns_halo_pack_omp},
    {"ns_halo_unpack", "double", 5, ns_halo_unpack_omp},
    {"ns_reduce_groups", "double", 8, ns_reduce_groups_omp},
    {NULL, NULL, 0, NULL},
};
// clang-format on
