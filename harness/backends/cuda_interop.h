/* cuda_interop.h - what a CUDA library peer (cuSPARSE) needs from the CUDA
 * backend to work on flowbench's own device buffers, and nothing more: the
 * backend runs on the device's primary context, which the CUDA runtime the
 * libraries use shares. */
#ifndef FB_CUDA_INTEROP_H
#define FB_CUDA_INTEROP_H

#include "backend.h"

/* The CUdeviceptr of a buffer the cuda backend allocated (0 when NULL or
 * when the backend was not built). */
unsigned long long fb_cuda_buffer_address(const fb_buffer *buffer);

#endif
