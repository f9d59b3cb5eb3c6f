/* openmp.c - the host backend: the OpenMP baseline every speedup is
 * measured against.
 *
 * There is no device compiler here. build() looks the kernel name up in the
 * OpenMP twins the program spec carries (its family's host table) and
 * picks the precision the REAL define names; launch() calls the C function and times it with the
 * monotonic clock. Buffers are host memory, 64-byte aligned and first
 * touched in parallel with a static schedule, so pages land near the
 * threads whose static loops will stream them.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "../core/measure.h"
#include "../core/sysinfo.h"

#define MAX_ARGS 32
#define FLUSH_MIN_BYTES (64u << 20)

struct fb_buffer {
    void *data;
    size_t bytes;
    fb_buffer *next;
};

struct fb_kernel {
    const fb_host_kernel *host;
    fb_host_defines defines;
};

struct fb_device {
    fb_buffer *buffers; /* every live buffer, freed at close */
    unsigned char *flush;
    size_t flush_bytes;
};

static int probe_openmp(char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    return 1;
}

static fb_status device_info_openmp(int index, fb_device_info *info)
{
    fb_status status = FB_OK;
    fb_host_info host;
    if (index != 0) FB_FAIL(FB_ERR_UNAVAILABLE, "openmp: no device %d (the host is device 0)", index);
    fb_host_info_get(&host);
    memset(info, 0, sizeof *info);
    snprintf(info->backend, sizeof info->backend, "openmp");
    snprintf(info->id, sizeof info->id, "openmp:0");
    snprintf(info->name, sizeof info->name, "%s", host.cpu_model);
    snprintf(info->vendor, sizeof info->vendor, "%s", host.cpu_vendor);
    snprintf(info->device_version, sizeof info->device_version, "%d logical CPUs", host.logical_cpus);
    snprintf(info->driver_version, sizeof info->driver_version, "%s", host.os);
    snprintf(info->runtime_version, sizeof info->runtime_version, "OpenMP %d, %s", _OPENMP, FB_C_COMPILER);
    info->compute_units = host.omp_threads;
    info->max_work_group_size = 0; /* no limit: launch geometry is ignored */
    info->local_mem_bytes = 0;
    info->global_mem_bytes = host.memory_bytes;
    info->cache_bytes = host.llc_bytes;
    info->clock_mhz = (int)host.cpu_mhz;
    info->double_support = 1;
    info->subgroup_size = 0;
    info->host_cpu = 1;
    info->in_process = 1;
    snprintf(info->simd, sizeof info->simd, "%s", host.simd);
    info->simd_bits = host.simd_bits;
    snprintf(info->simd_source, sizeof info->simd_source, "%s", host.simd_source);
fail:
    return status;
}

static fb_status open_openmp(int index, fb_device **out)
{
    fb_status status = FB_OK;
    fb_device *dev = NULL;
    if (index != 0) FB_FAIL(FB_ERR_UNAVAILABLE, "openmp: no device %d (the host is device 0)", index);
    FB_ALLOC(dev, 1, "openmp device");
    *out = dev;
fail:
    return status;
}

static void close_openmp(fb_device *dev)
{
    while (dev->buffers) {
        fb_buffer *b = dev->buffers;
        dev->buffers = b->next;
        free(b->data);
        free(b);
    }
    free(dev->flush);
    free(dev);
}

/* Parallel memset/memcpy with the same static partition the kernels use. */
static void parallel_copy(unsigned char *dst, const unsigned char *src, size_t bytes)
{
#pragma omp parallel
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        size_t chunk = (bytes + (size_t)nt - 1) / (size_t)nt;
        size_t lo = (size_t)t * chunk, hi = lo + chunk > bytes ? bytes : lo + chunk;
        if (lo < hi) {
            if (src)
                memcpy(dst + lo, src + lo, hi - lo);
            else
                memset(dst + lo, 0, hi - lo);
        }
    }
}

static fb_status alloc_openmp(fb_device *dev, size_t bytes, fb_buffer **out)
{
    fb_status status = FB_OK;
    fb_buffer *b = NULL;
    size_t rounded = ((bytes ? bytes : 1) + 63) & ~(size_t)63;
    FB_ALLOC(b, 1, "buffer record");
    b->data = aligned_alloc(64, rounded);
    if (!b->data) FB_FAIL(FB_ERR_NOMEM, "openmp: out of host memory allocating %zu bytes", bytes);
    b->bytes = bytes;
    parallel_copy(b->data, NULL, rounded); /* first touch */
    b->next = dev->buffers;
    dev->buffers = b;
    *out = b;
    return FB_OK;
fail:
    free(b);
    return status;
}

static void release_openmp(fb_device *dev, fb_buffer *buffer)
{
    for (fb_buffer **p = &dev->buffers; *p; p = &(*p)->next) {
        if (*p == buffer) {
            *p = buffer->next;
            free(buffer->data);
            free(buffer);
            return;
        }
    }
}

static fb_status copy_in_openmp(fb_device *dev, fb_buffer *dst, const void *src, size_t bytes)
{
    fb_status status = FB_OK;
    (void)dev;
    if (bytes > dst->bytes)
        FB_FAIL(FB_ERR_LAUNCH, "openmp: copy of %zu bytes into a %zu-byte buffer", bytes, dst->bytes);
    parallel_copy(dst->data, src, bytes);
fail:
    return status;
}

static fb_status copy_out_openmp(fb_device *dev, void *dst, fb_buffer *src, size_t bytes)
{
    fb_status status = FB_OK;
    (void)dev;
    if (bytes > src->bytes)
        FB_FAIL(FB_ERR_LAUNCH, "openmp: copy of %zu bytes out of a %zu-byte buffer", bytes, src->bytes);
    parallel_copy(dst, src->data, bytes);
fail:
    return status;
}

static fb_status keep_defines(const fb_program_spec *spec, fb_host_defines *out)
{
    fb_status status = FB_OK;
    const int cap = (int)(sizeof out->names / sizeof out->names[0]);
    if (spec->ndefines > cap) FB_FAIL(FB_ERR_BUILD, "openmp: %s: more than %d defines", spec->kernel_name, cap);
    out->n = spec->ndefines;
    for (int i = 0; i < spec->ndefines; ++i) {
        const char *v = spec->defines[i].value ? spec->defines[i].value : "";
        if (strlen(spec->defines[i].name) >= sizeof out->names[i] || strlen(v) >= sizeof out->values[i])
            FB_FAIL(FB_ERR_BUILD, "openmp: %s: define %s too long", spec->kernel_name, spec->defines[i].name);
        snprintf(out->names[i], sizeof out->names[i], "%s", spec->defines[i].name);
        snprintf(out->values[i], sizeof out->values[i], "%s", v);
    }
fail:
    return status;
}

int fb_host_define_int(const fb_host_defines *defs, const char *name, int dflt)
{
    for (int i = 0; i < defs->n; ++i) {
        if (strcmp(defs->names[i], name) != 0) continue;
        char *end = NULL;
        long v = strtol(defs->values[i], &end, 10);
        return (end != defs->values[i] && *end == '\0') ? (int)v : dflt;
    }
    return dflt;
}

/* The twin with this name and precision in a family's table, or NULL. */
static const fb_host_kernel *find_twin(const fb_host_kernel *table, const char *name, const char *real)
{
    for (const fb_host_kernel *k = table; k && k->name; ++k)
        if (strcmp(k->name, name) == 0 && strcmp(k->real, real) == 0) return k;
    return NULL;
}

static fb_status build_openmp(fb_device *dev, const fb_program_spec *spec, fb_kernel **out, char **log)
{
    fb_status status = FB_OK;
    fb_kernel *k = NULL;
    (void)dev;
    if (log) *log = NULL;
    const char *real = fb_defines_get(spec->defines, spec->ndefines, "REAL");
    if (!real) real = "double";
    const fb_host_kernel *host = find_twin(spec->host, spec->kernel_name, real);
    if (!host) FB_FAIL(FB_ERR_UNAVAILABLE, "openmp: no host kernel %s for REAL=%s", spec->kernel_name, real);
    FB_ALLOC(k, 1, "kernel record");
    k->host = host;
    FB_CHECK(keep_defines(spec, &k->defines));
    *out = k;
    return FB_OK;
fail:
    free(k);
    return status;
}

static void release_kernel_openmp(fb_device *dev, fb_kernel *kernel)
{
    (void)dev;
    free(kernel);
}

static fb_status unpack_args(const fb_kernel *k, const fb_arg *args, int nargs, fb_host_arg *host)
{
    fb_status status = FB_OK;
    if (nargs != k->host->nargs || nargs > MAX_ARGS)
        FB_FAIL(FB_ERR_LAUNCH, "openmp: %s takes %d arguments, got %d", k->host->name, k->host->nargs, nargs);
    for (int i = 0; i < nargs; ++i) {
        switch (args[i].kind) {
        case FB_ARG_BUFFER: host[i].ptr = args[i].v.buffer->data; break;
        case FB_ARG_I32: host[i].i32 = args[i].v.i32; break;
        case FB_ARG_F32: host[i].f32 = args[i].v.f32; break;
        case FB_ARG_F64: host[i].f64 = args[i].v.f64; break;
        }
    }
fail:
    return status;
}

static fb_status launch_openmp(fb_device *dev, fb_kernel *kernel, const fb_launch *launch, const fb_arg *args,
                               int nargs, double *seconds)
{
    fb_status status = FB_OK;
    fb_host_arg host[MAX_ARGS];
    (void)dev;
    FB_CHECK(unpack_args(kernel, args, nargs, host));
    double t0 = fb_now();
    kernel->host->fn(host, launch, &kernel->defines);
    if (seconds) *seconds = fb_now() - t0;
fail:
    return status;
}

static fb_status finish_openmp(fb_device *dev)
{
    (void)dev; /* host kernels return when done */
    return FB_OK;
}

static fb_status flush_cache_openmp(fb_device *dev)
{
    fb_status status = FB_OK;
    if (!dev->flush) {
        fb_host_info host;
        fb_host_info_get(&host);
        size_t bytes = 4 * host.llc_bytes > FLUSH_MIN_BYTES ? 4 * host.llc_bytes : FLUSH_MIN_BYTES;
        dev->flush = aligned_alloc(64, bytes);
        if (!dev->flush) FB_FAIL(FB_ERR_NOMEM, "openmp: no memory for the %zu-byte cache flush buffer", bytes);
        dev->flush_bytes = bytes;
    }
    /* Writing (not reading) every line evicts the LLC on inclusive and
     * non-inclusive caches alike. */
    parallel_copy(dev->flush, NULL, dev->flush_bytes);
fail:
    return status;
}

const fb_backend_ops fb_backend_openmp = {
    .name = "openmp",
    .probe = probe_openmp,
    .device_info = device_info_openmp,
    .open = open_openmp,
    .close = close_openmp,
    .alloc = alloc_openmp,
    .release = release_openmp,
    .copy_in = copy_in_openmp,
    .copy_out = copy_out_openmp,
    .build = build_openmp,
    .release_kernel = release_kernel_openmp,
    .launch = launch_openmp,
    .finish = finish_openmp,
    .flush_cache = flush_cache_openmp,
};
