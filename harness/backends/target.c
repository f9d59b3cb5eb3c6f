/* target.c - backend registry, spec parsing, method checks and build cache. */
#include "target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/grow.h"
#include "../core/comm.h"
#include "../core/contention.h"
#include "../core/energy.h"
#include "../core/hash.h"
#include "../core/kernel_sources.h"
#include "../core/notice.h"

static const fb_backend_ops *const registry[] = {
    &fb_backend_openmp,
    &fb_backend_opencl,
    &fb_backend_cuda,
};

#define NBACKENDS ((int)(sizeof registry / sizeof registry[0]))

typedef struct cache_entry {
    uint64_t key;
    fb_kernel *kernel;
} cache_entry;

struct fb_target {
    const fb_backend_ops *ops;
    fb_device *dev;
    fb_device_info info;
    cache_entry *cache;
    int ncache, cache_cap;
    int cached_hits, compiled;
    fb_energy_meter *energy; /* opened at first use */
    int launch_calibrated;
};

int fb_backend_count(void) { return NBACKENDS; }

const fb_backend_ops *fb_backend_at(int i) { return (i >= 0 && i < NBACKENDS) ? registry[i] : NULL; }

const fb_backend_ops *fb_backend_find(const char *name)
{
    for (int i = 0; i < NBACKENDS; ++i)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

/* Finds the device index a spec suffix names: a plain index, or an id. */
static fb_status resolve_device(const fb_backend_ops *ops, const char *suffix, int ndev, int *index)
{
    fb_status status = FB_OK;
    char *end = NULL;
    long k = strtol(suffix, &end, 10);
    if (end != suffix && *end == '\0') {
        /* the text as given: strtol saturates a number too large for a long */
        if (k < 0 || k >= ndev)
            FB_FAIL(FB_ERR_UNAVAILABLE, "%s: no device %s (%d device%s found; see `flowbench devices`)", ops->name,
                    suffix, ndev, ndev == 1 ? "" : "s");
        *index = (int)k;
        return FB_OK;
    }
    for (int i = 0; i < ndev; ++i) {
        fb_device_info info;
        memset(&info, 0, sizeof info);
        FB_CHECK(ops->device_info(i, &info));
        const char *colon = strchr(info.id, ':');
        if (colon && strcmp(colon + 1, suffix) == 0) {
            *index = i;
            return FB_OK;
        }
    }
    FB_FAIL(FB_ERR_UNAVAILABLE, "%s: no device '%s' (see `flowbench devices`)", ops->name, suffix);
fail:
    return status;
}

#define REQUIRE(ops, m)                                                                                                \
    if (!(ops)->m) FB_FAIL(FB_ERR_UNAVAILABLE, "backend %s does not implement %s()", (ops)->name, #m)

fb_status fb_backend_check_methods(const fb_backend_ops *ops)
{
    fb_status status = FB_OK;
    REQUIRE(ops, probe);
    REQUIRE(ops, device_info);
    REQUIRE(ops, open);
    REQUIRE(ops, close);
    REQUIRE(ops, alloc);
    REQUIRE(ops, release);
    REQUIRE(ops, copy_in);
    REQUIRE(ops, copy_out);
    REQUIRE(ops, build);
    REQUIRE(ops, release_kernel);
    REQUIRE(ops, launch);
    REQUIRE(ops, finish);
    REQUIRE(ops, flush_cache);
fail:
    return status;
}

void fb_target_rank_spec(const char *spec, char *buf, size_t len)
{
    const fb_backend_ops *ops = fb_backend_find(spec); /* NULL for a spec with a device */
    char why[256];
    snprintf(buf, len, "%s", spec);
    if (!ops || !ops->probe || fb_comm_local_rank() == 0) return;
    const int n = ops->probe(why, sizeof why);
    if (n > 1) snprintf(buf, len, "%s:%d", spec, fb_comm_local_rank() % n);
}

fb_status fb_target_open_for_rank(const char *spec, fb_target **out)
{
    char mine[64];
    fb_target_rank_spec(spec, mine, sizeof mine);
    return fb_target_open(mine, out);
}

fb_status fb_target_open(const char *spec, fb_target **out)
{
    fb_status status = FB_OK;
    fb_target *t = NULL;
    char name[32];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    *out = NULL;
    if (len == 0 || len >= sizeof name) FB_FAIL(FB_ERR_USAGE, "bad backend '%s' (expected NAME or NAME:DEVICE)", spec);
    memcpy(name, spec, len);
    name[len] = '\0';

    const fb_backend_ops *ops = fb_backend_find(name);
    if (!ops) FB_FAIL(FB_ERR_USAGE, "unknown backend '%s' (known: openmp, opencl, cuda)", name);
    /* probe first, the rest only once it found a device: a backend that was
     * not compiled in is a table with just its name and a probe saying so. */
    REQUIRE(ops, probe);
    char why[256] = "";
    int ndev = ops->probe(why, sizeof why);
    if (ndev <= 0) FB_FAIL(FB_ERR_UNAVAILABLE, "%s: %s", ops->name, why[0] ? why : "no device");
    FB_CHECK(fb_backend_check_methods(ops));
    int index = 0;
    if (colon) FB_CHECK(resolve_device(ops, colon + 1, ndev, &index));

    FB_ALLOC(t, 1, "target");
    t->ops = ops;
    FB_CHECK(ops->device_info(index, &t->info));
    FB_CHECK(ops->open(index, &t->dev));
    *out = t;
    return FB_OK;
fail:
    free(t);
    return status;
}

void fb_target_close(fb_target *t)
{
    if (!t) return;
    for (int i = 0; i < t->ncache; ++i)
        t->ops->release_kernel(t->dev, t->cache[i].kernel);
    free(t->cache);
    fb_energy_close(t->energy);
    if (t->dev) t->ops->close(t->dev);
    free(t);
}

const fb_device_info *fb_target_info(const fb_target *t) { return &t->info; }
const fb_backend_ops *fb_target_ops(const fb_target *t) { return t->ops; }

fb_status fb_target_alloc(fb_target *t, size_t bytes, fb_buffer **out) { return t->ops->alloc(t->dev, bytes, out); }

void fb_target_release(fb_target *t, fb_buffer *buffer)
{
    if (buffer) t->ops->release(t->dev, buffer);
}

fb_status fb_target_copy_in(fb_target *t, fb_buffer *dst, const void *src, size_t bytes)
{
    return t->ops->copy_in(t->dev, dst, src, bytes);
}

fb_status fb_target_copy_out(fb_target *t, void *dst, fb_buffer *src, size_t bytes)
{
    return t->ops->copy_out(t->dev, dst, src, bytes);
}

/* A build's key: the device, the text the device compiler reads (the
 * preludes and the included helpers with the kernel's own file, not that
 * file alone), the kernel name and the defines. */
static fb_status build_key(const fb_target *t, const fb_program_spec *spec, uint64_t *key)
{
    fb_status status = FB_OK;
    char *program = NULL;
    if (spec->source_text) FB_CHECK(fb_kernel_program_text(NULL, spec->source_name, spec->source_text, &program));
    uint64_t h = fb_hash_str(FB_HASH_SEED, t->info.id);
    h = fb_hash_str(h, program ? program : "");
    h = fb_hash_str(h, spec->kernel_name);
    for (int i = 0; i < spec->ndefines; ++i) {
        h = fb_hash_str(h, spec->defines[i].name);
        h = fb_hash_str(h, spec->defines[i].value ? spec->defines[i].value : "");
    }
    *key = h;
fail:
    free(program);
    return status;
}

fb_status fb_target_build(fb_target *t, const fb_program_spec *spec, fb_kernel **out)
{
    fb_status status = FB_OK;
    uint64_t key = 0;
    if (!spec->source_text) FB_FAIL(FB_ERR_INPUT, "kernel source %s is not embedded", spec->source_name);
    FB_CHECK(build_key(t, spec, &key));
    for (int i = 0; i < t->ncache; ++i) {
        if (t->cache[i].key == key) {
            t->cached_hits++;
            *out = t->cache[i].kernel;
            return FB_OK;
        }
    }
    cache_entry *grown = fb_grow(t->cache, &t->cache_cap, t->ncache + 1, sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory growing the kernel cache");
    t->cache = grown;
    fb_kernel *k = NULL;
    FB_CHECK(t->ops->build(t->dev, spec, &k, NULL));
    t->cache[t->ncache++] = (cache_entry){key, k};
    t->compiled++;
    *out = k;
fail:
    return status;
}

void fb_target_build_counts(const fb_target *t, int *cached, int *compiled)
{
    *cached = t->cached_hits;
    *compiled = t->compiled;
}

fb_status fb_target_launch(fb_target *t, fb_kernel *k, const fb_launch *launch, const fb_arg *args, int nargs,
                           double *seconds)
{
    fb_status status = FB_OK;
    for (int d = 0; d < launch->dims; ++d)
        if (launch->local[d] == 0 || launch->global[d] % launch->local[d] != 0)
            FB_FAIL(FB_ERR_LAUNCH, "%s: global size %zu is not a multiple of local size %zu (dimension %d)", t->info.id,
                    launch->global[d], launch->local[d], d);
    return t->ops->launch(t->dev, k, launch, args, nargs, seconds);
fail:
    return status;
}

fb_status fb_target_finish(fb_target *t) { return t->ops->finish(t->dev); }

fb_status fb_target_flush_cache(fb_target *t) { return t->ops->flush_cache(t->dev); }

fb_status fb_target_flush_callback(void *target) { return fb_target_flush_cache(target); }

/* The energy source of this device, by what it is (target.h). */
static fb_status open_energy(fb_target *t)
{
    const fb_device_info *d = &t->info;
    const int nvidia = strcmp(d->backend, "cuda") == 0 || strstr(d->vendor, "NVIDIA") != NULL;
    char why[320];
    if (d->host_cpu) return fb_energy_open_rapl(&t->energy);
    if (nvidia && d->pci_bus_id[0]) return fb_energy_open_nvml(d->pci_bus_id, &t->energy);
    if (nvidia)
        snprintf(why, sizeof why, "NVML: the %s driver gave no PCI bus id for %s, which NVML finds the board by",
                 d->backend, d->id);
    else
        snprintf(why, sizeof why, "no energy source for %s (%s): NVML reads NVIDIA GPUs, RAPL this host's CPU", d->id,
                 d->name);
    return fb_energy_unavailable(why, &t->energy);
}

struct fb_energy_meter *fb_target_energy(fb_target *t)
{
    const char *why, *throttle;
    if (t->energy || open_energy(t) != FB_OK) return t->energy;
    throttle = fb_energy_throttle_unavailable(t->energy);
    if (fb_comm_rank() != 0) return t->energy;
    if (!fb_energy_available(t->energy, &why)) fb_notice_once("energy unavailable on %s: %s", t->info.id, why);
    if (*throttle && strcmp(throttle, why) != 0)
        fb_notice_once("throttling not checked on %s: %s", t->info.id, throttle);
    return t->energy;
}

/* The calibration's empty kernel: on the host, an empty parallel region
 * (the openmp backend's launch is one). */
static void empty_twin(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)args, (void)launch, (void)defs;
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

static const fb_host_kernel empty_twins[] = {{"fb_empty", "double", 0, empty_twin}, {NULL, NULL, 0, NULL}};

#define LAUNCH_RUNS 50
#define LAUNCH_BUDGET_S 0.05

/* What one empty launch costs from the host, launch to finish, median of
 * at most LAUNCH_RUNS within LAUNCH_BUDGET_S; once per target, before its
 * first measurement, into the records' environment.calibration. A device
 * that cannot build it records nothing: the measurement goes on. */
static void calibrate_launch(fb_target *t)
{
    const fb_program_spec spec = {.source_name = "calibration/empty.cl",
                                  .source_text = "__kernel void fb_empty(void) {}\n",
                                  .kernel_name = "fb_empty",
                                  .host = empty_twins};
    const fb_launch one = fb_launch_1d(1, 1);
    double times[LAUNCH_RUNS], device_s, start;
    fb_kernel *k = NULL;
    int n = 0;
    if (t->launch_calibrated) return;
    t->launch_calibrated = 1;
    if (fb_target_build(t, &spec, &k) != FB_OK) return;
    for (int i = 0; i < 3; ++i)
        if (fb_target_launch(t, k, &one, NULL, 0, &device_s) != FB_OK || fb_target_finish(t) != FB_OK) return;
    for (start = fb_now(); n < LAUNCH_RUNS && fb_now() - start < LAUNCH_BUDGET_S; ++n) {
        double t0 = fb_now();
        if (fb_target_launch(t, k, &one, NULL, 0, &device_s) != FB_OK || fb_target_finish(t) != FB_OK) return;
        times[n] = fb_now() - t0;
    }
    fb_calibration_set_launch(t->info.id, fb_median(times, (size_t)n));
}

fb_status fb_target_measure(fb_target *t, const fb_measure_config *cfg, fb_sample_fn sample, void *ctx,
                            fb_flush_fn flush, void *flush_ctx, fb_measurement *out)
{
    fb_measure_config with = *cfg;
    with.energy = fb_target_energy(t);
    with.cpu_threads = t->info.host_cpu ? t->info.compute_units : 1;
    calibrate_launch(t);
    return fb_measure(&with, sample, ctx, flush, flush_ctx, out);
}

fb_arg fb_arg_buffer(fb_buffer *b) { return (fb_arg){.kind = FB_ARG_BUFFER, .v.buffer = b}; }

fb_arg fb_arg_i32(int32_t v) { return (fb_arg){.kind = FB_ARG_I32, .v.i32 = v}; }

fb_status fb_target_kernel_resources(fb_target *t, fb_kernel *k, size_t group_items, fb_kernel_resources *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    if (!t->ops->kernel_resources)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: the backend reports no kernel resources", t->ops->name);
    FB_CHECK(t->ops->kernel_resources(t->dev, k, group_items, out));
fail:
    return status;
}

fb_status fb_target_upload(fb_target *t, const void *src, size_t bytes, fb_buffer **out)
{
    fb_status status = fb_target_alloc(t, bytes, out);
    return status == FB_OK ? fb_target_copy_in(t, *out, src, bytes) : status;
}

size_t fb_real_size(int is_double) { return is_double ? sizeof(double) : sizeof(float); }

fb_status fb_target_write_reals(fb_target *t, int is_double, fb_buffer *dst, const double *src, size_t n)
{
    fb_status status = FB_OK;
    float *single = NULL;
    if (is_double) return fb_target_copy_in(t, dst, src, n * sizeof(double));
    FB_ALLOC(single, n, "a single-precision copy");
    for (size_t i = 0; i < n; ++i)
        single[i] = (float)src[i];
    status = fb_target_copy_in(t, dst, single, n * sizeof(float));
fail:
    free(single);
    return status;
}

fb_status fb_target_read_reals(fb_target *t, int is_double, fb_buffer *src, size_t n, double *dst)
{
    fb_status status = FB_OK;
    float *single = NULL;
    if (is_double) return fb_target_copy_out(t, dst, src, n * sizeof(double));
    FB_ALLOC(single, n, "a single-precision copy");
    FB_CHECK(fb_target_copy_out(t, single, src, n * sizeof(float)));
    for (size_t i = 0; i < n; ++i)
        dst[i] = single[i];
fail:
    free(single);
    return status;
}

fb_status fb_target_upload_reals(fb_target *t, int is_double, const double *src, size_t n, fb_buffer **out)
{
    fb_status status = fb_target_alloc(t, n * fb_real_size(is_double), out);
    return status == FB_OK ? fb_target_write_reals(t, is_double, *out, src, n) : status;
}

fb_status fb_target_fill_nan(fb_target *t, int is_double, fb_buffer *dst, size_t n)
{
    fb_status status = FB_OK;
    double *nan = NULL;
    FB_ALLOC(nan, n, "a NaN fill");
    for (size_t i = 0; i < n; ++i)
        nan[i] = NAN;
    status = fb_target_write_reals(t, is_double, dst, nan, n);
fail:
    free(nan);
    return status;
}

fb_arg fb_arg_real(int is_double, double v)
{
    if (is_double) return (fb_arg){.kind = FB_ARG_F64, .v.f64 = v};
    return (fb_arg){.kind = FB_ARG_F32, .v.f32 = (float)v};
}

fb_launch fb_launch_1d(size_t n, size_t wg)
{
    fb_launch l = {.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
    l.local[0] = wg;
    l.global[0] = ((n + wg - 1) / wg) * wg;
    if (l.global[0] == 0) l.global[0] = wg;
    return l;
}

fb_status fb_defines_render(const fb_define *defines, int ndefines, char *out, size_t out_len)
{
    fb_status status = FB_OK;
    size_t used = 0;
    if (out_len) out[0] = '\0';
    for (int i = 0; i < ndefines; ++i) {
        const char *v = defines[i].value;
        if (strpbrk(defines[i].name, " \t\"'") || (v && strpbrk(v, " \t\"'")))
            FB_FAIL(FB_ERR_INPUT, "define %s holds a space or quote", defines[i].name);
        int n = v ? snprintf(out + used, out_len - used, "%s-D%s=%s", used ? " " : "", defines[i].name, v)
                  : snprintf(out + used, out_len - used, "%s-D%s", used ? " " : "", defines[i].name);
        if (n < 0 || (size_t)n >= out_len - used) FB_FAIL(FB_ERR_NOMEM, "define list longer than %zu bytes", out_len);
        used += (size_t)n;
    }
fail:
    return status;
}

uint64_t fb_program_spec_key(const fb_program_spec *spec)
{
    uint64_t h = fb_hash_str(0, spec->source_name ? spec->source_name : "");
    h = fb_hash_str(h, spec->source_text ? spec->source_text : "");
    for (int i = 0; i < spec->ndefines; ++i)
        h = fb_hash_str(fb_hash_str(h, spec->defines[i].name), spec->defines[i].value ? spec->defines[i].value : "\1");
    return h;
}

const char *fb_defines_get(const fb_define *defines, int ndefines, const char *name)
{
    for (int i = 0; i < ndefines; ++i)
        if (strcmp(defines[i].name, name) == 0) return defines[i].value ? defines[i].value : "";
    return NULL;
}

/* Case-insensitive: PoCL/clang/NVRTC say "error:", NVIDIA OpenCL "error :", others "Error". */
static int mentions_error(const char *line, size_t len)
{
    for (size_t i = 0; i + 5 <= len; ++i)
        if (strncasecmp(line + i, "error", 5) == 0) return 1;
    return 0;
}

/* The first log line that mentions an error, else the first non-empty one. */
void fb_build_log_first_error(const char *log, char *out, size_t out_len)
{
    const char *fallback = NULL;
    size_t fallback_len = 0;
    out[0] = '\0';
    for (const char *line = log; line && *line;) {
        size_t len = strcspn(line, "\r\n");
        if (mentions_error(line, len)) {
            snprintf(out, out_len, "%.*s", (int)len, line);
            return;
        }
        if (!fallback && len > 0) {
            fallback = line;
            fallback_len = len;
        }
        line += len;
        line += strspn(line, "\r\n");
    }
    if (fallback) snprintf(out, out_len, "%.*s", (int)fallback_len, fallback);
}

void fb_device_fingerprint(const fb_device_info *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s|%s|%d", d->backend, d->name, d->vendor, d->driver_version, d->compute_units);
}
