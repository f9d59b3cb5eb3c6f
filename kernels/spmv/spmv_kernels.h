/* spmv_kernels.h - the SpMV kernel family as data: for each variant its
 * source, parameter space, constraints, launch geometry and storage format.
 * The byte and flop model is fb_spmv_model (one model per format), defined
 * in spmv_kernels.c beside the table so a reader checks them together. */
#ifndef FB_SPMV_KERNELS_H
#define FB_SPMV_KERNELS_H

#include "backends/backend.h"
#include "core/params.h"

/* FB_FORMAT_SELL: SELL-C-sigma (sell_matrix.h), which the SELL kernels'
 * run builds from a CSR view: they read a CSR matrix. */
typedef enum fb_spmv_format { FB_FORMAT_CSR, FB_FORMAT_BCSR, FB_FORMAT_BCSR_SOA, FB_FORMAT_SELL } fb_spmv_format;

/* The view a kernel of this format is given: CSR for the SELL kernels. */
static inline fb_spmv_format fb_spmv_input_format(fb_spmv_format f) { return f == FB_FORMAT_SELL ? FB_FORMAT_CSR : f; }

/* Problem facts the geometry and constraints depend on. */
typedef struct fb_spmv_shape {
    int nrows, ncols;
    long long nnz;     /* stored scalar entries (BCSR: nblocks * block^2) */
    int block;         /* 1 for CSR */
    int nbrows;        /* block rows (CSR: nrows) */
    long long nblocks; /* BCSR blocks (CSR: nnz) */
    int real_bytes;    /* 8 double, 4 single */
} fb_spmv_shape;

typedef struct fb_spmv_kernel_def {
    const char *name; /* "csr-multirow" */
    const char *summary;
    const char *source;       /* "spmv/csr_multirow.cl" */
    const char *kernel;       /* "spmv_csr_multirow" */
    const char *fixup_kernel; /* second kernel (merge path), or NULL */
    fb_spmv_format format;
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

typedef struct fb_spmv_model {
    double flops;     /* 2 per stored entry */
    double min_bytes; /* values + indices + row pointers + x once + y once */
} fb_spmv_model;

extern const fb_spmv_kernel_def fb_spmv_kernels[];
extern const int fb_spmv_kernel_count;

/* A built-in kernel by name, else a user kernel of the family. */
const fb_spmv_kernel_def *fb_spmv_kernel_find(const char *name);

/* The user kernels registered for the spmv family so far, as rows of the
 * table: their template's row with the user's file, name and axes. */
int fb_spmv_user_kernel_count(void);
const fb_spmv_kernel_def *fb_spmv_user_kernel(int u);
fb_param_point fb_spmv_default_point(const fb_spmv_kernel_def *k);
fb_spmv_model fb_spmv_model_of(fb_spmv_format format, const fb_spmv_shape *s);

/* A run that converted its CSR input (SELL): what the conversion cost and
 * stored, for the model and the record. */
typedef struct fb_spmv_conversion {
    int done;         /* 1 when the run converted the matrix */
    double seconds;   /* wall time of the conversion, not in the samples */
    long long stored; /* entries stored, padding included */
    int nslices;
    int permuted;   /* rows were reordered (y written through perm) */
    double padding; /* (stored - nnz) / nnz */
} fb_spmv_conversion;

/* SELL-C-sigma: every stored entry (padding included), the slice
 * pointers, the permutation when the rows were sorted, x and y once. */
fb_spmv_model fb_spmv_model_sell(const fb_spmv_shape *s, const fb_spmv_conversion *c);

/* The OpenMP twins (spmv_omp.c), one per device kernel and precision. */
extern const fb_host_kernel fb_spmv_host_kernels[];

#endif
