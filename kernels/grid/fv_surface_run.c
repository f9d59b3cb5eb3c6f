/* fv_surface_run.c - upload, build, measure and check one fv-surface
 * configuration: the field in the variant's layout and precision, the
 * kernels of its distribution strategy built with the point as -D defines,
 * one residual evaluation per sample (every launch it takes), and the check
 * of the downloaded residual against the reference (fv_surface_ref.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "core/kernel_sources.h"
#include "fv_surface.h"

#define FV_MAX_LAUNCHES 6

typedef struct fv_step {
    fb_kernel *kernel;
    fb_launch launch;
    fb_arg args[8];
    int nargs;
} fv_step;

typedef struct fv_run {
    fb_target *t;
    const fb_fv_grid *g;
    const fb_fv_config *cfg;
    const fb_fv_kernel *k; /* the family's row of cfg->kernel */
    size_t padded;         /* cells rounded up to whole AoSoA blocks */
    fb_buffer *U, *R, *F;
    fv_step steps[FV_MAX_LAUNCHES];
    int nsteps;
} fv_run;

static size_t padded_cells(const fb_fv_grid *g, const fb_param_point *p)
{
    size_t b = p->values[FB_FV_LAYOUT] == 2 ? (size_t)p->values[FB_FV_AOSOA_BLOCK] : 1;
    return ((size_t)g->cells + b - 1) / b * b;
}

/* Where value v of cell c lives in the variant's layout (fv_surface.cl's fv_at). */
static size_t layout_index(const fb_param_point *p, size_t c, size_t v, size_t n)
{
    size_t b = (size_t)p->values[FB_FV_AOSOA_BLOCK];
    if (p->values[FB_FV_LAYOUT] == 0) return c * FV_NVAR + v;
    if (p->values[FB_FV_LAYOUT] == 1) return v * n + c;
    return ((c / b) * FV_NVAR + v) * b + c % b;
}

static fb_status upload_field(fv_run *s)
{
    fb_status status = FB_OK;
    const size_t n = (size_t)s->g->cells, count = s->padded * FV_NVAR, real = fb_real_size(s->cfg->is_double);
    double *host = NULL;
    FB_ALLOC(host, count, "the field in the variant's layout");
    for (size_t c = 0; c < n; ++c)
        for (size_t v = 0; v < FV_NVAR; ++v)
            host[layout_index(&s->cfg->point, c, v, n)] = s->g->U[c * FV_NVAR + v];
    FB_CHECK(fb_target_upload_reals(s->t, s->cfg->is_double, host, count, &s->U));
    /* R (and F) start as NaN: a cell or face no item writes fails the check */
    FB_CHECK(fb_target_alloc(s->t, count * real, &s->R));
    FB_CHECK(fb_target_fill_nan(s->t, s->cfg->is_double, s->R, count));
    if (s->k->strategy == FB_FV_GATHER) {
        FB_CHECK(fb_target_alloc(s->t, 3 * n * FV_NVAR * real, &s->F));
        FB_CHECK(fb_target_fill_nan(s->t, s->cfg->is_double, s->F, 3 * n * FV_NVAR));
    }
fail:
    free(host);
    return status;
}

/* The residual back as AoS doubles. */
static fb_status download_residual(fv_run *s, double **out)
{
    fb_status status = FB_OK;
    const size_t n = (size_t)s->g->cells, count = s->padded * FV_NVAR;
    double *host = NULL;
    FB_ALLOC(host, count, "the residual");
    FB_ALLOC(*out, n * FV_NVAR, "the residual (AoS)");
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->is_double, s->R, count, host));
    for (size_t c = 0; c < n; ++c)
        for (size_t v = 0; v < FV_NVAR; ++v)
            (*out)[c * FV_NVAR + v] = host[layout_index(&s->cfg->point, c, v, n)];
fail:
    free(host);
    return status;
}

/* kernel_name with the point as defines: a user kernel's flux kernel
 * (user: 1) from the user's file, every other from the family's source. */
static fb_status build(fv_run *s, const char *kernel_name, int user, fb_kernel **out)
{
    const fb_fv_kernel *k = s->k;
    fb_define defines[FB_MAX_PARAMS + 1];
    char values[FB_MAX_PARAMS][16];
    defines[0] = (fb_define){"REAL", s->cfg->is_double ? "double" : "float"};
    for (int i = 0; i < k->nparams; ++i) {
        snprintf(values[i], sizeof values[i], "%d", s->cfg->point.values[i]);
        defines[i + 1] = (fb_define){k->params[i].name, values[i]};
    }
    const char *source = user ? k->source : FB_FV_SOURCE;
    const char *text = user ? k->source_text : fb_kernel_source(FB_FV_SOURCE);
    fb_program_spec spec = {source, text, kernel_name, defines, k->nparams + 1, fb_fv_surface_host_kernels};
    return fb_target_build(s->t, &spec, out);
}

/* Appends one launch of kernel_name over `items` work-items. The flux
 * kernel (flux: 1) of a user kernel is the user's, with its divisor. */
static fb_status add_step(fv_run *s, const char *kernel_name, int flux, size_t items, const fb_arg *args, int nargs)
{
    fb_status status = FB_OK;
    fv_step *st = &s->steps[s->nsteps];
    const fb_user_kernel *uk = flux ? s->k->user : NULL;
    FB_CHECK(build(s, uk ? uk->name : kernel_name, uk != NULL, &st->kernel));
    st->launch = fb_launch_1d(items, (size_t)s->cfg->point.values[FB_FV_WG_SIZE]);
    if (uk) fb_user_kernel_divide(uk, &s->cfg->point, &st->launch);
    memcpy(st->args, args, (size_t)nargs * sizeof *args);
    st->nargs = nargs;
    s->nsteps++;
fail:
    return status;
}

/* The launches of one residual evaluation, in order; *main is the index of
 * the flux kernel (the one whose resources the record reports). */
static fb_status plan(fv_run *s, int *main)
{
    fb_status status = FB_OK;
    const fb_fv_grid *g = s->g;
    const int dbl = s->cfg->is_double;
    const size_t n = (size_t)g->cells;
    fb_arg nx = fb_arg_i32(g->nx), ny = fb_arg_i32(g->ny), nz = fb_arg_i32(g->nz);
    fb_arg U = fb_arg_buffer(s->U), R = fb_arg_buffer(s->R);
    fb_arg areas[3] = {fb_arg_real(dbl, g->area[0]), fb_arg_real(dbl, g->area[1]), fb_arg_real(dbl, g->area[2])};
    *main = 0;
    if (s->k->strategy == FB_FV_PASSES) {
        for (int d = 0; d < 3; ++d)
            for (int side = 0; side < 2; ++side) {
                fb_arg a[] = {nx, ny, nz, fb_arg_i32(d), fb_arg_i32(side), areas[d], U, R};
                FB_CHECK(add_step(s, "fv_pass", 1, n, a, 8));
            }
    } else if (s->k->strategy == FB_FV_ATOMIC) {
        fb_arg zero[] = {fb_arg_i32((int32_t)(s->padded * FV_NVAR)), R};
        fb_arg faces[] = {nx, ny, nz, areas[0], areas[1], areas[2], U, R};
        FB_CHECK(add_step(s, "fv_zero", 0, s->padded * FV_NVAR, zero, 2));
        FB_CHECK(add_step(s, "fv_face_atomic", 1, 3 * n, faces, 8));
        *main = 1;
    } else {
        fb_arg F = fb_arg_buffer(s->F);
        fb_arg faces[] = {nx, ny, nz, areas[0], areas[1], areas[2], U, F};
        fb_arg gather[] = {nx, ny, nz, F, R};
        FB_CHECK(add_step(s, "fv_surface", 1, 3 * n, faces, 8));
        FB_CHECK(add_step(s, "fv_gather", 0, n, gather, 5));
    }
fail:
    return status;
}

static fb_status sample(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    fv_run *s = ctx;
    *seconds = 0;
    for (int i = 0; i < s->nsteps; ++i) {
        double t = 0;
        FB_CHECK(
            fb_target_launch(s->t, s->steps[i].kernel, &s->steps[i].launch, s->steps[i].args, s->steps[i].nargs, &t));
        *seconds += t;
    }
fail:
    return status;
}

/* ---- the check against the reference (fv_surface_ref.c) ---------------- */

/* Longest chain of rounded operations from the inputs to one face term
 * (kinetic energy 5, pressure 2, sound speed 3, wave speed 2, dissipation 2,
 * average and area 2): the flux's share of the error bound. */
#define FV_FLUX_DEPTH 16

/* Bit for bit where the additions follow the reference's order and the
 * arithmetic is the reference's: double precision, a deterministic variant,
 * and a backend that does not fuse multiply-adds (NVRTC does by default).
 * Never for a user's kernel file: the reference's order of operations is
 * a property of the family's code, not of the argument list a file takes. */
static int claims_bitwise(const fb_fv_config *cfg, const fb_device_info *dev)
{
    const fb_fv_kernel *k = fb_fv_kernel_at(cfg->kernel);
    return cfg->is_double && k->deterministic && !k->user && !dev->fuses_multiply_add;
}

/* Reassociating a cell's 6 terms costs up to 5 roundings of the sum of
 * their magnitudes, a face term up to FV_FLUX_DEPTH roundings of its own
 * magnitude; a factor 2 of slack as in the SpMV check. */
static double tolerance_of(const fb_fv_config *cfg, const fb_device_info *dev)
{
    double eps = cfg->is_double ? DBL_EPSILON : FLT_EPSILON;
    if (claims_bitwise(cfg, dev)) return 0;
    if (cfg->is_double && fb_fv_kernel_at(cfg->kernel)->deterministic && !fb_fv_kernel_at(cfg->kernel)->user)
        return 2.0 * FV_FLUX_DEPTH * eps; /* FMA only */
    return 2.0 * (6 + FV_FLUX_DEPTH) * eps;
}

static fb_status rounded_field(const fb_fv_grid *g, int is_double, double **out)
{
    fb_status status = FB_OK;
    size_t n = (size_t)g->cells * FV_NVAR;
    FB_ALLOC(*out, n, "reference input");
    for (size_t i = 0; i < n; ++i)
        (*out)[i] = is_double ? g->U[i] : (double)(float)g->U[i];
fail:
    return status;
}

/* With r->m and r->R filled: the derived rates and the check (FB_ERR_CHECK
 * naming the kernel and the device). */
static fb_status fv_finish(const fb_fv_grid *g, const fb_fv_config *cfg, const fb_device_info *dev, fb_fv_result *r)
{
    fb_status status = FB_OK;
    size_t n = (size_t)g->cells * FV_NVAR;
    double *ref = NULL, *scale = NULL, *u = NULL, worst = 0, top = 0;
    int same = 1;
    r->model = fb_fv_model_of(fb_fv_kernel_at(cfg->kernel)->strategy, g->cells, cfg->is_double ? 8 : 4);
    r->gflops = r->model.flops / r->m.stats.median * 1e-9;
    r->gbs = r->model.min_bytes / r->m.stats.median * 1e-9;
    r->ns_per_cell = r->m.stats.median / g->cells * 1e9;
    FB_ALLOC(ref, n, "reference residual");
    FB_ALLOC(scale, n, "reference scale");
    FB_CHECK(rounded_field(g, cfg->is_double, &u));
    fb_fv_grid seen = *g; /* the face areas as the device got them, too */
    for (int d = 0; d < 3; ++d)
        seen.area[d] = cfg->is_double ? g->area[d] : (double)(float)g->area[d];
    fb_fv_reference(&seen, u, ref, scale);
    for (size_t i = 0; i < n; ++i) {
        double e = fabs(r->R[i] - ref[i]);
        if (!(e <= worst) && !isnan(worst)) worst = e; /* NaN counts as the worst, and stays it */
        if (scale[i] > top) top = scale[i];
        same &= r->R[i] == ref[i];
    }
    r->rel_error = top > 0 ? worst / top : worst;
    if (!isfinite(r->rel_error)) r->rel_error = DBL_MAX; /* recorded finite: JSON has no NaN */
    r->bitwise = same;
    r->tolerance = tolerance_of(cfg, dev);
    r->checked_ok = r->rel_error <= r->tolerance;
    if (!r->checked_ok)
        FB_FAIL(FB_ERR_CHECK, "%s on %s: wrong residual (relative error %.3g > tolerance %.3g%s)",
                fb_fv_kernel_at(cfg->kernel)->name, dev->id, r->rel_error, r->tolerance,
                r->tolerance == 0 ? ", bitwise equality expected" : "");
fail:
    free(ref);
    free(scale);
    free(u);
    return status;
}

fb_status fb_fv_run(fb_target *t, const fb_fv_grid *g, const fb_fv_config *cfg, fb_fv_result *out)
{
    fb_status status = FB_OK;
    fv_run s = {.t = t, .g = g, .cfg = cfg, .k = fb_fv_kernel_at(cfg->kernel)};
    const fb_device_info *dev = fb_target_info(t);
    int main_step;
    memset(out, 0, sizeof *out);
    if (!s.k) FB_FAIL(FB_ERR_USAGE, "fv-surface has no kernel %d", cfg->kernel);
    FB_CHECK(fb_fv_check_point(g, cfg, dev));
    s.padded = padded_cells(g, &cfg->point);
    FB_CHECK(upload_field(&s));
    FB_CHECK(plan(&s, &main_step));
    out->launch = s.steps[main_step].launch;
    /* Best effort: a backend that cannot say leaves has_resources 0. */
    out->has_resources =
        fb_target_kernel_resources(t, s.steps[main_step].kernel, out->launch.local[0], &out->resources) == FB_OK;
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample, &s, fb_target_flush_callback, t, &out->m));
    FB_CHECK(download_residual(&s, &out->R));
    FB_CHECK(fv_finish(g, cfg, dev, out));
fail:
    fb_target_release(t, s.U);
    fb_target_release(t, s.R);
    fb_target_release(t, s.F);
    return status;
}

void fb_fv_result_free(fb_fv_result *r)
{
    fb_measurement_free(&r->m);
    free(r->R);
    r->R = NULL;
}
