/* fake_cuda.c - a stand-in for the NVIDIA driver, libcuda.so.1, with the
 * functions the CUDA backend looks up (harness/backends/cuda.c), loaded
 * through the backend's own dlopen by pointing FLOWBENCH_CUDA_DRIVER at it,
 * so that CI, which has the toolkit but no GPU, runs the backend's open,
 * close, memory, module sharing, sticky errors and the loader's search.
 * It cannot run kernels: a launch is counted and does nothing, so tests
 * check what the backend does, never a kernel's result.
 *
 * cuda.h is included so that each function defined here gets the symbol
 * the header's macros give its name (cuMemAlloc -> cuMemAlloc_v2), the one
 * the backend asks dlsym for, and its prototype is checked against the
 * header's. Building with FAKE_CUDA_NO_LAUNCH leaves cuLaunchKernel out: a
 * driver too old for the backend.
 *
 * One device, "flowbench fake GPU", sm_90 with an H100's limits. Device
 * memory is host memory (malloc), so copies and memsets move real bytes.
 * Faults are asked for in the environment, read at each call so that one
 * test program can run several:
 *
 *   FAKE_CUDA_NO_DEVICE       set: cuInit returns CUDA_ERROR_NO_DEVICE
 *   FAKE_CUDA_OOM             set: cuMemAlloc returns CUDA_ERROR_OUT_OF_MEMORY
 *   FAKE_CUDA_STICKY_LAUNCH=N the N-th launch faults as an illegal address
 *                             does: cuLaunchKernel succeeds, the next
 *                             synchronising call (cuEventSynchronize,
 *                             cuCtxSynchronize, cuMemcpy*) and every call
 *                             after it but cuGetErrorName return
 *                             CUDA_ERROR_ILLEGAL_ADDRESS (700)
 *   FAKE_CUDA_COUNTER=FILE    launches are counted in FILE across processes
 *                             (read, incremented, written back at each), so
 *                             a new process after the fault goes on where
 *                             the dead one stopped instead of faulting again
 *
 * fake_cuda_counts() and fake_cuda_live_events() let a test check that the
 * backend gave back what it took.
 */
#include <cuda.h>

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_NAME "flowbench fake GPU"
#define TOTAL_MEMORY ((size_t)80 << 30)
#define MAX_FUNCTIONS 64 /* per module: more than any kernels/ source holds */
#define MS_PER_LAUNCH 0.001f

/* ---- the driver's state ------------------------------------------------- */

struct CUctx_st {
    int unused;
};

struct CUfunc_st {
    struct CUmod_st *module;
    char name[256];
};

/* Kept after unload (image freed, live = 0) so that a function of an
 * unloaded module is refused rather than read after free. */
struct CUmod_st {
    int live;
    char *image;
    size_t size;
    int nfunctions;
    struct CUfunc_st functions[MAX_FUNCTIONS];
    struct CUmod_st *next;
};

struct CUevent_st {
    int recorded;
    long mark; /* launches when recorded */
    struct CUevent_st *next;
};

typedef struct allocation {
    char *host;
    size_t bytes;
} allocation;

static struct {
    int initialised;
    int retains; /* of the primary context */
    CUcontext current;
    allocation *allocs;
    int nallocs, cap_allocs;
    size_t used;
    struct CUmod_st *modules;  /* every module ever loaded */
    struct CUevent_st *events; /* live ones */
    int modules_loaded, modules_unloaded, live_events;
    long launches;     /* in this process */
    int fault_pending; /* a launch faulted; the next synchronising call says so */
    int context_dead;  /* it did: every call fails from now on */
} fake;

static struct CUctx_st primary;

void fake_cuda_counts(int *live_allocs, int *live_contexts, int *modules_loaded, int *modules_unloaded, long *launches)
{
    *live_allocs = fake.nallocs;
    *live_contexts = fake.retains;
    *modules_loaded = fake.modules_loaded;
    *modules_unloaded = fake.modules_unloaded;
    *launches = fake.launches;
}

int fake_cuda_live_events(void) { return fake.live_events; }

/* ---- checks every call makes -------------------------------------------- */

/* Driver-level calls: initialised, context alive. */
static CUresult driver_ready(void)
{
    if (fake.context_dead) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (!fake.initialised) return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

/* Calls on the current context: a retained primary context made current. */
static CUresult context_ready(void)
{
    CUresult r = driver_ready();
    if (r != CUDA_SUCCESS) return r;
    if (fake.current != &primary || fake.retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

/* Calls that wait for the device: where a kernel's fault surfaces, and
 * from then on the context is dead, as a real one is after error 700. */
static CUresult synchronise(void)
{
    CUresult r = context_ready();
    if (r != CUDA_SUCCESS) return r;
    if (fake.fault_pending) {
        fake.fault_pending = 0;
        fake.context_dead = 1;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    return CUDA_SUCCESS;
}

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        CUresult r_ = (call);                                                                                          \
        if (r_ != CUDA_SUCCESS) return r_;                                                                             \
    } while (0)

/* ---- driver and device -------------------------------------------------- */

CUresult cuInit(unsigned int flags)
{
    if (fake.context_dead) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (getenv("FAKE_CUDA_NO_DEVICE")) return CUDA_ERROR_NO_DEVICE;
    fake.initialised = 1;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version)
{
    if (fake.context_dead) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;
    return CUDA_SUCCESS;
}

/* The real names of the codes this library returns; a code it does not
 * know is CUDA_ERROR_INVALID_VALUE with *name NULL, as the driver does. */
CUresult cuGetErrorName(CUresult error, const char **name)
{
#define NAME(code)                                                                                                     \
    case code: *name = #code; return CUDA_SUCCESS;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
        NAME(CUDA_SUCCESS)
        NAME(CUDA_ERROR_INVALID_VALUE)
        NAME(CUDA_ERROR_OUT_OF_MEMORY)
        NAME(CUDA_ERROR_NOT_INITIALIZED)
        NAME(CUDA_ERROR_NO_DEVICE)
        NAME(CUDA_ERROR_INVALID_DEVICE)
        NAME(CUDA_ERROR_INVALID_IMAGE)
        NAME(CUDA_ERROR_INVALID_CONTEXT)
        NAME(CUDA_ERROR_INVALID_HANDLE)
        NAME(CUDA_ERROR_NOT_FOUND)
        NAME(CUDA_ERROR_NOT_READY)
        NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
        NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        NAME(CUDA_ERROR_LAUNCH_FAILED)
    default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
#undef NAME
}

CUresult cuDeviceGetCount(int *count)
{
    CHECK(driver_ready());
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CHECK(driver_ready());
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", DEVICE_NAME);
    return CUDA_SUCCESS;
}

/* An H100 SXM's numbers; an attribute not listed reads 0. */
static int attribute_value(CUdevice_attribute a)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 48 << 10;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 227 << 10;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 228 << 10;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 64 << 10;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000; /* kHz */
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 50 << 20;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x65;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    default: return 0;
    }
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!value || attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
    *value = attribute_value(attrib);
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    *bytes = TOTAL_MEMORY;
    return CUDA_SUCCESS;
}

/* The bus fake_nvml.c's GPU sits on by default. */
CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!bus_id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(bus_id, (size_t)len, "0000:65:00.0");
    return CUDA_SUCCESS;
}

/* ---- the primary context ------------------------------------------------ */

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    fake.retains++;
    *context = &primary;
    return CUDA_SUCCESS;
}

/* The last release does not free what the context still holds, as the
 * driver would: the counts then show what the backend left behind. */
CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CHECK(driver_ready());
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (fake.retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (--fake.retains == 0 && fake.current == &primary) fake.current = NULL;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context)
{
    CHECK(driver_ready());
    if (context && (context != &primary || fake.retains == 0)) return CUDA_ERROR_INVALID_CONTEXT;
    fake.current = context;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return synchronise(); }

/* ---- memory ------------------------------------------------------------- */

/* The live allocation holding [ptr, ptr + bytes), or NULL. */
static allocation *holding(CUdeviceptr ptr, size_t bytes)
{
    for (int i = 0; i < fake.nallocs; ++i) {
        allocation *a = &fake.allocs[i];
        CUdeviceptr base = (CUdeviceptr)(uintptr_t)a->host;
        if (ptr >= base && ptr - base <= a->bytes && bytes <= a->bytes - (ptr - base)) return a;
    }
    return NULL;
}

CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes)
{
    CHECK(context_ready());
    if (!ptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (getenv("FAKE_CUDA_OOM") || bytes > TOTAL_MEMORY - fake.used) return CUDA_ERROR_OUT_OF_MEMORY;
    if (fake.nallocs == fake.cap_allocs) {
        int cap = fake.cap_allocs ? 2 * fake.cap_allocs : 16;
        allocation *grown = realloc(fake.allocs, (size_t)cap * sizeof *grown);
        if (!grown) return CUDA_ERROR_OUT_OF_MEMORY;
        fake.allocs = grown, fake.cap_allocs = cap;
    }
    char *host = malloc(bytes);
    if (!host) return CUDA_ERROR_OUT_OF_MEMORY;
    fake.allocs[fake.nallocs++] = (allocation){host, bytes};
    fake.used += bytes;
    *ptr = (CUdeviceptr)(uintptr_t)host;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr)
{
    CHECK(context_ready());
    for (int i = 0; i < fake.nallocs; ++i) {
        if ((CUdeviceptr)(uintptr_t)fake.allocs[i].host != ptr) continue;
        free(fake.allocs[i].host);
        fake.used -= fake.allocs[i].bytes;
        fake.allocs[i] = fake.allocs[--fake.nallocs];
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE; /* not an allocation's start: a double free, or never allocated */
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    CHECK(synchronise());
    if (!holding(dst, bytes) || (bytes && !src)) return CUDA_ERROR_INVALID_VALUE;
    if (bytes) memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    CHECK(synchronise());
    if (!holding(src, bytes) || (bytes && !dst)) return CUDA_ERROR_INVALID_VALUE;
    if (bytes) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t n)
{
    CHECK(context_ready());
    if (n > SIZE_MAX / 4 || !holding(dst, 4 * n)) return CUDA_ERROR_INVALID_VALUE;
    unsigned int *p = (unsigned int *)(uintptr_t)dst;
    for (size_t i = 0; i < n; ++i)
        p[i] = value;
    return CUDA_SUCCESS;
}

/* ---- modules and functions ---------------------------------------------- */

/* The image's length: an ELF cubin ends with its section headers, PTX is
 * text; 0 for anything else. */
static size_t image_size(const char *image)
{
    if (!memcmp(image, ELFMAG, SELFMAG)) {
        Elf64_Ehdr header;
        if (image[EI_CLASS] != ELFCLASS64) return 0;
        memcpy(&header, image, sizeof header);
        return (size_t)header.e_shoff + (size_t)header.e_shnum * header.e_shentsize;
    }
    return strstr(image, ".entry") ? strlen(image) : 0;
}

static int identifier_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Whether the image defines a kernel of that name: in a cubin's string
 * table the name stands between NULs (kernels are extern "C",
 * kernels/cuda/opencl_to_cuda.h); in PTX it is a whole word. */
static int image_has(const struct CUmod_st *m, const char *name)
{
    size_t n = strlen(name);
    int elf = !memcmp(m->image, ELFMAG, SELFMAG);
    if (n == 0 || n >= m->size) return 0;
    for (size_t at = 1; at + n < m->size; ++at) {
        if (memcmp(m->image + at, name, n) != 0) continue;
        char before = m->image[at - 1], after = m->image[at + n];
        if (elf ? before == '\0' && after == '\0' : !identifier_char(before) && !identifier_char(after)) return 1;
    }
    return 0;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    CHECK(context_ready());
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    size_t size = image_size(image);
    if (size == 0) return CUDA_ERROR_INVALID_IMAGE;
    struct CUmod_st *m = calloc(1, sizeof *m);
    char *copy = malloc(size); /* the caller may free its image once loaded */
    if (!m || !copy) {
        free(m);
        free(copy);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(copy, image, size);
    *m = (struct CUmod_st){.live = 1, .image = copy, .size = size, .next = fake.modules};
    fake.modules = m;
    fake.modules_loaded++;
    *module = m;
    return CUDA_SUCCESS;
}

static int module_live(const struct CUmod_st *module)
{
    for (const struct CUmod_st *m = fake.modules; m; m = m->next)
        if (m == module) return m->live;
    return 0;
}

CUresult cuModuleUnload(CUmodule module)
{
    CHECK(context_ready());
    if (!module_live(module)) return CUDA_ERROR_INVALID_HANDLE;
    free(module->image);
    module->image = NULL;
    module->live = 0;
    fake.modules_unloaded++;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name)
{
    CHECK(context_ready());
    if (!function || !name) return CUDA_ERROR_INVALID_VALUE;
    if (!module_live(module)) return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < module->nfunctions; ++i)
        if (!strcmp(module->functions[i].name, name)) {
            *function = &module->functions[i];
            return CUDA_SUCCESS;
        }
    if (!image_has(module, name)) return CUDA_ERROR_NOT_FOUND;
    if (module->nfunctions == MAX_FUNCTIONS || strlen(name) >= sizeof module->functions[0].name)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUfunc_st *f = &module->functions[module->nfunctions++];
    f->module = module;
    snprintf(f->name, sizeof f->name, "%s", name);
    *function = f;
    return CUDA_SUCCESS;
}

/* A function handle this library gave out, of a module still loaded. */
static int function_live(const struct CUfunc_st *f) { return f && module_live(f->module); }

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction function)
{
    CHECK(context_ready());
    if (!value || attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
    if (!function_live(function)) return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = 90; break;
    default: *value = 0; break; /* no local, shared or constant memory */
    }
    return CUDA_SUCCESS;
}

/* 32 registers a thread of 64K a multiprocessor, 2048 threads and 32
 * blocks at most: what an H100 gives such a kernel. */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction function, int block_size,
                                                     size_t dynamic_shared)
{
    CHECK(context_ready());
    if (!blocks || block_size <= 0 || block_size > 1024 || dynamic_shared > (227 << 10))
        return CUDA_ERROR_INVALID_VALUE;
    if (!function_live(function)) return CUDA_ERROR_INVALID_HANDLE;
    int threads = (block_size + 31) / 32 * 32;
    int by_threads = 2048 / threads, by_registers = 65536 / (32 * threads);
    *blocks = by_threads < by_registers ? by_threads : by_registers;
    if (*blocks > 32) *blocks = 32;
    return CUDA_SUCCESS;
}

/* ---- launches ----------------------------------------------------------- */

#ifndef FAKE_CUDA_NO_LAUNCH
/* This launch's number: across processes when FAKE_CUDA_COUNTER names a
 * file (a missing or unreadable file counts from 0), else in this one. */
static long launch_number(void)
{
    const char *path = getenv("FAKE_CUDA_COUNTER");
    long n = 0;
    if (!path || !*path) return fake.launches;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1) n = 0;
        fclose(f);
    }
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", ++n);
        fclose(f);
    }
    return n;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,
                        CUstream stream, void **params, void **extra)
{
    CHECK(context_ready());
    if (!function_live(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (stream) return CUDA_ERROR_INVALID_HANDLE; /* the backend uses the legacy default stream only */
    if (!grid_x || !grid_y || !grid_z || !block_x || !block_y || !block_z || (params && extra))
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned long)block_x * block_y * block_z > 1024 || block_z > 64 || shared_bytes > (48 << 10))
        return CUDA_ERROR_INVALID_VALUE;
    fake.launches++;
    long n = launch_number();
    const char *sticky = getenv("FAKE_CUDA_STICKY_LAUNCH");
    if (sticky && *sticky && n == atol(sticky)) fake.fault_pending = 1; /* surfaces at the next wait */
    return CUDA_SUCCESS;
}
#endif

/* ---- events ------------------------------------------------------------- */

/* Live events are listed, so that a handle is checked before use and one
 * a dead context kept is still reachable (no leak report under ASan). */
static struct CUevent_st **event_link(const struct CUevent_st *event)
{
    for (struct CUevent_st **at = &fake.events; *at; at = &(*at)->next)
        if (*at == event) return at;
    return NULL;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
    CHECK(context_ready());
    if (!event) return CUDA_ERROR_INVALID_VALUE;
    (void)flags;
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
    e->next = fake.events;
    fake.events = e;
    fake.live_events++;
    *event = e;
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event)
{
    CHECK(context_ready());
    struct CUevent_st **at = event_link(event);
    if (!at) return CUDA_ERROR_INVALID_HANDLE;
    *at = event->next;
    free(event);
    fake.live_events--;
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream)
{
    CHECK(context_ready());
    if (!event_link(event) || stream) return CUDA_ERROR_INVALID_HANDLE;
    event->recorded = 1;
    event->mark = fake.launches;
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event)
{
    CHECK(synchronise());
    return event_link(event) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* 1 us a launch between the two events: what a tiny kernel takes. */
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    CHECK(context_ready());
    if (!ms) return CUDA_ERROR_INVALID_VALUE;
    if (!event_link(start) || !event_link(end) || !start->recorded || !end->recorded) return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)(end->mark - start->mark) * MS_PER_LAUNCH;
    return CUDA_SUCCESS;
}
