/* variants.h - the device kernel variants a family can build.
 *
 * Each family lists the programs (source, kernel, defines) its parameter
 * space can produce through its descriptor's `variants` enumerator; the
 * registry (kernels/families.c) numbers them all. The NVRTC test compiles
 * every one for sm_80 and sm_90, and the OpenCL tests build them on PoCL,
 * so a variant that a sweep could pick on a GPU is known to compile before
 * it gets there.
 */
#ifndef FB_VARIANTS_H
#define FB_VARIANTS_H

#include "../backends/backend.h"
#include "../core/params.h"

#define FB_VARIANT_MAX_DEFINES 8 /* REAL, up to 6 parameters, BLOCK_SIZE */

typedef struct fb_variant {
    char label[256]; /* "stream/stream.cl/stream_triad REAL=double" */
    fb_program_spec spec;
    fb_define defines[FB_VARIANT_MAX_DEFINES];
    char values[FB_VARIANT_MAX_DEFINES][32];
} fb_variant;

/* Where an enumerator hands its variants: counting them (target -1) or
 * picking number `target` into out. */
typedef struct fb_variant_sink {
    int target;
    int seen;
    fb_variant *out;
} fb_variant_sink;

/* A family lists its variants by filling a fb_variant with begin + define
 * and handing it to emit; emit returns 1 when the sink is full (the caller
 * returns 1 at once), else 0. Enumerators return 1 to stop, 0 when done. */
void fb_variant_begin(fb_variant *v, const char *source, const char *kernel, const char *real);
void fb_variant_define(fb_variant *v, const char *name, const char *value);
int fb_variant_emit(fb_variant_sink *sink, const fb_variant *v);

/* Defines every code-changing axis (not launch_only) at its value in p. */
void fb_variant_define_point(fb_variant *v, const fb_param_axis *axes, int naxes, const fb_param_point *p);

/* The two precisions every family builds, "double" then "float". */
extern const char *const fb_variant_reals[2];

/* A generic CUDA-class device (1024 work-items per group, 48 KiB of static
 * local memory): the limits enumerators filter points against, so every
 * listed variant is one a GPU sweep could pick. */
extern const fb_device_info fb_variant_generic_gpu;

/* Enumerates the code-changing points of an axis space (launch-only axes
 * stay at their default): first sets *p and pos, next advances; 0 when done. */
int fb_variant_first_point(const fb_param_axis *axes, int naxes, int *pos, fb_param_point *p);
int fb_variant_next_point(const fb_param_axis *axes, int naxes, int *pos, fb_param_point *p);

#endif
