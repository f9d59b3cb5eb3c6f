/* opencl.c - the OpenCL backend: builds kernels/ *.cl text with the device's
 * own compiler and runs it on any OpenCL device (GPUs through their vendor
 * ICDs, the CPU through PoCL in CI).
 *
 * Devices are numbered flat across platforms, in platform order, and named
 * "opencl:P.D" (platform P, device D within it). Every buffer and kernel a
 * device hands out is tracked in its fb_device, so close() frees whatever
 * the caller still holds. Only OpenCL 1.2 calls are used, plus the 1.x
 * profiling command queue, so NVIDIA's 1.2/3.0 runtime works as well as
 * PoCL's 3.0 one.
 *
 * Built without OpenCL, the table is only the name and a probe() that says
 * why.
 */
#include "backend.h"
#include "flush_size.h"
#include "object_list.h"
#include "../core/contention.h"
#include "../core/kernel_sources.h"
#include "../core/sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef FB_HAVE_OPENCL

/* clCreateCommandQueue is deprecated from 2.0 on, but its replacement
 * (clCreateCommandQueueWithProperties) does not exist on 1.2 runtimes. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

/* Vendor queries from cl_ext.h, spelled out for older headers. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif
#ifndef CL_DEVICE_SUB_GROUP_SIZES_INTEL
#define CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#endif
#ifndef CL_DEVICE_WAVEFRONT_WIDTH_AMD
#define CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#endif

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64 /* per platform */

/* ---- errors ------------------------------------------------------------ */

/* Numbers rather than the header's macros, so the table does not depend on
 * which CL_TARGET_OPENCL_VERSION the headers were asked for. */
static const struct {
    cl_int code;
    const char *name;
} cl_error_names[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
};

static const char *cl_error_name(cl_int err)
{
    for (size_t i = 0; i < sizeof cl_error_names / sizeof cl_error_names[0]; ++i)
        if (cl_error_names[i].code == err) return cl_error_names[i].name;
    return "unknown OpenCL error";
}

/* Records a failed CL call; `kernel` (may be NULL) says which kernel it
 * concerned, so a failed launch in a long sweep can be traced back. */
static fb_status cl_fail(fb_status st, const char *file, int line, const char *kernel, const char *what, cl_int err)
{
    if (kernel)
        return fb_error_set(st, file, line, "opencl: kernel %s: %s failed: %s (%d)", kernel, what, cl_error_name(err),
                            (int)err);
    return fb_error_set(st, file, line, "opencl: %s failed: %s (%d)", what, cl_error_name(err), (int)err);
}

/* CHECK_CL(call, "clFoo"): on error, FB_ERR_BACKEND naming the call and the
 * error, then goto fail. CHECK_CL_AS picks the status and the kernel. */
#define CHECK_CL_AS(st, kernel, call, what)                                                                            \
    do {                                                                                                               \
        cl_int err_ = (call);                                                                                          \
        if (err_ != CL_SUCCESS) {                                                                                      \
            status = cl_fail((st), __FILE__, __LINE__, (kernel), (what), err_);                                        \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

#define CHECK_CL(call, what) CHECK_CL_AS(FB_ERR_BACKEND, NULL, (call), (what))

/* ---- objects ----------------------------------------------------------- */

struct fb_buffer {
    cl_mem mem;
    size_t bytes; /* as asked for; the allocation holds at least 1 byte */
    fb_buffer *prev, *next;
};

struct fb_kernel {
    cl_program program; /* shared with the live kernels of the same key (refcounted by OpenCL) */
    uint64_t program_key;
    cl_kernel kernel;
    cl_uint nargs;
    char name[FB_TEXT_LEN];
    fb_kernel *prev, *next;
};

struct fb_device {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    size_t max_alloc;   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    size_t cache_bytes; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
    int double_support;
    int opencl_c_12; /* the compiler accepts -cl-std=CL1.2 */
    cl_mem flush;    /* cache-eviction buffer, allocated on first use */
    size_t flush_bytes;
    cl_uint flush_count;
    fb_buffer *buffers; /* live objects, freed by close() */
    fb_kernel *kernels;
};

/* ---- device enumeration ------------------------------------------------ */

typedef struct device_location {
    cl_platform_id platform;
    cl_device_id device;
    int platform_index, device_index;
} device_location;

/* PoCL's CPU device runs a kernel on a pool of worker threads, one per CPU,
 * beside the host thread that waits for it. Unpinned, the scheduler kept
 * both workers of this 2-CPU VM on one CPU in about a third of the
 * processes, for the process's whole life: gen:cube:40 csr-scalar took
 * 0.50 ms a sample in those and 0.26 ms in the others, each "converged"
 * (16 runs, 2026-11-28). Pinned with POCL_AFFINITY=1 (a worker per CPU),
 * 8 of 8 ran at 0.26 ms. So the workers are pinned before PoCL starts
 * them, unless the user chose or other work was runnable at start (a
 * worker pinned beside it could not move away); the record's environment
 * says which (FB_POCL_AFFINITY_DECISION_VAR). */
static void decide_pocl_affinity(void)
{
    static int decided;
    if (decided) return;
    decided = 1;
    if (getenv(FB_POCL_AFFINITY_DECISION_VAR)) return; /* decided by the process that started this one */
    if (getenv("POCL_AFFINITY")) {
        setenv(FB_POCL_AFFINITY_DECISION_VAR, "set in the environment: a user's setting always wins", 1);
    } else if (fb_wait_policy_busy_at_start()) {
        setenv(FB_POCL_AFFINITY_DECISION_VAR,
               "left unpinned: other work was runnable at start, and a pinned worker could not move away from it", 1);
    } else {
        setenv("POCL_AFFINITY", "1", 1);
        setenv(FB_POCL_AFFINITY_DECISION_VAR,
               "pinned by flowbench (POCL_AFFINITY=1): unpinned, PoCL's workers shared one CPU in some processes, "
               "a second mode at twice the time",
               1);
    }
}

/* Platforms in the ICD loader's order. The loader answers
 * CL_PLATFORM_NOT_FOUND_KHR when no ICD is registered: that is zero
 * platforms, not a failure. */
static fb_status list_platforms(cl_platform_id *platforms, cl_uint *count)
{
    fb_status status = FB_OK;
    cl_uint n = 0;
    *count = 0;
    decide_pocl_affinity();
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &n);
    if (err == CL_PLATFORM_NOT_FOUND_KHR) return FB_OK;
    CHECK_CL(err, "clGetPlatformIDs");
    *count = n < MAX_PLATFORMS ? n : MAX_PLATFORMS;
fail:
    return status;
}

/* Devices of one platform; a platform without any has zero. */
static fb_status list_devices(cl_platform_id platform, cl_device_id *devices, cl_uint *count)
{
    fb_status status = FB_OK;
    cl_uint n = 0;
    *count = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &n);
    if (err == CL_DEVICE_NOT_FOUND) return FB_OK;
    CHECK_CL(err, "clGetDeviceIDs");
    *count = n < MAX_DEVICES ? n : MAX_DEVICES;
fail:
    return status;
}

/* Maps a flat device index to its platform and device. A platform that
 * fails to list its devices counts as having none, as in probe(): one broken
 * ICD must not hide the devices of the others. */
static fb_status locate_device(int index, device_location *loc)
{
    fb_status status = FB_OK;
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_device_id devices[MAX_DEVICES];
    cl_uint np = 0, nd = 0;
    int first = 0;
    FB_CHECK(list_platforms(platforms, &np));
    for (cl_uint p = 0; p < np; ++p) {
        if (list_devices(platforms[p], devices, &nd) != FB_OK) continue;
        if (index >= first && index < first + (int)nd) {
            *loc = (device_location){platforms[p], devices[index - first], (int)p, index - first};
            return FB_OK;
        }
        first += (int)nd;
    }
    FB_FAIL(FB_ERR_UNAVAILABLE, "opencl: no device %d (%d found)", index, first);
fail:
    return status;
}

static int probe_opencl(char *why, size_t why_len)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_device_id devices[MAX_DEVICES];
    cl_uint np = 0, nd = 0;
    int total = 0;
    if (list_platforms(platforms, &np) != FB_OK) {
        snprintf(why, why_len, "%s", fb_error_message());
        return 0;
    }
    if (np == 0) {
        snprintf(why, why_len, "no platform");
        return 0;
    }
    int failed = 0;
    for (cl_uint p = 0; p < np; ++p) {
        if (list_devices(platforms[p], devices, &nd) == FB_OK)
            total += (int)nd;
        else
            failed = 1;
    }
    if (total == 0) snprintf(why, why_len, "%s", failed ? fb_error_message() : "no device");
    return total;
}

/* ---- device properties -------------------------------------------------- */

/* A string property of device d, else of platform p, malloc'd. Sizes are
 * asked first because a too-small buffer is an error in OpenCL, not a
 * truncation. */
static fb_status info_string(cl_platform_id p, cl_device_id d, cl_uint param, const char *what, char **out)
{
    fb_status status = FB_OK;
    size_t size = 0;
    char *text = NULL;
    *out = NULL;
    CHECK_CL(d ? clGetDeviceInfo(d, param, 0, NULL, &size) : clGetPlatformInfo(p, param, 0, NULL, &size), what);
    FB_ALLOC(text, size + 1, what);
    CHECK_CL(d ? clGetDeviceInfo(d, param, size, text, NULL) : clGetPlatformInfo(p, param, size, text, NULL), what);
    *out = text;
    return FB_OK;
fail:
    free(text);
    return status;
}

/* Copies a device string into a fixed field, truncating; some runtimes pad
 * names with trailing spaces. */
static fb_status device_text(cl_device_id d, cl_device_info param, const char *what, char *out, size_t out_len)
{
    fb_status status = FB_OK;
    char *text = NULL;
    FB_CHECK(info_string(NULL, d, param, what, &text));
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == ' ')
        text[--len] = '\0';
    snprintf(out, out_len, "%s", text);
fail:
    free(text);
    return status;
}

/* One fixed-size property into `var`, which must have the type the spec gives. */
#define DEVICE_SCALAR(d, param, var) CHECK_CL(clGetDeviceInfo((d), (param), sizeof(var), &(var), NULL), #param)

/* Whole-word match in a space-separated extension list. */
static int has_extension(const char *extensions, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += len)
        if ((p == extensions || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return 1;
    return 0;
}

/* Some 1.2 runtimes leave CL_DEVICE_DOUBLE_FP_CONFIG at 0 on devices that
 * do run fp64 through the extension, so either one counts. */
static int device_double_support(cl_device_id d, const char *extensions)
{
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS) fp64 = 0;
    return fp64 != 0 || has_extension(extensions, "cl_khr_fp64");
}

/* Sub-group (warp) width. OpenCL 1.2 has no device-wide query, so use the
 * vendor's where one exists: NVIDIA's warp is 32; Intel lists its sizes and
 * we report the widest; AMD gives its wavefront. PoCL has no sub-groups. */
static int subgroup_width(cl_device_id d, const char *vendor, const char *extensions)
{
    if (strstr(vendor, "NVIDIA")) return 32;
    if (has_extension(extensions, "cl_intel_subgroups")) {
        size_t sizes[16], got = 0, widest = 0;
        if (clGetDeviceInfo(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &got) == CL_SUCCESS)
            for (size_t i = 0; i < got / sizeof sizes[0]; ++i)
                if (sizes[i] > widest) widest = sizes[i];
        return (int)widest;
    }
    if (has_extension(extensions, "cl_khr_subgroups") && has_extension(extensions, "cl_amd_device_attribute_query")) {
        cl_uint width = 0;
        if (clGetDeviceInfo(d, CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof width, &width, NULL) == CL_SUCCESS)
            return (int)width;
    }
    return 0;
}

static fb_status fill_text_fields(const device_location *loc, fb_device_info *info)
{
    fb_status status = FB_OK;
    char *pname = NULL, *pversion = NULL;
    snprintf(info->backend, sizeof info->backend, "opencl");
    snprintf(info->id, sizeof info->id, "opencl:%d.%d", loc->platform_index, loc->device_index);
    FB_CHECK(device_text(loc->device, CL_DEVICE_NAME, "CL_DEVICE_NAME", info->name, sizeof info->name));
    FB_CHECK(device_text(loc->device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR", info->vendor, sizeof info->vendor));
    FB_CHECK(device_text(loc->device, CL_DEVICE_VERSION, "CL_DEVICE_VERSION", info->device_version,
                         sizeof info->device_version));
    FB_CHECK(device_text(loc->device, CL_DRIVER_VERSION, "CL_DRIVER_VERSION", info->driver_version,
                         sizeof info->driver_version));
    FB_CHECK(info_string(loc->platform, NULL, CL_PLATFORM_NAME, "CL_PLATFORM_NAME", &pname));
    FB_CHECK(info_string(loc->platform, NULL, CL_PLATFORM_VERSION, "CL_PLATFORM_VERSION", &pversion));
    snprintf(info->runtime_version, sizeof info->runtime_version, "%s, %s", pname, pversion);
fail:
    free(pname);
    free(pversion);
    return status;
}

static fb_status fill_limits(cl_device_id d, fb_device_info *info)
{
    fb_status status = FB_OK;
    cl_uint units = 0, clock = 0, dims = 0;
    cl_ulong local = 0, global = 0, cache = 0;
    size_t wg = 0, items[8] = {0};
    DEVICE_SCALAR(d, CL_DEVICE_MAX_COMPUTE_UNITS, units);
    DEVICE_SCALAR(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, clock);
    DEVICE_SCALAR(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
    DEVICE_SCALAR(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
    if (dims > 8) dims = 8;
    CHECK_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof items[0], items, NULL),
             "CL_DEVICE_MAX_WORK_ITEM_SIZES");
    DEVICE_SCALAR(d, CL_DEVICE_LOCAL_MEM_SIZE, local);
    DEVICE_SCALAR(d, CL_DEVICE_GLOBAL_MEM_SIZE, global);
    DEVICE_SCALAR(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache);
    info->compute_units = (int)units;
    info->clock_mhz = (int)clock;
    info->max_work_group_size = wg;
    for (int i = 0; i < 3; ++i)
        info->max_work_item_sizes[i] = items[i];
    info->local_mem_bytes = (size_t)local;
    info->global_mem_bytes = (size_t)global;
    info->cache_bytes = (size_t)cache;
fail:
    return status;
}

/* What the energy meters need (target.c): whether the device is this
 * host's CPU (RAPL), and a GPU's PCI address (NVML), best effort. */
static void fill_energy_fields(cl_device_id d, const char *extensions, fb_device_info *info)
{
    cl_device_type type = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
        info->host_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    if (info->host_cpu) { /* its vector ISA bounds the roofline's peak, as on openmp */
        fb_host_info host;
        fb_host_info_get(&host);
        snprintf(info->simd, sizeof info->simd, "%s", host.simd);
        info->simd_bits = host.simd_bits;
        snprintf(info->simd_source, sizeof info->simd_source, "%s", host.simd_source);
    }
#ifdef CL_DEVICE_PCI_BUS_INFO_KHR /* headers older than 2021 lack it */
    cl_device_pci_bus_info_khr pci;
    if (has_extension(extensions, "cl_khr_pci_bus_info") &&
        clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, NULL) == CL_SUCCESS)
        snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.%x", pci.pci_domain, pci.pci_bus,
                 pci.pci_device, pci.pci_function);
#else
    (void)extensions;
#endif
}

static fb_status info_opencl(int index, fb_device_info *info)
{
    fb_status status = FB_OK;
    device_location loc;
    char *extensions = NULL;
    memset(info, 0, sizeof *info);
    FB_CHECK(locate_device(index, &loc));
    FB_CHECK(fill_text_fields(&loc, info));
    FB_CHECK(fill_limits(loc.device, info));
    FB_CHECK(info_string(NULL, loc.device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS", &extensions));
    info->double_support = device_double_support(loc.device, extensions);
    info->subgroup_size = subgroup_width(loc.device, info->vendor, extensions);
    fill_energy_fields(loc.device, extensions, info);
fail:
    free(extensions);
    return status;
}

/* ---- open / close ------------------------------------------------------- */

/* What build, alloc and flush_cache need, read once at open. */
static fb_status read_device_limits(fb_device *dev)
{
    fb_status status = FB_OK;
    cl_ulong max_alloc = 0, cache = 0;
    char *c_version = NULL, *extensions = NULL;
    int major = 0, minor = 0;
    DEVICE_SCALAR(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
    DEVICE_SCALAR(dev->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache);
    dev->max_alloc = (size_t)max_alloc;
    dev->cache_bytes = (size_t)cache;
    FB_CHECK(info_string(NULL, dev->device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS", &extensions));
    dev->double_support = device_double_support(dev->device, extensions);
    /* -cl-std names the OpenCL C language, so ask for its version, not the
     * platform's ("OpenCL C 1.2 PoCL"). A 1.1 compiler rejects CL1.2. */
    FB_CHECK(info_string(NULL, dev->device, CL_DEVICE_OPENCL_C_VERSION, "CL_DEVICE_OPENCL_C_VERSION", &c_version));
    if (sscanf(c_version, "OpenCL C %d.%d", &major, &minor) == 2)
        dev->opencl_c_12 = major > 1 || (major == 1 && minor >= 2);
fail:
    free(c_version);
    free(extensions);
    return status;
}

static void release_opencl(fb_device *dev, fb_buffer *buffer);
static void release_kernel_opencl(fb_device *dev, fb_kernel *kernel);

static void close_opencl(fb_device *dev)
{
    if (!dev) return;
    /* Commands in flight may still use the objects released below. */
    if (dev->queue) clFinish(dev->queue);
    while (dev->kernels)
        release_kernel_opencl(dev, dev->kernels);
    while (dev->buffers)
        release_opencl(dev, dev->buffers);
    if (dev->flush) clReleaseMemObject(dev->flush);
    if (dev->queue) clReleaseCommandQueue(dev->queue);
    if (dev->context) clReleaseContext(dev->context);
    free(dev);
}

static fb_status open_opencl(int index, fb_device **out)
{
    fb_status status = FB_OK;
    fb_device *dev = NULL;
    device_location loc;
    cl_int err = CL_SUCCESS;
    *out = NULL;
    FB_CHECK(locate_device(index, &loc));
    FB_ALLOC(dev, 1, "OpenCL device");
    dev->device = loc.device;
    FB_CHECK(read_device_limits(dev));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)loc.platform, 0};
    dev->context = clCreateContext(props, 1, &dev->device, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    /* In order: each launch sees the writes of the one before, as in CUDA's
     * default stream; profiling: launch() times kernels from events. */
    dev->queue = clCreateCommandQueue(dev->context, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK_CL(err, "clCreateCommandQueue");
    *out = dev;
    return FB_OK;
fail:
    close_opencl(dev);
    return status;
}

/* ---- memory ------------------------------------------------------------- */

static fb_status alloc_opencl(fb_device *dev, size_t bytes, fb_buffer **out)
{
    fb_status status = FB_OK;
    fb_buffer *b = NULL;
    cl_int err = CL_SUCCESS;
    *out = NULL;
    if (bytes > dev->max_alloc)
        FB_FAIL(FB_ERR_NOMEM,
                "opencl: buffer of %zu bytes is larger than the device's largest allocation "
                "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %zu bytes)",
                bytes, dev->max_alloc);
    FB_ALLOC(b, 1, "OpenCL buffer record");
    b->bytes = bytes;
    /* OpenCL has no empty buffers, but an empty array is a valid input. */
    b->mem = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    CHECK_CL_AS(FB_ERR_NOMEM, NULL, err, "clCreateBuffer");
    LIST_PUSH(dev->buffers, b);
    *out = b;
    return FB_OK;
fail:
    free(b);
    return status;
}

static void release_opencl(fb_device *dev, fb_buffer *buffer)
{
    if (!buffer) return;
    LIST_UNLINK(dev->buffers, buffer);
    clReleaseMemObject(buffer->mem);
    free(buffer);
}

/* The runtime would say CL_INVALID_VALUE; say which sizes disagreed. */
static fb_status check_extent(const fb_buffer *b, size_t bytes, const char *what)
{
    fb_status status = FB_OK;
    if (bytes > b->bytes)
        FB_FAIL(FB_ERR_BACKEND, "opencl: %s of %zu bytes on a buffer of %zu bytes", what, bytes, b->bytes);
fail:
    return status;
}

static fb_status copy_in_opencl(fb_device *dev, fb_buffer *dst, const void *src, size_t bytes)
{
    fb_status status = FB_OK;
    FB_CHECK(check_extent(dst, bytes, "copy_in"));
    if (bytes == 0) return FB_OK; /* a zero-sized transfer is CL_INVALID_VALUE */
    CHECK_CL(clEnqueueWriteBuffer(dev->queue, dst->mem, CL_TRUE, 0, bytes, src, 0, NULL, NULL), "clEnqueueWriteBuffer");
fail:
    return status;
}

static fb_status copy_out_opencl(fb_device *dev, void *dst, fb_buffer *src, size_t bytes)
{
    fb_status status = FB_OK;
    FB_CHECK(check_extent(src, bytes, "copy_out"));
    if (bytes == 0) return FB_OK;
    CHECK_CL(clEnqueueReadBuffer(dev->queue, src->mem, CL_TRUE, 0, bytes, dst, 0, NULL, NULL), "clEnqueueReadBuffer");
fail:
    return status;
}

/* ---- build -------------------------------------------------------------- */

/* Kernels take their precision from REAL. On a device without fp64 a double
 * build fails with a compiler message that does not say why. */
static fb_status check_precision(const fb_device *dev, const fb_program_spec *spec)
{
    fb_status status = FB_OK;
    const char *real = fb_defines_get(spec->defines, spec->ndefines, "REAL");
    if (real && strcmp(real, "double") == 0 && !dev->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: %s: device has no double precision", spec->source_name, spec->kernel_name);
fail:
    return status;
}

static fb_status build_options(const fb_device *dev, const fb_program_spec *spec, char *out, size_t out_len)
{
    /* Pin the language: kernels are written to OpenCL C 1.2, and 3.0
     * compilers would otherwise pick their own default. */
    int used = snprintf(out, out_len, "%s", dev->opencl_c_12 ? "-cl-std=CL1.2 " : "");
    return fb_defines_render(spec->defines, spec->ndefines, out + used, out_len - (size_t)used);
}

/* Turns a failed clBuildProgram into FB_ERR_BUILD (always): the log's first
 * error line goes into the message, the whole log to *log. */
static fb_status report_build_failure(const fb_device *dev, cl_program program, const fb_program_spec *spec, cl_int err,
                                      char **log)
{
    fb_status status = FB_OK;
    size_t size = 0;
    char *text = NULL;
    char line[512];
    if (clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
        (text = calloc(size + 1, 1)) != NULL &&
        clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, size, text, NULL) != CL_SUCCESS)
        text[0] = '\0';
    fb_build_log_first_error(text, line, sizeof line);
    if (!line[0]) snprintf(line, sizeof line, "%s (%d), empty build log", cl_error_name(err), (int)err);
    FB_FAIL(FB_ERR_BUILD, "%s: %s: build failed: %s", spec->source_name, spec->kernel_name, line);
fail:
    if (log)
        *log = text;
    else
        free(text);
    return status;
}

static void free_kernel(fb_kernel *k)
{
    if (!k) return;
    if (k->kernel) clReleaseKernel(k->kernel);
    if (k->program) clReleaseProgram(k->program);
    free(k);
}

/* A live kernel of the same program (fb_program_spec_key). */
static const fb_kernel *built_program(const fb_device *dev, uint64_t key)
{
    for (const fb_kernel *k = dev->kernels; k; k = k->next)
        if (k->program_key == key) return k;
    return NULL;
}

/* k->program: a live kernel's of the same key, else built from the
 * source. */
static fb_status share_or_build_program(fb_device *dev, const fb_program_spec *spec, const char *options, fb_kernel *k,
                                        char **log)
{
    fb_status status = FB_OK;
    char *program = NULL;
    cl_int err = CL_SUCCESS;
    const fb_kernel *twin = built_program(dev, k->program_key);
    if (twin) {
        CHECK_CL(clRetainProgram(twin->program), "clRetainProgram");
        k->program = twin->program;
        return FB_OK;
    }
    /* The common prelude and the includes, under #line directives: the
     * log names the kernel's file and line (PoCL and AMD compile a temporary
     * copy and would name that). The driver keeps its own copy of the text. */
    FB_CHECK(fb_kernel_program_text(NULL, spec->source_name, spec->source_text, &program));
    const char *text = program;
    k->program = clCreateProgramWithSource(dev->context, 1, &text, NULL, &err);
    CHECK_CL_AS(FB_ERR_BUILD, k->name, err, "clCreateProgramWithSource");
    err = clBuildProgram(k->program, 1, &dev->device, options, NULL, NULL);
    if (err != CL_SUCCESS) FB_CHECK(report_build_failure(dev, k->program, spec, err, log));
fail:
    free(program);
    return status;
}

static fb_status build_opencl(fb_device *dev, const fb_program_spec *spec, fb_kernel **out, char **log)
{
    fb_status status = FB_OK;
    fb_kernel *k = NULL;
    char options[4096];
    cl_int err = CL_SUCCESS;
    fb_program_spec named = *spec; /* every message names the source */
    if (!named.source_name) named.source_name = "(unnamed source)";
    spec = &named;
    *out = NULL;
    if (log) *log = NULL;
    if (!spec->source_text || !spec->kernel_name)
        FB_FAIL(FB_ERR_INPUT, "opencl: %s: no source text or kernel name", spec->source_name);
    FB_CHECK(check_precision(dev, spec));
    FB_CHECK(build_options(dev, spec, options, sizeof options));
    FB_ALLOC(k, 1, "OpenCL kernel record");
    snprintf(k->name, sizeof k->name, "%s", spec->kernel_name);
    k->program_key = fb_program_spec_key(spec);
    FB_CHECK(share_or_build_program(dev, spec, options, k, log));
    k->kernel = clCreateKernel(k->program, spec->kernel_name, &err);
    if (err == CL_INVALID_KERNEL_NAME)
        FB_FAIL(FB_ERR_BUILD, "%s: %s: build failed: no __kernel of that name in the source", spec->source_name,
                spec->kernel_name);
    CHECK_CL_AS(FB_ERR_BUILD, k->name, err, "clCreateKernel");
    CHECK_CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof k->nargs, &k->nargs, NULL), "clGetKernelInfo");
    LIST_PUSH(dev->kernels, k);
    *out = k;
    return FB_OK;
fail:
    free_kernel(k);
    return status;
}

static void release_kernel_opencl(fb_device *dev, fb_kernel *kernel)
{
    if (!kernel) return;
    LIST_UNLINK(dev->kernels, kernel);
    free_kernel(kernel);
}

/* ---- launch ------------------------------------------------------------- */

static fb_status set_arg(fb_kernel *k, cl_uint i, const fb_arg *a)
{
    static const char *const kinds[] = {"buffer", "i32", "f32", "f64"};
    fb_status status = FB_OK;
    cl_int err = CL_SUCCESS;
    char what[64];
    switch (a->kind) {
    case FB_ARG_BUFFER:
        if (!a->v.buffer) FB_FAIL(FB_ERR_LAUNCH, "opencl: kernel %s: argument %u is a NULL buffer", k->name, i);
        err = clSetKernelArg(k->kernel, i, sizeof(cl_mem), &a->v.buffer->mem);
        break;
    case FB_ARG_I32: {
        cl_int v = a->v.i32;
        err = clSetKernelArg(k->kernel, i, sizeof v, &v);
        break;
    }
    case FB_ARG_F32: {
        cl_float v = a->v.f32;
        err = clSetKernelArg(k->kernel, i, sizeof v, &v);
        break;
    }
    case FB_ARG_F64: {
        cl_double v = a->v.f64;
        err = clSetKernelArg(k->kernel, i, sizeof v, &v);
        break;
    }
    default: FB_FAIL(FB_ERR_LAUNCH, "opencl: kernel %s: argument %u has unknown kind %d", k->name, i, (int)a->kind);
    }
    /* CL_INVALID_ARG_SIZE here usually means float passed for double. */
    snprintf(what, sizeof what, "clSetKernelArg(argument %u, %s)", i, kinds[a->kind]);
    CHECK_CL_AS(FB_ERR_LAUNCH, k->name, err, what);
fail:
    return status;
}

static fb_status set_args(fb_kernel *k, const fb_arg *args, int nargs)
{
    fb_status status = FB_OK;
    if (nargs != (int)k->nargs)
        FB_FAIL(FB_ERR_LAUNCH, "opencl: kernel %s takes %u arguments, got %d", k->name, (unsigned)k->nargs, nargs);
    for (int i = 0; i < nargs; ++i)
        FB_CHECK(set_arg(k, (cl_uint)i, &args[i]));
fail:
    return status;
}

/* Device time of a finished kernel, from its profiling event. */
static fb_status event_seconds(const fb_kernel *k, cl_event event, double *seconds)
{
    fb_status status = FB_OK;
    cl_ulong start = 0, end = 0;
    CHECK_CL_AS(FB_ERR_LAUNCH, k->name, clWaitForEvents(1, &event), "clWaitForEvents");
    CHECK_CL(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL),
             "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)");
    CHECK_CL(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
             "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)");
    *seconds = end > start ? (double)(end - start) * 1e-9 : 0.0;
fail:
    return status;
}

static fb_status launch_opencl(fb_device *dev, fb_kernel *k, const fb_launch *launch, const fb_arg *args, int nargs,
                               double *seconds)
{
    fb_status status = FB_OK;
    cl_event event = NULL;
    if (launch->dims < 1 || launch->dims > 3)
        FB_FAIL(FB_ERR_LAUNCH, "opencl: kernel %s: %d launch dimensions (1 to 3 allowed)", k->name, launch->dims);
    FB_CHECK(set_args(k, args, nargs));
    CHECK_CL_AS(FB_ERR_LAUNCH, k->name,
                clEnqueueNDRangeKernel(dev->queue, k->kernel, (cl_uint)launch->dims, NULL, launch->global,
                                       launch->local, 0, NULL, seconds ? &event : NULL),
                "clEnqueueNDRangeKernel");
    if (seconds) FB_CHECK(event_seconds(k, event, seconds));
fail:
    if (event) clReleaseEvent(event);
    return status;
}

static fb_status finish_opencl(fb_device *dev)
{
    fb_status status = FB_OK;
    CHECK_CL(clFinish(dev->queue), "clFinish");
fail:
    return status;
}

/* Twice the last-level cache, and at least 64 MiB for runtimes that report
 * no cache size; capped by what one buffer may hold; on NVIDIA, whose
 * OpenCL driver under-reports its L2, the L2 CUDA reports, else 256 MiB
 * (flush_size.h). Allocated on first use: most runs never flush. */
static fb_status alloc_flush_buffer(fb_device *dev)
{
    fb_status status = FB_OK;
    cl_int err = CL_SUCCESS;
    char vendor[FB_TEXT_LEN] = "", name[FB_TEXT_LEN] = "";
    FB_CHECK(device_text(dev->device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR", vendor, sizeof vendor));
    FB_CHECK(device_text(dev->device, CL_DEVICE_NAME, "CL_DEVICE_NAME", name, sizeof name));
    size_t cuda_l2 = strstr(vendor, "NVIDIA") ? fb_cuda_l2_of(name) : 0;
    size_t bytes = fb_flush_bytes(vendor, dev->cache_bytes, cuda_l2, dev->max_alloc, NULL);
    dev->flush = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_CL_AS(FB_ERR_NOMEM, NULL, err, "clCreateBuffer (cache flush buffer)");
    dev->flush_bytes = bytes;
fail:
    return status;
}

static fb_status flush_cache_opencl(fb_device *dev)
{
    fb_status status = FB_OK;
    if (!dev->flush) FB_CHECK(alloc_flush_buffer(dev));
    /* A new value each time, so no runtime can skip the fill as redundant. */
    cl_uint pattern = ++dev->flush_count;
    CHECK_CL(clEnqueueFillBuffer(dev->queue, dev->flush, &pattern, sizeof pattern, 0, dev->flush_bytes, 0, NULL, NULL),
             "clEnqueueFillBuffer");
    CHECK_CL(clFinish(dev->queue), "clFinish");
fail:
    return status;
}

/* One clGetKernelWorkGroupInfo value into var (of the type the spec gives). */
#define GROUP_INFO(dev, k, param, var)                                                                                 \
    CHECK_CL_AS(FB_ERR_BACKEND, (k)->name,                                                                             \
                clGetKernelWorkGroupInfo((k)->kernel, (dev)->device, (param), sizeof(var), &(var), NULL), #param)

/* What OpenCL 1.2 says of a built kernel; registers and occupancy it does
 * not say. */
static fb_status kernel_resources_opencl(fb_device *dev, fb_kernel *k, size_t group_items, fb_kernel_resources *out)
{
    fb_status status = FB_OK;
    size_t max_items = 0, multiple = 0;
    cl_ulong local = 0, private_mem = 0;
    (void)group_items;
    memset(out, 0, sizeof *out);
    GROUP_INFO(dev, k, CL_KERNEL_WORK_GROUP_SIZE, max_items);
    GROUP_INFO(dev, k, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, multiple);
    GROUP_INFO(dev, k, CL_KERNEL_LOCAL_MEM_SIZE, local);
    GROUP_INFO(dev, k, CL_KERNEL_PRIVATE_MEM_SIZE, private_mem);
    out->max_group_items = max_items;
    out->group_multiple = multiple;
    out->local_bytes = (size_t)local;
    out->private_bytes = (size_t)private_mem;
fail:
    return status;
}

const fb_backend_ops fb_backend_opencl = {
    .name = "opencl",
    .probe = probe_opencl,
    .device_info = info_opencl,
    .open = open_opencl,
    .close = close_opencl,
    .alloc = alloc_opencl,
    .release = release_opencl,
    .copy_in = copy_in_opencl,
    .copy_out = copy_out_opencl,
    .build = build_opencl,
    .release_kernel = release_kernel_opencl,
    .launch = launch_opencl,
    .finish = finish_opencl,
    .flush_cache = flush_cache_opencl,
    .kernel_resources = kernel_resources_opencl,
};

#else /* !FB_HAVE_OPENCL */

/* Not compiled in: the name and a probe that says why. target.c asks for
 * the other methods only once probe has found a device. */
#define NOT_BUILT "not built (OpenCL headers or ICD loader missing at configure time)"

static int probe_opencl(char *why, size_t why_len)
{
    snprintf(why, why_len, "%s", NOT_BUILT);
    return 0;
}

const fb_backend_ops fb_backend_opencl = {
    .name = "opencl",
    .probe = probe_opencl,
};

#endif /* FB_HAVE_OPENCL */
