/* spmv_run.c - upload, build, measure and check one SpMV configuration. */
#include "spmv.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "core/kernel_sources.h"

typedef struct spmv_run {
    fb_target *t;
    const fb_spmv_matrix *A;
    const fb_spmv_config *cfg;
    fb_spmv_buffers d;
    fb_buffer *carry_row, *carry_val;
    fb_kernel *main_kernel, *fixup_kernel;
    fb_launch main_launch, fixup_launch;
    int nthreads;
    fb_arg main_args[10], fixup_args[5];
    int nmain, nfixup;
} spmv_run;

/* Default x: deterministic, non-constant, in [0.5, 1.5). */
static double spmv_default_x(int j) { return 0.5 + (double)((j * 7919L) % 1000) / 1000.0; }

fb_status fb_spmv_check_point(const fb_spmv_config *cfg, const fb_device_info *dev, const fb_spmv_matrix *A)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = cfg->kernel;
    char why[256] = "";
    fb_spmv_shape shape = A->shape;
    shape.real_bytes = cfg->is_double ? 8 : 4;
    if (k->user) FB_CHECK(fb_user_kernel_check(k->user, &cfg->point, dev, cfg->is_double));
    if (k->user && k->user->divisor >= 0 && k->fixup_kernel)
        FB_FAIL(FB_ERR_USAGE, "%s: a global divisor does not apply to %s's merge partition", k->name, k->user->like);
    if (k->format->input != A->format)
        FB_FAIL(FB_ERR_USAGE, "%s needs a %s matrix (use :block=K for BCSR kernels)", k->name, k->format->input_name);
    for (int i = 0; i < k->nparams; ++i)
        if (!fb_param_axis_has(&k->params[i], cfg->point.values[i]))
            FB_FAIL(FB_ERR_USAGE, "%s: %s=%d is not in its space (see flowbench spmv --list)", k->name,
                    k->params[i].name, cfg->point.values[i]);
    if (!k->allowed(&cfg->point, dev, &shape, why, sizeof why))
        FB_FAIL(FB_ERR_USAGE, "%s on %s: %s", k->name, dev->id, why);
    if (cfg->is_double && !dev->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: device has no double precision (use --precision single)", dev->id);
fail:
    return status;
}

fb_status fb_spmv_download_reals(fb_target *t, int is_double, fb_buffer *src, size_t n, double **out)
{
    fb_status status = FB_OK;
    FB_ALLOC(*out, n, "result vector");
    status = fb_target_read_reals(t, is_double, src, n, *out);
fail:
    return status;
}

/* Number of stored values (CSR nnz; BCSR nblocks * K^2: the shape's nnz). */
static size_t spmv_value_count(const fb_spmv_matrix *A) { return (size_t)A->shape.nnz; }

fb_status fb_spmv_upload(fb_target *t, const fb_spmv_matrix *A, int is_double, const double *x, fb_spmv_buffers *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    FB_CHECK(fb_target_upload(t, A->ptr, ((size_t)A->shape.nbrows + 1) * sizeof(int), &out->ptr));
    if (A->idx) /* NULL: the caller's kernel reads its columns another way (sell16) */
        FB_CHECK(fb_target_upload(t, A->idx, (size_t)A->shape.nblocks * sizeof(int), &out->idx));
    FB_CHECK(fb_target_upload_reals(t, is_double, A->values, spmv_value_count(A), &out->val));
    FB_CHECK(fb_target_upload_reals(t, is_double, x, (size_t)A->shape.ncols, &out->x));
    FB_CHECK(fb_target_alloc(t, (size_t)A->shape.nrows * fb_real_size(is_double), &out->y));
fail:
    return status;
}

void fb_spmv_buffers_release(fb_target *t, fb_spmv_buffers *b)
{
    fb_buffer *all[] = {b->ptr, b->idx, b->val, b->x, b->y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        fb_target_release(t, all[i]);
    memset(b, 0, sizeof *b);
}

static fb_status upload(spmv_run *s, const double *x)
{
    fb_status status = FB_OK;
    size_t real = fb_real_size(s->cfg->is_double);
    FB_CHECK(fb_spmv_upload(s->t, s->A, s->cfg->is_double, x, &s->d));
    /* a row no work-item writes (or one added to instead of written) fails */
    FB_CHECK(fb_target_fill_nan(s->t, s->cfg->is_double, s->d.y, (size_t)s->A->shape.nrows));
    if (s->cfg->kernel->fixup_kernel) {
        FB_CHECK(fb_target_alloc(s->t, (size_t)s->nthreads * sizeof(int), &s->carry_row));
        FB_CHECK(fb_target_alloc(s->t, (size_t)s->nthreads * real, &s->carry_val));
    }
fail:
    return status;
}

fb_status fb_spmv_build_kernel(fb_target *t, const fb_spmv_config *cfg, int block, const char *source,
                               const char *kernel_name, fb_kernel **out)
{
    const fb_spmv_kernel_def *k = cfg->kernel;
    fb_define defines[FB_MAX_PARAMS + 2];
    char values[FB_MAX_PARAMS + 2][16];
    int n = 0;
    defines[n++] = (fb_define){"REAL", cfg->is_double ? "double" : "float"};
    for (int i = 0; i < k->nparams; ++i, ++n) {
        snprintf(values[n], sizeof values[n], "%d", cfg->point.values[i]);
        defines[n] = (fb_define){k->params[i].name, values[n]};
    }
    if (k->format->blocked) {
        snprintf(values[n], sizeof values[n], "%d", block);
        defines[n] = (fb_define){"BLOCK_SIZE", values[n]};
        n++;
    }
    const char *text = source == k->source && k->source_text ? k->source_text : fb_kernel_source(source);
    fb_program_spec spec = {source, text, kernel_name, defines, n, fb_spmv_host_kernels};
    return fb_target_build(t, &spec, out);
}

int fb_spmv_axis_value(const fb_spmv_config *cfg, const char *name, int dflt)
{
    for (int i = 0; i < cfg->kernel->nparams; ++i)
        if (strcmp(cfg->kernel->params[i].name, name) == 0) return cfg->point.values[i];
    return dflt;
}

/* kernel_name from the source `source` (the user's file for a user
 * kernel's main kernel, else embedded). */
static fb_status build_one(spmv_run *s, const char *source, const char *kernel_name, fb_kernel **out)
{
    return fb_spmv_build_kernel(s->t, s->cfg, s->A->shape.block, source, kernel_name, out);
}

/* Arguments in each kernel's signature order (see the .cl files). */
static void set_args(spmv_run *s)
{
    const fb_spmv_matrix *A = s->A;
    fb_arg P = fb_arg_buffer(s->d.ptr), I = fb_arg_buffer(s->d.idx), V = fb_arg_buffer(s->d.val);
    fb_arg X = fb_arg_buffer(s->d.x), Y = fb_arg_buffer(s->d.y);
    fb_arg rows = fb_arg_i32(A->shape.nbrows);
    int n = 0;
    if (s->cfg->kernel->fixup_kernel) {
        fb_arg CR = fb_arg_buffer(s->carry_row), CV = fb_arg_buffer(s->carry_val);
        fb_arg nt = fb_arg_i32(s->nthreads);
        fb_arg main[] = {rows, fb_arg_i32((int32_t)A->shape.nnz), nt, P, I, V, X, Y, CR, CV};
        fb_arg fix[] = {rows, nt, CR, CV, Y};
        memcpy(s->main_args, main, sizeof main);
        memcpy(s->fixup_args, fix, sizeof fix);
        s->nmain = 10;
        s->nfixup = 5;
        return;
    }
    s->main_args[n++] = rows;
    if (A->format->passes_nblocks) s->main_args[n++] = fb_arg_i32((int32_t)A->shape.nblocks);
    s->main_args[n++] = P;
    s->main_args[n++] = I;
    s->main_args[n++] = V;
    s->main_args[n++] = X;
    s->main_args[n++] = Y;
    s->nmain = n;
}

static fb_status sample(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    spmv_run *s = ctx;
    double t_main = 0, t_fix = 0;
    FB_CHECK(fb_target_launch(s->t, s->main_kernel, &s->main_launch, s->main_args, s->nmain, &t_main));
    if (s->fixup_kernel)
        FB_CHECK(fb_target_launch(s->t, s->fixup_kernel, &s->fixup_launch, s->fixup_args, s->nfixup, &t_fix));
    *seconds = t_main + t_fix;
fail:
    return status;
}

/* Inputs rounded as the device saw them, so single precision is judged on
 * its arithmetic, not on the rounding of the data. */
/* src as the device saw it: rounded to float in single precision (a
 * copy, *owned), src itself in double (no copy: on a DRAM-sized block
 * matrix the values are gigabytes). */
static fb_status rounded_view(const double *src, size_t n, int is_double, double **owned, const double **out)
{
    fb_status status = FB_OK;
    *owned = NULL, *out = src;
    if (is_double) return FB_OK;
    FB_ALLOC(*owned, n, "reference input");
    double *to = *owned;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
        to[i] = (double)(float)src[i];
    *out = to;
fail:
    return status;
}

/* max |y - M x| / max (|M| |x|), row-wise in double; *nan_row gets the
 * first row where y is NaN (nrows: none). */
static fb_status relative_error(const fb_spmv_matrix *M, const double *x, const double *y, double *error,
                                size_t *nan_row)
{
    fb_status status = FB_OK;
    const size_t n = (size_t)M->shape.nrows;
    double *ref = NULL, *abs_ref = NULL, worst = 0, scale = 0;
    FB_ALLOC(ref, n, "reference y");
    FB_ALLOC(abs_ref, n, "reference |A||x|");
    fb_spmv_reference(M, x, ref, abs_ref);
    *nan_row = n;
    for (size_t i = 0; i < n; ++i) {
        double e = fabs(y[i] - ref[i]);
        if (!(e <= worst) && !isnan(worst)) worst = e; /* NaN counts as the worst, and stays it */
        if (isnan(y[i]) && *nan_row == n) *nan_row = i;
        if (abs_ref[i] > scale) scale = abs_ref[i];
    }
    *error = scale > 0 ? worst / scale : worst;
    if (!isfinite(*error)) *error = DBL_MAX; /* recorded finite: JSON has no NaN */
fail:
    free(ref);
    free(abs_ref);
    return status;
}

fb_status fb_spmv_finish(const fb_spmv_matrix *A, const fb_spmv_config *cfg, const double *x, const char *where,
                         fb_spmv_result *r)
{
    fb_status status = FB_OK;
    size_t n = (size_t)A->shape.nrows, nan_row = n, unused;
    double *xr = NULL, *vr = NULL;
    const double *x_seen;
    const int single_values = cfg->kernel->format->single_values;
    fb_spmv_matrix rounded = *A;
    fb_spmv_shape shape = A->shape;
    shape.real_bytes = cfg->is_double ? 8 : 4;
    r->model = cfg->kernel->format->model(&shape, &r->conversion);
    r->gflops = r->model.flops / r->m.stats.median * 1e-9;
    r->gbs = r->model.min_bytes / r->m.stats.median * 1e-9;
    FB_CHECK(rounded_view(x, (size_t)A->shape.ncols, cfg->is_double, &xr, &x_seen));
    FB_CHECK(rounded_view(A->values, spmv_value_count(A), cfg->is_double && !single_values, &vr, &rounded.values));
    FB_CHECK(relative_error(&rounded, x_seen, r->y, &r->rel_error, &nan_row));
    r->error_vs_double_values = -1;
    if (single_values && cfg->is_double) FB_CHECK(relative_error(A, x_seen, r->y, &r->error_vs_double_values, &unused));
    /* Summation error bound: (row length) * eps relative to sum |a x|, with
     * a factor 2 of slack for reassociation across work-items. */
    double eps = cfg->is_double ? DBL_EPSILON : FLT_EPSILON;
    r->tolerance = 2.0 * eps * (double)(A->max_row_entries > 1 ? A->max_row_entries : 1);
    r->checked_ok = r->rel_error <= r->tolerance;
    if (!r->checked_ok && nan_row < n) /* y starts as NaN on a device (fb_target_fill_nan in upload) */
        FB_FAIL(FB_ERR_CHECK, "%s on %s: wrong result: y[%zu] is NaN (a row no work-item wrote?)", cfg->kernel->name,
                where, nan_row);
    if (!r->checked_ok)
        FB_FAIL(FB_ERR_CHECK, "%s on %s: wrong result (relative error %.3g > tolerance %.3g)", cfg->kernel->name, where,
                r->rel_error, r->tolerance);
fail:
    free(xr);
    free(vr);
    return status;
}

fb_status fb_spmv_make_x(const fb_spmv_matrix *A, const double *given, double **owned, const double **x)
{
    fb_status status = FB_OK;
    *x = given;
    if (given) return FB_OK;
    FB_ALLOC(*owned, (size_t)A->shape.ncols, "x");
    for (int j = 0; j < A->shape.ncols; ++j)
        (*owned)[j] = spmv_default_x(j);
    *x = *owned;
fail:
    return status;
}

static void release_all(spmv_run *s)
{
    fb_spmv_buffers_release(s->t, &s->d);
    fb_target_release(s->t, s->carry_row);
    fb_target_release(s->t, s->carry_val);
}

fb_status fb_spmv_run(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out)
{
    return cfg->kernel->format->run(t, A, cfg, out);
}

fb_status fb_spmv_run_kernels(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    spmv_run s = {.t = t, .A = A, .cfg = cfg};
    double *owned_x = NULL;
    const double *x = NULL;
    fb_spmv_shape shape = A->shape;
    memset(out, 0, sizeof *out);
    shape.real_bytes = cfg->is_double ? 8 : 4;
    FB_CHECK(fb_spmv_check_point(cfg, fb_target_info(t), A));
    cfg->kernel->geometry(&cfg->point, &shape, &s.main_launch, &s.fixup_launch, &s.nthreads);
    if (cfg->kernel->user) fb_user_kernel_divide(cfg->kernel->user, &cfg->point, &s.main_launch);
    out->launch = s.main_launch;
    FB_CHECK(fb_spmv_make_x(A, cfg->x, &owned_x, &x));
    FB_CHECK(upload(&s, x));
    FB_CHECK(build_one(&s, cfg->kernel->source, cfg->kernel->kernel, &s.main_kernel));
    if (cfg->kernel->fixup_kernel)
        FB_CHECK(build_one(&s, cfg->kernel->fixup_source ? cfg->kernel->fixup_source : cfg->kernel->source,
                           cfg->kernel->fixup_kernel, &s.fixup_kernel));
    /* Best effort: a backend that cannot say leaves has_resources 0. */
    out->has_resources = fb_target_kernel_resources(t, s.main_kernel, s.main_launch.local[0], &out->resources) == FB_OK;
    set_args(&s);
    FB_CHECK(fb_spmv_measure_and_check(t, A, cfg, x, sample, &s, s.d.y, out));
fail:
    release_all(&s);
    free(owned_x);
    return status;
}

fb_status fb_spmv_run_begin(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_launch *launch,
                            fb_spmv_result *out)
{
    fb_status status = FB_OK;
    fb_spmv_shape shape = A->shape;
    int nthreads = 0;
    memset(out, 0, sizeof *out);
    shape.real_bytes = cfg->is_double ? 8 : 4;
    FB_CHECK(fb_spmv_check_point(cfg, fb_target_info(t), A));
    cfg->kernel->geometry(&cfg->point, &shape, launch, NULL, &nthreads);
    out->launch = *launch;
fail:
    return status;
}

fb_status fb_spmv_measure_and_check(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, const double *x,
                                    fb_sample_fn sample, void *ctx, fb_buffer *y, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample, ctx, fb_target_flush_callback, t, &out->m));
    FB_CHECK(fb_spmv_download_reals(t, cfg->is_double, y, (size_t)A->shape.nrows, &out->y));
    FB_CHECK(fb_spmv_finish(A, cfg, x, fb_target_info(t)->id, out));
fail:
    return status;
}

void fb_spmv_result_free(fb_spmv_result *r)
{
    fb_measurement_free(&r->m);
    free(r->y);
    r->y = NULL;
}
