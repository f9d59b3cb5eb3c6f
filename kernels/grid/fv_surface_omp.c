/* fv_surface_omp.c - the OpenMP baseline of the fv-surface family,
 * instantiated in double and single precision from
 * fv_surface_omp_template.h. Host twins take the device kernels' arguments
 * in the same order (kernels/grid/fv_surface.cl). */
#include <math.h>
#include <stddef.h>

#include "fv_surface.h"

#define FV_ALWAYS __attribute__((always_inline))

/* The cell layout of U and R: kind 0 AoS, 1 SoA, 2 AoSoA of `block` cells. */
typedef struct fv_layout {
    int kind, block;
} fv_layout;

typedef struct fv_grid_args {
    int nx, ny, nz;
} fv_grid_args;

static inline FV_ALWAYS size_t fv_index(const fv_layout L, size_t c, size_t v, size_t n)
{
    if (L.kind == 0) return c * 5 + v;
    if (L.kind == 1) return v * n + c;
    return ((c / (size_t)L.block) * 5 + v) * (size_t)L.block + c % (size_t)L.block;
}

static inline FV_ALWAYS size_t fv_cell(const fv_grid_args *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

/* x + -1 wrapped into 0..n-1 (x in -1..n). */
static inline FV_ALWAYS int fv_wrap(int x, int n) { return x < 0 ? n - 1 : x == n ? 0 : x; }

/* The first cell of the row holding the neighbour one step along d of row
 * (j, k): the row itself along x, the next or previous row or plane else. */
static inline FV_ALWAYS size_t fv_row_step(const fv_grid_args *g, int j, int k, int d, int step)
{
    if (d == 1) j = fv_wrap(j + step, g->ny);
    if (d == 2) k = fv_wrap(k + step, g->nz);
    return (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

/* The cell one step (-1 or +1) along d from (i, j, k), periodic. */
static inline FV_ALWAYS size_t fv_step(const fv_grid_args *g, int i, int j, int k, int d, int step)
{
    if (d == 0)
        i = i + step < 0 ? g->nx - 1 : i + step == g->nx ? 0 : i + step;
    else if (d == 1)
        j = j + step < 0 ? g->ny - 1 : j + step == g->ny ? 0 : j + step;
    else
        k = k + step < 0 ? g->nz - 1 : k + step == g->nz ? 0 : k + step;
    return fv_cell(g, i, j, k);
}

#define REAL double
#define SUFFIX d
#define ARG_REAL f64
#include "fv_surface_omp_template.h"
#undef REAL
#undef SUFFIX
#undef ARG_REAL

#define REAL float
#define SUFFIX s
#define ARG_REAL f32
#include "fv_surface_omp_template.h"
#undef REAL
#undef SUFFIX
#undef ARG_REAL

const fb_host_kernel fb_fv_surface_host_kernels[] = {
    FB_HOST_BOTH("fv_pass", 8, fv_pass_omp_),
    FB_HOST_BOTH("fv_zero", 2, fv_zero_omp_),
    FB_HOST_BOTH("fv_face_atomic", 8, fv_face_atomic_omp_),
    FB_HOST_BOTH("fv_surface", 8, fv_surface_omp_),
    FB_HOST_BOTH("fv_gather", 5, fv_gather_omp_),
    {NULL, NULL, 0, NULL},
};
