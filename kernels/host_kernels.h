/* host_kernels.h - the OpenMP kernels the openmp backend can "build".
 *
 * Each family file (kernels/<family>/<family>_omp.c) exports a table
 * terminated by a NULL name; host_kernels.c lists the tables. A host kernel
 * has the same name and argument order as its device kernel, so callers
 * launch both through one code path.
 */
#ifndef FB_HOST_KERNELS_H
#define FB_HOST_KERNELS_H

#include "backends/backend.h"

extern const fb_host_kernel fb_stream_host_kernels[];
extern const fb_host_kernel fb_spmv_host_kernels[];
extern const fb_host_kernel fb_fv_surface_host_kernels[];
extern const fb_host_kernel fb_heat2d_host_kernels[];

/* The host kernel with this name and precision ("double"/"float"), or NULL. */
const fb_host_kernel *fb_host_kernel_find(const char *name, const char *real);

#endif
