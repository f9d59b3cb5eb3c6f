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
    {"stream_copy", "double", 3, stream_copy_omp_d},
    {"stream_copy", "float", 3, stream_copy_omp_s},
    {"stream_mul", "double", 4, stream_mul_omp_d},
    {"stream_mul", "float", 4, stream_mul_omp_s},
    {"stream_add", "double", 4, stream_add_omp_d},
    {"stream_add", "float", 4, stream_add_omp_s},
    {"stream_triad", "double", 5, stream_triad_omp_d},
    {"stream_triad", "float", 5, stream_triad_omp_s},
    {"stream_fill", "double", 3, stream_fill_omp_d},
    {"stream_fill", "float", 3, stream_fill_omp_s},
    {NULL, NULL, 0, NULL},
};
