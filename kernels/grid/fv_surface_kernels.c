/* fv_surface_kernels.c - the fv-surface kernels as data: parameter spaces
 * and constraints, the flop/byte model. Read with fv_surface.cl, whose
 * header states the same model. Grids are fv_surface_grid.c, the serial
 * reference fv_surface_ref.c, the launch and the check fv_surface_run.c,
 * the descriptor and the record fv_surface_family.c. */
#include "fv_surface.h"

#include <stdio.h>
#include <string.h>

#include "bench/user_kernel.h"

// clang-format off
#define FV_AXES                                                                                                       \
    {{"LAYOUT", 1, {0, 1, 2}, 3, "cell layout: 0 AoS, 1 SoA, 2 AoSoA", 0, FB_ROLE_LAYOUT},                             \
     {"AOSOA_BLOCK", 8, {4, 8, 16, 32}, 4, "cells per AoSoA block (LAYOUT 2 only)", 0, FB_ROLE_LAYOUT_BLOCK},          \
     {"WG_SIZE", 128, {32, 64, 128, 256, 512, 1024}, 6, "work-group size (CUDA: __launch_bounds__)", 0,                 \
      FB_ROLE_GROUP_SIZE},                                                                                            \
     {"LOCAL_RESERVE", 0, {0, 8192, 24576, 49152}, 4, "local memory bytes reserved per group (occupancy cap)", 0,     \
      FB_ROLE_OCCUPANCY}}
// clang-format on

const fb_fv_kernel fb_fv_kernels[FB_FV_KERNEL_COUNT] = {
    {"fv-passes", "6 passes, one per direction and side: each cell updated by one face per pass, no races", 1, FV_AXES,
     FB_FV_NPARAMS, FB_FV_PASSES, NULL, NULL, NULL},
    {"fv-atomic", "one pass over all faces, atomic adds into both neighbours", 0, FV_AXES, FB_FV_NPARAMS, FB_FV_ATOMIC,
     NULL, NULL, NULL},
    {"fv-gather", "face fluxes to a face array, then each cell sums its 6 faces", 1, FV_AXES, FB_FV_NPARAMS,
     FB_FV_GATHER, NULL, NULL, NULL},
};

/* ---- user kernels: the template's row, the user's file and axes ---- */

static fb_fv_kernel user_rows[FB_USER_KERNEL_MAX];

/* Rewritten from the registry on every call (it only grows in a run). */
int fb_fv_kernel_total(void)
{
    int n = fb_user_kernel_count(&fb_family_fv_surface);
    for (int u = 0; u < n; ++u) {
        const fb_user_kernel *uk = fb_user_kernel_at(&fb_family_fv_surface, u);
        fb_fv_kernel *d = &user_rows[u];
        *d = fb_fv_kernels[uk->like_kernel];
        FB_USER_KERNEL_ROW(d, uk);
    }
    return FB_FV_KERNEL_COUNT + n;
}

const fb_fv_kernel *fb_fv_kernel_at(int i)
{
    if (i >= 0 && i < FB_FV_KERNEL_COUNT) return &fb_fv_kernels[i];
    return i >= 0 && i < fb_fv_kernel_total() ? &user_rows[i - FB_FV_KERNEL_COUNT] : NULL;
}

fb_param_point fb_fv_default_point(void)
{
    fb_param_point p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < FB_FV_NPARAMS; ++i)
        p.values[i] = fb_fv_kernels[0].params[i].def;
    return p;
}

void fb_fv_layout_name(const fb_param_point *p, char *out, size_t len)
{
    int layout = p->values[FB_FV_LAYOUT];
    if (layout == 2)
        snprintf(out, len, "aosoa%d", p->values[FB_FV_AOSOA_BLOCK]);
    else
        snprintf(out, len, "%s", layout == 0 ? "aos" : "soa");
}

/* ---- constraints ---------------------------------------------------------- */

static fb_status in_space(const fb_fv_kernel *k, const fb_param_point *p)
{
    fb_status status = FB_OK;
    for (int i = 0; i < k->nparams; ++i)
        if (!fb_param_axis_has(&k->params[i], p->values[i]))
            FB_FAIL(FB_ERR_USAGE, "%s: %s=%d is not in its space", k->name, k->params[i].name, p->values[i]);
fail:
    return status;
}

fb_status fb_fv_check_point(const fb_fv_grid *g, const fb_fv_config *cfg, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const fb_fv_kernel *k = fb_fv_kernel_at(cfg->kernel);
    const int *v = cfg->point.values;
    (void)g;
    if (k->user) FB_CHECK(fb_user_kernel_check(k->user, &cfg->point, dev, cfg->is_double));
    FB_CHECK(in_space(k, &cfg->point));
    if (v[FB_FV_LAYOUT] != 2 && v[FB_FV_AOSOA_BLOCK] != k->params[FB_FV_AOSOA_BLOCK].def)
        FB_FAIL(FB_ERR_USAGE, "%s: AOSOA_BLOCK applies to LAYOUT 2 only (the LAYOUT %d run is the one at %d)", k->name,
                v[FB_FV_LAYOUT], k->params[FB_FV_AOSOA_BLOCK].def);
    if (dev->max_work_group_size && (size_t)v[FB_FV_WG_SIZE] > dev->max_work_group_size)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: WG_SIZE %d exceeds the device limit %zu", k->name, dev->id, v[FB_FV_WG_SIZE],
                dev->max_work_group_size);
    if (dev->max_work_item_sizes[0] && (size_t)v[FB_FV_WG_SIZE] > dev->max_work_item_sizes[0])
        FB_FAIL(FB_ERR_USAGE, "%s on %s: WG_SIZE %d exceeds the device's dimension-0 limit %zu", k->name, dev->id,
                v[FB_FV_WG_SIZE], dev->max_work_item_sizes[0]);
    if (dev->local_mem_bytes && (size_t)v[FB_FV_LOCAL_RESERVE] > dev->local_mem_bytes)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: LOCAL_RESERVE %d exceeds the device's %zu bytes of local memory", k->name,
                dev->id, v[FB_FV_LOCAL_RESERVE], dev->local_mem_bytes);
    if (cfg->is_double && !dev->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: device has no double precision (use --precision single)", dev->id);
    /* atomicAdd on double is native from sm_60; OpenCL's 64-bit
     * compare-and-swap (cl_khr_int64_base_atomics) is checked when the
     * kernel compiles (its #error names the extension) */
    if (k->strategy == FB_FV_ATOMIC && cfg->is_double && dev->cc_major && dev->cc_major < 6)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s on %s: double atomicAdd needs compute capability 6.0", k->name, dev->id);
fail:
    return status;
}

/* ---- model -------------------------------------------------------------- */

/* Per face: 2 x 14 (1 / rho, normal velocity, kinetic energy, pressure,
 * sound speed), 3 (wave speed), 2 x 8 (physical fluxes: 5 products u_n U,
 * + p on the normal momentum, + p u_n on the energy), 1 + 5 x 2
 * (dissipation), 5 x 4 (average, difference, area): 78, of which 2
 * divisions and 2 square roots. Per cell: 3 faces + 6 x 5 additions = 264. */
#define FV_FLOPS_PER_FACE 78.0
#define FV_FLOPS_PER_CELL (3.0 * FV_FLOPS_PER_FACE + 30.0)

fb_fv_model fb_fv_model_of(int kernel, int cells, int real_bytes)
{
    /* REALs per cell each variant moves (fv_surface.cl's header) */
    static const double moved[FB_FV_KERNEL_COUNT] = {85.0, 20.0, 40.0};
    fb_fv_model m;
    m.flops = FV_FLOPS_PER_CELL * cells;
    m.min_bytes = 10.0 * real_bytes * cells;
    m.moved_bytes = moved[kernel] * real_bytes * cells;
    return m;
}
