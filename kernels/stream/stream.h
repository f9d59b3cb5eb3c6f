/* stream.h - the bandwidth probe: BabelStream's copy, mul, add, triad and
 * dot on any backend, validated, in GB/s. Every later roofline fraction
 * divides by the triad figure measured here, on the same device, in the
 * same run; SpMV, which reads almost everything it moves, also by dot's
 * (the read ceiling: docs/measurement.md says which bound applies where). */
#ifndef FB_STREAM_H
#define FB_STREAM_H

#include "backends/target.h"
#include "bench/family.h"
#include "core/measure.h"

#include <jansson.h>

#define FB_STREAM_NKERNELS 5
#define FB_STREAM_TRIAD 3 /* the index of the triad in fb_stream_models */
#define FB_STREAM_DOT 4   /* ... and of dot, the read ceiling */
/* The elements one work-group of dot sums (one partial sum each): on a
 * GPU 4096, the group's items interleaved; on a CPU (OpenMP, an OpenCL
 * CPU device) 32768, each item a contiguous run (fb_stream_dot_chunk). */
#define FB_STREAM_DOT_CHUNK 4096
#define FB_STREAM_DOT_CHUNK_CPU 32768
#define FB_STREAM_SCALAR 0.4
#define FB_STREAM_DEFAULT_N (1u << 25) /* BabelStream's default: 3 x 256 MiB in double; the least default */
#define FB_STREAM_MAX_N (1u << 30)     /* the kernels index with 32-bit ints */
#define FB_STREAM_CACHE_FACTOR 4       /* the 3 arrays at least 4x the last-level cache measure DRAM */
#define FB_STREAM_MEMORY_SHARE 0.5     /* ... within half the device's memory */

typedef struct fb_stream_config {
    size_t n;      /* elements per array */
    int is_double; /* 1: double, 0: float */
    size_t wg;     /* work-group size of the device kernels */
    fb_measure_config measure;
} fb_stream_config;

/* The byte and flop model of one stream kernel (per element). */
typedef struct fb_stream_model {
    const char *name;   /* "copy", "mul", "add", "triad", "dot" */
    const char *kernel; /* device kernel name */
    int words;          /* arrays read + written (dot also writes one partial sum per chunk) */
    int flops;
} fb_stream_model;

extern const fb_stream_model fb_stream_models[FB_STREAM_NKERNELS];

/* Dot's chunk on d: FB_STREAM_DOT_CHUNK_CPU on the host's CPU, else
 * FB_STREAM_DOT_CHUNK. */
size_t fb_stream_dot_chunk(const fb_device_info *d);

typedef struct fb_stream_result {
    const fb_stream_model *model;
    fb_measurement m;
    double bytes;         /* words * n * sizeof(REAL), dot's partial sums added */
    double gbs;           /* bytes / median time, 1e9 B/s */
    double gbs_best;      /* bytes / min time (BabelStream's figure) */
    double gflops;        /* flops / median time */
    double max_rel_error; /* of the output array against the serial reference */
    int checked_ok;
} fb_stream_result;

/* A stream length on a device, against its last-level cache (stream_size.c). */
typedef struct fb_stream_size {
    size_t n;                 /* elements per array */
    size_t default_n;         /* the device's default (below) */
    double working_set_bytes; /* the 3 arrays */
    int cache_reuse;          /* 1: under 4x the cache, the figures include cache reuse; 0: DRAM; -1: cache unknown */
    int resident;             /* 1: within the cache; 0: not; -1: cache unknown */
    int too_large;            /* 1: the default cannot reach 4x the cache within half the device's memory */
} fb_stream_size;

/* The facts of n elements per array on d; n = 0 is the device's default:
 * the smallest power of two, at least 2^25, whose 3 arrays take 4x the
 * last-level cache, or, where that would take more than half the device's
 * memory (the host's on openmp), the largest power of two that fits
 * there. */
fb_stream_size fb_stream_size_of(const fb_device_info *d, int is_double, size_t n);

/* Why a triad of s is no DRAM figure, in one sentence (with the cache
 * too large for this machine's memory where it is); "" when it is one or
 * the cache is unknown. */
void fb_stream_size_note(const fb_device_info *d, const fb_stream_size *s, char *buf, size_t len);

/* Sets obj's "cache_resident" and "cache_reuse" from s (null where the
 * cache is unknown): a stream record's, and a stream_reference's. */
void fb_stream_size_set_json(json_t *obj, const fb_stream_size *s);

/* Called after each kernel is measured (for progress lines); may be NULL. */
typedef void (*fb_stream_progress_fn)(const fb_stream_result *r, void *ctx);

/* Runs the five kernels in BabelStream order and checks each output array
 * element by element (dot: each chunk's sum). A failed check gives
 * FB_ERR_CHECK after all five have run; results[] is filled either way.
 * Free with fb_stream_results_free. */
fb_status fb_stream_run(fb_target *t, const fb_stream_config *cfg, fb_stream_result results[FB_STREAM_NKERNELS],
                        fb_stream_progress_fn progress, void *progress_ctx);

void fb_stream_results_free(fb_stream_result results[FB_STREAM_NKERNELS]);

/* The roofline reference of another benchmark: the validated triad's GB/s
 * by its median time, and by its slowest and fastest samples (the spread). */
typedef struct fb_stream_triad {
    double gbs, gbs_min, gbs_max;
    double read_gbs; /* dot's GB/s by its median in the same run, the read ceiling (0: unknown) */
    int samples;
    size_t n; /* elements per array */
    /* how the measurement went: only a stable triad is a reference to keep */
    fb_quality quality;
    char quality_why[320];
    double wait_fraction; /* its threads' run-queue wait over the window (-1: unknown) */
    int others_max;       /* the most other runnable tasks a poll saw */
    double load;          /* the 1-minute load before it (-1: unknown) */
    char host[64];        /* the host it was measured on */
} fb_stream_triad;

/* Runs the five kernels with n elements (0: the device's default), a short
 * budget and at least 10 samples. A wrong stream result is an error
 * (FB_ERR_CHECK). */
fb_status fb_stream_triad_measure(fb_target *t, size_t n, int is_double, fb_stream_triad *out);

/* The triad of a stream run (n elements): its figures, its quality and the
 * machine it saw, and dot's GB/s beside it. */
void fb_stream_triad_of(const fb_stream_result results[FB_STREAM_NKERNELS], size_t n, fb_stream_triad *out);

/* The measurement record of one stream kernel (docs/results.md), shared by
 * `flowbench stream` and the sweep runner. */
json_t *fb_stream_record(const fb_device_info *d, const fb_stream_config *cfg, const fb_stream_result *r);

/* The family (stream_family.c: its programs and OpenMP twins; no sweep
 * run: stream is the roofline reference) and its twins (stream_omp.c). */
extern const fb_family fb_family_stream;
extern const fb_host_kernel fb_stream_host_kernels[];

#endif
