/* heat2d_run.c - one heat2d configuration: upload the mesh, build, measure
 * one solver iteration, then solve a short transient on the device and
 * check it against the serial reference and the exact mode (heat2d_ref.c).
 * The kernels' space, geometry and model are heat2d_kernels.c. */
#include "heat2d.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "core/kernel_sources.h"

#define MAX_ITERATIONS FB_HEAT2D_MAX_ITERATIONS
#define ITERATION_TOL_EPS FB_HEAT2D_ITERATION_TOL_EPS
#define ROUNDING_EPS 16.0 /* per step: rounding of a sweep's five-term sum and the divide */
#define REFERENCE_TOL 1e-14
#define ITERATION_CHECK_EPS 32.0 /* one update: a five-term weighted mean and a divide, coefficients rounded */
/* "far above what the mesh predicts": twice the truncation bound (on a
 * uniform mesh the error reaches 0.99 of the bound itself) */
#define ANALYTIC_MARGIN 2.0

/* ---- the problem ---- */

fb_status fb_heat2d_problem_open(const char *spec, fb_heat2d_problem **out)
{
    fb_status status = FB_OK;
    fb_heat2d_problem *p = NULL;
    char hash[32], name[256];
    FB_ALLOC(p, 1, "a grid problem");
    FB_CHECK(fb_heat2d_grid_open(spec, &p->g));
    p->dt = fb_heat2d_check_dt(&p->g);
    p->ref_tol = REFERENCE_TOL;
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)p->g.hash);
    snprintf(name, sizeof name, "%s", spec + 5); /* "grid:" checked by the parser */
    p->json = json_pack("{s:s, s:s, s:i, s:i, s:I, s:f, s:f, s:f, s:s}", "name", name, "spec", spec, "nx", p->g.nx,
                        "ny", p->g.ny, "cells", (json_int_t)p->g.nx * p->g.ny, "stretch", p->g.stretch, "h_min",
                        p->g.h_min, "h_max", p->g.h_max, "hash", hash);
    if (!p->json) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing %s", spec);
    *out = p;
    return FB_OK;
fail:
    fb_heat2d_problem_close(p);
    return status;
}

void fb_heat2d_problem_close(fb_heat2d_problem *p)
{
    if (!p) return;
    fb_heat2d_grid_free(&p->g);
    json_decref(p->json);
    free(p->ref);
    free(p);
}

/* ---- one run ---- */

typedef struct heat_run {
    fb_target *t;
    fb_heat2d_problem *p;
    const fb_heat2d_config *cfg;
    fb_buffer *dx, *dy, *gx, *gy, *tn, *ta, *tb, *partial, *result;
    fb_kernel *update, *reduce;
    fb_launch launch, reduce_launch;
    int groups;
    int flip; /* Jacobi: the next sweep reads tb (1) or ta (0) */
} heat_run;

static size_t cells_of(const heat_run *s) { return (size_t)s->p->g.nx * (size_t)s->p->g.ny; }

/* The row-major index (j nx + i) of the device field's q-th value: the
 * device stores columns first (q = i ny + j) when ORDER is 1. */
static size_t row_major(const heat_run *s, size_t q)
{
    const size_t nx = (size_t)s->p->g.nx, ny = (size_t)s->p->g.ny;
    return s->cfg->point.values[FB_HEAT2D_ORDER] == 1 ? (q % ny) * nx + q / ny : q;
}

/* Row-major doubles T into the device field f, in the device's order. */
static fb_status field_in(heat_run *s, fb_buffer *f, const double *T)
{
    fb_status status = FB_OK;
    const size_t n = cells_of(s);
    double *v = NULL;
    FB_ALLOC(v, n, "a device field");
    for (size_t q = 0; q < n; ++q)
        v[q] = T[row_major(s, q)];
    status = fb_target_write_reals(s->t, s->cfg->is_double, f, v, n);
fail:
    free(v);
    return status;
}

/* The inverse of field_in: the device field f as row-major doubles T. */
static fb_status field_out(heat_run *s, fb_buffer *f, double *T)
{
    fb_status status = FB_OK;
    const size_t n = cells_of(s);
    double *v = NULL;
    FB_ALLOC(v, n, "a device field");
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->is_double, f, n, v));
    for (size_t q = 0; q < n; ++q)
        T[row_major(s, q)] = v[q];
fail:
    free(v);
    return status;
}

static fb_status upload(heat_run *s)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    const size_t cells = cells_of(s);
    const int is_double = s->cfg->is_double;
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->dx, (size_t)g->nx, &s->dx));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->dy, (size_t)g->ny, &s->dy));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->gx, (size_t)g->nx + 1, &s->gx));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->gy, (size_t)g->ny + 1, &s->gy));
    const size_t real = fb_real_size(is_double);
    FB_CHECK(fb_target_alloc(s->t, cells * real, &s->tn));
    FB_CHECK(fb_target_alloc(s->t, cells * real, &s->ta));
    FB_CHECK(fb_target_alloc(s->t, cells * real, &s->tb));
    FB_CHECK(fb_target_alloc(s->t, (size_t)s->groups * real, &s->partial));
    FB_CHECK(fb_target_alloc(s->t, real, &s->result));
fail:
    return status;
}

/* The update kernel from its source (the family's, or a user's file, with
 * the user's own axes as defines too), the reduction from the family's. */
static fb_status build(heat_run *s)
{
    fb_status status = FB_OK;
    const fb_heat2d_kernel_def *k = s->cfg->kernel;
    const char *real = s->cfg->is_double ? "double" : "float", *src = FB_HEAT2D_SOURCE;
    char order[16], items[16], values[FB_MAX_PARAMS][16];
    snprintf(order, sizeof order, "%d", s->cfg->point.values[FB_HEAT2D_ORDER]);
    snprintf(items, sizeof items, "%zu", s->launch.local[0] * s->launch.local[1]);
    fb_define upd[3 + FB_MAX_PARAMS] = {{"REAL", real}, {"ORDER", order}, {"GROUP_ITEMS", items}},
                      red[] = {{"REAL", real}};
    int nupd = 3 + (k->user ? fb_user_kernel_defines(k->user, &s->cfg->point, upd + 3, values) : 0);
    const char *usrc = k->source ? k->source : src, *text = k->source_text ? k->source_text : fb_kernel_source(usrc);
    fb_program_spec spec = {usrc, text, k->kernel, upd, nupd, fb_heat2d_host_kernels};
    FB_CHECK(fb_target_build(s->t, &spec, &s->update));
    spec = (fb_program_spec){src, fb_kernel_source(src), "heat_max_reduce", red, 1, fb_heat2d_host_kernels};
    FB_CHECK(fb_target_build(s->t, &spec, &s->reduce));
fail:
    return status;
}

/* One solver iteration: the update pass(es), then the device reduction. */
static fb_status iteration(heat_run *s, double *seconds)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    const int is_double = s->cfg->is_double;
    fb_arg nx = fb_arg_i32(g->nx), ny = fb_arg_i32(g->ny), inv_dt = fb_arg_real(is_double, 1.0 / s->p->dt);
    fb_arg dx = fb_arg_buffer(s->dx), dy = fb_arg_buffer(s->dy), gx = fb_arg_buffer(s->gx), gy = fb_arg_buffer(s->gy);
    fb_arg tn = fb_arg_buffer(s->tn), part = fb_arg_buffer(s->partial);
    fb_arg red[] = {fb_arg_i32(s->groups), part, fb_arg_buffer(s->result)};
    double t1 = 0, t2 = 0, t3 = 0;
    if (s->cfg->kernel->red_black) {
        fb_arg a[] = {nx, ny, inv_dt, fb_arg_i32(0), dx, dy, gx, gy, tn, fb_arg_buffer(s->ta), part};
        FB_CHECK(fb_target_launch(s->t, s->update, &s->launch, a, 11, &t1));
        a[3] = fb_arg_i32(1);
        FB_CHECK(fb_target_launch(s->t, s->update, &s->launch, a, 11, &t2));
    } else {
        fb_buffer *from = s->flip ? s->tb : s->ta, *to = s->flip ? s->ta : s->tb;
        fb_arg a[] = {nx, ny, inv_dt, dx, dy, gx, gy, tn, fb_arg_buffer(from), fb_arg_buffer(to), part};
        FB_CHECK(fb_target_launch(s->t, s->update, &s->launch, a, 11, &t1));
        s->flip ^= 1;
    }
    FB_CHECK(fb_target_launch(s->t, s->reduce, &s->reduce_launch, red, 3, &t3));
    *seconds = t1 + t2 + t3;
fail:
    return status;
}

static fb_status sample(void *ctx, double *seconds) { return iteration(ctx, seconds); }

/* The device-reduced max change of the last iteration: one REAL read back. */
static fb_status read_max_change(heat_run *s, double *out)
{
    return fb_target_read_reals(s->t, s->cfg->is_double, s->result, 1, out);
}

/* The field the last iteration wrote. */
static fb_buffer *current(const heat_run *s) { return s->cfg->kernel->red_black || !s->flip ? s->ta : s->tb; }

/* Steps of the check transient on the device, from the exact mode; the
 * result (row-major doubles) in T. Each step iterates until the device's
 * max change is under tol, reading back only that scalar. */
static fb_status transient(heat_run *s, double tol, double *T, int *iterations)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    double res = 0, seconds;
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i)
            T[(size_t)j * g->nx + i] = fb_heat2d_exact(g, i, j, 0);
    *iterations = 0;
    for (int step = 0; step < FB_HEAT2D_CHECK_STEPS; ++step) {
        FB_CHECK(field_in(s, s->tn, T));
        FB_CHECK(field_in(s, s->ta, T));
        s->flip = 0;
        for (int it = 1;; ++it) {
            FB_CHECK(iteration(s, &seconds));
            FB_CHECK(read_max_change(s, &res));
            ++*iterations;
            if (res <= tol) break;
            if (it == MAX_ITERATIONS)
                FB_FAIL(FB_ERR_CHECK, "%s on %s: check step %d did not converge in %d iterations (max change %.3g)",
                        s->cfg->kernel->name, fb_target_info(s->t)->id, step + 1, it, res);
        }
        FB_CHECK(field_out(s, current(s), T));
    }
fail:
    return status;
}

/* max |a - b| and max |b| over n values; NaN counts as the worst. */
static void max_diff(const double *a, const double *b, size_t n, double *diff, double *scale)
{
    *diff = 0, *scale = 0;
    for (size_t q = 0; q < n; ++q) {
        double e = fabs(a[q] - b[q]);
        if (!(e <= *diff) && !isnan(*diff)) *diff = e; /* and stays it */
        if (fabs(b[q]) > *scale) *scale = fabs(b[q]);
    }
}

/* Compares the device transient with the reference and the exact mode.
 * Errors are on a unit-amplitude field. Device and reference each stop a
 * step within (stop tolerance) q / (1 - q) of the step's exact discrete
 * solution and round within a few eps / (1 - q) (q: the Jacobi contraction,
 * which also bounds Gauss-Seidel's); step errors add. The exact mode is
 * met within t (k |L_h phi + lambda phi|) + steps (e^x - 1 - x), x = k lambda
 * dt: space and backward Euler truncation, carried by the contractive
 * step operator. */
static fb_status judge(heat_run *s, const double *T, fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    fb_heat2d_problem *p = s->p;
    const fb_heat2d_grid *g = &p->g;
    const size_t cells = (size_t)g->nx * (size_t)g->ny;
    const double eps = s->cfg->is_double ? DBL_EPSILON : FLT_EPSILON, q = fb_heat2d_contraction(g, p->dt);
    const double steps = FB_HEAT2D_CHECK_STEPS, t_end = steps * p->dt, x = fb_heat2d_decay_rate(g) * p->dt;
    double *exact = NULL, diff, scale;
    FB_ALLOC(exact, cells, "the exact solution");
    const double dev = (ITERATION_TOL_EPS + ROUNDING_EPS) * eps, ref = p->ref_tol + ROUNDING_EPS * DBL_EPSILON;
    const double abs_tol = steps * (dev + ref) / (1.0 - q);
    max_diff(T, p->ref, cells, &diff, &scale);
    r->rel_error = isfinite(diff / scale) ? diff / scale : DBL_MAX; /* recorded finite: JSON has no NaN */
    r->tolerance = abs_tol / scale;
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i)
            exact[(size_t)j * g->nx + i] = fb_heat2d_exact(g, i, j, t_end);
    max_diff(T, exact, cells, &diff, &scale);
    r->analytic_error = isfinite(diff / scale) ? diff / scale : DBL_MAX;
    r->analytic_bound =
        (ANALYTIC_MARGIN * (t_end * fb_heat2d_truncation(g) + steps * (exp(x) - 1.0 - x)) + abs_tol) / scale;
    r->checked_ok = r->rel_error <= r->tolerance && r->analytic_error <= r->analytic_bound;
    if (!(r->rel_error <= r->tolerance))
        FB_FAIL(FB_ERR_CHECK, "%s on %s: wrong result (relative error %.3g > tolerance %.3g against the reference)",
                s->cfg->kernel->name, fb_target_info(s->t)->id, r->rel_error, r->tolerance);
    if (!(r->analytic_error <= r->analytic_bound))
        FB_FAIL(FB_ERR_CHECK, "%s on %s: error %.3g against the exact mode exceeds the truncation bound %.3g",
                s->cfg->kernel->name, fb_target_info(s->t)->id, r->analytic_error, r->analytic_bound);
fail:
    free(exact);
    return status;
}

static fb_status ensure_reference(fb_heat2d_problem *p)
{
    fb_status status = FB_OK;
    const size_t cells = (size_t)p->g.nx * (size_t)p->g.ny;
    if (p->ref) return FB_OK;
    FB_ALLOC(p->ref, cells, "the reference solution");
    status = fb_heat2d_reference(&p->g, p->dt, FB_HEAT2D_CHECK_STEPS, p->ref_tol, p->ref, NULL);
    if (status != FB_OK) {
        free(p->ref);
        p->ref = NULL;
    }
fail:
    return status;
}

/* Deterministic values in [0, 1), rounded to the run's precision. */
static void random_field(const heat_run *s, unsigned seed, double *v, size_t n)
{
    for (size_t q = 0; q < n; ++q) {
        seed = seed * 1664525u + 1013904223u;
        v[q] = (double)(seed >> 8) / 16777216.0;
        if (!s->cfg->is_double) v[q] = (float)v[q];
    }
}

/* The serial twin of one iteration on row-major T (in place): a Jacobi
 * sweep from a copy, or the two colour passes of red-black; returns the
 * largest change, as the device reduction should. */
static double serial_iteration(const heat_run *s, const double *tn, double *T, double *scratch)
{
    const fb_heat2d_grid *g = &s->p->g;
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    const double inv_dt = 1.0 / s->p->dt;
    double worst = 0;
    memcpy(scratch, T, n * sizeof *T);
    for (int pass = 0; pass < (s->cfg->kernel->red_black ? 2 : 1); ++pass)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                if (s->cfg->kernel->red_black && ((i + j) & 1) != pass) continue;
                const size_t at = (size_t)j * g->nx + (size_t)i;
                T[at] = fb_heat2d_cell_update(g, inv_dt, tn, s->cfg->kernel->red_black ? T : scratch, i, j);
                worst = fmax(worst, fabs(T[at] - scratch[at]));
            }
    return worst;
}

/* The timed unit itself, checked directly: one iteration from random
 * fields (every cell's five-point update, both colours, the tails of the
 * padded groups, and the device max reduction) against its serial twin.
 * The transient below checks convergence; this catches a kernel that
 * barely changes a smooth field (a no-op passes a short transient in single
 * precision). Outputs are weighted means of inputs in [0, 1): a few eps. */
static fb_status one_iteration_check(heat_run *s, fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    const size_t cells = cells_of(s);
    double *tn = NULL, *T = NULL, *dev = NULL, *scratch = NULL, change = 0, seconds;
    FB_ALLOC(tn, cells, "the check field");
    FB_ALLOC(T, cells, "the check field");
    FB_ALLOC(dev, cells, "the check field");
    FB_ALLOC(scratch, cells, "the check field");
    random_field(s, 12345u, tn, cells);
    random_field(s, 67890u, T, cells);
    FB_CHECK(field_in(s, s->tn, tn));
    FB_CHECK(field_in(s, s->ta, T));
    /* Jacobi's output: a cell no item writes is NaN */
    FB_CHECK(fb_target_fill_nan(s->t, s->cfg->is_double, s->tb, cells));
    s->flip = 0;
    FB_CHECK(iteration(s, &seconds));
    FB_CHECK(field_out(s, current(s), dev));
    FB_CHECK(read_max_change(s, &change));
    const double expected = serial_iteration(s, tn, T, scratch);
    double diff, scale;
    max_diff(dev, T, cells, &diff, &scale);
    /* recorded finite (JSON has no NaN): a NaN result is the largest error */
    r->iteration_error = isfinite(diff) ? diff : DBL_MAX;
    r->change_error = isfinite(change) ? fabs(change - expected) : DBL_MAX;
    for (size_t k = 0; k < cells && !isfinite(diff); ++k) /* said as a row of spmv is: no error to show */
        if (isnan(dev[k]))
            FB_FAIL(FB_ERR_CHECK,
                    "%s on %s, %s: cell %zu of the field is NaN after one iteration (a cell no "
                    "work-item wrote?)",
                    s->cfg->kernel->name, fb_target_info(s->t)->id, s->p->g.spec, k);
    if (!(diff <= r->iteration_tolerance))
        FB_FAIL(FB_ERR_CHECK,
                "%s on %s, %s: one iteration from a random field differs from its serial twin by %.3g "
                "(tolerance %.3g)",
                s->cfg->kernel->name, fb_target_info(s->t)->id, s->p->g.spec, diff, r->iteration_tolerance);
    if (!(r->change_error <= r->iteration_tolerance))
        FB_FAIL(FB_ERR_CHECK, "%s on %s, %s: device max change %.17g, serial %.17g", s->cfg->kernel->name,
                fb_target_info(s->t)->id, s->p->g.spec, change, expected);
fail:
    free(tn), free(T), free(dev), free(scratch);
    return status;
}

static fb_status check_run(heat_run *s, fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    const double eps = s->cfg->is_double ? DBL_EPSILON : FLT_EPSILON;
    const size_t cells = (size_t)s->p->g.nx * (size_t)s->p->g.ny;
    double *T = NULL;
    r->iteration_tolerance = ITERATION_CHECK_EPS * eps;
    FB_CHECK(one_iteration_check(s, r));
    FB_CHECK(ensure_reference(s->p));
    FB_ALLOC(T, cells, "the device solution");
    status = transient(s, ITERATION_TOL_EPS * eps, T, &r->iterations);
    if (status == FB_OK) status = judge(s, T, r);
fail:
    free(T);
    return status;
}

static void release_all(heat_run *s)
{
    fb_buffer *all[] = {s->dx, s->dy, s->gx, s->gy, s->tn, s->ta, s->tb, s->partial, s->result};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        fb_target_release(s->t, all[i]);
}

/* The point checked, the geometry set, the mesh uploaded and the kernels built. */
static fb_status prepare(heat_run *s, fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    FB_CHECK(fb_heat2d_check_point(s->cfg, fb_target_info(s->t)));
    s->launch = fb_heat2d_geometry(&s->cfg->point, g->nx, g->ny);
    if (s->cfg->kernel->user) fb_user_kernel_divide(s->cfg->kernel->user, &s->cfg->point, &s->launch);
    r->launch = s->launch;
    s->reduce_launch = fb_launch_1d(FB_HEAT2D_REDUCE_ITEMS, FB_HEAT2D_REDUCE_ITEMS);
    s->groups = (int)(s->launch.global[0] / s->launch.local[0] * (s->launch.global[1] / s->launch.local[1]));
    FB_CHECK(upload(s));
    FB_CHECK(build(s));
fail:
    return status;
}

fb_status fb_heat2d_transient(fb_target *t, fb_heat2d_problem *p, const fb_heat2d_config *cfg, double *T,
                              fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    heat_run s = {.t = t, .p = p, .cfg = cfg};
    memset(r, 0, sizeof *r);
    FB_CHECK(prepare(&s, r));
    FB_CHECK(ensure_reference(p));
    FB_CHECK(transient(&s, ITERATION_TOL_EPS * (cfg->is_double ? DBL_EPSILON : FLT_EPSILON), T, &r->iterations));
    status = judge(&s, T, r);
fail:
    release_all(&s);
    return status;
}

fb_status fb_heat2d_run(fb_target *t, fb_heat2d_problem *p, const fb_heat2d_config *cfg, fb_heat2d_result *r)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &p->g;
    heat_run s = {.t = t, .p = p, .cfg = cfg};
    double *T0 = NULL;
    memset(r, 0, sizeof *r);
    FB_CHECK(prepare(&s, r));
    /* Best effort: a backend that cannot say leaves has_resources 0. */
    r->has_resources =
        fb_target_kernel_resources(t, s.update, s.launch.local[0] * s.launch.local[1], &r->resources) == FB_OK;
    /* The timed iterations start from the exact mode, as the check does. */
    const size_t cells = (size_t)g->nx * (size_t)g->ny;
    FB_ALLOC(T0, cells, "the initial field");
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i)
            T0[(size_t)j * g->nx + i] = fb_heat2d_exact(g, i, j, 0);
    FB_CHECK(field_in(&s, s.tn, T0));
    FB_CHECK(field_in(&s, s.ta, T0));
    FB_CHECK(field_in(&s, s.tb, T0));
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample, &s, fb_target_flush_callback, t, &r->m));
    r->model = fb_heat2d_model_of(cfg->kernel, g->nx, g->ny, cfg->is_double, s.groups);
    r->gflops = r->model.flops / r->m.stats.median * 1e-9;
    r->gbs = r->model.min_bytes / r->m.stats.median * 1e-9;
    r->ns_per_cell = r->m.stats.median / (double)cells * 1e9;
    FB_CHECK(check_run(&s, r));
fail:
    free(T0);
    release_all(&s);
    return status;
}

void fb_heat2d_result_free(fb_heat2d_result *r) { fb_measurement_free(&r->m); }
