/* common_host.h - the host side of the device prelude (kernels/common.cl):
 * the FB_ names a helper shared by device kernels and host C uses, defined
 * for host C11, so that the helper is written once and compiles in all
 * three (OpenCL C, CUDA through opencl_to_cuda.h, host C). Host twins and
 * references include it before such a helper (grid/rusanov.h through
 * grid/fv_surface_flux.h, spmv/merge_path.h in spmv_omp.c).
 *
 * The common subset: FB_INLINE functions of REAL, int and plain pointers
 * (FB_GLOBAL on a pointer into device global memory), C operators, and
 * for math the FB_ names below rather than OpenCL built-ins (min, max,
 * overloaded sqrt, fabs, fmax), which host C lacks or has per precision.
 */
#ifndef FB_COMMON_HOST_H
#define FB_COMMON_HOST_H

#include <math.h>

#define FB_INLINE static inline
#define FB_GLOBAL

/* OpenCL C overloads sqrt on float and double; _Generic picks the same way. */
#define FB_SQRT(x) _Generic((x), float : sqrtf, default : sqrt)(x)

/* The device's fabs and fmax are instructions; on the host fmax is a libm
 * call (GCC does not inline it), so the host keeps the comparisons it has
 * always used. They give fabs's and fmax's bits except for a NaN argument
 * and the sign of a zero result. */
#define FB_FABS(x) ((x) < 0 ? -(x) : (x))
#define FB_FMAX(a, b) ((a) > (b) ? (a) : (b))

#endif
