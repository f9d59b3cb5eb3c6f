/* sweep_state.h - what the sweep loop (sweep.c) keeps between
 * configurations: the plan, the opened targets and problem, the results
 * file, the keys already recorded (for --resume), the in-flight marker,
 * the best time per kernel (for early abandon) and the progress counters.
 * Internal to harness/tune. */
#ifndef FB_TUNE_SWEEP_STATE_H
#define FB_TUNE_SWEEP_STATE_H

#include <jansson.h>

#include "../results/records/results.h"
#include "sweep.h"

#include <regex.h>

#define SWEEP_MAX_TARGETS 16

typedef struct sweep_config {
    int kase, matrix, backend; /* backend: index into sweep.targets */
    int is_double, kernel, tuned;
    int round; /* 1..--repeat: the plan's pass this configuration runs in */
    fb_param_point point;
    char key[2048]; /* the record's "sweep_key" */
} sweep_config;

typedef struct sweep_target {
    char spec[64];                /* as the suite or --backend names it: the key's */
    char device[80];              /* the spec opened: spec, or "NAME:K" for this rank's device */
    fb_target *t;                 /* NULL if it could not be opened */
    struct fb_counters *counters; /* --counters: this target's set (unavailable off openmp) */
    char why[512];                /* then: the reason */
} sweep_target;

/* What a sweep process started after another one died inside a
 * configuration carries over (sweep_guard.c): the runs this command wrote
 * before, so that resuming counts only their records (all the file's
 * when the command said --resume), and the counts so far. */
typedef struct sweep_restart {
    char (*run_ids)[64];
    int nruns;
    int every_run;
    fb_sweep_summary before; /* the counts when the last process died */
    double started;          /* fb_now() when the command's first process started (one clock for all) */
} sweep_restart;

typedef struct sweep {
    const fb_suite *s;
    const sweep_restart *restart; /* NULL: the first (or only) process of the command */
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
    fb_results *out;          /* the file this process writes: OUT, or OUT.rank-R on rank R > 0 */
    char out_path[1100];
    int rank, ranks;     /* fb_comm_rank/size: ranks > 1 splits the plan */
    int planned;         /* configurations of the whole plan (its --shard share) */
    int recorded_before; /* of those, recorded before (several ranks: not in any rank's plan) */
    char run_id[64];     /* several ranks: rank 0's, which every rank writes under */
    json_t *done;        /* sweep_key -> true (or the triad GB/s of stream records) */
    json_t *best;        /* kernel group -> best median seconds */
    json_t *stream_gbs;  /* "target|precision" -> triad GB/s */
    json_t *tuning;      /* the "tuning" object of the configuration running (--tuned) */
    char inflight_path[1200];
    json_t *crashed; /* sweep_key -> true, or {status, reason} the guard noted: a previous process died in it */
    double started, run_seconds;
    int last_target;    /* target of the last configuration or stream run, -1 none */
    int unchecked_said; /* --resume: a header without options was mentioned */
    regex_t filter;     /* --filter, compiled (has_filter) */
    int has_filter;
} sweep;

extern const char sweep_crashed_reason[];

/* The summary's counts as a table: the guard's recipe carries them, the
 * ranks add them up (unavailable, the last, is a largest, not a sum). */
#define SWEEP_NCOUNTS 11
static inline int *sweep_count(fb_sweep_summary *s, int i)
{
    int *const fields[SWEEP_NCOUNTS] = {&s->total,  &s->skipped, &s->recorded,   &s->ok,
                                        &s->wrong,  &s->pruned,  &s->abandoned,  &s->timeouts,
                                        &s->failed, &s->missing, &s->unavailable};
    return fields[i];
}

fb_status sweep_open_targets(sweep *w);
int sweep_target_index(const sweep *w, const char *spec);
const char *sweep_backend(const sweep *w, const sweep_config *cfg);

/* Reads the keys already in the results file (--resume), the in-flight
 * markers, keeps this process's share of the plan, and opens the file
 * with a header naming the opened devices. Collective under several
 * ranks. */
fb_status sweep_state_open(sweep *w);
/* Closes what w holds, the plan and the filter too. */
void sweep_state_close(sweep *w);
/* Whether the results file (or this run) already records the key. */
static inline int sweep_is_done(const sweep *w, const char *key) { return json_object_get(w->done, key) != NULL; }

/* --resume --dry-run: the keys the results file already holds (its
 * headers' options checked as --resume checks them), read without
 * opening it for writing; nothing without --resume. */
fb_status sweep_read_recorded(sweep *w);

/* Opens the configuration's matrix unless it is open; a failure to open is
 * kept in problem_error (its configurations are recorded as failed). */
fb_status sweep_open_problem(sweep *w, const sweep_config *cfg);

/* The stream kernels of every target and precision in the plan (skipped
 * when the file has them), recorded; round 1's triad is the roofline
 * reference, later rounds (--repeat) are repetitions for compare. */
fb_status sweep_stream(sweep *w, int round);

/* Before work on target `next`: the previous target's work is finished
 * and its threads get a moment to go idle (the function says why). */
void sweep_switch_target(sweep *w, int next);

/* Best median time so far of the configuration's kernel group (case,
 * matrix, target, precision, kernel); 0 if none. */
double sweep_best(const sweep *w, const sweep_config *cfg);

/* --tuned: fills cfg->point from the cache (exact, nearest, else the
 * kernel's default) and sets w->tuning to say which. */
fb_status sweep_tuned_point(sweep *w, sweep_config *cfg);

/* A record for a configuration that has no measurement. */
json_t *sweep_failure(const sweep *w, const sweep_config *cfg, const char *status, const char *reason);

/* ---- sweep_ranks.c: shares and ranks ---- */

/* OUT.rank-R. */
void sweep_rank_path(const char *out, int rank, char *buf, size_t len);

/* Rank 0 (or the one process), with OUT open: the OUT.rank-R files a
 * killed run left, joined into OUT and deleted. */
fb_status sweep_absorb_leftovers(sweep *w);

/* The OUT.rank-R.inflight markers there are (malloc'd paths). */
fb_status sweep_leftover_markers(const char *out, char ***paths, int *n);

/* After a step every rank took: this rank's status, or, when only another
 * rank failed, an error of that kind marked quiet (that rank said why).
 * One rank: mine. */
fb_status sweep_agree(sweep *w, fb_status mine);

/* Every rank gets rank 0's done and crashed keys and run id. */
fb_status sweep_share_state(sweep *w);

/* Keeps this process's configurations: its --shard share, then under
 * several ranks its share of what is not recorded, then those whose
 * backend opened here. */
fb_status sweep_share_plan(sweep *w);

/* The results file's header: this process's opened devices and extra. */
fb_status sweep_write_header(sweep *w, const json_t *extra);

/* Several ranks, after each opened its file: the header of OUT (rank 0,
 * every rank's devices) and of OUT.rank-R, and whether rank 0 sees every
 * rank's file (a file system they share). */
fb_status sweep_ranks_headers(sweep *w, json_t *extra);

/* Several ranks, at the end: every rank's status and counts, and rank 0
 * joining OUT.rank-R into OUT. Returns the status this rank reports. */
fb_status sweep_ranks_finish(sweep *w, fb_status status);

/* "host", and "shard" or "rank"/"ranks", on a record of a share. */
void sweep_add_origin(const sweep *w, json_t *rec);

/* "|shard=I/N|rank=R|host=H" (the parts that apply; "" for the whole plan
 * on one process): a stream record's key, per device and host. */
void sweep_origin_suffix(const sweep *w, char *buf, size_t len);

fb_status sweep_inflight_begin(sweep *w, const sweep_config *cfg);
void sweep_inflight_end(sweep *w);

/* ---- sweep_guard.c: a configuration that crashes or hangs ---- */

/* A successor process (the guard started it after its predecessor died
 * inside a configuration): *successor = 1 and restart read from the
 * guard's recipe; else 0. restart->run_ids is malloc'd. */
fb_status sweep_guard_restart(sweep_restart *restart, int *successor);

/* In a guarded process: the configuration may crash or hang from here
 * until fb_guard_done (core/guard.h). */
void sweep_guard_begin(const sweep *w, const sweep_config *cfg);

/* A successor, once its file is open: the command's counts so far and
 * its start, so its progress and summary are the whole command's. */
void sweep_guard_carry(sweep *w);

/* In a guarded process: how a successor goes on should this one die in
 * the next configuration (this command's runs, the counts so far). */
void sweep_guard_report(const sweep *w);

/* The record of a configuration a previous process died in: the guard's
 * note (crashed or timeout, how) or the old rule's "crashed". */
json_t *sweep_crash_record(const sweep *w, const sweep_config *cfg);

/* Adds suite, case, sweep_key, tuning and the roofline fraction; writes
 * and flushes the record; counts it; prints the progress line. */
fb_status sweep_write(sweep *w, const sweep_config *cfg, json_t *rec);

#endif
