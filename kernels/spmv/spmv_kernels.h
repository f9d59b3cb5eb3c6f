/* spmv_kernels.h - the SpMV kernel family as data: for each variant its
 * source, parameter space, constraints, launch geometry and storage format.
 * The byte and flop model is the format's (spmv_formats.c: one model per
 * format, beside the value layout the reference reads). */
#ifndef FB_SPMV_KERNELS_H
#define FB_SPMV_KERNELS_H

#include "backends/backend.h"
#include "core/params.h"
#include "spmv_formats.h"

typedef struct fb_spmv_kernel_def {
    const char *name; /* "csr-multirow" */
    const char *summary;
    const char *source;               /* "spmv/csr_multirow.cl" */
    const char *kernel;               /* "spmv_csr_multirow" */
    const char *fixup_kernel;         /* second kernel (merge path), or NULL */
    const fb_spmv_format_ops *format; /* what it reads, its model and its run (spmv_formats.h) */
    int nparams;
    fb_param_axis params[FB_MAX_PARAMS];
    /* 0 if the point is allowed on this device for this problem, else
     * writes the reason ("WG_SIZE 2048 exceeds the device limit 1024"). */
    int (*allowed)(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why, size_t len);
    /* Launch geometry of the main kernel (and of the fix-up, if any). */
    void (*geometry)(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup, int *nthreads);
    /* A user's kernel file (bench/user_kernel.h) in its template's row:
     * source is the user's path, source_text the file (NULL for a built-in:
     * the embedded source), fixup_source where the template's fix-up kernel
     * is built from (NULL: source), user the declaration. */
    const char *source_text, *fixup_source;
    const struct fb_user_kernel *user;
} fb_spmv_kernel_def;

extern const fb_spmv_kernel_def fb_spmv_kernels[];
extern const int fb_spmv_kernel_count;

/* A built-in kernel by name, else a user kernel of the family. */
const fb_spmv_kernel_def *fb_spmv_kernel_find(const char *name);

/* The user kernels registered for the spmv family so far, as rows of the
 * table: their template's row with the user's file, name and axes. */
int fb_spmv_user_kernel_count(void);
const fb_spmv_kernel_def *fb_spmv_user_kernel(int u);
fb_param_point fb_spmv_default_point(const fb_spmv_kernel_def *k);

/* The OpenMP twins (spmv_omp.c), one per device kernel and precision. */
extern const fb_host_kernel fb_spmv_host_kernels[];

#endif
