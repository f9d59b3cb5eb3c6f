/* measure.h - the one measurement policy every backend and command uses.
 *
 * warm-up runs, then samples until the median's relative spread (stats.h)
 * is under target_spread with at least min_samples, or max_samples or the
 * wall-clock budget is reached. Each sample's duration comes from the
 * sample function (device events on GPUs, the monotonic clock on the CPU).
 * In cold mode the flush function runs before every sample, untimed.
 */
#ifndef FB_MEASURE_H
#define FB_MEASURE_H

#include "clock.h" /* fb_now: the measurement's clock, which its callers time with too */
#include "contention.h"
#include "energy.h"
#include "interrupt.h"
#include "stats.h"
#include "status.h"

/* Samples an abandon decision rests on (fb_measure_config.abandon_above_s). */
#define FB_ABANDON_SAMPLES 3

typedef struct fb_measure_config {
    int warmups;          /* untimed runs first (default 2) */
    int min_samples;      /* default 5 */
    int max_samples;      /* default 200 */
    double target_spread; /* default 0.01 (1%) */
    double budget_s;      /* wall-clock budget for one measurement (default 2 s) */
    int cold;             /* flush the last-level cache before each sample */
    /* Sweeps only (0 = off). abandon_above_s: stop after the first
     * FB_ABANDON_SAMPLES samples when the fastest of them is slower than
     * this (k x the best so far: finishing the measurement could not change
     * the verdict). deadline: fb_now() time
     * after which sampling stops (the per-configuration time-out; checked
     * between samples, so one sample that never returns is not caught). */
    double abandon_above_s;
    double deadline;
    /* Hardware counters started before and stopped after each timed sample
     * (not warm-ups or flushes); NULL = none. counters.h. */
    struct fb_counters *counters;
    /* The device's energy meter (energy.h), started after the warm-ups and
     * stopped after the last sample, the launch repeated until its minimum
     * window is reached where joules can be read; NULL = none (no energy in
     * the record). Cold mode leaves it out: the flushes would be counted. */
    struct fb_energy_meter *energy;
    /* CPUs the measured work keeps busy (the OpenMP threads; 1 for a GPU's
     * host thread; 0 = every CPU): how much other runnable work the
     * machine can take before the run is contended (contention.h). */
    int cpu_threads;
} fb_measure_config;

typedef enum fb_stop_reason {
    FB_STOP_CONVERGED,
    FB_STOP_MAX_SAMPLES,
    FB_STOP_BUDGET,
    FB_STOP_ABANDONED, /* the fastest of the first FB_ABANDON_SAMPLES over abandon_above_s */
    FB_STOP_TIMEOUT,   /* past the deadline */
    FB_STOP_CONTENDED  /* the median's interval met its target while other work competed for the CPUs */
} fb_stop_reason;

typedef struct fb_measurement {
    double *samples; /* seconds, in the order taken (malloc'd) */
    int nsamples;
    fb_stats stats;
    fb_stop_reason stop;
    double wall_s;            /* wall time spent: warm-ups, flushes and the energy window's repeats included */
    fb_energy_reading energy; /* state FB_ENERGY_NONE without a meter */
    fb_contention env;        /* the machine around the samples; env.on == 0: not watched */
    fb_quality quality;       /* fb_measurement_judge */
    char quality_why[320];    /* "" when stable */
} fb_measurement;

/* Runs one timed execution and returns its duration in seconds. */
typedef fb_status (*fb_sample_fn)(void *ctx, double *seconds);
/* Evicts caches before a cold sample. */
typedef fb_status (*fb_flush_fn)(void *ctx);

fb_measure_config fb_measure_defaults(void);

/* Measures; flush may be NULL unless cfg->cold. Returns FB_ERR_INTERRUPTED
 * (with the samples so far in out) if fb_interrupted was set. */
fb_status fb_measure(const fb_measure_config *cfg, fb_sample_fn sample, void *ctx, fb_flush_fn flush, void *flush_ctx,
                     fb_measurement *out);

void fb_measurement_free(fb_measurement *m);

/* Sets m->quality and m->quality_why from the samples and the window
 * (fb_quality_judge); fb_measure calls it, a caller that times its own
 * samples (the solver's steps) calls it after fb_contention_end. */
void fb_measurement_judge(fb_measurement *m);

/* What the terminal prints after the interval: "converged" (or the rule
 * that stopped it) when stable, else "unstable: CV 45%, min ..." or
 * "contended: ...". */
const char *fb_measurement_verdict(const fb_measurement *m, char *buf, size_t len);

const char *fb_stop_reason_name(fb_stop_reason r);

#endif
