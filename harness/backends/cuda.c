/* cuda.c - the CUDA backend: the kernels/ *.cl text compiled by NVRTC after
 * the OpenCL-to-CUDA prelude (cuda_compile.c), loaded and launched through
 * the driver API on the device's primary context.
 *
 * libcuda is opened with dlopen at first use rather than linked, so the one
 * binary runs on machines without an NVIDIA driver (CI): probe() then says
 * "no driver found" and the other backends carry on. Only NVRTC is linked.
 * The primary context is the one the CUDA runtime uses too, so the cuSPARSE
 * peer works on the same buffers (cuda_interop.h).
 *
 * Devices are named "cuda:N" in the driver's order. Launches go to the
 * legacy default stream, so every launch and copy is ordered after the ones
 * before it, as on the OpenCL in-order queue. Every buffer and kernel a
 * device hands out is tracked, and close() frees what the caller still holds.
 */
#include "backend.h"
#include "cuda_interop.h"
#include "object_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FB_HAVE_CUDA

#include <cuda.h>
#include <dlfcn.h>

#include "../core/guard.h"
#include "cuda_compile.h"
#include "dynlib.h"

#define FLUSH_MIN_BYTES ((size_t)64 << 20)
#define MAX_KERNEL_PARAMS 32

/* ---- the driver, opened at run time ------------------------------------- */

/* Every driver function used, by its cuda.h name; the header's macros give
 * the versioned symbol (cuMemAlloc -> cuMemAlloc_v2) for both the pointer
 * type and the dlsym name. */
// clang-format off
#define DRIVER_FUNCTIONS(X)                                                                                            \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)           \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)               \
    X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH)                \
    X(cuMemsetD32) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)                 \
    X(cuLaunchKernel) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)                      \
    X(cuEventElapsedTime) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)
// clang-format on

/* Newer than the oldest driver we accept; used when present. */
#define OPTIONAL_DRIVER_FUNCTIONS(X) X(cuFuncGetParamInfo) X(cuDeviceGetPCIBusId)

#define SYMBOL_TEXT(name) #name
#define SYMBOL(name) SYMBOL_TEXT(name)
#define DRIVER_FIELD(name) __typeof__(&name) p_##name;

static struct {
    int tried, usable;
    char why[1024]; /* when not usable */
    char lost[512]; /* the sticky error that lost the context, if one did */
    DRIVER_FUNCTIONS(DRIVER_FIELD)
    OPTIONAL_DRIVER_FUNCTIONS(DRIVER_FIELD)
} drv;

#define CU(name) drv.p_##name

static const char *cu_error_name(CUresult r)
{
    const char *name = NULL;
    if (!drv.p_cuGetErrorName || CU(cuGetErrorName)(r, &name) != CUDA_SUCCESS || !name) return "unknown CUDA error";
    return name;
}

/* Loads libcuda (dynlib.h says where it is looked for) and initialises it
 * once; afterwards drv.usable says whether it worked and drv.why why not. */
static void load_driver(void)
{
    if (drv.tried) return;
    drv.tried = 1;
    char why[sizeof drv.why - 32];
    void *lib = fb_cuda_driver_open(why, sizeof why);
    if (!lib) {
        snprintf(drv.why, sizeof drv.why, "no driver found: %s", why);
        return;
    }
#define LOAD_REQUIRED(name)                                                                                            \
    if (!(drv.p_##name = (__typeof__(drv.p_##name))dlsym(lib, SYMBOL(name)))) {                                        \
        snprintf(drv.why, sizeof drv.why, "driver too old: libcuda.so.1 lacks %s", SYMBOL(name));                      \
        return;                                                                                                        \
    }
#define LOAD_OPTIONAL(name) drv.p_##name = (__typeof__(drv.p_##name))dlsym(lib, SYMBOL(name));
    DRIVER_FUNCTIONS(LOAD_REQUIRED)
    OPTIONAL_DRIVER_FUNCTIONS(LOAD_OPTIONAL)
    CUresult r = CU(cuInit)(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        snprintf(drv.why, sizeof drv.why, "no device");
        return;
    }
    if (r != CUDA_SUCCESS) {
        snprintf(drv.why, sizeof drv.why, "cuInit failed: %s (%d)", cu_error_name(r), (int)r);
        return;
    }
    drv.usable = 1;
    /* The library stays open for the life of the process. */
}

/* Errors after which the context cannot be used again (a kernel's illegal
 * address, instruction or alignment, a launch failure): every later call
 * in this process fails, so only a new process recovers. */
static int sticky_error(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED: return 1;
    default: return 0;
    }
}

/* A sticky error ends the work in a guarded child (the guard records the
 * configuration as crashed with this message and goes on in a new
 * process: core/guard.h); elsewhere it is remembered, so that every later
 * call says the context was lost and why instead of blaming itself. */
static void context_lost(const char *message)
{
    if (!drv.lost[0]) snprintf(drv.lost, sizeof drv.lost, "%s", message);
    fb_guard_fatal(message);
}

static fb_status cu_fail(fb_status st, const char *file, int line, const char *kernel, const char *what, CUresult r)
{
    char message[512];
    snprintf(message, sizeof message, "cuda: %s%s%s%s failed: %s (%d)", kernel ? "kernel " : "", kernel ? kernel : "",
             kernel ? ": " : "", what, cu_error_name(r), (int)r);
    if (sticky_error(r)) context_lost(message);
    return fb_error_set(st, file, line, "%s%s", message,
                        sticky_error(r) ? "; the context is lost, only a new process can use the device again" : "");
}

/* CHECK_CU(call, "cuFoo"): on error, FB_ERR_BACKEND naming the call and the
 * error, then goto fail. CHECK_CU_AS picks the status and the kernel. */
#define CHECK_CU_AS(st, kernel, call, what)                                                                            \
    do {                                                                                                               \
        CUresult r_ = (call);                                                                                          \
        if (r_ != CUDA_SUCCESS) {                                                                                      \
            status = cu_fail((st), __FILE__, __LINE__, (kernel), (what), r_);                                          \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

#define CHECK_CU(call, what) CHECK_CU_AS(FB_ERR_BACKEND, NULL, (call), (what))

static fb_status require_driver(void)
{
    fb_status status = FB_OK;
    load_driver();
    if (!drv.usable) FB_FAIL(FB_ERR_UNAVAILABLE, "cuda: %s", drv.why);
fail:
    return status;
}

/* ---- objects ------------------------------------------------------------ */

struct fb_buffer {
    CUdeviceptr ptr;
    size_t bytes; /* as asked for; the allocation holds at least 1 byte */
    fb_buffer *prev, *next;
};

struct fb_kernel {
    CUmodule module; /* shared with the live kernels of the same key */
    uint64_t module_key;
    CUfunction function;
    char name[FB_TEXT_LEN];
    int max_threads; /* this kernel's own limit (registers) */
    int nparams;     /* -1: the driver cannot say */
    size_t param_size[MAX_KERNEL_PARAMS];
    fb_kernel *prev, *next;
};

struct fb_device {
    CUdevice device;
    CUcontext context; /* the primary context, retained */
    CUevent start, stop;
    int cc_major, cc_minor;
    size_t global_bytes, cache_bytes;
    int max_grid[3];
    int max_threads_per_sm;
    CUdeviceptr flush; /* cache-eviction buffer, allocated on first use */
    size_t flush_bytes;
    unsigned flush_count;
    fb_buffer *buffers; /* live objects, freed by close() */
    fb_kernel *kernels;
};

/* ---- devices ------------------------------------------------------------ */

static int probe_cuda(char *why, size_t why_len)
{
    int n = 0;
    load_driver();
    if (!drv.usable) {
        snprintf(why, why_len, "%s", drv.why);
        return 0;
    }
    CUresult r = CU(cuDeviceGetCount)(&n);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuDeviceGetCount failed: %s", cu_error_name(r));
        return 0;
    }
    if (n == 0) snprintf(why, why_len, "no device");
    return n;
}

static fb_status get_device(int index, CUdevice *out)
{
    fb_status status = FB_OK;
    int n = 0;
    FB_CHECK(require_driver());
    CHECK_CU(CU(cuDeviceGetCount)(&n), "cuDeviceGetCount");
    if (index < 0 || index >= n) FB_FAIL(FB_ERR_UNAVAILABLE, "cuda: no device %d (%d found)", index, n);
    CHECK_CU(CU(cuDeviceGet)(out, index), "cuDeviceGet");
fail:
    return status;
}

static fb_status attribute(CUdevice d, CUdevice_attribute a, const char *what, int *out)
{
    fb_status status = FB_OK;
    CHECK_CU(CU(cuDeviceGetAttribute)(out, a, d), what);
fail:
    return status;
}

#define ATTRIBUTE(d, name, var) FB_CHECK(attribute((d), CU_DEVICE_ATTRIBUTE_##name, #name, &(var)))

static fb_status fill_limits(CUdevice d, fb_device_info *info)
{
    fb_status status = FB_OK;
    int sms = 0, threads = 0, bx = 0, by = 0, bz = 0, gx = 0, gy = 0, gz = 0, shared = 0, l2 = 0, clock_khz = 0,
        warp = 0;
    size_t total = 0;
    ATTRIBUTE(d, MULTIPROCESSOR_COUNT, sms);
    ATTRIBUTE(d, MAX_THREADS_PER_BLOCK, threads);
    ATTRIBUTE(d, MAX_BLOCK_DIM_X, bx);
    ATTRIBUTE(d, MAX_BLOCK_DIM_Y, by);
    ATTRIBUTE(d, MAX_BLOCK_DIM_Z, bz);
    ATTRIBUTE(d, MAX_GRID_DIM_X, gx);
    ATTRIBUTE(d, MAX_GRID_DIM_Y, gy);
    ATTRIBUTE(d, MAX_GRID_DIM_Z, gz);
    /* Static __shared__ arrays (the kernels' __local) are capped at this,
     * not at the larger opt-in size. */
    ATTRIBUTE(d, MAX_SHARED_MEMORY_PER_BLOCK, shared);
    ATTRIBUTE(d, L2_CACHE_SIZE, l2);
    ATTRIBUTE(d, CLOCK_RATE, clock_khz);
    ATTRIBUTE(d, WARP_SIZE, warp);
    ATTRIBUTE(d, COMPUTE_CAPABILITY_MAJOR, info->cc_major);
    ATTRIBUTE(d, COMPUTE_CAPABILITY_MINOR, info->cc_minor);
    CHECK_CU(CU(cuDeviceTotalMem)(&total, d), "cuDeviceTotalMem");
    info->compute_units = sms;
    info->max_work_group_size = (size_t)threads;
    info->max_work_item_sizes[0] = (size_t)bx;
    info->max_work_item_sizes[1] = (size_t)by;
    info->max_work_item_sizes[2] = (size_t)bz;
    info->max_groups[0] = (size_t)gx;
    info->max_groups[1] = (size_t)gy;
    info->max_groups[2] = (size_t)gz;
    info->local_mem_bytes = (size_t)shared;
    info->global_mem_bytes = total;
    info->cache_bytes = (size_t)l2;
    info->clock_mhz = clock_khz / 1000;
    info->subgroup_size = warp;
    info->double_support = 1;
    info->fuses_multiply_add = 1; /* the kernels are compiled with NVRTC's defaults */
fail:
    return status;
}

static fb_status info_cuda(int index, fb_device_info *info)
{
    fb_status status = FB_OK;
    CUdevice d;
    int version = 0;
    memset(info, 0, sizeof *info);
    FB_CHECK(get_device(index, &d));
    snprintf(info->backend, sizeof info->backend, "cuda");
    snprintf(info->id, sizeof info->id, "cuda:%d", index);
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    CHECK_CU(CU(cuDeviceGetName)(info->name, (int)sizeof info->name, d), "cuDeviceGetName");
    FB_CHECK(fill_limits(d, info));
    snprintf(info->device_version, sizeof info->device_version, "sm_%d%d", info->cc_major, info->cc_minor);
    CHECK_CU(CU(cuDriverGetVersion)(&version), "cuDriverGetVersion");
    snprintf(info->driver_version, sizeof info->driver_version, "CUDA driver API %d.%d", version / 1000,
             (version % 1000) / 10);
    FB_CHECK(fb_cuda_nvrtc_version(info->runtime_version, sizeof info->runtime_version));
    /* NVML finds the board by it (energy_nvml.c); best effort */
    if (drv.p_cuDeviceGetPCIBusId &&
        CU(cuDeviceGetPCIBusId)(info->pci_bus_id, (int)sizeof info->pci_bus_id, d) != CUDA_SUCCESS)
        info->pci_bus_id[0] = '\0';
fail:
    return status;
}

/* Every call makes the device's context current: the harness may hold
 * devices of several backends, and a peer library may have switched. */
static fb_status use(fb_device *dev)
{
    fb_status status = FB_OK;
    if (drv.lost[0])
        FB_FAIL(FB_ERR_BACKEND,
                "cuda: the context was lost to an earlier error (%s); only a new process can use the "
                "device again",
                drv.lost);
    CHECK_CU(CU(cuCtxSetCurrent)(dev->context), "cuCtxSetCurrent");
fail:
    return status;
}

static void release_cuda(fb_device *dev, fb_buffer *buffer);
static void release_kernel_cuda(fb_device *dev, fb_kernel *kernel);

static void close_cuda(fb_device *dev)
{
    if (!dev) return;
    if (dev->context) {
        CU(cuCtxSetCurrent)(dev->context);
        CU(cuCtxSynchronize)(); /* work in flight may use what is freed below */
    }
    while (dev->kernels)
        release_kernel_cuda(dev, dev->kernels);
    while (dev->buffers)
        release_cuda(dev, dev->buffers);
    if (dev->flush) CU(cuMemFree)(dev->flush);
    if (dev->start) CU(cuEventDestroy)(dev->start);
    if (dev->stop) CU(cuEventDestroy)(dev->stop);
    if (dev->context) CU(cuDevicePrimaryCtxRelease)(dev->device);
    free(dev);
}

/* What build, alloc, launch and flush_cache need: the properties `devices`
 * reports (fill_limits, read once more here rather than kept twice) plus the
 * launch limits only a launch cares about. */
static fb_status read_device_limits(fb_device *dev)
{
    fb_status status = FB_OK;
    fb_device_info info;
    memset(&info, 0, sizeof info);
    FB_CHECK(fill_limits(dev->device, &info));
    dev->cc_major = info.cc_major;
    dev->cc_minor = info.cc_minor;
    dev->cache_bytes = info.cache_bytes;
    dev->global_bytes = info.global_mem_bytes;
    ATTRIBUTE(dev->device, MAX_GRID_DIM_X, dev->max_grid[0]);
    ATTRIBUTE(dev->device, MAX_GRID_DIM_Y, dev->max_grid[1]);
    ATTRIBUTE(dev->device, MAX_GRID_DIM_Z, dev->max_grid[2]);
    ATTRIBUTE(dev->device, MAX_THREADS_PER_MULTIPROCESSOR, dev->max_threads_per_sm);
fail:
    return status;
}

static fb_status open_cuda(int index, fb_device **out)
{
    fb_status status = FB_OK;
    fb_device *dev = NULL;
    *out = NULL;
    FB_ALLOC(dev, 1, "CUDA device");
    FB_CHECK(get_device(index, &dev->device));
    CHECK_CU(CU(cuDevicePrimaryCtxRetain)(&dev->context, dev->device), "cuDevicePrimaryCtxRetain");
    FB_CHECK(use(dev));
    FB_CHECK(read_device_limits(dev));
    CHECK_CU(CU(cuEventCreate)(&dev->start, CU_EVENT_DEFAULT), "cuEventCreate");
    CHECK_CU(CU(cuEventCreate)(&dev->stop, CU_EVENT_DEFAULT), "cuEventCreate");
    *out = dev;
    return FB_OK;
fail:
    close_cuda(dev);
    return status;
}

/* ---- memory ------------------------------------------------------------- */

static fb_status alloc_cuda(fb_device *dev, size_t bytes, fb_buffer **out)
{
    fb_status status = FB_OK;
    fb_buffer *b = NULL;
    *out = NULL;
    if (bytes > dev->global_bytes)
        FB_FAIL(FB_ERR_NOMEM, "cuda: buffer of %zu bytes is larger than the device's memory (%zu bytes)", bytes,
                dev->global_bytes);
    FB_CHECK(use(dev));
    FB_ALLOC(b, 1, "CUDA buffer record");
    b->bytes = bytes;
    /* cuMemAlloc refuses 0 bytes, but an empty array is a valid input. */
    CHECK_CU_AS(FB_ERR_NOMEM, NULL, CU(cuMemAlloc)(&b->ptr, bytes ? bytes : 1), "cuMemAlloc");
    LIST_PUSH(dev->buffers, b);
    *out = b;
    return FB_OK;
fail:
    free(b);
    return status;
}

static void release_cuda(fb_device *dev, fb_buffer *buffer)
{
    if (!buffer) return;
    LIST_UNLINK(dev->buffers, buffer);
    CU(cuCtxSetCurrent)(dev->context);
    CU(cuMemFree)(buffer->ptr);
    free(buffer);
}

static fb_status check_extent(const fb_buffer *b, size_t bytes, const char *what)
{
    fb_status status = FB_OK;
    if (bytes > b->bytes)
        FB_FAIL(FB_ERR_BACKEND, "cuda: %s of %zu bytes on a buffer of %zu bytes", what, bytes, b->bytes);
fail:
    return status;
}

static fb_status copy_in_cuda(fb_device *dev, fb_buffer *dst, const void *src, size_t bytes)
{
    fb_status status = FB_OK;
    FB_CHECK(check_extent(dst, bytes, "copy_in"));
    if (bytes == 0) return FB_OK;
    FB_CHECK(use(dev));
    CHECK_CU(CU(cuMemcpyHtoD)(dst->ptr, src, bytes), "cuMemcpyHtoD");
fail:
    return status;
}

static fb_status copy_out_cuda(fb_device *dev, void *dst, fb_buffer *src, size_t bytes)
{
    fb_status status = FB_OK;
    FB_CHECK(check_extent(src, bytes, "copy_out"));
    if (bytes == 0) return FB_OK;
    FB_CHECK(use(dev));
    CHECK_CU(CU(cuMemcpyDtoH)(dst, src->ptr, bytes), "cuMemcpyDtoH");
fail:
    return status;
}

/* ---- build -------------------------------------------------------------- */

static void free_kernel(fb_kernel *k)
{
    if (!k) return;
    if (k->module) CU(cuModuleUnload)(k->module);
    free(k);
}

/* Parameter sizes, so a launch with a float where the kernel takes a double
 * is refused instead of running on garbage (cuLaunchKernel cannot tell).
 * Drivers before CUDA 12.4 cannot say: nparams = -1 and launches go
 * unchecked. */
static void read_params(fb_kernel *k)
{
    k->nparams = -1;
    if (!drv.p_cuFuncGetParamInfo) return;
    int n = 0;
    size_t offset = 0, size = 0;
    while (n < MAX_KERNEL_PARAMS && CU(cuFuncGetParamInfo)(k->function, (size_t)n, &offset, &size) == CUDA_SUCCESS)
        k->param_size[n++] = size;
    k->nparams = n;
}

/* A live kernel of the same module (fb_program_spec_key). */
static const fb_kernel *built_module(const fb_device *dev, uint64_t key)
{
    for (const fb_kernel *k = dev->kernels; k; k = k->next)
        if (k->module_key == key) return k;
    return NULL;
}

/* k->module: a live kernel's of the same key, else compiled and loaded. */
static fb_status share_or_load_module(fb_device *dev, const fb_program_spec *spec, fb_kernel *k, char **log)
{
    fb_status status = FB_OK;
    fb_cuda_image image = {0};
    const fb_kernel *twin = built_module(dev, k->module_key);
    if (twin) {
        k->module = twin->module;
        return FB_OK;
    }
    FB_CHECK(fb_cuda_compile(spec, dev->cc_major, dev->cc_minor, &image, log));
    CHECK_CU_AS(FB_ERR_BUILD, k->name, CU(cuModuleLoadData)(&k->module, image.data), "cuModuleLoadData");
fail:
    fb_cuda_image_free(&image);
    return status;
}

static fb_status find_function(fb_kernel *k, const fb_program_spec *spec)
{
    fb_status status = FB_OK;
    CUresult r = CU(cuModuleGetFunction)(&k->function, k->module, spec->kernel_name);
    if (r == CUDA_ERROR_NOT_FOUND)
        FB_FAIL(FB_ERR_BUILD, "%s: %s: build failed: no __kernel of that name in the source", spec->source_name,
                spec->kernel_name);
    CHECK_CU_AS(FB_ERR_BUILD, k->name, r, "cuModuleGetFunction");
    CHECK_CU(CU(cuFuncGetAttribute)(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function),
             "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
    read_params(k);
fail:
    return status;
}

/* A kernel out of dev's list: its module unloaded unless a live kernel
 * shares it. */
static void drop_kernel(fb_device *dev, fb_kernel *k)
{
    if (k && built_module(dev, k->module_key)) k->module = NULL;
    free_kernel(k);
}

static fb_status build_cuda(fb_device *dev, const fb_program_spec *spec, fb_kernel **out, char **log)
{
    fb_status status = FB_OK;
    fb_kernel *k = NULL;
    fb_program_spec named = *spec; /* every message names the source */
    if (!named.source_name) named.source_name = "(unnamed source)";
    spec = &named;
    *out = NULL;
    if (log) *log = NULL;
    FB_CHECK(use(dev));
    FB_ALLOC(k, 1, "CUDA kernel record");
    snprintf(k->name, sizeof k->name, "%s", spec->kernel_name);
    k->module_key = fb_program_spec_key(spec);
    FB_CHECK(share_or_load_module(dev, spec, k, log));
    FB_CHECK(find_function(k, spec));
    LIST_PUSH(dev->kernels, k);
    *out = k;
    return FB_OK;
fail:
    drop_kernel(dev, k);
    return status;
}

static void release_kernel_cuda(fb_device *dev, fb_kernel *kernel)
{
    if (!kernel) return;
    LIST_UNLINK(dev->kernels, kernel);
    CU(cuCtxSetCurrent)(dev->context);
    drop_kernel(dev, kernel);
}

/* ---- launch ------------------------------------------------------------- */

typedef union arg_value {
    CUdeviceptr ptr;
    int32_t i32;
    float f32;
    double f64;
} arg_value;

static size_t arg_size(fb_arg_kind kind)
{
    switch (kind) {
    case FB_ARG_BUFFER: return sizeof(CUdeviceptr);
    case FB_ARG_I32: return sizeof(int32_t);
    case FB_ARG_F32: return sizeof(float);
    case FB_ARG_F64: return sizeof(double);
    }
    return 0;
}

static fb_status pack_arg(const fb_kernel *k, int i, const fb_arg *a, arg_value *v)
{
    static const char *const kinds[] = {"buffer", "i32", "f32", "f64"};
    fb_status status = FB_OK;
    size_t size = arg_size(a->kind);
    if (size == 0) FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: argument %d has unknown kind %d", k->name, i, (int)a->kind);
    if (a->kind == FB_ARG_BUFFER && !a->v.buffer)
        FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: argument %d is a NULL buffer", k->name, i);
    if (k->nparams >= 0 && k->param_size[i] != size)
        FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: argument %d is %s (%zu bytes) but the parameter takes %zu bytes",
                k->name, i, kinds[a->kind], size, k->param_size[i]);
    switch (a->kind) {
    case FB_ARG_BUFFER: v->ptr = a->v.buffer->ptr; break;
    case FB_ARG_I32: v->i32 = a->v.i32; break;
    case FB_ARG_F32: v->f32 = a->v.f32; break;
    case FB_ARG_F64: v->f64 = a->v.f64; break;
    }
fail:
    return status;
}

static fb_status pack_args(const fb_kernel *k, const fb_arg *args, int nargs, arg_value *values, void **params)
{
    fb_status status = FB_OK;
    if (nargs > MAX_KERNEL_PARAMS)
        FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: %d arguments, at most %d supported", k->name, nargs,
                MAX_KERNEL_PARAMS);
    if (k->nparams >= 0 && nargs != k->nparams)
        FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s takes %d arguments, got %d", k->name, k->nparams, nargs);
    for (int i = 0; i < nargs; ++i) {
        FB_CHECK(pack_arg(k, i, &args[i], &values[i]));
        params[i] = &values[i];
    }
fail:
    return status;
}

/* OpenCL geometry (global items, local items) to a CUDA grid and block. */
static fb_status grid_of(const fb_device *dev, const fb_kernel *k, const fb_launch *l, unsigned grid[3],
                         unsigned block[3])
{
    fb_status status = FB_OK;
    size_t items = 1;
    if (l->dims < 1 || l->dims > 3)
        FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: %d launch dimensions (1 to 3 allowed)", k->name, l->dims);
    for (int d = 0; d < 3; ++d) {
        size_t global = d < l->dims ? l->global[d] : 1, local = d < l->dims ? l->local[d] : 1;
        if (local == 0 || global % local != 0)
            FB_FAIL(FB_ERR_LAUNCH,
                    "cuda: kernel %s: global size %zu is not a multiple of the work-group size %zu "
                    "in dimension %d",
                    k->name, global, local, d);
        if (global / local > (size_t)dev->max_grid[d])
            FB_FAIL(FB_ERR_LAUNCH, "cuda: kernel %s: %zu work-groups in dimension %d exceed the device's %d", k->name,
                    global / local, d, dev->max_grid[d]);
        grid[d] = (unsigned)(global / local);
        block[d] = (unsigned)local;
        items *= local;
    }
    if (items > (size_t)k->max_threads)
        FB_FAIL(FB_ERR_LAUNCH,
                "cuda: kernel %s: work-group of %zu items exceeds this kernel's limit of %d "
                "(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)",
                k->name, items, k->max_threads);
fail:
    return status;
}

/* Waits for the stop event (where a kernel fault surfaces) and reads the
 * time between the two events. */
static fb_status event_seconds(fb_device *dev, const fb_kernel *k, double *seconds)
{
    fb_status status = FB_OK;
    float ms = 0;
    CHECK_CU_AS(FB_ERR_LAUNCH, k->name, CU(cuEventSynchronize)(dev->stop), "cuEventSynchronize");
    CHECK_CU(CU(cuEventElapsedTime)(&ms, dev->start, dev->stop), "cuEventElapsedTime");
    *seconds = (double)ms * 1e-3;
fail:
    return status;
}

static fb_status launch_cuda(fb_device *dev, fb_kernel *k, const fb_launch *launch, const fb_arg *args, int nargs,
                             double *seconds)
{
    fb_status status = FB_OK;
    unsigned grid[3], block[3];
    arg_value values[MAX_KERNEL_PARAMS];
    void *params[MAX_KERNEL_PARAMS];
    FB_CHECK(grid_of(dev, k, launch, grid, block));
    FB_CHECK(pack_args(k, args, nargs, values, params));
    FB_CHECK(use(dev));
    if (seconds) CHECK_CU(CU(cuEventRecord)(dev->start, NULL), "cuEventRecord");
    CHECK_CU_AS(
        FB_ERR_LAUNCH, k->name,
        CU(cuLaunchKernel)(k->function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, params, NULL),
        "cuLaunchKernel");
    if (seconds) {
        CHECK_CU(CU(cuEventRecord)(dev->stop, NULL), "cuEventRecord");
        FB_CHECK(event_seconds(dev, k, seconds));
    }
fail:
    return status;
}

static fb_status finish_cuda(fb_device *dev)
{
    fb_status status = FB_OK;
    FB_CHECK(use(dev));
    CHECK_CU_AS(FB_ERR_LAUNCH, NULL, CU(cuCtxSynchronize)(), "cuCtxSynchronize");
fail:
    return status;
}

/* Twice the L2 and at least 64 MiB, written with a new value each time so
 * nothing can skip the write as redundant. Allocated on first use. */
static fb_status flush_cache_cuda(fb_device *dev)
{
    fb_status status = FB_OK;
    FB_CHECK(use(dev));
    if (!dev->flush) {
        size_t bytes = 2 * dev->cache_bytes > FLUSH_MIN_BYTES ? 2 * dev->cache_bytes : FLUSH_MIN_BYTES;
        CHECK_CU_AS(FB_ERR_NOMEM, NULL, CU(cuMemAlloc)(&dev->flush, bytes), "cuMemAlloc (cache flush buffer)");
        dev->flush_bytes = bytes;
    }
    CHECK_CU(CU(cuMemsetD32)(dev->flush, ++dev->flush_count, dev->flush_bytes / 4), "cuMemsetD32");
    CHECK_CU(CU(cuCtxSynchronize)(), "cuCtxSynchronize");
fail:
    return status;
}

static fb_status function_attribute(const fb_kernel *k, CUfunction_attribute a, const char *what, int *out)
{
    fb_status status = FB_OK;
    CHECK_CU_AS(FB_ERR_BACKEND, k->name, CU(cuFuncGetAttribute)(out, a, k->function), what);
fail:
    return status;
}

#define FUNC_ATTRIBUTE(k, name, var) FB_CHECK(function_attribute((k), CU_FUNC_ATTRIBUTE_##name, #name, &(var)))

static fb_status kernel_resources_cuda(fb_device *dev, fb_kernel *k, size_t group_items, fb_kernel_resources *out)
{
    fb_status status = FB_OK;
    int regs = 0, local = 0, shared = 0, max_threads = 0, blocks = 0;
    memset(out, 0, sizeof *out);
    FB_CHECK(use(dev));
    FUNC_ATTRIBUTE(k, NUM_REGS, regs);
    FUNC_ATTRIBUTE(k, LOCAL_SIZE_BYTES, local);
    FUNC_ATTRIBUTE(k, SHARED_SIZE_BYTES, shared);
    FUNC_ATTRIBUTE(k, MAX_THREADS_PER_BLOCK, max_threads);
    out->registers = regs;
    out->private_bytes = (size_t)local;
    out->local_bytes = (size_t)shared;
    out->max_group_items = (size_t)max_threads;
    out->group_multiple = 32;
    if (group_items == 0 || group_items > (size_t)max_threads)
        return FB_OK; /* no occupancy for a launch that cannot run */
    CHECK_CU_AS(FB_ERR_BACKEND, k->name,
                CU(cuOccupancyMaxActiveBlocksPerMultiprocessor)(&blocks, k->function, (int)group_items, 0),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    out->groups_per_unit = blocks;
    size_t warps_per_group = (group_items + 31) / 32;
    if (dev->max_threads_per_sm > 0)
        out->occupancy = (double)((size_t)blocks * warps_per_group) / (double)(dev->max_threads_per_sm / 32);
fail:
    return status;
}

unsigned long long fb_cuda_buffer_address(const fb_buffer *buffer) { return buffer ? buffer->ptr : 0; }

const fb_backend_ops fb_backend_cuda = {
    .name = "cuda",
    .probe = probe_cuda,
    .device_info = info_cuda,
    .open = open_cuda,
    .close = close_cuda,
    .alloc = alloc_cuda,
    .release = release_cuda,
    .copy_in = copy_in_cuda,
    .copy_out = copy_out_cuda,
    .build = build_cuda,
    .release_kernel = release_kernel_cuda,
    .launch = launch_cuda,
    .finish = finish_cuda,
    .flush_cache = flush_cache_cuda,
    .kernel_resources = kernel_resources_cuda,
};

#else /* !FB_HAVE_CUDA */

/* Not compiled in: the name and a probe that says why. target.c asks for
 * the other methods only once probe has found a device. */
#define NOT_BUILT "not built (CUDA toolkit with NVRTC not found at configure time)"

static int probe_cuda(char *why, size_t why_len)
{
    snprintf(why, why_len, "%s", NOT_BUILT);
    return 0;
}

const fb_backend_ops fb_backend_cuda = {
    .name = "cuda",
    .probe = probe_cuda,
};

unsigned long long fb_cuda_buffer_address(const fb_buffer *buffer)
{
    (void)buffer;
    return 0;
}

#endif /* FB_HAVE_CUDA */
