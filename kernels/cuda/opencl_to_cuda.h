/* opencl_to_cuda.h - the prelude NVRTC reads before every kernels/ *.cl file
 * (ahead of kernels/common.cl, the prelude of both device compilers), so
 * the one OpenCL C source compiles as CUDA C++ (the approach of CLBlast's
 * opencl_to_cuda.h). It covers exactly the OpenCL C the kernels
 * use; a kernel that needs more adds it here, not a CUDA copy of itself.
 *
 * - Address spaces: __global and __private vanish (CUDA pointers are
 *   generic); __local becomes __shared__, which is only legal for arrays
 *   declared at kernel scope: never write a `__local T *p` pointer variable
 *   (NVRTC: "initializer not allowed for __shared__ variable"); index the
 *   array instead.
 * - __kernel becomes extern "C" __global__, so cuModuleGetFunction finds the
 *   kernel by its OpenCL name.
 * - Work-item functions map onto blockIdx/blockDim/threadIdx; backend.h's
 *   launch convention (global = grid * block) makes them agree exactly.
 * - barrier() is __syncthreads() for either fence (it orders shared and
 *   global memory for the block, which is at least what OpenCL asks).
 * - FB_INLINE marks helper functions, which CUDA must know are __device__.
 * - FB_LAUNCH_BOUNDS(...) is __launch_bounds__ (common.cl makes it nothing
 *   for OpenCL C).
 * - __CUDACC__ (set by NVRTC) is how a kernel selects a CUDA-only path.
 */
#ifndef FB_OPENCL_TO_CUDA_H
#define FB_OPENCL_TO_CUDA_H

#define __kernel extern "C" __global__
#define __global
#define __private
#define __local __shared__
#define __constant const
#define restrict __restrict__

#define FB_INLINE static __device__ __forceinline__
#define FB_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()

typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

FB_INLINE size_t fb_dim3_get(const uint3 v, const int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }
FB_INLINE size_t fb_dim3_get(const dim3 v, const int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }

FB_INLINE size_t get_local_id(const int d) { return fb_dim3_get(threadIdx, d); }
FB_INLINE size_t get_group_id(const int d) { return fb_dim3_get(blockIdx, d); }
FB_INLINE size_t get_local_size(const int d) { return fb_dim3_get(blockDim, d); }
FB_INLINE size_t get_num_groups(const int d) { return fb_dim3_get(gridDim, d); }
FB_INLINE size_t get_global_size(const int d) { return get_num_groups(d) * get_local_size(d); }
FB_INLINE size_t get_global_id(const int d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }

#endif
