/* heat2d_kernels.c - the heat2d kernels as data: parameter space,
 * constraints, launch geometry, flop/byte model. Read with heat2d.cl, whose
 * header states the same geometry and model. */
#include "heat2d.h"

#include <stdio.h>
#include <string.h>

#include "bench/user_kernel.h"

#define SHAPES {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 11
#define MAX_SIDE 1024
#define MIN_GROUP_ITEMS 32
#define FLOPS_PER_CELL 21.0
// clang-format off
/* BLOCK_X and BLOCK_Y change the code through GROUP_ITEMS = their product
 * (the reduction's local array), so neither is launch-only. */
#define HEAT_AXES                                                                                                     \
    {{"BLOCK_X", 32, SHAPES, "work-group width (x, NDRange dimension 0)", 0, FB_ROLE_GROUP_X},                                         \
     {"BLOCK_Y", 4, SHAPES, "work-group height (y, NDRange dimension 1)", 0, FB_ROLE_GROUP_Y},                                         \
     {"ORDER", 0, {0, 1}, 2, "array order: 0 row-major (x fastest), 1 column-major (y fastest)", 0, FB_ROLE_ORDER}}
// clang-format on

const fb_heat2d_kernel_def fb_heat2d_kernels[] = {
    {"heat-jacobi", "Jacobi sweep t_in -> t_out + device max-change reduction", "heat_jacobi", 0, 3, HEAT_AXES,
     FB_HEAT2D_SOURCE, NULL, NULL},
    {"heat-rbgs", "red-black Gauss-Seidel (two in-place colour passes) + device max-change reduction", "heat_rbgs", 1,
     3, HEAT_AXES, FB_HEAT2D_SOURCE, NULL, NULL},
};
const int fb_heat2d_kernel_count = (int)(sizeof fb_heat2d_kernels / sizeof fb_heat2d_kernels[0]);

/* ---- user kernels: the template's row, the user's file and axes ---- */

static fb_heat2d_kernel_def user_rows[FB_USER_KERNEL_MAX];

/* Rewritten from the registry on every call (it only grows in a run). */
int fb_heat2d_kernel_total(void)
{
    int n = fb_user_kernel_count(&fb_family_heat2d);
    for (int u = 0; u < n; ++u) {
        const fb_user_kernel *uk = fb_user_kernel_at(&fb_family_heat2d, u);
        fb_heat2d_kernel_def *d = &user_rows[u];
        *d = fb_heat2d_kernels[uk->like_kernel];
        FB_USER_KERNEL_ROW(d, uk);
        d->kernel = uk->name;
    }
    return fb_heat2d_kernel_count + n;
}

const fb_heat2d_kernel_def *fb_heat2d_kernel_at(int i)
{
    if (i >= 0 && i < fb_heat2d_kernel_count) return &fb_heat2d_kernels[i];
    return i >= 0 && i < fb_heat2d_kernel_total() ? &user_rows[i - fb_heat2d_kernel_count] : NULL;
}

/* ---- space, geometry, model ---- */

static int is_pow2_side(int v) { return v >= 1 && v <= MAX_SIDE && (v & (v - 1)) == 0; }

static fb_status check_shape(const fb_heat2d_config *cfg, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const char *k = cfg->kernel->name;
    const int bx = cfg->point.values[FB_HEAT2D_BLOCK_X], by = cfg->point.values[FB_HEAT2D_BLOCK_Y];
    const size_t items = (size_t)bx * (size_t)by, real = cfg->is_double ? sizeof(double) : sizeof(float);
    if (!is_pow2_side(bx)) FB_FAIL(FB_ERR_USAGE, "%s: BLOCK_X=%d is not a power of two in 1..%d", k, bx, MAX_SIDE);
    if (!is_pow2_side(by)) FB_FAIL(FB_ERR_USAGE, "%s: BLOCK_Y=%d is not a power of two in 1..%d", k, by, MAX_SIDE);
    if (items < MIN_GROUP_ITEMS)
        FB_FAIL(FB_ERR_USAGE, "%s: work-group %dx%d has %zu items, under %d (a warp; SIMD lanes would idle)", k, bx, by,
                items, MIN_GROUP_ITEMS);
    if (dev->max_work_group_size && items > dev->max_work_group_size)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: work-group %dx%d = %zu items exceeds the device limit %zu", k, dev->id, bx, by,
                items, dev->max_work_group_size);
    for (int d = 0; d < 2; ++d)
        if (dev->max_work_item_sizes[d] && (size_t)(d ? by : bx) > dev->max_work_item_sizes[d])
            FB_FAIL(FB_ERR_USAGE, "%s on %s: %s=%d exceeds the device's %zu items in dimension %d", k, dev->id,
                    d ? "BLOCK_Y" : "BLOCK_X", d ? by : bx, dev->max_work_item_sizes[d], d);
    if (dev->local_mem_bytes && items * real > dev->local_mem_bytes)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: the reduction needs %zu bytes of local memory, device has %zu", k, dev->id,
                items * real, dev->local_mem_bytes);
fail:
    return status;
}

fb_status fb_heat2d_check_point(const fb_heat2d_config *cfg, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const int order = cfg->point.values[FB_HEAT2D_ORDER];
    if (cfg->kernel->user) FB_CHECK(fb_user_kernel_check(cfg->kernel->user, &cfg->point, dev, cfg->is_double));
    if (order != 0 && order != 1)
        FB_FAIL(FB_ERR_USAGE, "%s: ORDER=%d is not 0 (row-major) or 1 (column-major)", cfg->kernel->name, order);
    FB_CHECK(check_shape(cfg, dev));
    if (dev->max_work_group_size && dev->max_work_group_size < FB_HEAT2D_REDUCE_ITEMS)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: heat_max_reduce needs %d items per group, the device allows %zu",
                cfg->kernel->name, dev->id, FB_HEAT2D_REDUCE_ITEMS, dev->max_work_group_size);
    if (cfg->is_double && !dev->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: device has no double precision (use --precision single)", dev->id);
fail:
    return status;
}

fb_launch fb_heat2d_geometry(const fb_param_point *p, int nx, int ny)
{
    const size_t bx = (size_t)p->values[FB_HEAT2D_BLOCK_X], by = (size_t)p->values[FB_HEAT2D_BLOCK_Y];
    fb_launch l = {.dims = 2, .global = {(nx + bx - 1) / bx * bx, (ny + by - 1) / by * by, 1}, .local = {bx, by, 1}};
    return l;
}

fb_heat2d_model fb_heat2d_model_of(const fb_heat2d_kernel_def *k, int nx, int ny, int is_double, long long groups)
{
    const double real = is_double ? 8.0 : 4.0, cells = (double)nx * (double)ny;
    const double per_cell = k->red_black ? 4.0 : 3.0;
    /* dx, dy, gx, gy once; each group's partial written and read; the result */
    const double small = (double)(2 * nx + 2 * ny + 2) + 2.0 * (double)groups + 1.0;
    fb_heat2d_model m = {FLOPS_PER_CELL * cells, real * (per_cell * cells + small)};
    return m;
}
