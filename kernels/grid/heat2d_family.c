/* heat2d_family.c - the heat2d family's descriptor (bench/family.h;
 * problems are grid:NXxNY[:stretch=R] specs), its measurement record, and
 * every device program it can build for the NVRTC compile test. */
#include <stdio.h>
#include <string.h>

#include "bench/record.h"
#include "bench/user_kernel.h"
#include "heat2d.h"

static fb_family_kernel kernels[8 + FB_USER_KERNEL_MAX];

/* The built-ins, then the user's kernel files (bench/user_kernel.h). */
static const fb_family_kernel *kernel_at(int i)
{
    const fb_heat2d_kernel_def *k = fb_heat2d_kernel_at(i);
    kernels[i] = (fb_family_kernel){k->name, k->summary, k->nparams, k->params, k->source, k->user};
    return &kernels[i];
}

static int kernel_count(void) { return fb_heat2d_kernel_total(); }

static fb_status problem_open(const char *spec, void **out)
{
    return fb_heat2d_problem_open(spec, (fb_heat2d_problem **)out);
}

static void problem_close(void *p) { fb_heat2d_problem_close(p); }

static const json_t *problem_json(const void *p) { return ((const fb_heat2d_problem *)p)->json; }

static void signature(const void *vp, fb_signature *out)
{
    const fb_heat2d_problem *p = vp;
    memset(out, 0, sizeof *out);
    out->kind = FB_SIGNATURE_GRID;
    out->grid = (fb_grid_signature){.nx = p->g.nx, .ny = p->g.ny, .nz = 1, .stretch = p->g.stretch};
}

static fb_heat2d_config config_of(const fb_family_run *run)
{
    fb_heat2d_config cfg = {fb_heat2d_kernel_at(run->kernel), run->point, run->is_double, run->measure};
    return cfg;
}

/* Every grid takes every shape (the tail is guarded), except where CUDA's
 * grid limit in y (65535 blocks) is below NY / BLOCK_Y. p may be NULL. */
static fb_status check(const void *p, const fb_family_run *run, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const fb_heat2d_problem *prob = p;
    fb_heat2d_config cfg = config_of(run);
    const int by = run->point.values[FB_HEAT2D_BLOCK_Y];
    FB_CHECK(fb_heat2d_check_point(&cfg, dev));
    const size_t groups_y = (size_t)(prob ? (prob->g.ny + by - 1) / by : 0);
    if (dev->max_groups[1] && groups_y > dev->max_groups[1])
        FB_FAIL(FB_ERR_USAGE, "%s on %s: %zu groups in y exceed the device's %zu (raise BLOCK_Y)", cfg.kernel->name,
                dev->id, groups_y, dev->max_groups[1]);
fail:
    return status;
}

/* The measurement record (docs/results.md): benchmark "heat2d", grid, params, ... */
static json_t *heat2d_record(const fb_device_info *d, const fb_heat2d_problem *p, const fb_heat2d_config *cfg,
                             const fb_heat2d_result *r)
{
    const fb_heat2d_kernel_def *k = cfg->kernel;
    fb_kernel_record base = {.benchmark = "heat2d",
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
    json_object_set_new(rec, "grid", json_deep_copy(p->json));
    /* T^n and the two iterates: whether the last-level cache can hold them
     * decides whether GB/s measures memory or cache (docs/grid-studies.md) */
    json_object_set_new(rec, "working_set_bytes",
                        json_integer((json_int_t)3 * p->g.nx * p->g.ny * (cfg->is_double ? 8 : 4)));
    json_object_set_new(rec, "device_cache_bytes", json_integer((json_int_t)d->cache_bytes));
    json_object_set_new(rec, "ns_per_cell", json_real(r->ns_per_cell));
    json_object_set_new(rec, "check",
                        json_pack("{s:f, s:f, s:b, s:f, s:f, s:i, s:i, s:f, s:f, s:f, s:f}", "max_rel_error",
                                  r->rel_error, "tolerance", r->tolerance, "ok", r->checked_ok, "analytic_error",
                                  r->analytic_error, "analytic_bound", r->analytic_bound, "steps",
                                  FB_HEAT2D_CHECK_STEPS, "iterations", r->iterations, "dt", p->dt, "iteration_error",
                                  r->iteration_error, "change_error", r->change_error, "iteration_tolerance",
                                  r->iteration_tolerance));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    return rec;
}

static fb_status run(fb_target *t, void *p, const fb_family_run *frun, json_t **record)
{
    fb_status status;
    fb_heat2d_config cfg = config_of(frun);
    fb_heat2d_result r;
    *record = NULL;
    status = fb_heat2d_run(t, p, &cfg, &r);
    /* a wrong result is a record; a check that could not finish (no
     * convergence) is one too, with the measurement it had */
    if (status == FB_OK || (status == FB_ERR_CHECK && r.m.nsamples > 0))
        *record = heat2d_record(fb_target_info(t), p, &cfg, &r);
    if (*record && status == FB_ERR_CHECK) json_object_set_new(*record, "reason", json_string(fb_error_message()));
    fb_heat2d_result_free(&r);
    return status;
}

static int variants(fb_variant_sink *sink);

const fb_family fb_family_heat2d = {
    .name = "heat2d",
    .summary =
        "implicit heat conduction on a stretched 2D grid: Jacobi or red-black Gauss-Seidel, device max reduction",
    .model = "21 flops per cell per iteration; bytes: 3 (Jacobi) or 4 (red-black) REALs per cell, the 1D mesh arrays "
             "and 2 partials per group (fb_heat2d_model_of, heat2d_kernels.c)",
    .reference = "one iteration from a random field against its serial twin, a 4-step transient against serial "
                 "Gauss-Seidel, the exact decaying mode within a mesh bound (heat2d_ref.c)",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .variants = variants,
    .host_kernels = fb_heat2d_host_kernels,
    .user_kernels = 1,
    .problem_key = "grid",
    .problem_parse = fb_heat2d_grid_parse,
    .problem_open = problem_open,
    .problem_close = problem_close,
    .problem_json = problem_json,
    .signature = signature,
    .check = check,
    .run = run,
};

/* ---- variants: every program a sweep or a decomposed run can build on a
 * CUDA-class device ----
 * The update kernels' code depends on REAL, ORDER and GROUP_ITEMS (the
 * product of the shape, 32..1024 on a GPU); the reduction and the edge
 * kernels of a decomposed run on REAL only. */
static int variants(fb_variant_sink *sink)
{
    fb_variant v;
    char num[2][16];
    for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < fb_heat2d_kernel_count; ++k)
            for (int order = 0; order <= 1; ++order)
                for (int items = 32; items <= 1024; items *= 2) {
                    snprintf(num[0], sizeof num[0], "%d", order);
                    snprintf(num[1], sizeof num[1], "%d", items);
                    fb_variant_begin(&v, FB_HEAT2D_SOURCE, fb_heat2d_kernels[k].kernel, fb_variant_reals[r]);
                    fb_variant_define(&v, "ORDER", num[0]);
                    fb_variant_define(&v, "GROUP_ITEMS", num[1]);
                    if (fb_variant_emit(sink, &v)) return 1;
                }
        /* a decomposed run's update (row-major only) and its edge kernels */
        for (int items = 32; items <= 1024; items *= 2) {
            snprintf(num[1], sizeof num[1], "%d", items);
            fb_variant_begin(&v, FB_HEAT2D_SOURCE, "heat_jacobi_halo", fb_variant_reals[r]);
            fb_variant_define(&v, "ORDER", "0");
            fb_variant_define(&v, "GROUP_ITEMS", num[1]);
            if (fb_variant_emit(sink, &v)) return 1;
        }
        const char *const plain[] = {"heat_max_reduce", "heat_halo_pack", "heat_halo_unpack"};
        for (int k = 0; k < 3; ++k) {
            fb_variant_begin(&v, FB_HEAT2D_SOURCE, plain[k], fb_variant_reals[r]);
            if (fb_variant_emit(sink, &v)) return 1;
        }
    }
    return 0;
}
