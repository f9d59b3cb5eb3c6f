/* fv_surface_variants.c - the device programs of the fv-surface family, for
 * variants.c (compiled by NVRTC for sm_80 and sm_90 in CI).
 *
 * The program text depends on the kernel, REAL and the layout (LAYOUT,
 * AOSOA_BLOCK), and, independently of those, on WG_SIZE (only in CUDA's
 * __launch_bounds__) and LOCAL_RESERVE (only the size of the reserved
 * array). The full product is 5 kernels x 6 layouts x 24 x 2 = 1440
 * programs; since the last two axes touch no layout or kernel code, they
 * are covered as a factor: every kernel x layout x precision at the default
 * WG_SIZE and LOCAL_RESERVE, plus every WG_SIZE x LOCAL_RESERVE on the
 * kernel with the most code (fv_face_atomic, SoA) in both precisions. */
#include <stdio.h>

#include "fv_surface.h"
#include "variants.h"

#define FV_SOURCE "grid/fv_surface.cl"

static const char *const programs[] = {"fv_pass", "fv_face_atomic", "fv_surface", "fv_gather", "fv_zero"};
static const char *const reals[] = {"double", "float"};

static int emit(fb_variant_sink *sink, const char *kernel, const char *real, const int *values)
{
    fb_variant v;
    char num[16];
    fb_variant_begin(&v, FV_SOURCE, kernel, real);
    for (int i = 0; i < FB_FV_NPARAMS; ++i) {
        snprintf(num, sizeof num, "%d", values[i]);
        fb_variant_define(&v, fb_fv_kernels[0].params[i].name, num);
    }
    return fb_variant_emit(sink, &v);
}

/* LAYOUT x AOSOA_BLOCK pairs that make distinct programs (AoS, SoA, each block). */
static int layouts(int (*out)[2])
{
    const fb_param_axis *blocks = &fb_fv_kernels[0].params[FB_FV_AOSOA_BLOCK];
    int n = 0;
    out[n][0] = 0, out[n++][1] = blocks->def;
    out[n][0] = 1, out[n++][1] = blocks->def;
    for (int b = 0; b < blocks->nvalues; ++b)
        out[n][0] = 2, out[n++][1] = blocks->values[b];
    return n;
}

int fb_fv_surface_variants(fb_variant_sink *sink)
{
    const fb_param_axis *ax = fb_fv_kernels[0].params;
    const fb_param_point def = fb_fv_default_point();
    int lay[2 + FB_MAX_PARAM_VALUES][2], nlay = layouts(lay);
    for (int r = 0; r < 2; ++r) {
        for (size_t k = 0; k < sizeof programs / sizeof programs[0]; ++k)
            for (int l = 0; l < nlay; ++l) {
                /* fv_zero reads no cell, so one layout stands for all */
                if (k == 4 && l > 0) break;
                int v[FB_FV_NPARAMS] = {lay[l][0], lay[l][1], def.values[FB_FV_WG_SIZE],
                                        def.values[FB_FV_LOCAL_RESERVE]};
                if (emit(sink, programs[k], reals[r], v)) return 1;
            }
        for (int w = 0; w < ax[FB_FV_WG_SIZE].nvalues; ++w)
            for (int m = 0; m < ax[FB_FV_LOCAL_RESERVE].nvalues; ++m) {
                int v[FB_FV_NPARAMS] = {def.values[FB_FV_LAYOUT], def.values[FB_FV_AOSOA_BLOCK],
                                        ax[FB_FV_WG_SIZE].values[w], ax[FB_FV_LOCAL_RESERVE].values[m]};
                if (v[2] == def.values[FB_FV_WG_SIZE] && v[3] == def.values[FB_FV_LOCAL_RESERVE]) continue;
                if (emit(sink, "fv_face_atomic", reals[r], v)) return 1;
            }
    }
    return 0;
}
