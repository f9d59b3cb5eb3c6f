/* ns.cl - the device kernels of the edge-based fractional-step
 * Navier-Stokes solver: one kernel per loop of ns_omp.c (the OpenMP
 * baseline, whose contracts in ns_omp.h these keep), one work-item per
 * node, gather form (node I walks its edge row and writes only its own
 * entries: no races, no atomics). harness/solver/ns_device.c launches them.
 *
 * Reductions: a kernel that reduces (the time-step rate, the divergence
 * norm, ||b||^2, the CG dot products) leaves partials of each value in
 * partial[v * stride + k] (GROUP_REDUCE 0: one per work-item, no barrier;
 * 1: one per work-group, folded by a tree in local memory first);
 * ns_reduce then folds them, in a fixed order, into scal[slot + v] on the
 * device, after ns_reduce_groups has folded each group's share of them
 * when they are many (harness/solver/ns_launch.c, fb_nsd_reduce). The CG reads its alpha and beta from scal inside its kernels, so
 * the host reads back one scalar per iteration (the residual, for the
 * stopping test), no more.
 *
 * Data: the velocity interleaved 3 per node, as on the host; the edges'
 * col and, by EDGE_LAYOUT, their 12 geometric coefficients either as split
 * arrays (0: nd 3, dn 3, ls 6 per edge, the host's layout) or packed (1:
 * one 16-REAL record per edge, nd at 0, dn at 3, ls at 6, 4 pad: the
 * paper's double16, one 128-byte line per edge in double). Packed, the host
 * passes the one record buffer as nd, dn and ls (read only, so the
 * restrict qualifiers still hold). Kernels read them through ND, DN, LS.
 *
 * Launch: one work-item per node (ns_device.c). Each item still strides
 * over the nodes by the global size (NS_FOR_EACH), so a smaller launch is
 * also correct; one capped at a few groups per compute unit was measured
 * 3x slower on PoCL (docs/solver.md).
 *
 * Parameters: REAL (double; the solver runs in double), WG_SIZE (items per
 * work-group, a power of two: the local arrays of the reductions),
 * GROUP_REDUCE (above; default 0), EDGE_LAYOUT (above; default 0). The
 * node numbering (RENUMBER) is the host's: the kernels see its order. The
 * CG's variant (CG_VARIANT: 1 the single-reduction CG, the default, 3
 * launches per iteration; 0 the classic two-reduction CG, 4; 2 the
 * pipelined CG, one fused kernel and its reduction, 2) is the host's
 * choice of launch sequence; no kernel reads it.
 * So is CG_SPMV (0 ns_cg1_matvec's fused edge product; 1..3 a kernel of
 * kernels/spmv on the CSR ns_csr_values fills, dots by ns_cg1_dots).
 * Model: the bytes of each pass are fb_ns_bytes_split's (ns.c), the same
 * passes as the OpenMP baseline.
 */
#ifndef WG_SIZE
#define WG_SIZE 128
#endif
#ifndef GROUP_REDUCE
#define GROUP_REDUCE 0
#endif

#ifndef EDGE_LAYOUT
#define EDGE_LAYOUT 0
#endif

#if EDGE_LAYOUT
#define ND(e, c) nd[16 * (e) + (c)]
#define DN(e, c) dn[16 * (e) + 3 + (c)]
#define LS(e, c) ls[16 * (e) + 6 + (c)]
#else
#define ND(e, c) nd[3 * (e) + (c)]
#define DN(e, c) dn[3 * (e) + (c)]
#define LS(e, c) ls[6 * (e) + (c)]
#endif

#define NS_SUM 0
#define NS_MAX 1
#define NS_MIN 2

#define NS_BOUNDS FB_LAUNCH_BOUNDS(WG_SIZE)

/* Item get_global_id(0) takes every get_global_size(0)-th of 0 .. n - 1. */
#define NS_FOR_EACH(i, n) for (int i = (int)get_global_id(0); i < (n); i += (int)get_global_size(0))

/* Tree reduction of red[0 .. WG_SIZE) into red[0] with op. A macro: local
 * arrays live at kernel scope (opencl_to_cuda.h). Barriers every step (no
 * warp-synchronous steps: PoCL has no sub-groups, Volta and later do not
 * run a warp in lockstep). */
#define NS_GROUP_REDUCE(red, lid, op)                                                                                 \
    do {                                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                 \
        for (int s_ = WG_SIZE / 2; s_ > 0; s_ >>= 1) {                                                                \
            if ((lid) < s_) red[lid] = ns_combine(op, red[lid], red[(lid) + s_]);                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                             \
        }                                                                                                             \
    } while (0)

/* One value per item into partial v: GROUP_REDUCE 1 folds the group's
 * items in local memory to one partial per group (red is reused, so every
 * item passes the barrier before the next value is written); 0 writes one
 * partial per item, no barrier, and ns_reduce folds them all (n more
 * REALs written and read per reduction, for drivers where a barrier is
 * dear). */
#if GROUP_REDUCE
#define NS_PARTIAL(red, lid, value, op, partial, v, stride)                                                           \
    do {                                                                                                              \
        red[lid] = (value);                                                                                           \
        NS_GROUP_REDUCE(red, lid, op);                                                                                \
        if ((lid) == 0) partial[(v) * (stride) + get_group_id(0)] = red[0];                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                 \
    } while (0)
#define NS_PARTIAL_SPACE(red) __local REAL red[WG_SIZE]
#else
#define NS_PARTIAL(red, lid, value, op, partial, v, stride)                                                           \
    do {                                                                                                              \
        (void)(lid);                                                                                                  \
        partial[(v) * (stride) + get_global_id(0)] = (value);                                                         \
    } while (0)
/* no tree, so no local memory: a GPU's occupancy is not capped by it */
#define NS_PARTIAL_SPACE(red) (void)0
#endif

FB_INLINE REAL ns_combine(const int op, const REAL a, const REAL b)
{
    return op == NS_SUM ? a + b : op == NS_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

FB_INLINE REAL ns_identity(const int op) { return op == NS_SUM ? (REAL)0 : op == NS_MAX ? (REAL)0 : (REAL)1e300; }

/* scal[slot + v - v0] = op over partial[v * stride + 0 .. ngroups), for
 * v0 <= v < v0 + nvals: one work-group, each item folding a strided slice
 * in order, then the tree, so the sum is the same at every run. */
__kernel void NS_BOUNDS ns_reduce(const int ngroups, const int stride, const int v0, const int nvals, const int op,
                                  __global const REAL *restrict partial, __global REAL *restrict scal, const int slot)
{
    __local REAL red[WG_SIZE];
    const int lid = (int)get_local_id(0);
    for (int v = v0; v < v0 + nvals; ++v) {
        REAL acc = ns_identity(op);
        for (int g = lid; g < ngroups; g += WG_SIZE) acc = ns_combine(op, acc, partial[v * stride + g]);
        red[lid] = acc;
        NS_GROUP_REDUCE(red, lid, op);
        if (lid == 0) scal[slot + v - v0] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The first of two folds when the partials are many (one per node):
 * group g folds its contiguous share of partial[v * stride + 0 ..
 * ngroups) into out[(v - v0) * groups + g], then the tree; ns_reduce
 * folds the groups' values. Within the share, on a GPU (runs = 0) adjacent
 * items read adjacent partials (coalesced); on a CPU device (runs = 1),
 * which runs a group's items one after another, each item folds a run of
 * its own (streamed: 0.55 ms against 0.85 ms strided on PoCL). One
 * work-group folding a partial per node ran on one core of PoCL: 2.2 ms of
 * a 5.7 ms CG iteration at cavity level 2 (docs/solver.md, "Where a PoCL
 * step goes"). A fixed order either way: a sum is the same at every run. */
__kernel void NS_BOUNDS ns_reduce_groups(const int ngroups, const int stride, const int v0, const int nvals,
                                         const int op, __global const REAL *restrict partial,
                                         __global REAL *restrict out, const int runs)
{
    __local REAL red[WG_SIZE];
    const int lid = (int)get_local_id(0), g = (int)get_group_id(0), groups = (int)get_num_groups(0);
    const int share = (ngroups + groups - 1) / groups, begin = g * share;
    const int end = begin + share < ngroups ? begin + share : ngroups;
    const int run = runs ? (end - begin + WG_SIZE - 1) / WG_SIZE : 1, step = runs ? 1 : WG_SIZE;
    const int first = begin + (runs ? lid * run : lid);
    const int last = runs ? (first + run < end ? first + run : end) : end;
    for (int v = v0; v < v0 + nvals; ++v) {
        REAL acc = ns_identity(op);
        for (int k = first; k < last; k += step) acc = ns_combine(op, acc, partial[v * stride + k]);
        red[lid] = acc;
        NS_GROUP_REDUCE(red, lid, op);
        if (lid == 0) out[(v - v0) * groups + g] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* fb_ns_omp_rate: partials 0 max rate, 1 max |u|/h, 2 lowest node whose
 * velocity is not finite (n if none). */
__kernel void NS_BOUNDS ns_rate(const int n, __global const REAL *restrict u, __global const REAL *restrict h,
                                __global const int *restrict fixed, const REAL nu, __global REAL *restrict partial,
                                const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL rate = 0, conv = 0, bad = (REAL)n;
    NS_FOR_EACH(i, n)
    {
        const REAL ux = u[3 * i], uy = u[3 * i + 1], uz = u[3 * i + 2], s = ux * ux + uy * uy + uz * uz;
        if (isfinite(s)) {
            const REAL c = sqrt(s) / h[i], r = fixed[i] ? c : c + (REAL)2 * nu / (h[i] * h[i]);
            rate = r > rate ? r : rate;
            conv = c > conv ? c : conv;
        } else if ((REAL)i < bad) {
            bad = (REAL)i;
        }
    }
    NS_PARTIAL(red, lid, rate, NS_MAX, partial, 0, stride);
    NS_PARTIAL(red, lid, conv, NS_MAX, partial, 1, stride);
    NS_PARTIAL(red, lid, bad, NS_MIN, partial, 2, stride);
}

/* fb_ns_omp_projections: tau, pic, pip; partial 0 = sum D_I^2 / M_I. */
__kernel void NS_BOUNDS ns_projections(const int n, __global const int *restrict rowptr,
                                       __global const int *restrict col, __global const REAL *restrict nd,
                                       __global const REAL *restrict mass, __global const REAL *restrict h,
                                       const REAL nu, const REAL dt, __global const REAL *restrict u,
                                       __global const REAL *restrict p, __global REAL *restrict tau,
                                       __global REAL *restrict pic, __global REAL *restrict pip,
                                       __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL div2 = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL ux = u[3 * i], uy = u[3 * i + 1], uz = u[3 * i + 2], pi = p[i];
        REAL cx = 0, cy = 0, cz = 0, gx = 0, gy = 0, gz = 0, d = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            const REAL nx = ND(e, 0), ny = ND(e, 1), nz = ND(e, 2);
            const REAL dx = u[3 * j] - ux, dy = u[3 * j + 1] - uy, dz = u[3 * j + 2] - uz, dp = p[j] - pi;
            const REAL an = ux * nx + uy * ny + uz * nz;
            cx += an * dx, cy += an * dy, cz += an * dz;
            gx += nx * dp, gy += ny * dp, gz += nz * dp;
            d += nx * dx + ny * dy + nz * dz;
        }
        const REAL im = (REAL)1 / mass[i], hi = h[i], speed = sqrt(ux * ux + uy * uy + uz * uz);
        pic[3 * i] = cx * im, pic[3 * i + 1] = cy * im, pic[3 * i + 2] = cz * im;
        pip[3 * i] = gx * im, pip[3 * i + 1] = gy * im, pip[3 * i + 2] = gz * im;
        tau[i] = (REAL)1 / ((REAL)1 / dt + nu / (hi * hi) + speed / hi);
        div2 += d * d * im;
    }
    NS_PARTIAL(red, lid, div2, NS_SUM, partial, 0, stride);
}

/* fb_ns_omp_rk_stage. stage 0: base u0, writes acc_out and u_out; 1: base
 * acc_in, writes both; 2 (the last): u_out = acc_in + w_dt r only. */
__kernel void NS_BOUNDS ns_rk_stage(const int n, __global const int *restrict rowptr, __global const int *restrict col,
                                    __global const REAL *restrict nd, __global const REAL *restrict dn,
                                    __global const REAL *restrict ls, __global const REAL *restrict mass,
                                    __global const REAL *restrict bnorm, const REAL nu, __global const REAL *restrict tau,
                                    __global const REAL *restrict pic, __global const REAL *restrict p,
                                    __global const REAL *restrict u_in, __global const REAL *restrict u0,
                                    __global const REAL *acc_in, __global REAL *acc_out, __global REAL *restrict u_out,
                                    const REAL c_dt, const REAL w_dt, const int stage)
{
    NS_FOR_EACH(i, n)
    {
        const int i3 = 3 * i;
        const REAL ux = u_in[i3], uy = u_in[i3 + 1], uz = u_in[i3 + 2], pi = p[i], ti = tau[i];
        const REAL px = pic[i3], py = pic[i3 + 1], pz = pic[i3 + 2];
        REAL sx = 0, sy = 0, sz = 0, gx = 0, gy = 0, gz = 0, qx = 0, qy = 0, qz = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            const REAL nx = ND(e, 0), ny = ND(e, 1), nz = ND(e, 2);
            const REAL an = ux * nx + uy * ny + uz * nz;
            const REAL ad = ux * DN(e, 0) + uy * DN(e, 1) + uz * DN(e, 2);
            const REAL lxx = LS(e, 0), lxy = LS(e, 1), lxz = LS(e, 2), lyy = LS(e, 3), lyz = LS(e, 4), lzz = LS(e, 5);
            const REAL ala =
                ux * ux * lxx + uy * uy * lyy + uz * uz * lzz + (REAL)2 * (ux * uy * lxy + ux * uz * lxz + uy * uz * lyz);
            /* convection, viscosity and streamline stabilisation share u_J - u_I */
            const REAL w = an + nu * (lxx + lyy + lzz) + ti * ala, dp = p[j] - pi;
            sx += w * (u_in[3 * j] - ux), sy += w * (u_in[3 * j + 1] - uy), sz += w * (u_in[3 * j + 2] - uz);
            gx += nx * dp, gy += ny * dp, gz += nz * dp;
            qx += ad * (pic[3 * j] - px), qy += ad * (pic[3 * j + 1] - py), qz += ad * (pic[3 * j + 2] - pz);
        }
        const REAL ab = ux * bnorm[i3] + uy * bnorm[i3 + 1] + uz * bnorm[i3 + 2], im = (REAL)1 / mass[i];
        const REAL rx = (-sx - gx + ti * (qx + ab * px)) * im, ry = (-sy - gy + ti * (qy + ab * py)) * im,
                   rz = (-sz - gz + ti * (qz + ab * pz)) * im;
        __global const REAL *base = stage == 0 ? u0 : acc_in;
        const REAL bx = base[i3], by = base[i3 + 1], bz = base[i3 + 2];
        if (stage < 2) {
            acc_out[i3] = bx + w_dt * rx, acc_out[i3 + 1] = by + w_dt * ry, acc_out[i3 + 2] = bz + w_dt * rz;
            u_out[i3] = u0[i3] + c_dt * rx, u_out[i3 + 1] = u0[i3 + 1] + c_dt * ry;
            u_out[i3 + 2] = u0[i3 + 2] + c_dt * rz;
        } else {
            u_out[i3] = bx + w_dt * rx, u_out[i3 + 1] = by + w_dt * ry, u_out[i3 + 2] = bz + w_dt * rz;
        }
    }
}

/* fb_ns_omp_apply_bc, prescribed nodes: u[fixed[k]] = ubc[3k..3k+2]. */
__kernel void NS_BOUNDS ns_apply_fixed(const int nfixed, __global const int *restrict fixed,
                                       __global const REAL *restrict ubc, __global REAL *restrict u)
{
    NS_FOR_EACH(k, nfixed)
    {
        const int i3 = 3 * fixed[k];
        u[i3] = ubc[3 * k], u[i3 + 1] = ubc[3 * k + 1], u[i3 + 2] = ubc[3 * k + 2];
    }
}

/* fb_ns_omp_apply_bc, slip nodes: the normal component removed. */
__kernel void NS_BOUNDS ns_apply_slip(const int nslip, __global const int *restrict slip,
                                      __global const REAL *restrict normal, __global REAL *restrict u)
{
    NS_FOR_EACH(k, nslip)
    {
        const int i3 = 3 * slip[k];
        const REAL nx = normal[i3], ny = normal[i3 + 1], nz = normal[i3 + 2];
        const REAL un = u[i3] * nx + u[i3 + 1] * ny + u[i3 + 2] * nz;
        u[i3] -= un * nx, u[i3 + 1] -= un * ny, u[i3 + 2] -= un * nz;
    }
}

/* The CG's start: p linearly extrapolated from p^{n-1} and p^n; p_nm1 and
 * p_old keep p^n (ns.c, step2). */
__kernel void NS_BOUNDS ns_extrapolate(const int n, const REAL ratio, __global REAL *restrict p,
                                       __global REAL *restrict p_nm1, __global REAL *restrict p_old)
{
    NS_FOR_EACH(i, n)
    {
        const REAL pn = p[i];
        p[i] = pn + ratio * (pn - p_nm1[i]);
        p_nm1[i] = pn;
        p_old[i] = pn;
    }
}

/* Prescribed pressures: p[list[k]] = values[k]. */
__kernel void NS_BOUNDS ns_set_values(const int count, __global const int *restrict list,
                                      __global const REAL *restrict values, __global REAL *restrict p)
{
    NS_FOR_EACH(k, count) p[list[k]] = values[k];
}

/* fb_ns_omp_pressure_setup: A, invdiag, b; partial 0 = ||b||^2. */
__kernel void NS_BOUNDS ns_pressure_setup(const int n, __global const int *restrict rowptr,
                                          __global const int *restrict col, __global const REAL *restrict nd,
                                          __global const REAL *restrict dn, __global const REAL *restrict ls,
                                          __global const int *restrict p_fixed, __global const REAL *restrict bnorm,
                                          const REAL dt, __global const REAL *restrict tau,
                                          __global const REAL *restrict p, __global const REAL *restrict pip,
                                          __global const REAL *restrict ut, __global REAL *restrict A,
                                          __global REAL *restrict invdiag, __global REAL *restrict b,
                                          __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL b2 = 0;
    NS_FOR_EACH(i, n)
    {
        if (p_fixed[i]) {
            for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) A[e] = 0;
            invdiag[i] = 0, b[i] = 0;
            continue;
        }
        const int i3 = 3 * i;
        const REAL ti = tau[i], pi = p[i], ux = ut[i3], uy = ut[i3 + 1], uz = ut[i3 + 2];
        const REAL px = pip[i3], py = pip[i3 + 1], pz = pip[i3 + 2];
        REAL diag = 0, kp = 0, proj = 0, div = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            const REAL k = LS(e, 0) + LS(e, 3) + LS(e, 5);
            const REAL a = (dt + (REAL)0.5 * (ti + tau[j])) * k;
            A[e] = a;
            diag -= a;
            kp += k * (p[j] - pi);
            proj += DN(e, 0) * (pip[3 * j] - px) + DN(e, 1) * (pip[3 * j + 1] - py) + DN(e, 2) * (pip[3 * j + 2] - pz);
            div += ND(e, 0) * (ut[3 * j] - ux) + ND(e, 1) * (ut[3 * j + 1] - uy) + ND(e, 2) * (ut[3 * j + 2] - uz);
        }
        const REAL bi = dt * kp + ti * (proj + bnorm[i3] * px + bnorm[i3 + 1] * py + bnorm[i3 + 2] * pz) - div;
        invdiag[i] = (REAL)1 / diag;
        b[i] = bi;
        b2 += bi * bi;
    }
    NS_PARTIAL(red, lid, b2, NS_SUM, partial, 0, stride);
}

/* partial 0 = sum of v (for the mean of b). */
__kernel void NS_BOUNDS ns_sum(const int n, __global const REAL *restrict v, __global REAL *restrict partial,
                               const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL sum = 0;
    NS_FOR_EACH(i, n) sum += v[i];
    NS_PARTIAL(red, lid, sum, NS_SUM, partial, 0, stride);
}

/* ns.c's make_compatible: b -= scal[slot] / count (the sum of b over the
 * whole mesh and its node count: n on one process, more than this rank's n
 * on several); partial 0 = ||b||^2. */
__kernel void NS_BOUNDS ns_remove_mean(const int n, __global REAL *restrict b, __global const REAL *restrict scal,
                                       const int slot, const REAL count, __global REAL *restrict partial,
                                       const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    const REAL mean = scal[slot] / count;
    REAL b2 = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL bi = b[i] - mean;
        b[i] = bi;
        b2 += bi * bi;
    }
    NS_PARTIAL(red, lid, b2, NS_SUM, partial, 0, stride);
}

/* The pressure level, first half: scal[slot] = want - p[ref] (one item,
 * so no item reads p[ref] while another shifts it). */
__kernel void ns_reference_shift(__global const REAL *restrict p, const int ref, const REAL want,
                                 __global REAL *restrict scal, const int slot)
{
    if (get_global_id(0) == 0) scal[slot] = want - p[ref];
}

/* Second half: p += scal[slot]. */
__kernel void NS_BOUNDS ns_add_scalar(const int n, __global REAL *restrict p, __global const REAL *restrict scal,
                                      const int slot)
{
    const REAL shift = scal[slot];
    NS_FOR_EACH(i, n) p[i] += shift;
}

/* ---- the pressure CG (fb_ns_omp_cg, step for step) ---- */

/* r = b - A x, z = M^-1 r, both directions zeroed; partials 0 r.z, 1 r.r. */
__kernel void NS_BOUNDS ns_cg_start(const int n, __global const int *restrict rowptr, __global const int *restrict col,
                                    __global const REAL *restrict A, __global const REAL *restrict invdiag,
                                    __global const REAL *restrict b, __global const REAL *restrict x,
                                    __global REAL *restrict r, __global REAL *restrict z, __global REAL *restrict d,
                                    __global REAL *restrict d2, __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL rz = 0, rr = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL xi = x[i];
        REAL s = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) s += A[e] * (x[col[e]] - xi);
        const REAL ri = b[i] - s, zi = invdiag[i] * ri;
        r[i] = ri, z[i] = zi, d[i] = 0, d2[i] = 0;
        rz += ri * zi, rr += ri * ri;
    }
    NS_PARTIAL(red, lid, rz, NS_SUM, partial, 0, stride);
    NS_PARTIAL(red, lid, rr, NS_SUM, partial, 1, stride);
}

/* The new direction z + beta dold (beta = scal[rz] / scal[rz_prev], 0 on
 * the first iteration), for this row and, recomputed, for its neighbours,
 * and q = A dnew; partial 0 = dnew . q. */
__kernel void NS_BOUNDS ns_cg_direction(const int n, __global const int *restrict rowptr,
                                        __global const int *restrict col, __global const REAL *restrict A,
                                        __global const REAL *restrict z, __global const REAL *restrict dold,
                                        __global REAL *restrict dnew, __global REAL *restrict q,
                                        __global const REAL *restrict scal, const int rz, const int rz_prev,
                                        const int first, __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    const REAL beta = first ? (REAL)0 : scal[rz] / scal[rz_prev];
    REAL dq = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL di = z[i] + beta * dold[i];
        REAL s = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            s += A[e] * ((z[j] + beta * dold[j]) - di);
        }
        dnew[i] = di, q[i] = s;
        dq += di * s;
    }
    NS_PARTIAL(red, lid, dq, NS_SUM, partial, 0, stride);
}

/* alpha = scal[rz] / scal[dq]; x += alpha d, r -= alpha q, z = M^-1 r;
 * partials 0 r.z, 1 r.r. */
__kernel void NS_BOUNDS ns_cg_update(const int n, __global REAL *restrict x, __global REAL *restrict r,
                                     __global REAL *restrict z, __global const REAL *restrict invdiag,
                                     __global const REAL *restrict d, __global const REAL *restrict q,
                                     __global const REAL *restrict scal, const int rz, const int dq,
                                     __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    const REAL alpha = scal[rz] / scal[dq];
    REAL zr = 0, rr = 0;
    NS_FOR_EACH(i, n)
    {
        x[i] += alpha * d[i];
        const REAL ri = r[i] - alpha * q[i], zi = invdiag[i] * ri;
        r[i] = ri, z[i] = zi;
        zr += zi * ri, rr += ri * ri;
    }
    NS_PARTIAL(red, lid, zr, NS_SUM, partial, 0, stride);
    NS_PARTIAL(red, lid, rr, NS_SUM, partial, 1, stride);
}

/* ---- the single-reduction CG (CG_VARIANT 1; Chronopoulos and Gear 1989):
 * the same iterates in exact arithmetic, one reduction and three launches
 * per iteration. Per parity k the scalar array holds gamma = (r, u),
 * delta = (w, u), rr = (r, r) and alpha at slot + 4k + 0..3. ---- */

/* w = A u; partials 0 (r, u), 1 (w, u), 2 (r, r). */
__kernel void NS_BOUNDS ns_cg1_matvec(const int n, __global const int *restrict rowptr,
                                      __global const int *restrict col, __global const REAL *restrict A,
                                      __global const REAL *restrict r, __global const REAL *restrict u,
                                      __global REAL *restrict w, __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL gamma = 0, delta = 0, rr = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL ui = u[i], ri = r[i];
        REAL s = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) s += A[e] * (u[col[e]] - ui);
        w[i] = s;
        gamma += ri * ui, delta += s * ui, rr += ri * ri;
    }
    NS_PARTIAL(red, lid, gamma, NS_SUM, partial, 0, stride);
    NS_PARTIAL(red, lid, delta, NS_SUM, partial, 1, stride);
    NS_PARTIAL(red, lid, rr, NS_SUM, partial, 2, stride);
}

/* beta = gamma_k / gamma_{k-1} (0 when first), alpha = gamma_k / (delta_k -
 * beta gamma_k / alpha_{k-1}), kept at cur + 3 by item 0 for the next
 * iteration; then p = u + beta p, s = w + beta s, x += alpha p,
 * r -= alpha s, u = M^-1 r. */
__kernel void NS_BOUNDS ns_cg1_update(const int n, __global REAL *restrict x, __global REAL *restrict r,
                                      __global REAL *restrict u, __global const REAL *restrict w,
                                      __global REAL *restrict p, __global REAL *restrict s,
                                      __global const REAL *restrict invdiag, __global REAL *restrict scal,
                                      const int cur, const int prev, const int first)
{
    const REAL gamma = scal[cur], delta = scal[cur + 1];
    const REAL beta = first ? (REAL)0 : gamma / scal[prev];
    const REAL alpha = first ? gamma / delta : gamma / (delta - beta * gamma / scal[prev + 3]);
    if (get_global_id(0) == 0) scal[cur + 3] = alpha;
    NS_FOR_EACH(i, n)
    {
        const REAL pi = u[i] + beta * p[i], si = w[i] + beta * s[i];
        p[i] = pi, s[i] = si;
        x[i] += alpha * pi;
        const REAL ri = r[i] - alpha * si;
        r[i] = ri, u[i] = invdiag[i] * ri;
    }
}

/* ---- the pipelined CG (CG_VARIANT 2; Ghysels and Vanroose 2014,
 * PIPE-PCG, preconditioner M^-1 = invdiag): the same iterates in exact
 * arithmetic, one fused kernel and one reduction per iteration. With
 * u = M^-1 r, w = A u, m = M^-1 w, n = A m, the paper's recurrences
 * z = n + beta z, q = m + beta q, s = w + beta s, p = u + beta p,
 * x += alpha p, r -= alpha s, u -= alpha q, w -= alpha z. The paper then
 * computes n = A M^-1 w of the new w; fused into the same launch, each
 * item would have to recompute its neighbours' new w from their old w, n
 * and z (4 gathered values and 3 more flops per edge: 1.1-1.2x the time of
 * this form on PoCL). Instead, by linearity,
 * n_new = A M^-1 (w - alpha z) = n - alpha y with y = A M^-1 z =
 * t + beta y and t = A M^-1 n of the OLD n, which the previous launch
 * finished: one product of one gathered vector (M^-1 n, double-buffered by
 * parity: mn_in of this iteration, mn_out of the next), the same edge work
 * as ns_cg1_matvec. Every other vector is the item's own, updated in place.
 * One recurrence more than the paper's (n): it rounds differently (p within
 * 1e-9 of the OpenMP CG's at cavity level 1, docs/solver.md). The scalars
 * are the single-reduction CG's (the same slots and parities). ---- */

/* After ns_cg_start (r, u, p = s = 0) and ns_cg1_matvec (w = A u and the
 * first dot products): n = A M^-1 w, mn = M^-1 n, and the recurrences' z,
 * q, y zeroed (beta is 0 at the first iteration, but 0 times garbage may
 * be NaN). */
__kernel void NS_BOUNDS ns_cg2_start(const int n, __global const int *restrict rowptr,
                                     __global const int *restrict col, __global const REAL *restrict A,
                                     __global const REAL *restrict invdiag, __global const REAL *restrict w,
                                     __global REAL *restrict nv, __global REAL *restrict mn, __global REAL *restrict z,
                                     __global REAL *restrict q, __global REAL *restrict y)
{
    NS_FOR_EACH(i, n)
    {
        const REAL di = invdiag[i], mi = di * w[i];
        REAL acc = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            acc += A[e] * (invdiag[j] * w[j] - mi);
        }
        nv[i] = acc, mn[i] = di * acc, z[i] = 0, q[i] = 0, y[i] = 0;
    }
}

/* One whole iteration. alpha and beta as in ns_cg1_update (alpha kept at
 * cur + 3 by item 0); t = A mn_in; y = t + beta y, z = n + beta z,
 * q = M^-1 w + beta q, s = w + beta s, p = u + beta p; x += alpha p,
 * r -= alpha s, u -= alpha q, w -= alpha z, n -= alpha y, mn_out = M^-1 n;
 * partials 0 (r, u), 1 (w, u), 2 (r, r) of the new vectors, for the next
 * iteration. */
__kernel void NS_BOUNDS ns_cg2_iterate(const int n, __global const int *restrict rowptr,
                                       __global const int *restrict col, __global const REAL *restrict A,
                                       __global const REAL *restrict invdiag, __global REAL *restrict x,
                                       __global REAL *restrict r, __global REAL *restrict u, __global REAL *restrict p,
                                       __global REAL *restrict s, __global REAL *restrict q, __global REAL *restrict w,
                                       __global REAL *restrict nv, __global REAL *restrict z, __global REAL *restrict y,
                                       __global const REAL *restrict mn_in, __global REAL *restrict mn_out,
                                       __global REAL *restrict scal, const int cur, const int prev, const int first,
                                       __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    const REAL gamma = scal[cur], delta = scal[cur + 1];
    const REAL beta = first ? (REAL)0 : gamma / scal[prev];
    const REAL alpha = first ? gamma / delta : gamma / (delta - beta * gamma / scal[prev + 3]);
    if (get_global_id(0) == 0) scal[cur + 3] = alpha;
    REAL gamma_new = 0, delta_new = 0, rr = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL mni = mn_in[i];
        REAL t = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) t += A[e] * (mn_in[col[e]] - mni);
        const REAL di = invdiag[i], wi = w[i], ni = nv[i];
        const REAL yi = t + beta * y[i], zi = ni + beta * z[i], qi = di * wi + beta * q[i];
        const REAL si = wi + beta * s[i], pi = u[i] + beta * p[i];
        const REAL ri = r[i] - alpha * si, ui = u[i] - alpha * qi, wn = wi - alpha * zi, nn = ni - alpha * yi;
        x[i] += alpha * pi;
        y[i] = yi, z[i] = zi, q[i] = qi, s[i] = si, p[i] = pi;
        r[i] = ri, u[i] = ui, w[i] = wn, nv[i] = nn, mn_out[i] = di * nn;
        gamma_new += ri * ui, delta_new += wn * ui, rr += ri * ri;
    }
    NS_PARTIAL(red, lid, gamma_new, NS_SUM, partial, 0, stride);
    NS_PARTIAL(red, lid, delta_new, NS_SUM, partial, 1, stride);
    NS_PARTIAL(red, lid, rr, NS_SUM, partial, 2, stride);
}

/* ---- the CG with the SpMV family's product (CG_SPMV 1..3): the pressure
 * matrix as explicit CSR, the diagonal in its column place, filled from
 * the per-edge A each step; w = A u is then a kernel of kernels/spmv and
 * its dot products a pass of their own (ns_cg1_dots). ---- */

/* values[epos[e]] = A[e], values[diagpos[i]] = -sum_e A[e]: the edge
 * product sum_e A[e] (u_j - u_i) as a matrix. A fixed-pressure row has
 * A = 0, so it is an all-zero row, as the edge product sees it. */
__kernel void NS_BOUNDS ns_csr_values(const int n, __global const int *restrict rowptr, __global const REAL *restrict A,
                                      __global const int *restrict epos, __global const int *restrict diagpos,
                                      __global REAL *restrict values)
{
    NS_FOR_EACH(i, n)
    {
        REAL diag = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const REAL a = A[e];
            values[epos[e]] = a;
            diag -= a;
        }
        values[diagpos[i]] = diag;
    }
}

/* The dot products ns_cg1_matvec fuses with its product, after an
 * external one: partials 0 (r, u), 1 (w, u), 2 (r, r). */
__kernel void NS_BOUNDS ns_cg1_dots(const int n, __global const REAL *restrict r, __global const REAL *restrict u,
                                    __global const REAL *restrict w, __global REAL *restrict partial, const int stride)
{
    NS_PARTIAL_SPACE(red);
    const int lid = (int)get_local_id(0);
    REAL gamma = 0, delta = 0, rr = 0;
    NS_FOR_EACH(i, n)
    {
        const REAL ui = u[i], ri = r[i];
        gamma += ri * ui, delta += w[i] * ui, rr += ri * ri;
    }
    NS_PARTIAL(red, lid, gamma, NS_SUM, partial, 0, stride);
    NS_PARTIAL(red, lid, delta, NS_SUM, partial, 1, stride);
    NS_PARTIAL(red, lid, rr, NS_SUM, partial, 2, stride);
}

/* fb_ns_omp_correct: step 3. */
__kernel void NS_BOUNDS ns_correct(const int n, __global const int *restrict rowptr, __global const int *restrict col,
                                   __global const REAL *restrict nd, __global const REAL *restrict mass, const REAL dt,
                                   __global const REAL *restrict p, __global const REAL *restrict p_old,
                                   __global const REAL *restrict ut, __global REAL *restrict u_out)
{
    NS_FOR_EACH(i, n)
    {
        const REAL dpi = p[i] - p_old[i];
        REAL gx = 0, gy = 0, gz = 0;
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int j = col[e];
            const REAL dp = p[j] - p_old[j] - dpi;
            gx += ND(e, 0) * dp, gy += ND(e, 1) * dp, gz += ND(e, 2) * dp;
        }
        const REAL f = dt / mass[i];
        const int i3 = 3 * i;
        u_out[i3] = ut[i3] - f * gx, u_out[i3 + 1] = ut[i3 + 1] - f * gy, u_out[i3 + 2] = ut[i3 + 2] - f * gz;
    }
}

/* ---- the halo exchange on several ranks (ns_device.c's share): the
 * owned values a neighbour rank reads are packed into buf in the
 * exchange's order, copied to the host and sent; what arrives is copied
 * into buf and unpacked into this rank's halo slots. idx holds node
 * numbers in the device's order. ---- */

/* buf[ncomp k + c] = v[ncomp idx[k] + c]. */
__kernel void NS_BOUNDS ns_halo_pack(const int count, const int ncomp, __global const int *restrict idx,
                                     __global const REAL *restrict v, __global REAL *restrict buf)
{
    NS_FOR_EACH(k, count)
    {
        const int i = idx[k];
        for (int c = 0; c < ncomp; ++c) buf[ncomp * k + c] = v[ncomp * i + c];
    }
}

/* v[ncomp idx[k] + c] = buf[ncomp k + c]. */
__kernel void NS_BOUNDS ns_halo_unpack(const int count, const int ncomp, __global const int *restrict idx,
                                       __global const REAL *restrict buf, __global REAL *restrict v)
{
    NS_FOR_EACH(k, count)
    {
        const int i = idx[k];
        for (int c = 0; c < ncomp; ++c) v[ncomp * i + c] = buf[ncomp * k + c];
    }
}
