/* fv_surface.cl - surface kernels of a Cartesian finite-volume code: one
 * residual evaluation R(U) of the 3D Euler equations on a periodic
 * nx x ny x nz grid, 5 conservative variables per cell (rho, rho u, rho v,
 * rho w, E), first-order face states (the two neighbouring cells) and the
 * Rusanov (local Lax-Friedrichs) flux, gamma = 1.4:
 *   F = 1/2 (f(UL) + f(UR)) - 1/2 smax (UR - UL), f the physical flux along n,
 *   smax = max(|unL| + cL, |unR| + cR),  c = sqrt(gamma p / rho).
 * R_c = sum over the 6 faces of c of +-flux x area: the low face of each
 * direction adds (inflow), the high face subtracts, in the fixed order
 * x-low, x-high, y-low, y-high, z-low, z-high, starting from 0.
 *
 * Three ways of distributing face fluxes to cells (one family kernel each):
 * - fv-passes: fv_pass launched 6 times, once per (direction, side); item c
 *   computes the flux of its own low (side 0) or high (side 1) face and is
 *   the only one to touch R[c] in that launch: no races, and every cell
 *   receives its 6 terms in the reference order (bitwise equal to it).
 *   Each flux is computed twice (once per side).
 * - fv-atomic: fv_zero, then fv_face_atomic over all 3N faces, adding
 *   +flux to the right cell and -flux to the left one with atomics
 *   (atomic_add.h: CUDA atomicAdd; OpenCL compare-and-swap on 32-bit ints
 *   for float, on 64-bit ints for double, which needs
 *   cl_khr_int64_base_atomics). The
 *   order of the additions changes from run to run: equal to the
 *   reference within a tolerance only.
 * - fv-gather: fv_surface writes every face's flux x area to a face array
 *   F[(d * 5 + v) * N + c] (face d of cell c is its low face), then
 *   fv_gather sums each cell's 6 faces in the reference order (bitwise).
 *
 * Cell layouts of U and R (LAYOUT), N = nx ny nz cells, cell c = i + nx (j + ny k):
 *   0 AoS    U[c * 5 + v]
 *   1 SoA    U[v * N + c]
 *   2 AoSoA  U[((c / B) * 5 + v) * B + c % B], B = AOSOA_BLOCK (arrays padded to whole blocks)
 *
 * Parameters (-D, #ifndef defaults below; REAL's in common.cl): REAL (double|float); LAYOUT
 * (0, 1, 2); AOSOA_BLOCK (cells per block, LAYOUT 2 only); WG_SIZE
 * (work-group size, 32..1024; on CUDA also __launch_bounds__); LOCAL_RESERVE
 * (bytes of __local per group that the kernel reserves and never needs, so
 * that fewer groups fit a compute unit: an occupancy cap; 0 none);
 * MIN_BLOCKS (CUDA only: the second __launch_bounds__ argument, default 1).
 * Geometry: 1D, global = items rounded up to WG_SIZE, local = WG_SIZE,
 * items = N (fv_pass, fv_gather), 3N (fv_surface, fv_face_atomic),
 * 5 N_padded (fv_zero); every kernel guards its tail.
 * Model (per cell; fb_fv_model_of in fv_surface_kernels.c): flops 3 x 78 (one
 * flux per face) + 30 (accumulation) = 264; minimal bytes 10 REALs (U read
 * once, R written once). Bytes the variants move with perfect reuse inside
 * a launch: passes 85 REALs (6 reads of U, 5 read-modify-writes of R, one
 * write), atomic 20 (zero R, read U, read-modify-write R), gather 40 (read U,
 * write and read 15 face values, write R).
 */
#ifndef LAYOUT
#define LAYOUT 1
#endif
#ifndef AOSOA_BLOCK
#define AOSOA_BLOCK 8
#endif
#ifndef WG_SIZE
#define WG_SIZE 128
#endif
#ifndef LOCAL_RESERVE
#define LOCAL_RESERVE 0
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif
#ifndef __CUDACC__
/* a fused multiply-add rounds once where the reference rounds twice: off,
 * so that passes and gather equal the serial reference bit for bit */
#pragma OPENCL FP_CONTRACT OFF
#endif

#define FV_BOUNDS FB_LAUNCH_BOUNDS(WG_SIZE, MIN_BLOCKS)

/* The reservation must survive the compiler: one volatile store per item. */
#if LOCAL_RESERVE > 0
#define FV_RESERVE()                                                                                                   \
    volatile __local char fv_reserve[LOCAL_RESERVE];                                                                   \
    fv_reserve[get_local_id(0) % LOCAL_RESERVE] = 0
#else
#define FV_RESERVE() (void)0
#endif

#define NVAR 5

FB_INLINE size_t fv_at(const int c, const int v, const int n)
{
#if LAYOUT == 0
    (void)n;
    return (size_t)c * NVAR + (size_t)v;
#elif LAYOUT == 1
    return (size_t)v * (size_t)n + (size_t)c;
#else
    (void)n;
    return ((size_t)(c / AOSOA_BLOCK) * NVAR + (size_t)v) * AOSOA_BLOCK + (size_t)(c % AOSOA_BLOCK);
#endif
}

FB_INLINE void fv_load(__global const REAL *restrict U, const int c, const int n, REAL *u)
{
    for (int v = 0; v < NVAR; ++v)
        u[v] = U[fv_at(c, v, n)];
}

/* fv_rusanov(d, uL, uR, area, f): the flux x area through a face, the code
 * the OpenMP twins and the reference compile too (bit for bit the same). */
#include "grid/rusanov.h"

/* The neighbour of cell (i, j, k) one step along d (step -1 or +1), periodic. */
FB_INLINE int fv_neighbour(const int c, const int d, const int step, const int nx, const int ny, const int nz)
{
    const int i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
    if (d == 0) return (i + step + nx) % nx + nx * (j + ny * k);
    if (d == 1) return i + nx * ((j + step + ny) % ny + ny * k);
    return i + nx * (j + ny * ((k + step + nz) % nz));
}

/* One of the 6 passes of fv-passes: direction d, side 0 (low face of c:
 * adds; the first pass, d = 0, writes) or side 1 (high face: subtracts). */
__kernel void FV_BOUNDS fv_pass(const int nx, const int ny, const int nz, const int d, const int side, const REAL area,
                                __global const REAL *restrict U, __global REAL *restrict R)
{
    FV_RESERVE();
    const int n = nx * ny * nz, c = (int)get_global_id(0);
    if (c >= n) return;
    REAL uc[NVAR], un[NVAR], f[NVAR];
    fv_load(U, c, n, uc);
    fv_load(U, fv_neighbour(c, d, side ? 1 : -1, nx, ny, nz), n, un);
    if (side) {
        fv_rusanov(d, uc, un, area, f);
        for (int v = 0; v < NVAR; ++v)
            R[fv_at(c, v, n)] = R[fv_at(c, v, n)] - f[v];
    } else {
        fv_rusanov(d, un, uc, area, f);
        for (int v = 0; v < NVAR; ++v)
            R[fv_at(c, v, n)] = d == 0 ? f[v] : R[fv_at(c, v, n)] + f[v];
    }
}

/* R = 0 over the whole (padded) array: count REALs. */
__kernel void FV_BOUNDS fv_zero(const int count, __global REAL *restrict R)
{
    FV_RESERVE();
    const int i = (int)get_global_id(0);
    if (i < count) R[i] = 0;
}

#include "atomic_add.h" /* fb_atomic_add */

/* fv-atomic's face pass: face e = d N + c is the low face of cell c along d. */
__kernel void FV_BOUNDS fv_face_atomic(const int nx, const int ny, const int nz, const REAL ax, const REAL ay,
                                       const REAL az, __global const REAL *restrict U, __global REAL *restrict R)
{
    FV_RESERVE();
    const int n = nx * ny * nz, e = (int)get_global_id(0);
    if (e >= 3 * n) return;
    const int d = e / n, c = e % n, left = fv_neighbour(c, d, -1, nx, ny, nz);
    REAL ul[NVAR], ur[NVAR], f[NVAR];
    fv_load(U, left, n, ul);
    fv_load(U, c, n, ur);
    fv_rusanov(d, ul, ur, d == 0 ? ax : d == 1 ? ay : az, f);
    for (int v = 0; v < NVAR; ++v) {
        fb_atomic_add(&R[fv_at(c, v, n)], f[v]);
        fb_atomic_add(&R[fv_at(left, v, n)], -f[v]);
    }
}

/* fv-gather, step 1: flux x area of every face into F[(d * 5 + v) * N + c]. */
__kernel void FV_BOUNDS fv_surface(const int nx, const int ny, const int nz, const REAL ax, const REAL ay,
                                   const REAL az, __global const REAL *restrict U, __global REAL *restrict F)
{
    FV_RESERVE();
    const int n = nx * ny * nz, e = (int)get_global_id(0);
    if (e >= 3 * n) return;
    const int d = e / n, c = e % n;
    REAL ul[NVAR], ur[NVAR], f[NVAR];
    fv_load(U, fv_neighbour(c, d, -1, nx, ny, nz), n, ul);
    fv_load(U, c, n, ur);
    fv_rusanov(d, ul, ur, d == 0 ? ax : d == 1 ? ay : az, f);
    for (int v = 0; v < NVAR; ++v)
        F[(size_t)(d * NVAR + v) * (size_t)n + (size_t)c] = f[v];
}

/* fv-gather, step 2: each cell sums its 6 faces in the reference order. */
__kernel void FV_BOUNDS fv_gather(const int nx, const int ny, const int nz, __global const REAL *restrict F,
                                  __global REAL *restrict R)
{
    FV_RESERVE();
    const int n = nx * ny * nz, c = (int)get_global_id(0);
    if (c >= n) return;
    int hi[3];
    for (int d = 0; d < 3; ++d)
        hi[d] = fv_neighbour(c, d, 1, nx, ny, nz);
    for (int v = 0; v < NVAR; ++v) {
        REAL r = 0;
        for (int d = 0; d < 3; ++d) {
            __global const REAL *Fd = F + (size_t)(d * NVAR + v) * (size_t)n;
            r = r + Fd[c];
            r = r - Fd[hi[d]];
        }
        R[fv_at(c, v, n)] = r;
    }
}
