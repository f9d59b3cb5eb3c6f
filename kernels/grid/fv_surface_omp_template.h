/* fv_surface_omp_template.h - OpenMP twins of the fv-surface device kernels
 * (kernels/grid/fv_surface.cl), one precision per inclusion (REAL, SUFFIX
 * and ARG_REAL set by fv_surface_omp.c). Same names and arguments as the
 * device kernels; the layout comes from the LAYOUT / AOSOA_BLOCK defines.
 *
 * A CPU thread owns whole (j, k) lines of cells (static schedule), so the
 * periodic neighbours along x are i +- 1 and no index is divided. Each
 * layout, direction and side gets its own copy of the loops (constants at
 * every call site of the always-inline bodies), so the address arithmetic
 * and the flux's branches fold. The loops over i are marked simd, but GCC
 * 12 keeps every one of them scalar, even with the -fno-math-errno that
 * CMakeLists.txt gives the kernels/ C files (-fopt-info-vec-missed: "control flow
 * in loop", "two or more consecutive inner loops"): the CPU baseline is
 * scalar code.
 * The atomic strategy's twin uses `omp atomic` updates: the honest cost of
 * scattering with atomics on a CPU.
 */

#define FB_CAT_(a, b) a##b
#define FB_CAT(a, b) FB_CAT_(a, b)
#define FB_NAME(base) FB_CAT(base, SUFFIX)
#define FV_FN(base) FB_NAME(base)

#include "fv_surface_flux.h"

static inline FV_ALWAYS void FB_NAME(fv_load_)(const fv_layout L, const REAL *restrict U, size_t c, size_t n, REAL *u)
{
    for (int v = 0; v < 5; ++v)
        u[v] = U[fv_index(L, c, (size_t)v, n)];
}

/* One pass of fv-passes over every cell (fv_pass in the .cl file). d and
 * side are constants at every call site (fv_pass_body_), so the flux's
 * branches on them fold. */
static inline FV_ALWAYS void FB_NAME(fv_pass_rows_)(const fv_layout L, const fv_grid_args G, const int d,
                                                    const int side, REAL area, const REAL *restrict U, REAL *restrict R)
{
    const int nx = G.nx, ny = G.ny, nz = G.nz, step = side ? 1 : -1;
    const size_t n = (size_t)nx * ny * nz;
#pragma omp for collapse(2) schedule(static)
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j) {
            const size_t row = fv_cell(&G, 0, j, k), nrow = fv_row_step(&G, j, k, d, step);
#pragma omp simd
            for (int i = 0; i < nx; ++i) {
                REAL uc[5], un[5], f[5];
                const size_t c = row + (size_t)i, nb = nrow + (size_t)(d == 0 ? fv_wrap(i + step, nx) : i);
                FB_NAME(fv_load_)(L, U, c, n, uc);
                FB_NAME(fv_load_)(L, U, nb, n, un);
                if (side)
                    FB_NAME(fv_rusanov_)(d, uc, un, area, f);
                else
                    FB_NAME(fv_rusanov_)(d, un, uc, area, f);
                for (int v = 0; v < 5; ++v) {
                    const size_t at = fv_index(L, c, (size_t)v, n);
                    R[at] = side ? R[at] - f[v] : d == 0 ? f[v] : R[at] + f[v];
                }
            }
        }
}

static inline FV_ALWAYS void FB_NAME(fv_pass_body_)(const fv_layout L, const fv_grid_args G, int d, int side, REAL area,
                                                    const REAL *restrict U, REAL *restrict R)
{
#define FV_PASS(dd, ss) FB_NAME(fv_pass_rows_)(L, G, dd, ss, area, U, R)
    if (d == 0)
        side ? FV_PASS(0, 1) : FV_PASS(0, 0);
    else if (d == 1)
        side ? FV_PASS(1, 1) : FV_PASS(1, 0);
    else
        side ? FV_PASS(2, 1) : FV_PASS(2, 0);
#undef FV_PASS
}

/* The faces of direction d (a constant at every call site): flux x area
 * into the face array F[(d * 5 + v) * N + c] (fv-gather's fv_surface), or
 * scattered into R with omp atomic (fv-atomic). */
static inline FV_ALWAYS void FB_NAME(fv_faces_rows_)(const fv_layout L, const fv_grid_args G, const int d, REAL area,
                                                     const REAL *restrict U, REAL *restrict out, const int atomic)
{
    const int nx = G.nx, ny = G.ny, nz = G.nz;
    const size_t n = (size_t)nx * ny * nz;
#pragma omp for collapse(2) schedule(static)
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j) {
            const size_t row = fv_cell(&G, 0, j, k), lrow = fv_row_step(&G, j, k, d, -1);
            if (atomic) {
                for (int i = 0; i < nx; ++i) {
                    REAL ul[5], ur[5], f[5];
                    const size_t c = row + (size_t)i, left = lrow + (size_t)(d == 0 ? fv_wrap(i - 1, nx) : i);
                    FB_NAME(fv_load_)(L, U, left, n, ul);
                    FB_NAME(fv_load_)(L, U, c, n, ur);
                    FB_NAME(fv_rusanov_)(d, ul, ur, area, f);
                    for (int v = 0; v < 5; ++v) {
#pragma omp atomic update
                        out[fv_index(L, c, (size_t)v, n)] += f[v];
#pragma omp atomic update
                        out[fv_index(L, left, (size_t)v, n)] -= f[v];
                    }
                }
                continue;
            }
#pragma omp simd
            for (int i = 0; i < nx; ++i) {
                REAL ul[5], ur[5], f[5];
                const size_t c = row + (size_t)i, left = lrow + (size_t)(d == 0 ? fv_wrap(i - 1, nx) : i);
                FB_NAME(fv_load_)(L, U, left, n, ul);
                FB_NAME(fv_load_)(L, U, c, n, ur);
                FB_NAME(fv_rusanov_)(d, ul, ur, area, f);
                for (int v = 0; v < 5; ++v)
                    out[(size_t)(d * 5 + v) * n + c] = f[v];
            }
        }
}

static inline FV_ALWAYS void FB_NAME(fv_faces_body_)(const fv_layout L, const fv_grid_args G, const REAL *area,
                                                     const REAL *restrict U, REAL *restrict out, int atomic)
{
    FB_NAME(fv_faces_rows_)(L, G, 0, area[0], U, out, atomic);
    FB_NAME(fv_faces_rows_)(L, G, 1, area[1], U, out, atomic);
    FB_NAME(fv_faces_rows_)(L, G, 2, area[2], U, out, atomic);
}

/* fv-gather's second step: each cell's 6 faces in the reference order. */
static inline FV_ALWAYS void FB_NAME(fv_gather_body_)(const fv_layout L, const fv_grid_args G, const REAL *restrict F,
                                                      REAL *restrict R)
{
    const fv_grid_args *g = &G;
    const size_t n = (size_t)g->nx * g->ny * g->nz;
#pragma omp for collapse(2) schedule(static)
    for (int k = 0; k < g->nz; ++k)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                const size_t c = fv_cell(g, i, j, k);
                size_t hi[3];
                for (int d = 0; d < 3; ++d)
                    hi[d] = fv_step(g, i, j, k, d, 1);
                for (int v = 0; v < 5; ++v) {
                    REAL r = 0;
                    for (int d = 0; d < 3; ++d) {
                        const REAL *Fd = F + (size_t)(d * 5 + v) * n;
                        r = r + Fd[c];
                        r = r - Fd[hi[d]];
                    }
                    R[fv_index(L, c, (size_t)v, n)] = r;
                }
            }
}

/* Runs CALL(L) in one parallel region with the layout as a constant (the
 * AoSoA blocks of the space included). The bodies' loops are orphaned
 * `omp for`s: inside the region their constants (layout, direction, side)
 * stay literal after inlining, which a parallel region inside the body
 * would hide in its captured data. */
#define FV_PARALLEL(defs, CALL)                                                                                        \
    do {                                                                                                               \
        const int layout_ = fb_host_define_int(defs, "LAYOUT", 1);                                                     \
        const int block_ = fb_host_define_int(defs, "AOSOA_BLOCK", 8);                                                 \
        _Pragma("omp parallel")                                                                                        \
        {                                                                                                              \
            if (layout_ == 0)                                                                                          \
                CALL(((fv_layout){0, 1}));                                                                             \
            else if (layout_ == 1)                                                                                     \
                CALL(((fv_layout){1, 1}));                                                                             \
            else if (block_ == 4)                                                                                      \
                CALL(((fv_layout){2, 4}));                                                                             \
            else if (block_ == 8)                                                                                      \
                CALL(((fv_layout){2, 8}));                                                                             \
            else if (block_ == 16)                                                                                     \
                CALL(((fv_layout){2, 16}));                                                                            \
            else if (block_ == 32)                                                                                     \
                CALL(((fv_layout){2, 32}));                                                                            \
            else                                                                                                       \
                CALL(((fv_layout){2, block_}));                                                                        \
        }                                                                                                              \
    } while (0)

static void FB_NAME(fv_pass_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const fv_grid_args g = {args[0].i32, args[1].i32, args[2].i32};
    const int d = args[3].i32, side = args[4].i32;
    const REAL area = (REAL)args[5].ARG_REAL;
#define FV_CALL(L) FB_NAME(fv_pass_body_)(L, g, d, side, area, args[6].ptr, args[7].ptr)
    FV_PARALLEL(defs, FV_CALL);
#undef FV_CALL
}

static void FB_NAME(fv_zero_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int count = args[0].i32;
    REAL *restrict R = args[1].ptr;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < count; ++i)
        R[i] = 0;
}

static void FB_NAME(fv_faces_omp_)(const fb_host_arg *args, const fb_host_defines *defs, int atomic)
{
    const fv_grid_args g = {args[0].i32, args[1].i32, args[2].i32};
    const REAL area[3] = {(REAL)args[3].ARG_REAL, (REAL)args[4].ARG_REAL, (REAL)args[5].ARG_REAL};
#define FV_CALL(L)                                                                                                     \
    atomic ? FB_NAME(fv_faces_body_)(L, g, area, args[6].ptr, args[7].ptr, 1)                                          \
           : FB_NAME(fv_faces_body_)(L, g, area, args[6].ptr, args[7].ptr, 0)
    FV_PARALLEL(defs, FV_CALL);
#undef FV_CALL
}

static void FB_NAME(fv_face_atomic_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    FB_NAME(fv_faces_omp_)(args, defs, 1);
}

static void FB_NAME(fv_surface_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    FB_NAME(fv_faces_omp_)(args, defs, 0);
}

static void FB_NAME(fv_gather_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const fv_grid_args g = {args[0].i32, args[1].i32, args[2].i32};
#define FV_CALL(L) FB_NAME(fv_gather_body_)(L, g, args[3].ptr, args[4].ptr)
    FV_PARALLEL(defs, FV_CALL);
#undef FV_CALL
}

#undef FV_PARALLEL
#undef FV_FN
#undef FB_NAME
#undef FB_CAT
#undef FB_CAT_
