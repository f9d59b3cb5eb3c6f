/* variants.h - every device kernel variant flowbench can build.
 *
 * Each kernel family contributes the programs (source, kernel, defines) its
 * parameter space can produce. The NVRTC test compiles all of them for
 * sm_80 and sm_90, and the OpenCL tests build them on PoCL, so a variant
 * that a sweep could pick on a GPU is known to compile before it gets there.
 */
#ifndef FB_VARIANTS_H
#define FB_VARIANTS_H

#include "../backends/backend.h"

#define FB_VARIANT_MAX_DEFINES 8 /* REAL, up to 6 parameters, BLOCK_SIZE */

typedef struct fb_variant {
    char label[256];  /* "stream/stream.cl/stream_triad REAL=double" */
    fb_program_spec spec;
    fb_define defines[FB_VARIANT_MAX_DEFINES];
    char values[FB_VARIANT_MAX_DEFINES][32];
} fb_variant;

int fb_variant_count(void);

/* ---- for the families' enumerators (variants.c's `enumerators` table) ----
 * A family lists its variants by filling a fb_variant with begin + define
 * and handing it to emit; emit returns 1 when the sink is full (the caller
 * returns 1 at once), else 0. Enumerators return 1 to stop, 0 when done. */
typedef struct fb_variant_sink fb_variant_sink;
void fb_variant_begin(fb_variant *v, const char *source, const char *kernel, const char *real);
void fb_variant_define(fb_variant *v, const char *name, const char *value);
int fb_variant_emit(fb_variant_sink *sink, const fb_variant *v);

/* Fills v with variant i (0 <= i < fb_variant_count()); v->spec points into v. */
fb_status fb_variant_get(int i, fb_variant *v);

#endif
