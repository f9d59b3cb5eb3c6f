/* stream_run.c - runs, times and checks the stream kernels on one target.
 *
 * Arrays start as a = 0.1, b = 0.2, c = 0.0 (BabelStream). Each kernel's
 * output is not among its inputs, so repeating one kernel any number of
 * times leaves the same values: the expected value of every element after
 * each kernel is known exactly, whatever number of samples the measurement
 * policy took. Dot, last, reads the final a and b: its sum is n a b.
 */
#include "stream.h"

#include "bench/record.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel_sources.h"

#define STREAM_SOURCE "stream/stream.cl"

const fb_stream_model fb_stream_models[FB_STREAM_NKERNELS] = {
    {"copy", "stream_copy", 2, 0},   {"mul", "stream_mul", 2, 1}, {"add", "stream_add", 3, 1},
    {"triad", "stream_triad", 3, 2}, {"dot", "stream_dot", 2, 2},
};

typedef struct stream_run {
    fb_target *t;
    const fb_stream_config *cfg;
    fb_buffer *a, *b, *c;
    fb_buffer *partial; /* dot's sums, one per chunk */
    fb_kernel *kernel;
    fb_arg args[5];
    int nargs;
    fb_launch launch;        /* one item per element */
    fb_launch dot_launch;    /* one group per chunk */
    size_t dot_chunk;        /* fb_stream_dot_chunk */
    const fb_launch *active; /* the kernel being measured's */
} stream_run;

size_t fb_stream_dot_chunk(const fb_device_info *d)
{
    return d->host_cpu ? FB_STREAM_DOT_CHUNK_CPU : FB_STREAM_DOT_CHUNK;
}

static size_t dot_chunks(const stream_run *s) { return (s->cfg->n + s->dot_chunk - 1) / s->dot_chunk; }

static fb_status build(stream_run *s, const char *kernel_name, fb_kernel **out)
{
    char wg[24], chunk[24];
    snprintf(wg, sizeof wg, "%zu", s->cfg->wg);
    snprintf(chunk, sizeof chunk, "%zu", s->dot_chunk);
    fb_define defines[] = {{"REAL", s->cfg->is_double ? "double" : "float"},
                           {"DOT_WG", wg},
                           {"DOT_CHUNK", chunk},
                           {"DOT_CONTIGUOUS", "1"}};
    const int ndefines = fb_target_info(s->t)->host_cpu ? 4 : 3;
    const char *text = fb_kernel_source(STREAM_SOURCE);
    fb_program_spec spec = {STREAM_SOURCE, text, kernel_name, defines, ndefines, fb_stream_host_kernels};
    return fb_target_build(s->t, &spec, out);
}

static fb_status fill(stream_run *s, fb_buffer *x, double value)
{
    fb_status status = FB_OK;
    fb_kernel *k = NULL;
    FB_CHECK(build(s, "stream_fill", &k));
    fb_arg args[] = {fb_arg_buffer(x), fb_arg_real(s->cfg->is_double, value), fb_arg_i32((int32_t)s->cfg->n)};
    FB_CHECK(fb_target_launch(s->t, k, &s->launch, args, 3, NULL));
fail:
    return status;
}

/* Argument lists in the kernels' signature order. */
static void set_args(stream_run *s, int which)
{
    int d = s->cfg->is_double;
    fb_arg n = fb_arg_i32((int32_t)s->cfg->n), q = fb_arg_real(d, FB_STREAM_SCALAR);
    fb_arg A = fb_arg_buffer(s->a), B = fb_arg_buffer(s->b), C = fb_arg_buffer(s->c), P = fb_arg_buffer(s->partial);
    /* one line per kernel, its arguments in signature order */
    // clang-format off
    switch (which) {
    case 0: s->nargs = 3; s->args[0] = A; s->args[1] = C; s->args[2] = n; break;
    case 1: s->nargs = 4; s->args[0] = B; s->args[1] = C; s->args[2] = q; s->args[3] = n; break;
    case 2: s->nargs = 4; s->args[0] = A; s->args[1] = B; s->args[2] = C; s->args[3] = n; break;
    case 3: s->nargs = 5; s->args[0] = A; s->args[1] = B; s->args[2] = C; s->args[3] = q; s->args[4] = n; break;
    default: s->nargs = 4; s->args[0] = A; s->args[1] = B; s->args[2] = P; s->args[3] = n; break;
    }
    // clang-format on
}

static fb_status sample(void *ctx, double *seconds)
{
    stream_run *s = ctx;
    return fb_target_launch(s->t, s->kernel, s->active, s->args, s->nargs, seconds);
}

/* Expected values after each kernel, computed in the kernels' precision;
 * dot's is one term a b (the sum is n of them). */
static void expected_values(int is_double, double out[FB_STREAM_NKERNELS])
{
    /* each kernel in order, as the device runs them */
    // clang-format off
    if (is_double) {
        double a = 0.1, b = 0.2, c = 0.0, q = FB_STREAM_SCALAR;
        c = a; out[0] = c;
        b = q * c; out[1] = b;
        c = a + b; out[2] = c;
        a = b + q * c; out[3] = a;
        out[4] = a * b;
    } else {
        float a = 0.1f, b = 0.2f, c = 0.0f, q = (float)FB_STREAM_SCALAR;
        c = a; out[0] = c;
        b = q * c; out[1] = b;
        c = a + b; out[2] = c;
        a = b + q * c; out[3] = a;
        out[4] = a * b;
    }
    // clang-format on
}

/* Each of dot's partial sums against its chunk's count of a b: a missed or
 * doubled chunk, or one wrong element, is a large error in its own partial
 * where it would vanish in the whole sum. However the backend orders a
 * chunk's additions (items then pairs, or SIMD lanes on the host), a sum
 * of at most a chunk's terms rounds at most that many times, plus the
 * pairwise rounds of a group: that bounds the relative error. */
static fb_status check_dot(stream_run *s, double term, fb_stream_result *r)
{
    fb_status status = FB_OK;
    const size_t n = s->cfg->n, chunks = dot_chunks(s), chunk = s->dot_chunk;
    const double roundings = (double)chunk + log2((double)s->cfg->wg) + 2.0;
    double *host = NULL, worst = 0;
    FB_ALLOC(host, chunks, "the stream dot check");
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->is_double, s->partial, chunks, host));
    for (size_t g = 0; g < chunks; ++g) {
        const size_t len = n - g * chunk < chunk ? n - g * chunk : chunk;
        const double expect = (double)len * term, err = fabs(host[g] - expect) / expect;
        if (!(err <= worst)) worst = err; /* NaN propagates as a failure */
    }
    r->max_rel_error = worst;
    r->checked_ok = worst <= roundings * (s->cfg->is_double ? DBL_EPSILON : FLT_EPSILON);
fail:
    free(host);
    return status;
}

static fb_status check_output(stream_run *s, int which, fb_stream_result *r)
{
    fb_status status = FB_OK;
    fb_buffer *outputs[] = {s->c, s->b, s->c, s->a};
    size_t n = s->cfg->n;
    double expect[FB_STREAM_NKERNELS], worst = 0, *host = NULL;
    expected_values(s->cfg->is_double, expect);
    if (which == FB_STREAM_DOT) return check_dot(s, expect[which], r);
    FB_ALLOC(host, n, "the stream check");
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->is_double, outputs[which], n, host));
    for (size_t i = 0; i < n; ++i) {
        double err = fabs(host[i] - expect[which]) / fabs(expect[which]);
        if (!(err <= worst)) worst = err; /* NaN propagates as a failure */
    }
    r->max_rel_error = worst;
    /* Contracting b + q*c into an FMA may differ from the host by one rounding. */
    r->checked_ok = worst <= 4.0 * (s->cfg->is_double ? DBL_EPSILON : FLT_EPSILON);
fail:
    free(host);
    return status;
}

static void derive(const stream_run *s, fb_stream_result *r)
{
    double elem = fb_real_size(s->cfg->is_double);
    const double partials = r->model == &fb_stream_models[FB_STREAM_DOT] ? (double)dot_chunks(s) : 0.0;
    r->bytes = ((double)r->model->words * (double)s->cfg->n + partials) * elem;
    r->gbs = r->bytes / r->m.stats.median * 1e-9;
    r->gbs_best = r->bytes / r->m.stats.min * 1e-9;
    r->gflops = (double)r->model->flops * (double)s->cfg->n / r->m.stats.median * 1e-9;
}

static fb_status validate_config(const fb_target *t, const fb_stream_config *cfg)
{
    fb_status status = FB_OK;
    const fb_device_info *info = fb_target_info(t);
    if (cfg->n < 1 || cfg->n > (size_t)INT32_MAX)
        FB_FAIL(FB_ERR_USAGE, "stream size %zu is outside 1..%d", cfg->n, INT32_MAX);
    if (cfg->wg < 1) FB_FAIL(FB_ERR_USAGE, "work-group size must be positive");
    if (info->max_work_group_size && cfg->wg > info->max_work_group_size)
        FB_FAIL(FB_ERR_USAGE, "%s: work-group size %zu exceeds the device limit %zu", info->id, cfg->wg,
                info->max_work_group_size);
    if (cfg->is_double && !info->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: device has no double precision (use --precision single)", info->id);
fail:
    return status;
}

fb_status fb_stream_run(fb_target *t, const fb_stream_config *cfg, fb_stream_result results[FB_STREAM_NKERNELS],
                        fb_stream_progress_fn progress, void *progress_ctx)
{
    fb_status status = FB_OK;
    stream_run s = {.t = t, .cfg = cfg};
    size_t bytes = cfg->n * fb_real_size(cfg->is_double);
    int failed_check = -1;
    memset(results, 0, FB_STREAM_NKERNELS * sizeof *results);
    FB_CHECK(validate_config(t, cfg));
    s.launch = fb_launch_1d(cfg->n, cfg->wg);
    s.dot_chunk = fb_stream_dot_chunk(fb_target_info(t));
    s.dot_launch = fb_launch_1d(dot_chunks(&s) * cfg->wg, cfg->wg);
    FB_CHECK(fb_target_alloc(t, bytes, &s.a));
    FB_CHECK(fb_target_alloc(t, bytes, &s.b));
    FB_CHECK(fb_target_alloc(t, bytes, &s.c));
    FB_CHECK(fb_target_alloc(t, dot_chunks(&s) * fb_real_size(cfg->is_double), &s.partial));
    FB_CHECK(fill(&s, s.a, 0.1));
    FB_CHECK(fill(&s, s.b, 0.2));
    FB_CHECK(fill(&s, s.c, 0.0));

    for (int k = 0; k < FB_STREAM_NKERNELS; ++k) {
        fb_stream_result *r = &results[k];
        r->model = &fb_stream_models[k];
        FB_CHECK(build(&s, r->model->kernel, &s.kernel));
        set_args(&s, k);
        s.active = k == FB_STREAM_DOT ? &s.dot_launch : &s.launch;
        FB_CHECK(fb_target_measure(t, &cfg->measure, sample, &s, fb_target_flush_callback, t, &r->m));
        derive(&s, r);
        FB_CHECK(check_output(&s, k, r));
        if (!r->checked_ok && failed_check < 0) failed_check = k;
        if (progress) progress(r, progress_ctx);
    }
    if (failed_check >= 0)
        FB_FAIL(FB_ERR_CHECK, "%s: stream %s result wrong (max relative error %.3g)", fb_target_info(t)->id,
                fb_stream_models[failed_check].name, results[failed_check].max_rel_error);
fail:
    fb_target_release(t, s.a);
    fb_target_release(t, s.b);
    fb_target_release(t, s.c);
    fb_target_release(t, s.partial);
    return status;
}

void fb_stream_results_free(fb_stream_result results[FB_STREAM_NKERNELS])
{
    for (int k = 0; k < FB_STREAM_NKERNELS; ++k)
        fb_measurement_free(&results[k].m);
}

fb_status fb_stream_triad_measure(fb_target *t, size_t n, int is_double, fb_stream_triad *out)
{
    fb_status status;
    fb_stream_result results[FB_STREAM_NKERNELS];
    fb_stream_config cfg = {
        .n = fb_stream_size_of(fb_target_info(t), is_double, n).n, .is_double = is_double, .wg = 256};
    cfg.measure = fb_measure_defaults();
    cfg.measure.budget_s = 0.5;   /* a reference, not the study: the median settles well within it */
    cfg.measure.min_samples = 10; /* enough for a stated spread */
    memset(out, 0, sizeof *out);
    status = fb_stream_run(t, &cfg, results, NULL, NULL);
    if (status == FB_OK) fb_stream_triad_of(results, cfg.n, out);
    fb_stream_results_free(results);
    return status;
}

void fb_stream_triad_of(const fb_stream_result results[FB_STREAM_NKERNELS], size_t n, fb_stream_triad *out)
{
    const fb_stream_result *triad = &results[FB_STREAM_TRIAD], *dot = &results[FB_STREAM_DOT];
    const fb_stats *st = &triad->m.stats;
    const fb_contention *w = &triad->m.env;
    memset(out, 0, sizeof *out);
    out->gbs = triad->gbs, out->n = n, out->samples = triad->m.nsamples;
    out->read_gbs = dot->checked_ok ? dot->gbs : 0.0;
    out->gbs_min = st->max > 0 ? triad->bytes / st->max * 1e-9 : 0.0;
    out->gbs_max = st->min > 0 ? triad->bytes / st->min * 1e-9 : 0.0;
    out->quality = triad->m.quality;
    snprintf(out->quality_why, sizeof out->quality_why, "%s", triad->m.quality_why);
    out->wait_fraction = fb_contention_wait_fraction(w);
    out->others_max = w->others_max;
    out->load = w->load_first;
    gethostname(out->host, sizeof out->host - 1);
}

/* "cache_resident" (the arrays within the last-level cache), "cache_reuse"
 * (under 4x it: no DRAM figure) and, for the latter, a "roofline_note",
 * the fields and the sentence spmv, grid and solve records use too. */
static void set_cache_fields(json_t *rec, const fb_device_info *d, const fb_stream_config *cfg)
{
    char note[512];
    const fb_stream_size s = fb_stream_size_of(d, cfg->is_double, cfg->n);
    fb_stream_size_set_json(rec, &s);
    fb_stream_size_note(d, &s, note, sizeof note);
    if (*note) json_object_set_new(rec, "roofline_note", json_string(note));
}

json_t *fb_stream_record(const fb_device_info *d, const fb_stream_config *cfg, const fb_stream_result *r)
{
    size_t elem = fb_real_size(cfg->is_double);
    json_t *rec = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:I, s:I}, s:f, s:f, s:I, s:I, s:b}", "benchmark", "stream", "kernel",
        r->model->name, "backend", d->backend, "device", d->id, "device_name", d->name, "precision",
        cfg->is_double ? "double" : "single", "params", "n", (json_int_t)cfg->n, "wg", (json_int_t)cfg->wg, "bytes",
        r->bytes, "flops", (double)r->model->flops * (double)cfg->n, "working_set_bytes",
        (json_int_t)(3 * cfg->n * elem), "device_cache_bytes", (json_int_t)d->cache_bytes, "cold", cfg->measure.cold);
    json_object_set_new(rec, "stats", fb_json_measurement(&r->m));
    json_object_set_new(rec, "gbs", json_real(r->gbs));
    json_object_set_new(rec, "gbs_best", json_real(r->gbs_best));
    json_object_set_new(rec, "gflops", json_real(r->gflops));
    fb_json_set_energy(rec, &r->m, (double)r->model->flops * (double)cfg->n);
    fb_json_set_environment(rec, &r->m);
    json_object_set_new(rec, "check", json_pack("{s:f, s:b}", "max_rel_error", r->max_rel_error, "ok", r->checked_ok));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    set_cache_fields(rec, d, cfg);
    if (r->model == &fb_stream_models[FB_STREAM_DOT])
        json_object_set_new(rec, "dot",
                            json_pack("{s:I, s:s}", "chunk", (json_int_t)fb_stream_dot_chunk(d), "layout",
                                      d->host_cpu ? "contiguous per item" : "interleaved items"));
    return rec;
}
