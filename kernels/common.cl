/* common.cl - the device prelude: read before every kernels/ .cl file by
 * both device compilers (fb_kernel_program_text in
 * harness/core/kernel_sources.c; for CUDA after cuda/opencl_to_cuda.h), as
 * CLBlast prepends its common.opencl. It holds only what every kernel
 * shares; a kernel's own parameters keep their #ifndef defaults in its file.
 *
 * - REAL: the precision, double unless a -DREAL=float says otherwise.
 * - cl_khr_fp64: enabled where the device has it (every OpenCL 1.2 kernel
 *   using double must say so; NVRTC defines no cl_khr_fp64 and skips it).
 * - FB_INLINE: how helper functions are declared. opencl_to_cuda.h makes
 *   them __device__ for CUDA; here they are OpenCL C's static inline;
 *   kernels/common_host.h gives host C the same.
 * - FB_GLOBAL: the address space of a pointer into global memory in a
 *   helper shared with host C (OpenCL C 1.2 pointers are __private unless
 *   qualified; host C has no address spaces, so common_host.h makes it
 *   empty). Kernels themselves write __global.
 * - FB_LAUNCH_BOUNDS(...): CUDA's __launch_bounds__ (opencl_to_cuda.h);
 *   nothing in OpenCL C.
 * - FB_SQRT, FB_FABS, FB_FMAX: math in shared helpers, the built-ins here
 *   (overloaded on float and double in OpenCL C and CUDA); common_host.h
 *   says what host C uses.
 *
 * Shared helpers (grid/rusanov.h, spmv/merge_path.h) are pulled into a
 * kernel by `#include "grid/rusanov.h"`, a path relative to kernels/, which
 * the build path resolves from the embedded sources (or
 * FLOWBENCH_KERNEL_DIR); see docs/kernels.md.
 */
#ifndef REAL
#define REAL double
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef FB_INLINE
#define FB_INLINE static inline
#endif
#define FB_GLOBAL __global
#ifndef FB_LAUNCH_BOUNDS
#define FB_LAUNCH_BOUNDS(...)
#endif
#define FB_SQRT sqrt
#define FB_FABS fabs
#define FB_FMAX fmax
