/* stream_omp.c - the OpenMP baseline of the stream kernels, instantiated in
 * double and single precision from one template (CHOLMOD-style). */
#include "stream.h"

#define ARG_REAL_d(arg) ((arg).f64)
#define ARG_REAL_s(arg) ((arg).f32)

#define REAL double
#define SUFFIX d
#include "stream_omp_template.h"
#undef REAL
#undef SUFFIX

#define REAL float
#define SUFFIX s
#include "stream_omp_template.h"
#undef REAL
#undef SUFFIX

const fb_host_kernel fb_stream_host_kernels[] = {
    FB_HOST_BOTH("stream_copy", 3, stream_copy_omp_),
    FB_HOST_BOTH("stream_mul", 4, stream_mul_omp_),
    FB_HOST_BOTH("stream_add", 4, stream_add_omp_),
    FB_HOST_BOTH("stream_triad", 5, stream_triad_omp_),
    FB_HOST_BOTH("stream_dot", 4, stream_dot_omp_),
    FB_HOST_BOTH("stream_fill", 3, stream_fill_omp_),
    {NULL, NULL, 0, NULL},
};
