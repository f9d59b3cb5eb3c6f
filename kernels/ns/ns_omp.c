/* ns_omp.c - the OpenMP hot loops of the edge-based Navier-Stokes solver
 * (contracts in ns_omp.h). Gather form: node I reads its neighbours and
 * writes only its own entries. */
#include "ns/ns_omp.h"

#include <math.h>
#include <omp.h>

double fb_ns_omp_rate(int n, const double *u, const double *h, const unsigned char *fixed, double nu, double *conv,
                      int *bad)
{
    double rate = 0.0, cmax = 0.0;
    int first = n;
#pragma omp parallel for schedule(static) reduction(max : rate, cmax) reduction(min : first)
    for (int i = 0; i < n; ++i) {
        const double *ui = u + 3 * (long)i;
        double s = ui[0] * ui[0] + ui[1] * ui[1] + ui[2] * ui[2];
        if (!isfinite(s)) {
            first = i < first ? i : first;
            continue;
        }
        double c = sqrt(s) / h[i], r = fixed[i] ? c : c + 2.0 * nu / (h[i] * h[i]);
        rate = r > rate ? r : rate;
        cmax = c > cmax ? c : cmax;
    }
    *conv = cmax;
    *bad = first < n ? first : -1;
    return rate;
}

double fb_ns_omp_projections(const fb_ns_edges *E, const double *mass, const double *h, double nu, double dt,
                             const double *u, const double *p, double *tau, double *pic, double *pip)
{
    const int *restrict rowptr = E->rowptr, *restrict col = E->col;
    const double *restrict nd = E->nd;
    double div2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : div2)
    for (int i = 0; i < E->n; ++i) {
        const double ux = u[3 * (long)i], uy = u[3 * (long)i + 1], uz = u[3 * (long)i + 2], pi = p[i];
        double cx = 0, cy = 0, cz = 0, gx = 0, gy = 0, gz = 0, d = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const long j = col[e];
            const double nx = nd[3 * (long)e], ny = nd[3 * (long)e + 1], nz = nd[3 * (long)e + 2];
            const double dx = u[3 * j] - ux, dy = u[3 * j + 1] - uy, dz = u[3 * j + 2] - uz, dp = p[j] - pi;
            const double an = ux * nx + uy * ny + uz * nz;
            cx += an * dx, cy += an * dy, cz += an * dz;
            gx += nx * dp, gy += ny * dp, gz += nz * dp;
            d += nx * dx + ny * dy + nz * dz;
        }
        const double im = 1.0 / mass[i], hi = h[i], speed = sqrt(ux * ux + uy * uy + uz * uz);
        pic[3 * (long)i] = cx * im, pic[3 * (long)i + 1] = cy * im, pic[3 * (long)i + 2] = cz * im;
        pip[3 * (long)i] = gx * im, pip[3 * (long)i + 1] = gy * im, pip[3 * (long)i + 2] = gz * im;
        tau[i] = 1.0 / (1.0 / dt + nu / (hi * hi) + speed / hi);
        div2 += d * d * im;
    }
    return div2;
}

void fb_ns_omp_rk_stage(const fb_ns_edges *E, const double *mass, const double *bnorm, double nu, const double *tau,
                        const double *pic, const double *p, const double *u_in, const double *u0, const double *acc_in,
                        double *acc_out, double *u_out, double c_dt, double w_dt)
{
    const int *restrict rowptr = E->rowptr, *restrict col = E->col;
    const double *restrict nd = E->nd, *restrict dn = E->dn, *restrict ls = E->ls;
    const double *base = acc_in ? acc_in : u0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i) {
        const long i3 = 3 * (long)i;
        const double ux = u_in[i3], uy = u_in[i3 + 1], uz = u_in[i3 + 2], pi = p[i], ti = tau[i];
        const double px = pic[i3], py = pic[i3 + 1], pz = pic[i3 + 2];
        double sx = 0, sy = 0, sz = 0, gx = 0, gy = 0, gz = 0, qx = 0, qy = 0, qz = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const long j = col[e], e3 = 3 * (long)e, e6 = 6 * (long)e;
            const double *l = ls + e6;
            const double nx = nd[e3], ny = nd[e3 + 1], nz = nd[e3 + 2];
            const double an = ux * nx + uy * ny + uz * nz;
            const double ad = ux * dn[e3] + uy * dn[e3 + 1] + uz * dn[e3 + 2];
            const double ala = ux * ux * l[0] + uy * uy * l[3] + uz * uz * l[5] +
                               2.0 * (ux * uy * l[1] + ux * uz * l[2] + uy * uz * l[4]);
            /* convection, viscosity and streamline stabilisation share the difference u_J - u_I */
            const double w = an + nu * (l[0] + l[3] + l[5]) + ti * ala, dp = p[j] - pi;
            sx += w * (u_in[3 * j] - ux), sy += w * (u_in[3 * j + 1] - uy), sz += w * (u_in[3 * j + 2] - uz);
            gx += nx * dp, gy += ny * dp, gz += nz * dp;
            qx += ad * (pic[3 * j] - px), qy += ad * (pic[3 * j + 1] - py), qz += ad * (pic[3 * j + 2] - pz);
        }
        const double ab = ux * bnorm[i3] + uy * bnorm[i3 + 1] + uz * bnorm[i3 + 2], im = 1.0 / mass[i];
        const double rx = (-sx - gx + ti * (qx + ab * px)) * im, ry = (-sy - gy + ti * (qy + ab * py)) * im,
                     rz = (-sz - gz + ti * (qz + ab * pz)) * im;
        if (acc_out) {
            acc_out[i3] = base[i3] + w_dt * rx, acc_out[i3 + 1] = base[i3 + 1] + w_dt * ry,
            acc_out[i3 + 2] = base[i3 + 2] + w_dt * rz;
            u_out[i3] = u0[i3] + c_dt * rx, u_out[i3 + 1] = u0[i3 + 1] + c_dt * ry,
            u_out[i3 + 2] = u0[i3 + 2] + c_dt * rz;
        } else {
            u_out[i3] = base[i3] + w_dt * rx, u_out[i3 + 1] = base[i3 + 1] + w_dt * ry,
            u_out[i3 + 2] = base[i3 + 2] + w_dt * rz;
        }
    }
}

double fb_ns_omp_pressure_setup(const fb_ns_edges *E, const unsigned char *p_fixed, const double *bnorm, double dt,
                                const double *tau, const double *p, const double *pip, const double *ut, double *A,
                                double *invdiag, double *b)
{
    const int *restrict rowptr = E->rowptr, *restrict col = E->col;
    const double *restrict nd = E->nd, *restrict dn = E->dn, *restrict ls = E->ls;
    double b2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : b2)
    for (int i = 0; i < E->n; ++i) {
        const long i3 = 3 * (long)i;
        if (p_fixed[i]) {
            for (int e = rowptr[i]; e < rowptr[i + 1]; ++e)
                A[e] = 0.0;
            invdiag[i] = 0.0, b[i] = 0.0;
            continue;
        }
        const double ti = tau[i], pi = p[i], ux = ut[i3], uy = ut[i3 + 1], uz = ut[i3 + 2];
        const double px = pip[i3], py = pip[i3 + 1], pz = pip[i3 + 2];
        double diag = 0, kp = 0, proj = 0, div = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const long j = col[e], e3 = 3 * (long)e;
            const double *l = ls + 6 * (long)e, k = l[0] + l[3] + l[5];
            const double a = (dt + 0.5 * (ti + tau[j])) * k;
            A[e] = a;
            diag -= a;
            kp += k * (p[j] - pi);
            proj +=
                dn[e3] * (pip[3 * j] - px) + dn[e3 + 1] * (pip[3 * j + 1] - py) + dn[e3 + 2] * (pip[3 * j + 2] - pz);
            div += nd[e3] * (ut[3 * j] - ux) + nd[e3 + 1] * (ut[3 * j + 1] - uy) + nd[e3 + 2] * (ut[3 * j + 2] - uz);
        }
        const double bi = dt * kp + ti * (proj + bnorm[i3] * px + bnorm[i3 + 1] * py + bnorm[i3 + 2] * pz) - div;
        invdiag[i] = 1.0 / diag;
        b[i] = bi;
        b2 += bi * bi;
    }
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
        for (int i = lo; i < hi; ++i) {
            double s = 0.0, xi = x[i];
            for (int e = rowptr[i]; e < rowptr[i + 1]; ++e)
                s += A[e] * (x[col[e]] - xi);
            r[i] = b[i] - s;
            z[i] = invdiag[i] * r[i];
            d[i] = d2[i] = 0.0;
            rz += r[i] * z[i];
            rr += r[i] * r[i];
        }
        part[0][8 * t] = rz, part[1][8 * t] = rr;
#pragma omp barrier
        rz = sum_partials(part[0], nt), rr = sum_partials(part[1], nt);
        int k = 0;
        while (k < maxit && rr > tol2 && isfinite(rr)) {
            /* the new direction z + beta dold, for this row and (recomputed,
             * the same bits) for its neighbours, so no barrier is needed
             * between the direction update and the product */
            double dq = 0;
            for (int i = lo; i < hi; ++i) {
                const double di = z[i] + beta * dold[i];
                double s = 0.0;
                for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
                    const int j = col[e];
                    s += A[e] * ((z[j] + beta * dold[j]) - di);
                }
                dnew[i] = di;
                q[i] = s;
                dq += di * s;
            }
            part[2][8 * t] = dq;
#pragma omp barrier
            const double alpha = rz / sum_partials(part[2], nt);
            double rz_new = 0, rr_new = 0;
            for (int i = lo; i < hi; ++i) {
                x[i] += alpha * dnew[i];
                r[i] -= alpha * q[i];
                z[i] = invdiag[i] * r[i];
                rz_new += z[i] * r[i];
                rr_new += r[i] * r[i];
            }
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
    const int *restrict rowptr = E->rowptr, *restrict col = E->col;
    const double *restrict nd = E->nd;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i) {
        const double dpi = p[i] - p_old[i];
        double gx = 0, gy = 0, gz = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const long j = col[e];
            const double dp = p[j] - p_old[j] - dpi;
            gx += nd[3 * (long)e] * dp, gy += nd[3 * (long)e + 1] * dp, gz += nd[3 * (long)e + 2] * dp;
        }
        const double f = dt / mass[i];
        const long i3 = 3 * (long)i;
        u_out[i3] = ut[i3] - f * gx, u_out[i3 + 1] = ut[i3 + 1] - f * gy, u_out[i3 + 2] = ut[i3 + 2] - f * gz;
    }
}

void fb_ns_omp_apply_bc(int nfixed, const int *fixed, const double *ubc, int nslip, const int *slip,
                        const double *slip_normal, double *u)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int k = 0; k < nfixed; ++k) {
            const long i3 = 3 * (long)fixed[k];
            u[i3] = ubc[3 * (long)k], u[i3 + 1] = ubc[3 * (long)k + 1], u[i3 + 2] = ubc[3 * (long)k + 2];
        }
#pragma omp for schedule(static)
        for (int k = 0; k < nslip; ++k) {
            const long i3 = 3 * (long)slip[k];
            const double *n = slip_normal + i3, un = u[i3] * n[0] + u[i3 + 1] * n[1] + u[i3 + 2] * n[2];
            u[i3] -= un * n[0], u[i3 + 1] -= un * n[1], u[i3 + 2] -= un * n[2];
        }
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
