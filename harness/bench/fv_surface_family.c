/* fv_surface_family.c - the fv-surface kernels as a sweep family
 * (harness/tune/family.h), and the JSON record of one measurement
 * (docs/results.md; the fields of fb_spmv_record plus the layout, the
 * grid, ns per cell and the bitwise flag of the check). */
#include <stdio.h>
#include <string.h>

#include "../results/results.h"
#include "../tune/family.h"
#include "fv_surface.h"

static fb_family_kernel kernels[FB_FV_KERNEL_COUNT];

static const fb_family_kernel *kernel_at(int i)
{
    if (!kernels[0].name)
        for (int k = 0; k < FB_FV_KERNEL_COUNT; ++k)
            kernels[k] = (fb_family_kernel){fb_fv_kernels[k].name, fb_fv_kernels[k].summary, FB_FV_NPARAMS,
                                            fb_fv_kernels[k].params};
    return &kernels[i];
}

static int kernel_count(void) { return FB_FV_KERNEL_COUNT; }

static fb_status problem_open(const char *spec, void **out) { return fb_fv_grid_open(spec, (fb_fv_grid **)out); }

static void problem_close(void *p) { fb_fv_grid_close(p); }

static const json_t *problem_json(const void *p) { return ((const fb_fv_grid *)p)->json; }

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

static fb_status run(fb_target *t, void *p, const fb_family_run *frun, json_t **record)
{
    fb_status status;
    fb_fv_config cfg = config_of(frun);
    fb_fv_result r;
    *record = NULL;
    status = fb_fv_run(t, p, &cfg, &r);
    if (status == FB_OK || status == FB_ERR_CHECK) *record = fb_fv_record(fb_target_info(t), p, &cfg, &r);
    if (*record && status == FB_ERR_CHECK) json_object_set_new(*record, "reason", json_string(fb_error_message()));
    fb_fv_result_free(&r);
    return status;
}

const fb_family fb_family_fv_surface = {
    .name = "fv-surface",
    .problem_key = "grid",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .problem_parse = fb_fv_grid_parse,
    .problem_open = problem_open,
    .problem_close = problem_close,
    .problem_json = problem_json,
    .check = check,
    .run = run,
};

json_t *fb_fv_record(const fb_device_info *d, const fb_fv_grid *g, const fb_fv_config *cfg, const fb_fv_result *r)
{
    const fb_fv_kernel *k = &fb_fv_kernels[cfg->kernel];
    char layout[16];
    fb_fv_layout_name(&cfg->point, layout, sizeof layout);
    fb_kernel_record base = {"fv-surface", k->name, cfg->is_double, cfg->measure.cold,
                             fb_json_params(k->params, FB_FV_NPARAMS, &cfg->point), &r->launch,
                             r->has_resources ? &r->resources : NULL, r->model.flops, r->model.min_bytes, r->gflops,
                             r->gbs, &r->m};
    json_t *rec = fb_json_kernel_record(d, &base);
    json_object_set_new(rec, "layout", json_string(layout));
    json_object_set_new(rec, "grid", json_deep_copy(g->json));
    json_object_set_new(rec, "bytes_moved", json_real(r->model.moved_bytes));
    json_object_set_new(rec, "ns_per_cell", json_real(r->ns_per_cell));
    json_object_set_new(rec, "check",
                        json_pack("{s:f, s:f, s:b, s:b}", "rel_error", r->rel_error, "tolerance", r->tolerance, "ok",
                                  r->checked_ok, "bitwise", r->bitwise));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    return rec;
}
