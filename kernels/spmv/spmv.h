/* spmv.h - runs one SpMV variant on one target: uploads the matrix in the
 * variant's format and precision, builds the kernel with its parameters as
 * -D defines, measures with the common policy, and checks y against the
 * serial double-precision reference on every run. */
#ifndef FB_SPMV_H
#define FB_SPMV_H

#include "backends/target.h"
#include "core/measure.h"
#include "matrix/source.h"
#include "bench/family.h"
#include "spmv/spmv_kernels.h"

/* A matrix as the SpMV layer needs it: a CSR or BCSR (AoS or SoA) view.
 * The arrays are borrowed, never freed here. Values are double; single
 * precision runs round them (and x) to float on upload. */
typedef struct fb_spmv_matrix {
    const fb_spmv_format_ops *format; /* fb_spmv_csr, fb_spmv_bcsr or fb_spmv_bcsr_soa */
    fb_spmv_shape shape;              /* real_bytes is ignored here (set per run) */
    const int *ptr;                   /* CSR rowptr (nrows + 1) or BCSR browptr (nbrows + 1) */
    const int *idx;                   /* CSR colidx (nnz) or BCSR block column (nblocks) */
    const double *values;             /* CSR: nnz. BCSR: nblocks * K^2, block-major, each block
                                         row-major. BCSR SoA: K^2 arrays of nblocks. */
    int max_row_entries;              /* longest row in scalar entries, for the error bound */
} fb_spmv_matrix;

typedef struct fb_spmv_config {
    const fb_spmv_kernel_def *kernel;
    fb_param_point point;
    int is_double;
    const double *x; /* ncols values, or NULL for the default x */
    fb_measure_config measure;
} fb_spmv_config;

typedef struct fb_spmv_result {
    fb_measurement m;
    fb_spmv_model model; /* flops and minimal bytes of this run */
    double gflops, gbs;  /* model / median time */
    double rel_error;    /* max |y - ref| / max (|A| |x|) */
    double tolerance;
    int checked_ok;
    fb_launch launch;              /* geometry of the main kernel */
    int has_resources;             /* resources below were reported (device backends) */
    fb_kernel_resources resources; /* of the main kernel at launch.local */
    double *y;                     /* the result (nrows), malloc'd, for --y-out */
    fb_spmv_conversion conversion; /* SELL, csr16: the run's conversion from CSR */
    /* A single-values format in a double run: max |y - y_exact| / max (|A| |x|),
     * y_exact from the unrounded double values (the price of the fewer
     * bytes, stated); -1 elsewhere. */
    double error_vs_double_values;
} fb_spmv_result;

/* Why the point is not allowed here (FB_ERR_USAGE naming the parameter), or FB_OK. */
fb_status fb_spmv_check_point(const fb_spmv_config *cfg, const fb_device_info *dev, const fb_spmv_matrix *A);

/* Runs, measures, checks: the kernel's format's run (spmv_formats.h).
 * FB_ERR_CHECK if y is wrong (result still filled). */
fb_status fb_spmv_run(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out);

/* The run of the formats whose kernels read the view as it is (CSR, BCSR). */
fb_status fb_spmv_run_kernels(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out);

/* The start every converting run (SELL, csr16, sss) shares: out cleared,
 * cfg's point checked against the device and A (fb_spmv_check_point), and
 * the kernel's main launch in *launch and out->launch. */
fb_status fb_spmv_run_begin(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_launch *launch,
                            fb_spmv_result *out);

/* The end every kernel run shares: cfg's measurement of sample(ctx), the
 * target's cache flushed where the policy says, y downloaded from the
 * device and checked by fb_spmv_finish against the reference for x. */
fb_status fb_spmv_measure_and_check(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, const double *x,
                                    fb_sample_fn sample, void *ctx, fb_buffer *y, fb_spmv_result *out);

void fb_spmv_result_free(fb_spmv_result *r);

/* Builds kernel_name of source (the user's file when it is the user
 * kernel's own, else embedded) with REAL, every axis of cfg's point and,
 * for a blocked format, BLOCK_SIZE = block, as -D defines. */
fb_status fb_spmv_build_kernel(fb_target *t, const fb_spmv_config *cfg, int block, const char *source,
                               const char *kernel_name, fb_kernel **out);

/* The value of cfg's axis `name` at its point, dflt where it has none. */
int fb_spmv_axis_value(const fb_spmv_config *cfg, const char *name, int dflt);

/* x as given, or the default x in *owned (free it). */
fb_status fb_spmv_make_x(const fb_spmv_matrix *A, const double *given, double **owned, const double **x);

/* With r->m measured and r->y filled: derives GFLOP/s and GB/s from the
 * model and checks y against the reference (FB_ERR_CHECK naming `where`).
 * Shared by the kernels and the peer libraries. */
fb_status fb_spmv_finish(const fb_spmv_matrix *A, const fb_spmv_config *cfg, const double *x, const char *where,
                         fb_spmv_result *r);

/* A matrix, x and y on a device, in the run's precision (single rounds on
 * the way in): what the kernels and the device peers both read. */
typedef struct fb_spmv_buffers {
    fb_buffer *ptr, *idx, *val, *x, *y;
} fb_spmv_buffers;

/* Uploads A and x, allocates y (nrows). On failure what was allocated is
 * still in *out for fb_spmv_buffers_release. */
fb_status fb_spmv_upload(fb_target *t, const fb_spmv_matrix *A, int is_double, const double *x, fb_spmv_buffers *out);
void fb_spmv_buffers_release(fb_target *t, fb_spmv_buffers *b);

/* n REALs from the device, widened to double (malloc'd). */
fb_status fb_spmv_download_reals(fb_target *t, int is_double, fb_buffer *src, size_t n, double **out);

/* The serial reference (spmv_ref.c): y = A x and s = |A| |x| row-wise, in double. */
void fb_spmv_reference(const fb_spmv_matrix *A, const double *x, double *y, double *s);

extern const fb_family fb_family_spmv;

/* The family's problem (a loaded matrix) as the spmv command uses it
 * beyond what a sweep does: loaded with RCM renumbering, with the user's
 * x (FB_ERR_INPUT naming the file when it does not fit), its matrix, and
 * the y of its last run (NULL before one). */
fb_status fb_spmv_problem_open(const char *spec, int reorder_rcm, void **problem);
fb_status fb_spmv_problem_read_x(void *problem, const char *path);
const fb_matrix *fb_spmv_problem_matrix(const void *problem);
const double *fb_spmv_problem_y(const void *problem);

/* On several ranks PETSc splits the rows and x alike (peer_petsc.c): a
 * matrix that is not square is FB_ERR_USAGE, named, before PETSc would
 * abort the job. FB_OK on one process. */
fb_status fb_spmv_problem_check_ranks(const void *problem);

#endif
