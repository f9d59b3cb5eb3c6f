/* flush_size.h - how much a cold-cache flush writes (backend.h's
 * flush_cache): twice the last-level cache and at least 64 MiB, where the
 * cache size is the one the device really has. NVIDIA's OpenCL driver
 * reports CL_DEVICE_GLOBAL_MEM_CACHE_SIZE far below the L2 (4.1 MiB for the
 * H100's 50 MiB), so a flush sized from it leaves most of the matrix in L2
 * and a "cold" run measures the cache. For an NVIDIA OpenCL device the L2
 * that CUDA reports for the same device is taken instead (the devices are
 * matched by name: one model, one L2 size); when CUDA cannot see it (not
 * built, no driver, another name) the flush is a safe 256 MiB, twice the
 * largest L2 of current NVIDIA GPUs. Kept apart from opencl.c so the rule
 * is tested where no GPU is. */
#ifndef FB_FLUSH_SIZE_H
#define FB_FLUSH_SIZE_H

#include <stddef.h>

#define FB_FLUSH_MIN_BYTES ((size_t)64 << 20)
#define FB_FLUSH_NVIDIA_UNSEEN_BYTES ((size_t)256 << 20)

/* The bytes to write: vendor is the device's (CL_DEVICE_VENDOR),
 * reported_cache its reported last-level cache, cuda_l2 the L2 CUDA reports
 * for the same device (0: not seen), max_alloc the largest buffer (0: no
 * limit). A multiple of 64. *why (may be NULL) gets where the size came
 * from, for messages. */
size_t fb_flush_bytes(const char *vendor, size_t reported_cache, size_t cuda_l2, size_t max_alloc, const char **why);

/* The L2 bytes the CUDA backend reports for the device named `name`, 0 when
 * CUDA is not built, has no driver or no device of that name. */
size_t fb_cuda_l2_of(const char *name);

#endif
