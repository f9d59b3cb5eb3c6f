/* stream_family.c - the stream family's descriptor: the five BabelStream
 * kernels (plus the fill that sets the arrays), their programs for the
 * NVRTC test and their OpenMP twins. Stream is every run's roofline
 * reference (stream_run.c, `flowbench stream`), not a swept family. */
#include "stream.h"

static fb_family_kernel kernels[FB_STREAM_NKERNELS];

static int kernel_count(void) { return FB_STREAM_NKERNELS; }

static const fb_family_kernel *kernel_at(int i)
{
    if (!kernels[0].name)
        for (int k = 0; k < FB_STREAM_NKERNELS; ++k)
            kernels[k] = (fb_family_kernel){
                fb_stream_models[k].name, fb_stream_models[k].kernel, 0, NULL, "stream/stream.cl", NULL};
    return &kernels[i];
}

static int variants(fb_variant_sink *sink)
{
    static const char *const programs[] = {"stream_copy",  "stream_mul", "stream_add",
                                           "stream_triad", "stream_dot", "stream_fill"};
    fb_variant v;
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; ++k)
        for (int r = 0; r < 2; ++r) {
            fb_variant_begin(&v, "stream/stream.cl", programs[k], fb_variant_reals[r]);
            if (fb_variant_emit(sink, &v)) return 1;
        }
    return 0;
}

const fb_family fb_family_stream = {
    .name = "stream",
    .summary = "BabelStream copy, mul, add, triad, dot: the roofline references of every run",
    .model = "words per element (2 copy/mul/dot, 3 add/triad) x sizeof(REAL) bytes, dot + one REAL per chunk (4096 "
             "elements on a GPU, 32768 on a CPU); "
             "0, 1, 1, 2, 2 flops (fb_stream_models)",
    .reference = "every element of the output against its exact value after the kernel; each of dot's chunk sums "
                 "against its count of a b (stream_run.c)",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .variants = variants,
    .host_kernels = fb_stream_host_kernels,
};
