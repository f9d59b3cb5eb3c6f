/* fake_cuda.c - a stand-in for the NVIDIA driver (libcuda.so.1) with the
 * driver functions the CUDA backend looks up (harness/backends/cuda.c),
 * built only for the tests and loaded through the backend's own search by
 * FLOWBENCH_CUDA_DRIVER (harness/backends/dynlib.h). CI has no GPU: this
 * lets the backend's own behaviour run there (devices, open and close,
 * memory, module sharing, out of memory, a sticky error through the
 * guard). It cannot run kernels: a launch only counts, so a kernel's
 * output keeps what the backend wrote into it (NaN) and its check fails.
 * Defining the functions with cuda.h included gives each its versioned
 * symbol (cuMemAlloc -> cuMemAlloc_v2), as the backend asks for them.
 *
 * One device, "flowbench fake GPU", compute capability 9.0. Memory is the
 * host's (malloc): copies move real bytes. Faults on request, read from the
 * environment at each call:
 *   FAKE_CUDA_NO_DEVICE      cuInit answers CUDA_ERROR_NO_DEVICE
 *   FAKE_CUDA_OOM            cuMemAlloc answers CUDA_ERROR_OUT_OF_MEMORY
 *   FAKE_CUDA_STICKY_LAUNCH=N  the N-th launch faults as an illegal address
 *                            does: the launch itself succeeds, the next
 *                            synchronising call and every call after it
 *                            answer CUDA_ERROR_ILLEGAL_ADDRESS (a dead
 *                            context)
 *   FAKE_CUDA_COUNTER=FILE   the launch count kept in FILE across processes,
 *                            so a fresh process after the fault does not
 *                            fault again at its own N-th launch
 * Built a second time with FAKE_CUDA_OLD (tests/fake_cuda/old/): without
 * cuLaunchKernel, as a driver too old would be.
 * fake_cuda_counts() lets a test check the backend's bookkeeping.
 */
#include <cuda.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_TOTAL_MEM (80ULL << 30)
#define MAX_FUNCTIONS 256

static int live_allocs, live_contexts, modules_loaded, modules_unloaded;
static long launches;
static int dead; /* a sticky error happened: every call answers it */
static int fault_pending;

struct CUctx_st {
    int unused;
};
struct CUevent_st {
    double t; /* microseconds of fake time at the record */
};
struct CUmod_st {
    const char *image;
    size_t size;
};
struct CUfunc_st {
    char name[256];
};

static struct CUctx_st primary;
static double fake_clock_us; /* advances a microsecond per launch */

void fake_cuda_counts(int *allocs, int *contexts, int *loaded, int *unloaded, long *launched)
{
    *allocs = live_allocs, *contexts = live_contexts, *loaded = modules_loaded, *unloaded = modules_unloaded;
    *launched = launches;
}

static int env_set(const char *name) { return getenv(name) && *getenv(name); }

/* The launch count, in FAKE_CUDA_COUNTER's file when set (across processes). */
long fake_cuda_next_launch(void);
long fake_cuda_next_launch(void)
{
    const char *path = getenv("FAKE_CUDA_COUNTER");
    long n = 0;
    if (!path || !*path) return ++launches;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1) n = 0;
        fclose(f);
    }
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%ld\n", n + 1);
        fclose(f);
    }
    launches++;
    return n + 1;
}

#define ALIVE()                                                                                                        \
    do {                                                                                                               \
        if (dead) return CUDA_ERROR_ILLEGAL_ADDRESS;                                                                   \
    } while (0)

/* A synchronising call: where a fault of an earlier launch surfaces. */
static CUresult synchronise(void)
{
    if (fault_pending) dead = 1, fault_pending = 0;
    return dead ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags)
{
    (void)flags;
    return env_set("FAKE_CUDA_NO_DEVICE") ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char **name)
{
    switch (r) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal != 0) return CUDA_ERROR_INVALID_VALUE;
    *d = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "flowbench fake GPU");
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d)
{
    (void)d;
    snprintf(id, (size_t)len, "0000:99:00.0");
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
    (void)d;
    *bytes = FAKE_TOTAL_MEM;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d)
{
    (void)d;
    *ctx = &primary;
    live_contexts++;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
    (void)d;
    if (live_contexts == 0) return CUDA_ERROR_INVALID_VALUE;
    live_contexts--;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    (void)ctx;
    ALIVE();
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return synchronise(); }

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    ALIVE();
    if (env_set("FAKE_CUDA_OOM")) return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = malloc(bytes ? bytes : 1);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    live_allocs++;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr p)
{
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    free((void *)(uintptr_t)p); /* freed even in a dead context: the process may still clean up */
    live_allocs--;
    return dead ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    if (synchronise() != CUDA_SUCCESS) return CUDA_ERROR_ILLEGAL_ADDRESS;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    if (synchronise() != CUDA_SUCCESS) return CUDA_ERROR_ILLEGAL_ADDRESS;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count)
{
    ALIVE();
    unsigned int *p = (unsigned int *)(uintptr_t)dst;
    for (size_t i = 0; i < count; ++i)
        p[i] = value;
    return CUDA_SUCCESS;
}

/* The image's length: an ELF (a cubin) ends with its section headers; PTX
 * is text. */
static size_t image_size(const char *image)
{
    if (memcmp(image, ELFMAG, SELFMAG) == 0 && image[EI_CLASS] == ELFCLASS64) {
        const Elf64_Ehdr *h = (const Elf64_Ehdr *)(const void *)image;
        return (size_t)h->e_shoff + (size_t)h->e_shnum * h->e_shentsize;
    }
    return strlen(image);
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    ALIVE();
    if (!image) return CUDA_ERROR_INVALID_IMAGE;
    struct CUmod_st *mod = calloc(1, sizeof *mod);
    if (!mod) return CUDA_ERROR_OUT_OF_MEMORY;
    mod->size = image_size(image);
    mod->image = malloc(mod->size);
    if (!mod->image) {
        free(mod);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy((void *)mod->image, image, mod->size);
    *m = mod;
    modules_loaded++;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m)
{
    if (!m) return CUDA_ERROR_INVALID_VALUE;
    free((void *)m->image);
    free(m);
    modules_unloaded++;
    return CUDA_SUCCESS;
}

/* A kernel is in the module when its name is (a cubin's symbol table and
 * PTX's .entry both hold it). */
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    ALIVE();
    if (!memmem(m->image, m->size, name, strlen(name))) return CUDA_ERROR_NOT_FOUND;
    struct CUfunc_st *fn = calloc(1, sizeof *fn); /* one per lookup, kept for the process: a test's handful */
    if (!fn) return CUDA_ERROR_OUT_OF_MEMORY;
    snprintf(fn->name, sizeof fn->name, "%s", name);
    *f = fn;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    (void)f;
    ALIVE();
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 32; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads, size_t shared)
{
    (void)f, (void)shared;
    ALIVE();
    *blocks = threads > 0 ? 2048 / threads : 0;
    return CUDA_SUCCESS;
}

#ifndef FAKE_CUDA_OLD
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)s, (void)params;
    (void)extra;
    ALIVE();
    const char *sticky = getenv("FAKE_CUDA_STICKY_LAUNCH");
    const long n = fake_cuda_next_launch();
    if (sticky && *sticky && n == atol(sticky)) fault_pending = 1;
    fake_clock_us += 1;
    return CUDA_SUCCESS;
}
#endif

CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    ALIVE();
    *e = calloc(1, sizeof **e);
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventDestroy(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    ALIVE();
    e->t = fake_clock_us;
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    return synchronise();
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent stop)
{
    ALIVE();
    *ms = (float)((stop->t - start->t) * 1e-3);
    return CUDA_SUCCESS;
}
