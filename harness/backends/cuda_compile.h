/* cuda_compile.h - OpenCL C kernel text to a CUDA module image, through
 * NVRTC, without a GPU or a driver.
 *
 * The CUDA backend builds kernels with it, and the NVRTC test compiles every
 * kernel variant with it for sm_80 and sm_90 on machines that have no GPU
 * (docs/architecture.md: every variant CUDA would run is compiled in CI). The source is
 * read after kernels/cuda/opencl_to_cuda.h and kernels/common.cl, its
 * includes expanded, with #line directives so that compiler messages name
 * the .cl file (or included helper) and its own line numbers
 * (fb_kernel_program_text).
 */
#ifndef FB_CUDA_COMPILE_H
#define FB_CUDA_COMPILE_H

#include "backend.h"

typedef struct fb_cuda_image {
    char *data; /* cubin, or NUL-terminated PTX (malloc'd) */
    size_t size;
    int is_cubin;  /* 0: PTX for the driver to JIT */
    char arch[16]; /* what it was compiled for: "sm_90", "compute_90" */
} fb_cuda_image;

/* Compiles spec for compute capability major.minor: a cubin when NVRTC
 * knows that architecture exactly, else PTX for the newest one it knows
 * below it (the driver JIT-compiles PTX for newer GPUs). On a compiler
 * error: FB_ERR_BUILD with the log's first error line; the whole log goes
 * to *log (malloc'd) when log != NULL, on success too (warnings). */
fb_status fb_cuda_compile(const fb_program_spec *spec, int cc_major, int cc_minor, fb_cuda_image *out, char **log);

void fb_cuda_image_free(fb_cuda_image *image);

/* "NVRTC 13.0" into out. */
fb_status fb_cuda_nvrtc_version(char *out, size_t out_len);

#endif
