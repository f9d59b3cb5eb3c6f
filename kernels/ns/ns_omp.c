/* ns_omp.c - the OpenMP hot loops of the edge-based Navier-Stokes solver
 * (contracts in ns_omp.h). Gather form: node I reads its neighbours and
 * writes only its own entries. */
#include "ns/ns_omp.h"

#include <math.h>
#include <omp.h>

#include "ns/ns_omp_node.h"

/* The split arrays of E, the one layout the host's own loops read. */
static inline ns_edge_view split_view(const fb_ns_edges *E)
{
    return (ns_edge_view){E->rowptr, E->col, E->nd, E->dn, E->ls, 3, 3, 6};
}

double fb_ns_omp_rate(int n, const double *u, const double *h, const unsigned char *fixed, double nu, double *conv,
                      int *bad)
{
    double rate = 0.0, cmax = 0.0;
    int first = n;
#pragma omp parallel for schedule(static) reduction(max : rate, cmax) reduction(min : first)
    for (int i = 0; i < n; ++i)
        ns_rate_node(i, u, h, fixed[i], nu, &rate, &cmax, &first);
    *conv = cmax;
    *bad = first < n ? first : -1;
    return rate;
}

double fb_ns_omp_projections(const fb_ns_edges *E, const double *mass, const double *h, double nu, double dt,
                             const double *u, const double *p, double *tau, double *pic, double *pip)
{
    const ns_edge_view V = split_view(E);
    double div2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : div2)
    for (int i = 0; i < E->n; ++i)
        div2 += ns_projections_row(&V, i, mass, h, nu, dt, u, p, tau, pic, pip);
    return div2;
}

void fb_ns_omp_rk_stage(const fb_ns_edges *E, const double *mass, const double *bnorm, double nu, const double *tau,
                        const double *pic, const double *p, const double *u_in, const double *u0, const double *acc_in,
                        double *acc_out, double *u_out, double c_dt, double w_dt)
{
    const ns_edge_view V = split_view(E);
    const double *base = acc_in ? acc_in : u0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i)
        ns_rk_stage_row(&V, i, mass, bnorm, nu, tau, pic, p, u_in, u0, base, acc_out, u_out, c_dt, w_dt);
}

double fb_ns_omp_pressure_setup(const fb_ns_edges *E, const unsigned char *p_fixed, const double *bnorm, double dt,
                                const double *tau, const double *p, const double *pip, const double *ut, double *A,
                                double *invdiag, double *b)
{
    const ns_edge_view V = split_view(E);
    double b2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : b2)
    for (int i = 0; i < E->n; ++i)
        b2 += ns_pressure_row(&V, i, p_fixed[i], bnorm, dt, tau, p, pip, ut, A, invdiag, b);
    return b2;
}

/* Sums this region's per-thread partials in thread order: every thread
 * gets the same value, the same way, with no extra barrier or single. */
static double sum_partials(const double *part, int nt)
{
    double s = 0.0;
    for (int t = 0; t < nt; ++t)
        s += part[8 * t];
    return s;
}

#define FB_CG_MAX_THREADS 256

int fb_ns_omp_cg(int n, const int *rowptr, const int *col, const double *A, const double *invdiag, const double *b,
                 double *x, double *r, double *z, double *d, double *d2, double *q, double tol2, int maxit,
                 double *res2)
{
    /* 3 reductions, each in its own padded slot array so a slot is
     * rewritten only after a barrier has passed every read of it */
    static double part[3][8 * FB_CG_MAX_THREADS];
    int its = 0;
    double final2 = 0.0;
#pragma omp parallel num_threads(omp_get_max_threads() < FB_CG_MAX_THREADS ? omp_get_max_threads() : FB_CG_MAX_THREADS)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int lo = (int)((long)n * t / nt), hi = (int)((long)n * (t + 1) / nt);
        double rz = 0, rr = 0, beta = 0.0, *dold = d, *dnew = d2;
        /* r = b - A x, z = M^-1 r; the first direction is z (beta = 0, dold = 0) */
        for (int i = lo; i < hi; ++i)
            ns_cg_start_row(rowptr, col, A, invdiag, b, x, r, z, d, d2, i, &rz, &rr);
        part[0][8 * t] = rz, part[1][8 * t] = rr;
#pragma omp barrier
        rz = sum_partials(part[0], nt), rr = sum_partials(part[1], nt);
        int k = 0;
        while (k < maxit && rr > tol2 && isfinite(rr)) {
            /* the new direction and the product in one pass (ns_cg_direction_row) */
            double dq = 0;
            for (int i = lo; i < hi; ++i)
                dq += ns_cg_direction_row(rowptr, col, A, z, dold, beta, i, dnew, q);
            part[2][8 * t] = dq;
#pragma omp barrier
            const double alpha = rz / sum_partials(part[2], nt);
            double rz_new = 0, rr_new = 0;
            for (int i = lo; i < hi; ++i)
                ns_cg_update_row(i, alpha, x, r, z, invdiag, dnew, q, &rz_new, &rr_new);
            part[0][8 * t] = rz_new, part[1][8 * t] = rr_new;
#pragma omp barrier
            rz_new = sum_partials(part[0], nt), rr = sum_partials(part[1], nt);
            beta = rz_new / rz;
            rz = rz_new;
            double *swap = dold;
            dold = dnew, dnew = swap;
            ++k;
        }
        if (t == 0) its = k, final2 = rr;
    }
    *res2 = isfinite(final2) ? final2 : NAN;
    return its;
}

void fb_ns_omp_correct(const fb_ns_edges *E, const double *mass, double dt, const double *p, const double *p_old,
                       const double *ut, double *u_out)
{
    const ns_edge_view V = split_view(E);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i)
        ns_correct_row(&V, i, mass, dt, p, p_old, ut, u_out);
}

void fb_ns_omp_apply_bc(int nfixed, const int *fixed, const double *ubc, int nslip, const int *slip,
                        const double *slip_normal, double *u)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int k = 0; k < nfixed; ++k)
            ns_fix_node(k, fixed, ubc, u);
#pragma omp for schedule(static)
        for (int k = 0; k < nslip; ++k)
            ns_slip_node(k, slip, slip_normal, u);
    }
}

void fb_ns_omp_divergence(const fb_ns_edges *E, const double *u, double *div)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i) {
        const long i3 = 3 * (long)i;
        double d = 0;
        for (int e = E->rowptr[i]; e < E->rowptr[i + 1]; ++e) {
            const long j = E->col[e], e3 = 3 * (long)e;
            d += E->nd[e3] * (u[3 * j] - u[i3]) + E->nd[e3 + 1] * (u[3 * j + 1] - u[i3 + 1]) +
                 E->nd[e3 + 2] * (u[3 * j + 2] - u[i3 + 2]);
        }
        div[i] = d;
    }
}
