/* sweep_state.h - what the sweep loop (sweep.c) keeps between
 * configurations: the plan, the opened targets and problem, the results
 * file, the keys already recorded (for --resume), the in-flight marker,
 * the best time per kernel (for early abandon) and the progress counters.
 * Internal to harness/tune. */
#ifndef FB_TUNE_SWEEP_STATE_H
#define FB_TUNE_SWEEP_STATE_H

#include <jansson.h>

#include "../results/results.h"
#include "sweep.h"

#define SWEEP_MAX_TARGETS 16

typedef struct sweep_config {
    int kase, matrix, backend; /* backend: index into sweep.targets */
    int is_double, kernel, tuned;
    int round; /* 1..--repeat: the plan's pass this configuration runs in */
    fb_param_point point;
    char key[2048]; /* the record's "sweep_key" */
} sweep_config;

typedef struct sweep_target {
    char spec[64];
    fb_target *t;                 /* NULL if it could not be opened */
    struct fb_counters *counters; /* --counters: this target's set (unavailable off openmp) */
    char why[512];                /* then: the reason */
} sweep_target;

typedef struct sweep {
    const fb_suite *s;
    const fb_sweep_options *o;
    fb_sweep_summary *sum;
    sweep_config *plan;
    int nplan, cap;
    sweep_target targets[SWEEP_MAX_TARGETS];
    int ntargets;
    void *problem; /* the open problem, of problem_family */
    const fb_family *problem_family;
    char problem_spec[1024];
    char problem_error[1024]; /* why it could not be opened ("" if it was) */
    fb_results *out;
    json_t *done;       /* sweep_key -> true (or the triad GB/s of stream records) */
    json_t *best;       /* kernel group -> best median seconds */
    json_t *stream_gbs; /* "target|precision" -> triad GB/s */
    json_t *tuning;     /* the "tuning" object of the configuration running (--tuned) */
    char inflight_path[1100];
    char crashed_key[2048]; /* key the previous process died in (--resume) */
    double started, run_seconds;
    int last_target;    /* target of the last configuration or stream run, -1 none */
    int unchecked_said; /* --resume: a header without options was mentioned */
} sweep;

extern const char sweep_crashed_reason[];

fb_status sweep_open_targets(sweep *w);
int sweep_target_index(const sweep *w, const char *spec);
const char *sweep_backend(const sweep *w, const sweep_config *cfg);

/* Reads the keys already in the results file (--resume), the in-flight
 * marker, and opens the file with a header naming the opened devices. */
fb_status sweep_state_open(sweep *w);
void sweep_state_close(sweep *w);
int sweep_is_done(const sweep *w, const char *key);

/* Opens the configuration's matrix unless it is open; a failure to open is
 * kept in problem_error (its configurations are recorded as failed). */
fb_status sweep_open_problem(sweep *w, const sweep_config *cfg);

/* The stream kernels of every target and precision in the plan (skipped
 * when the file has them), recorded; round 1's triad is the roofline
 * reference, later rounds (--repeat) are repetitions for compare. */
fb_status sweep_stream(sweep *w, int round);

/* Before work on target `next`: the previous target's work is finished
 * and its threads get a moment to go idle (sweep.c says why). */
void sweep_switch_target(sweep *w, int next);

/* Best median time so far of the configuration's kernel group (case,
 * matrix, target, precision, kernel); 0 if none. */
double sweep_best(const sweep *w, const sweep_config *cfg);

/* --tuned: fills cfg->point from the cache (exact, nearest, else the
 * kernel's default) and sets w->tuning to say which. */
fb_status sweep_tuned_point(sweep *w, sweep_config *cfg);

/* A record for a configuration that has no measurement. */
json_t *sweep_failure(const sweep *w, const sweep_config *cfg, const char *status, const char *reason);

fb_status sweep_inflight_begin(sweep *w, const sweep_config *cfg);
void sweep_inflight_end(sweep *w);

/* Adds suite, case, sweep_key, tuning and the roofline fraction; writes
 * and flushes the record; counts it; prints the progress line. */
fb_status sweep_write(sweep *w, const sweep_config *cfg, json_t *rec);

#endif
