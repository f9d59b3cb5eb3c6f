/* backend.h - the one interface every compute backend implements.
 *
 * A backend (openmp, opencl, cuda) is a table of function pointers, one file
 * each under harness/backends/, registered by name in target.c and chosen
 * at run time with "--backend NAME[:INDEX]". Callers never use the table
 * directly: they open an fb_target (target.h), which checks for missing
 * methods, caches kernel builds and keeps the device properties.
 *
 * Conventions shared by all backends:
 * - Launch geometry follows OpenCL: `global` is the total number of
 *   work-items per dimension and must be a multiple of `local`. CUDA maps it
 *   to grid = global / local, block = local.
 * - Kernels are built from OpenCL C text plus -D defines. The OpenMP backend
 *   has no device compiler: it looks the kernel name up in the OpenMP twins
 *   the spec carries (its family's table, fb_program_spec.host) and picks
 *   the one whose precision matches the REAL define; the source text is
 *   ignored there.
 * - Device-side timing: launch() with a non-NULL `seconds` waits for the
 *   kernel and returns its duration from device events (OpenCL profiling
 *   events, CUDA events) or the host monotonic clock (OpenMP).
 */
#ifndef FB_BACKEND_H
#define FB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

#define FB_TEXT_LEN 128

/* Properties that matter for tuning, filled by device_info(). Zero or an
 * empty string means "the runtime did not say". */
typedef struct fb_device_info {
    char backend[16]; /* "openmp", "opencl", "cuda" */
    char id[32];      /* what --backend accepts: "opencl:0.1" */
    char name[FB_TEXT_LEN];
    char vendor[FB_TEXT_LEN];
    char device_version[FB_TEXT_LEN];  /* "OpenCL 3.0 PoCL ...", "sm_90" */
    char driver_version[FB_TEXT_LEN];  /* OpenCL driver / CUDA driver API version */
    char runtime_version[FB_TEXT_LEN]; /* OpenCL platform, NVRTC, OpenMP spec date */
    int compute_units;                 /* CUs, SMs, or OpenMP threads */
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t local_mem_bytes;
    size_t global_mem_bytes;
    size_t cache_bytes; /* last-level cache: GPU L2, CPU L3 */
    int clock_mhz;
    int double_support;     /* 1 if double precision kernels run */
    int subgroup_size;      /* warp/sub-group width, 0 if none */
    int cc_major, cc_minor; /* CUDA compute capability, else 0 */
    int host_cpu;           /* 1: the device is this host's CPU (openmp, an OpenCL CPU device) */
    /* 1: kernels run in this process's OpenMP threads on host memory, as
     * the families' C twins (openmp): no copies, no device program, no
     * OpenCL C; its work is what this process's counters count. Code
     * outside backends/ asks this, not the backend's name. */
    int in_process;
    /* The most work-groups (CUDA blocks) one launch takes per dimension;
     * 0: the runtime states no limit (OpenCL, OpenMP). */
    size_t max_groups[3];
    /* 1: the device compiler contracts a*b + c into one rounding by
     * default (NVRTC's --fmad=true), so double results differ from the C
     * reference's in the last bits and no kernel can claim bitwise
     * agreement. */
    int fuses_multiply_add;
    char pci_bus_id[32]; /* "0000:65:00.0" where the runtime says (CUDA, OpenCL's cl_khr_pci_bus_info) */
    /* A host CPU's vector ISA and width (core/sysinfo.h), which the
     * roofline's peak assumes: "avx512f" and 512; "" and 0 elsewhere. */
    char simd[16];
    int simd_bits;
    char simd_source[128];
} fb_device_info;

typedef struct fb_device fb_device; /* an opened device: backend-private */
typedef struct fb_buffer fb_buffer; /* device memory: backend-private */
typedef struct fb_kernel fb_kernel; /* a built kernel: backend-private */

typedef struct fb_define {
    const char *name;
    const char *value; /* NULL for a bare "-DNAME" */
} fb_define;

struct fb_host_kernel;

/* What to build: one kernel function out of an OpenCL C source text, or,
 * on the openmp backend, its twin out of the family's host table. */
typedef struct fb_program_spec {
    const char *source_name; /* e.g. "stream/stream.cl", for messages and caching */
    const char *source_text; /* OpenCL C */
    const char *kernel_name; /* the __kernel function */
    const fb_define *defines;
    int ndefines;
    const struct fb_host_kernel *host; /* the family's OpenMP twins, NULL-name terminated */
} fb_program_spec;

typedef enum fb_arg_kind { FB_ARG_BUFFER, FB_ARG_I32, FB_ARG_F32, FB_ARG_F64 } fb_arg_kind;

typedef struct fb_arg {
    fb_arg_kind kind;
    union {
        fb_buffer *buffer;
        int32_t i32;
        float f32;
        double f64;
    } v;
} fb_arg;

typedef struct fb_launch {
    int dims;         /* 1..3 */
    size_t global[3]; /* total work-items per dimension */
    size_t local[3];  /* work-group size per dimension */
} fb_launch;

/* Host (OpenMP) kernels receive their arguments with buffers already
 * resolved to host pointers, in the order of the device kernel's signature. */
typedef union fb_host_arg {
    void *ptr;
    int32_t i32;
    float f32;
    double f64;
} fb_host_arg;

/* The -D defines a host kernel was "built" with (e.g. BLOCK_SIZE), kept by
 * the openmp backend so host twins can read the same parameters. */
typedef struct fb_host_defines {
    int n;
    char names[16][32];
    char values[16][32];
} fb_host_defines;

/* Integer value of a define, or dflt if absent or not an integer. */
int fb_host_define_int(const fb_host_defines *defs, const char *name, int dflt);

typedef void (*fb_host_kernel_fn)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs);

typedef struct fb_host_kernel {
    const char *name; /* same name as the device kernel */
    const char *real; /* "double" or "float" */
    int nargs;
    fb_host_kernel_fn fn;
} fb_host_kernel;

/* A family's twin in both precisions: fn##d on double, fn##s on float. */
#define FB_HOST_BOTH(name, nargs, fn)                                                                                  \
    {name, "double", nargs, fn##d}, { name, "float", nargs, fn##s }

/* What the compiler and runtime say about one built kernel launched with a
 * given work-group size: the numbers that explain a throughput (register
 * pressure, spills, occupancy). 0 where the backend cannot say. */
typedef struct fb_kernel_resources {
    int registers;          /* per work-item (CUDA: CU_FUNC_ATTRIBUTE_NUM_REGS) */
    size_t private_bytes;   /* per work-item memory outside registers: CUDA local memory
                               (spills and indexed arrays), OpenCL CL_KERNEL_PRIVATE_MEM_SIZE */
    size_t local_bytes;     /* __local / __shared__ per work-group, as compiled */
    size_t max_group_items; /* this kernel's own work-group limit */
    size_t group_multiple;  /* preferred work-group multiple (warp, SIMD width) */
    int groups_per_unit;    /* work-groups resident per compute unit at this size
                               (CUDA occupancy API); 0 if unknown */
    double occupancy;       /* resident warps / the SM's maximum (CUDA); 0 if unknown */
} fb_kernel_resources;

typedef struct fb_backend_ops {
    const char *name;
    /* Number of usable devices (>= 0). When 0, writes one short reason
     * ("no driver found", "no platform") to why. Never prints. */
    int (*probe)(char *why, size_t why_len);
    fb_status (*device_info)(int index, fb_device_info *info);
    fb_status (*open)(int index, fb_device **out);
    void (*close)(fb_device *dev); /* frees every buffer and kernel still held */
    fb_status (*alloc)(fb_device *dev, size_t bytes, fb_buffer **out);
    void (*release)(fb_device *dev, fb_buffer *buffer);
    fb_status (*copy_in)(fb_device *dev, fb_buffer *dst, const void *src, size_t bytes);
    fb_status (*copy_out)(fb_device *dev, void *dst, fb_buffer *src, size_t bytes);
    /* On a compile failure: FB_ERR_BUILD with the build log's first error
     * line in the message; the whole log goes to *log (malloc'd) if log != NULL. */
    fb_status (*build)(fb_device *dev, const fb_program_spec *spec, fb_kernel **out, char **log);
    void (*release_kernel)(fb_device *dev, fb_kernel *kernel);
    fb_status (*launch)(fb_device *dev, fb_kernel *kernel, const fb_launch *launch, const fb_arg *args, int nargs,
                        double *seconds);
    fb_status (*finish)(fb_device *dev);
    /* Evicts the last-level cache (cold measurements): writes a buffer
     * larger than cache_bytes. Not timed. */
    fb_status (*flush_cache)(fb_device *dev);
    /* Optional (NULL on the host backend): resources of a built kernel at
     * group_items work-items per group. */
    fb_status (*kernel_resources)(fb_device *dev, fb_kernel *kernel, size_t group_items, fb_kernel_resources *out);
} fb_backend_ops;

/* Backend tables, defined in openmp.c, opencl.c, cuda.c. A backend that was
 * not compiled in is still present: only its name and a probe that says why
 * (target.c checks the other methods once probe has found a device). */
extern const fb_backend_ops fb_backend_openmp;
extern const fb_backend_ops fb_backend_opencl;
extern const fb_backend_ops fb_backend_cuda;

/* Renders defines as "-DNAME=VALUE -DNAME ..." into out. Returns FB_ERR_INPUT
 * if a name or value holds a space or quote (they would break the option
 * string), FB_ERR_NOMEM if out is too small. */
fb_status fb_defines_render(const fb_define *defines, int ndefines, char *out, size_t out_len);

/* What a compiled program depends on besides the device: its source's
 * name and text and the defines (the kernel name is not in it). Two live
 * kernels of one key share one program: the solver builds some twenty
 * kernels of ns.cl, and compiling the text once per kernel cost PoCL 1.1 s
 * of a level-0 solve's set-up, the preprocessor run over the whole text on
 * every clBuildProgram, cache hit or not. */
uint64_t fb_program_spec_key(const fb_program_spec *spec);

/* The first line of a compiler log that mentions an error, else its first
 * non-empty line, else "" (for FB_ERR_BUILD messages; every backend's
 * compiler words its log differently). */
void fb_build_log_first_error(const char *log, char *out, size_t out_len);

/* Value of a define, or NULL if absent. */
const char *fb_defines_get(const fb_define *defines, int ndefines, const char *name);

#endif
