/* fv_surface_family.c - the fv-surface family's descriptor (bench/family.h),
 * the JSON record of one measurement (docs/results.md; the common fields
 * plus the layout, the grid, ns per cell and the bitwise flag of the
 * check), and every device program it can build. */
#include <stdio.h>
#include <string.h>

#include "bench/record.h"
#include "bench/user_kernel.h"
#include "fv_surface.h"

static fb_family_kernel kernels[FB_FV_KERNEL_COUNT + FB_USER_KERNEL_MAX];

/* The built-ins, then the user's kernel files (bench/user_kernel.h). */
static const fb_family_kernel *kernel_at(int i)
{
    const fb_fv_kernel *k = fb_fv_kernel_at(i);
    kernels[i] =
        (fb_family_kernel){k->name, k->summary, k->nparams, k->params, k->user ? k->source : FB_FV_SOURCE, k->user};
    return &kernels[i];
}

static int kernel_count(void) { return fb_fv_kernel_total(); }

static fb_status problem_open(const char *spec, void **out) { return fb_fv_grid_open(spec, (fb_fv_grid **)out); }

static void problem_close(void *p) { fb_fv_grid_close(p); }

static const json_t *problem_json(const void *p) { return ((const fb_fv_grid *)p)->json; }

static void signature(const void *vp, fb_signature *out)
{
    const fb_fv_grid *g = vp;
    memset(out, 0, sizeof *out);
    out->kind = FB_SIGNATURE_GRID;
    out->grid = (fb_grid_signature){.nx = g->nx, .ny = g->ny, .nz = g->nz, .stretch = 1}; /* uniform cells */
}

static fb_fv_config config_of(const fb_family_run *run)
{
    fb_fv_config cfg = {
        .kernel = run->kernel, .point = run->point, .is_double = run->is_double, .measure = run->measure};
    return cfg;
}

static fb_status check(const void *p, const fb_family_run *run, const fb_device_info *dev)
{
    fb_fv_config cfg = config_of(run);
    return fb_fv_check_point(p, &cfg, dev);
}

static json_t *fv_record(const fb_device_info *d, const fb_fv_grid *g, const fb_fv_config *cfg, const fb_fv_result *r)
{
    const fb_fv_kernel *k = fb_fv_kernel_at(cfg->kernel);
    char layout[16];
    fb_fv_layout_name(&cfg->point, layout, sizeof layout);
    fb_kernel_record base = {.benchmark = "fv-surface",
                             .kernel = k->name,
                             .is_double = cfg->is_double,
                             .cold = cfg->measure.cold,
                             .params = fb_json_params(k->params, k->nparams, &cfg->point),
                             .launch = &r->launch,
                             .resources = r->has_resources ? &r->resources : NULL,
                             .flops = r->model.flops,
                             .bytes = r->model.min_bytes,
                             .gflops = r->gflops,
                             .gbs = r->gbs,
                             .m = &r->m,
                             .user = k->user};
    json_t *rec = fb_json_kernel_record(d, &base);
    json_object_set_new(rec, "layout", json_string(layout));
    json_object_set_new(rec, "grid", json_deep_copy(g->json));
    json_object_set_new(rec, "bytes_moved", json_real(r->model.moved_bytes));
    json_object_set_new(rec, "ns_per_cell", json_real(r->ns_per_cell));
    json_object_set_new(rec, "check",
                        json_pack("{s:f, s:f, s:b, s:b}", "max_rel_error", r->rel_error, "tolerance", r->tolerance,
                                  "ok", r->checked_ok, "bitwise", r->bitwise));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    return rec;
}

static fb_status run(fb_target *t, void *p, const fb_family_run *frun, json_t **record)
{
    fb_status status;
    fb_fv_config cfg = config_of(frun);
    fb_fv_result r;
    *record = NULL;
    status = fb_fv_run(t, p, &cfg, &r);
    if (status == FB_OK || status == FB_ERR_CHECK) *record = fv_record(fb_target_info(t), p, &cfg, &r);
    if (*record && status == FB_ERR_CHECK) json_object_set_new(*record, "reason", json_string(fb_error_message()));
    fb_fv_result_free(&r);
    return status;
}

static int variants(fb_variant_sink *sink);

const fb_family fb_family_fv_surface = {
    .name = "fv-surface",
    .summary = "3D Euler residual with a Rusanov flux: three flux distributions x AoS/SoA/AoSoA x an occupancy cap",
    .model = "264 flops per cell (3 faces x 78 + 30 additions); bytes: U read once and R written once, 10 REALs per "
             "cell (fb_fv_model_of, fv_surface_kernels.c)",
    .reference = "serial double residual in the same face order: bit for bit for passes and gather, within a stated "
                 "tolerance for atomics, single precision and CUDA (fv_surface_ref.c)",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .variants = variants,
    .host_kernels = fb_fv_surface_host_kernels,
    .user_kernels = 1,
    .problem_key = "grid",
    .problem_parse = fb_fv_grid_parse,
    .problem_open = problem_open,
    .problem_close = problem_close,
    .problem_json = problem_json,
    .signature = signature,
    .check = check,
    .run = run,
};

/* ---- variants: the device programs of the family (compiled by NVRTC for
 * sm_80 and sm_90 in CI).
 *
 * The program text depends on the kernel, REAL and the layout (LAYOUT,
 * AOSOA_BLOCK), and, independently of those, on WG_SIZE (only in CUDA's
 * __launch_bounds__) and LOCAL_RESERVE (only the size of the reserved
 * array). The full product is 5 kernels x 6 layouts x 24 x 2 = 1440
 * programs; since the last two axes touch no layout or kernel code, they
 * are covered as a factor: every kernel x layout x precision at the default
 * WG_SIZE and LOCAL_RESERVE, plus every WG_SIZE x LOCAL_RESERVE on the
 * kernel with the most code (fv_face_atomic, SoA) in both precisions. */

static const char *const programs[] = {"fv_pass", "fv_face_atomic", "fv_surface", "fv_gather", "fv_zero"};

static int emit(fb_variant_sink *sink, const char *kernel, const char *real, const int *values)
{
    fb_variant v;
    fb_param_point p = {{0}};
    for (int i = 0; i < FB_FV_NPARAMS; ++i)
        p.values[i] = values[i];
    fb_variant_begin(&v, FB_FV_SOURCE, kernel, real);
    fb_variant_define_point(&v, fb_fv_kernels[0].params, FB_FV_NPARAMS, &p); /* no fv axis is launch-only */
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

static int variants(fb_variant_sink *sink)
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
                if (emit(sink, programs[k], fb_variant_reals[r], v)) return 1;
            }
        for (int w = 0; w < ax[FB_FV_WG_SIZE].nvalues; ++w)
            for (int m = 0; m < ax[FB_FV_LOCAL_RESERVE].nvalues; ++m) {
                int v[FB_FV_NPARAMS] = {def.values[FB_FV_LAYOUT], def.values[FB_FV_AOSOA_BLOCK],
                                        ax[FB_FV_WG_SIZE].values[w], ax[FB_FV_LOCAL_RESERVE].values[m]};
                if (v[2] == def.values[FB_FV_WG_SIZE] && v[3] == def.values[FB_FV_LOCAL_RESERVE]) continue;
                if (emit(sink, "fv_face_atomic", fb_variant_reals[r], v)) return 1;
            }
    }
    return 0;
}
