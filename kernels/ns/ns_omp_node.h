/* ns_omp_node.h - what one item of each solver kernel does, for the
 * kernels' OpenMP twins (ns_omp_twins.c), which loop over the nodes (or a
 * list) in parallel. Gather form: node i reads its neighbours and writes
 * only its own entries. Each body is ns.cl's kernel body for one item, in
 * the same operations and order (the flop model, fb_ns_flops_split in
 * harness/solver/ns.c, counts these bodies).
 *
 * The edge coefficients are read through a view whose strides give the
 * layout: split arrays (nd 3, dn 3, ls 6 per edge) or ns.cl's packed
 * 16-REAL records (EDGE_LAYOUT 1: all three strides 16, dn and ls offset
 * 3 and 6 into the record). The bodies are static inline, so no loop
 * calls a function per node; the strides read from the view cost nothing
 * measurable (the loops took the same time at cavity level 2 as with
 * constant strides). */
#ifndef FB_KERNELS_NS_OMP_NODE_H
#define FB_KERNELS_NS_OMP_NODE_H

#include <math.h>

typedef struct ns_edge_view {
    const int *rowptr, *col;
    const double *nd, *dn, *ls;
    long snd, sdn, sls; /* REALs from one edge's coefficients to the next */
} ns_edge_view;

#define NS_ND(V, e, c) ((V)->nd[(V)->snd * (e) + (c)])
#define NS_DN(V, e, c) ((V)->dn[(V)->sdn * (e) + (c)])
#define NS_LS(V, e, c) ((V)->ls[(V)->sls * (e) + (c)])

/* Node i folded into the time-step rates (ns_rate): the
 * largest rate and |u|/h, and the lowest node whose velocity is not finite. */
static inline void ns_rate_node(int i, const double *u, const double *h, int fixed, double nu, double *rate,
                                double *conv, int *bad)
{
    const double *ui = u + 3 * (long)i;
    const double s = ui[0] * ui[0] + ui[1] * ui[1] + ui[2] * ui[2];
    if (!isfinite(s)) {
        *bad = i < *bad ? i : *bad;
        return;
    }
    const double c = sqrt(s) / h[i], r = fixed ? c : c + 2.0 * nu / (h[i] * h[i]);
    *rate = r > *rate ? r : *rate;
    *conv = c > *conv ? c : *conv;
}

/* tau, pic, pip of node i; returns D_i^2 / M_i (ns_projections). */
static inline double ns_projections_row(const ns_edge_view *V, int i, const double *mass, const double *h, double nu,
                                        double dt, const double *u, const double *p, double *tau, double *pic,
                                        double *pip)
{
    const long i3 = 3 * (long)i;
    const double ux = u[i3], uy = u[i3 + 1], uz = u[i3 + 2], pi = p[i];
    double cx = 0, cy = 0, cz = 0, gx = 0, gy = 0, gz = 0, d = 0;
    for (int e = V->rowptr[i]; e < V->rowptr[i + 1]; ++e) {
        const long j = V->col[e];
        const double nx = NS_ND(V, e, 0), ny = NS_ND(V, e, 1), nz = NS_ND(V, e, 2);
        const double dx = u[3 * j] - ux, dy = u[3 * j + 1] - uy, dz = u[3 * j + 2] - uz, dp = p[j] - pi;
        const double an = ux * nx + uy * ny + uz * nz;
        cx += an * dx, cy += an * dy, cz += an * dz;
        gx += nx * dp, gy += ny * dp, gz += nz * dp;
        d += nx * dx + ny * dy + nz * dz;
    }
    const double im = 1.0 / mass[i], hi = h[i], speed = sqrt(ux * ux + uy * uy + uz * uz);
    pic[i3] = cx * im, pic[i3 + 1] = cy * im, pic[i3 + 2] = cz * im;
    pip[i3] = gx * im, pip[i3 + 1] = gy * im, pip[i3 + 2] = gz * im;
    tau[i] = 1.0 / (1.0 / dt + nu / (hi * hi) + speed / hi);
    return d * d * im;
}

/* The momentum right-hand side of node i, r = M_i^-1 R_i(u_in), into r[3]. */
static inline void ns_rk_rhs(const ns_edge_view *V, int i, const double *mass, const double *bnorm, double nu,
                             const double *tau, const double *pic, const double *p, const double *u_in, double *r)
{
    const long i3 = 3 * (long)i;
    const double ux = u_in[i3], uy = u_in[i3 + 1], uz = u_in[i3 + 2], pi = p[i], ti = tau[i];
    const double px = pic[i3], py = pic[i3 + 1], pz = pic[i3 + 2];
    double sx = 0, sy = 0, sz = 0, gx = 0, gy = 0, gz = 0, qx = 0, qy = 0, qz = 0;
    for (int e = V->rowptr[i]; e < V->rowptr[i + 1]; ++e) {
        const long j = V->col[e];
        const double nx = NS_ND(V, e, 0), ny = NS_ND(V, e, 1), nz = NS_ND(V, e, 2);
        const double an = ux * nx + uy * ny + uz * nz;
        const double ad = ux * NS_DN(V, e, 0) + uy * NS_DN(V, e, 1) + uz * NS_DN(V, e, 2);
        const double lxx = NS_LS(V, e, 0), lxy = NS_LS(V, e, 1), lxz = NS_LS(V, e, 2);
        const double lyy = NS_LS(V, e, 3), lyz = NS_LS(V, e, 4), lzz = NS_LS(V, e, 5);
        const double ala =
            ux * ux * lxx + uy * uy * lyy + uz * uz * lzz + 2.0 * (ux * uy * lxy + ux * uz * lxz + uy * uz * lyz);
        /* convection, viscosity and streamline stabilisation share the difference u_J - u_I */
        const double w = an + nu * (lxx + lyy + lzz) + ti * ala, dp = p[j] - pi;
        sx += w * (u_in[3 * j] - ux), sy += w * (u_in[3 * j + 1] - uy), sz += w * (u_in[3 * j + 2] - uz);
        gx += nx * dp, gy += ny * dp, gz += nz * dp;
        qx += ad * (pic[3 * j] - px), qy += ad * (pic[3 * j + 1] - py), qz += ad * (pic[3 * j + 2] - pz);
    }
    const double ab = ux * bnorm[i3] + uy * bnorm[i3 + 1] + uz * bnorm[i3 + 2], im = 1.0 / mass[i];
    r[0] = (-sx - gx + ti * (qx + ab * px)) * im, r[1] = (-sy - gy + ti * (qy + ab * py)) * im;
    r[2] = (-sz - gz + ti * (qz + ab * pz)) * im;
}

/* One Runge-Kutta stage at node i: with acc_out, acc_out = base + w_dt r
 * and u_out = u0 + c_dt r; without (the last stage), u_out = base + w_dt r. */
static inline void ns_rk_stage_row(const ns_edge_view *V, int i, const double *mass, const double *bnorm, double nu,
                                   const double *tau, const double *pic, const double *p, const double *u_in,
                                   const double *u0, const double *base, double *acc_out, double *u_out, double c_dt,
                                   double w_dt)
{
    const long i3 = 3 * (long)i;
    double r[3];
    ns_rk_rhs(V, i, mass, bnorm, nu, tau, pic, p, u_in, r);
    const double bx = base[i3], by = base[i3 + 1], bz = base[i3 + 2];
    if (acc_out) {
        acc_out[i3] = bx + w_dt * r[0], acc_out[i3 + 1] = by + w_dt * r[1], acc_out[i3 + 2] = bz + w_dt * r[2];
        u_out[i3] = u0[i3] + c_dt * r[0], u_out[i3 + 1] = u0[i3 + 1] + c_dt * r[1];
        u_out[i3 + 2] = u0[i3 + 2] + c_dt * r[2];
    } else {
        u_out[i3] = bx + w_dt * r[0], u_out[i3 + 1] = by + w_dt * r[1], u_out[i3 + 2] = bz + w_dt * r[2];
    }
}

/* Row i of the pressure system (ns_pressure_setup); returns b_i^2
 * (0 on a fixed row, which gets A = 0, invdiag = 0, b = 0). */
static inline double ns_pressure_row(const ns_edge_view *V, int i, int fixed, const double *bnorm, double dt,
                                     const double *tau, const double *p, const double *pip, const double *ut, double *A,
                                     double *invdiag, double *b)
{
    const long i3 = 3 * (long)i;
    if (fixed) {
        for (int e = V->rowptr[i]; e < V->rowptr[i + 1]; ++e)
            A[e] = 0.0;
        invdiag[i] = 0.0, b[i] = 0.0;
        return 0.0;
    }
    const double ti = tau[i], pi = p[i], ux = ut[i3], uy = ut[i3 + 1], uz = ut[i3 + 2];
    const double px = pip[i3], py = pip[i3 + 1], pz = pip[i3 + 2];
    double diag = 0, kp = 0, proj = 0, div = 0;
    for (int e = V->rowptr[i]; e < V->rowptr[i + 1]; ++e) {
        const long j = V->col[e];
        const double k = NS_LS(V, e, 0) + NS_LS(V, e, 3) + NS_LS(V, e, 5);
        const double a = (dt + 0.5 * (ti + tau[j])) * k;
        A[e] = a;
        diag -= a;
        kp += k * (p[j] - pi);
        proj += NS_DN(V, e, 0) * (pip[3 * j] - px) + NS_DN(V, e, 1) * (pip[3 * j + 1] - py) +
                NS_DN(V, e, 2) * (pip[3 * j + 2] - pz);
        div += NS_ND(V, e, 0) * (ut[3 * j] - ux) + NS_ND(V, e, 1) * (ut[3 * j + 1] - uy) +
               NS_ND(V, e, 2) * (ut[3 * j + 2] - uz);
    }
    const double bi = dt * kp + ti * (proj + bnorm[i3] * px + bnorm[i3 + 1] * py + bnorm[i3 + 2] * pz) - div;
    invdiag[i] = 1.0 / diag;
    b[i] = bi;
    return bi * bi;
}

/* Step 3 at node i (ns_correct). */
static inline void ns_correct_row(const ns_edge_view *V, int i, const double *mass, double dt, const double *p,
                                  const double *p_old, const double *ut, double *u_out)
{
    const double dpi = p[i] - p_old[i];
    double gx = 0, gy = 0, gz = 0;
    for (int e = V->rowptr[i]; e < V->rowptr[i + 1]; ++e) {
        const long j = V->col[e];
        const double dp = p[j] - p_old[j] - dpi;
        gx += NS_ND(V, e, 0) * dp, gy += NS_ND(V, e, 1) * dp, gz += NS_ND(V, e, 2) * dp;
    }
    const double f = dt / mass[i];
    const long i3 = 3 * (long)i;
    u_out[i3] = ut[i3] - f * gx, u_out[i3 + 1] = ut[i3 + 1] - f * gy, u_out[i3 + 2] = ut[i3 + 2] - f * gz;
}

/* The k-th prescribed velocity, u[fixed[k]] = ubc[3k..3k+2]. */
static inline void ns_fix_node(int k, const int *fixed, const double *ubc, double *u)
{
    const long i3 = 3 * (long)fixed[k];
    u[i3] = ubc[3 * (long)k], u[i3 + 1] = ubc[3 * (long)k + 1], u[i3 + 2] = ubc[3 * (long)k + 2];
}

/* The k-th slip node: the normal component removed. */
static inline void ns_slip_node(int k, const int *slip, const double *normal, double *u)
{
    const long i3 = 3 * (long)slip[k];
    const double *n = normal + i3, un = u[i3] * n[0] + u[i3 + 1] * n[1] + u[i3 + 2] * n[2];
    u[i3] -= un * n[0], u[i3 + 1] -= un * n[1], u[i3 + 2] -= un * n[2];
}

/* (A x)_i of the pressure matrix in edge form, sum_e A_e (x_J - x_i).
 * Two partial sums (even and odd edges of the row), added at the end: one
 * sum would chain every add of the row on the one before (4 cycles each,
 * some 14 a row), and the loop, not memory, would set the pace. */
static inline double ns_edge_product(const int *rowptr, const int *col, const double *A, const double *x, int i)
{
    const double xi = x[i];
    double s0 = 0.0, s1 = 0.0;
    int e = rowptr[i];
    for (; e + 1 < rowptr[i + 1]; e += 2) {
        s0 += A[e] * (x[col[e]] - xi);
        s1 += A[e + 1] * (x[col[e + 1]] - xi);
    }
    if (e < rowptr[i + 1]) s0 += A[e] * (x[col[e]] - xi);
    return s0 + s1;
}

/* The CG's start at row i: r = b - A x, z = M^-1 r, both directions
 * zeroed; r.z and r.r accumulated. */
static inline void ns_cg_start_row(const int *rowptr, const int *col, const double *A, const double *invdiag,
                                   const double *b, const double *x, double *r, double *z, double *d, double *d2, int i,
                                   double *rz, double *rr)
{
    const double ri = b[i] - ns_edge_product(rowptr, col, A, x, i), zi = invdiag[i] * ri;
    r[i] = ri, z[i] = zi, d[i] = 0.0, d2[i] = 0.0;
    *rz += ri * zi, *rr += ri * ri;
}

/* The classic CG's new direction di = z + beta dold at row i, and (A dnew)_i
 * with each neighbour's new direction recomputed from its z and old
 * direction (the same bits its own row writes), so the direction update
 * needs no pass or barrier of its own before the product; returns di (A dnew)_i. */
static inline double ns_cg_direction_row(const int *rowptr, const int *col, const double *A, const double *z,
                                         const double *dold, double beta, int i, double *dnew, double *q)
{
    const double di = z[i] + beta * dold[i];
    double s = 0.0;
    for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
        const int j = col[e];
        s += A[e] * ((z[j] + beta * dold[j]) - di);
    }
    dnew[i] = di, q[i] = s;
    return di * s;
}

/* The classic CG's update at row i: x += alpha d, r -= alpha q, z = M^-1 r;
 * z.r and r.r accumulated. */
static inline void ns_cg_update_row(int i, double alpha, double *x, double *r, double *z, const double *invdiag,
                                    const double *d, const double *q, double *zr, double *rr)
{
    x[i] += alpha * d[i];
    const double ri = r[i] - alpha * q[i], zi = invdiag[i] * ri;
    r[i] = ri, z[i] = zi;
    *zr += zi * ri, *rr += ri * ri;
}

#endif
