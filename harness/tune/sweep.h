/* sweep.h - runs a suite (suite.h): every configuration measured, checked
 * and written to a JSON Lines results file as it completes.
 *
 * A configuration is (case, matrix, backend, precision, kernel, point);
 * its "sweep_key" names it in the file. Each one ends as exactly one
 * record whose "status" says how: ok, wrong-result, abandoned (the first
 * sample was abandon_factor x slower than the best of its kernel so far),
 * timeout (timeout_s passed; the samples taken are kept), pruned (the
 * device or matrix cannot take it; decided before compiling), build-error,
 * launch-error, failed (any other error, with "reason") or crashed (the
 * previous process ended while it ran: found on --resume through the
 * OUT.inflight marker). A backend that cannot be opened is reported once
 * and its configurations are left out of the plan.
 *
 * With repeat = N > 1 the plan runs N times, round after round, so a
 * configuration's runs are a whole round apart and see the machine's
 * between-run noise (compare pools them); rounds after the first add
 * "|round=R" to the key and every record says "round": R, "rounds": N.
 *
 * SIGINT stops between samples; the configuration then running is not
 * recorded, so --resume runs it again and nothing else.
 */
#ifndef FB_TUNE_SWEEP_H
#define FB_TUNE_SWEEP_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "cache.h"
#include "suite.h"

typedef struct fb_sweep_options {
    const char *out_path;
    int resume;                  /* skip configurations the file already has */
    int limit;                   /* record at most this many this time (0: all) */
    int repeat;                  /* run the whole plan this many times, round after round (0 or 1: once) */
    int64_t max_points;          /* refuse a plan of more configurations (0: FB_SUITE_MAX_POINTS_DEFAULT) */
    const char *const *backends; /* replaces every case's backends when nbackends > 0 */
    int nbackends;
    fb_tuning_cache *tuned; /* non-NULL: each kernel runs its cached point only */
    const char *cache_path; /* the file tuned was read from (recorded in the header) */
    const char *counters;   /* PAPI events per sample on openmp targets (counters.h), or NULL */
    FILE *progress;         /* one line per configuration (stderr) */
} fb_sweep_options;

typedef struct fb_sweep_summary {
    int total;    /* configurations in the suite */
    int skipped;  /* already in the file (--resume) */
    int recorded; /* records written this time */
    int ok, wrong, pruned, abandoned, timeouts;
    int failed;      /* failed to run: failed, build-error, launch-error, crashed (the sweep exits 1) */
    int missing;     /* "unavailable": a peer's runtime library is not here (expected, like pruned) */
    int unavailable; /* backends that could not be opened (left out) */
    int stopped;     /* 1 if --limit or SIGINT ended the sweep early */
    double seconds;
} fb_sweep_summary;

/* FB_ERR_INPUT when the plan would hold more than o->max_points
 * configurations, naming the suite file, the line of the case that takes
 * it over and the count (counted in 64 bits, before anything is planned). */
fb_status fb_sweep_check_size(const fb_suite *s, const fb_sweep_options *o);

/* Runs the suite (after fb_sweep_check_size). FB_ERR_INTERRUPTED after a clean stop on SIGINT; other
 * errors only for what stops everything (the results file cannot be
 * written). Failing configurations are records, not errors. */
fb_status fb_sweep_run(const fb_suite *s, const fb_sweep_options *o, fb_sweep_summary *sum);

/* The options that shape the plan and its records, as the results file's
 * header holds them ("sweep": {"backends": [...], "tuned": bool, "cache":
 * FILE|null, "counters": LIST|null}). */
json_t *fb_sweep_options_json(const fb_sweep_options *o);

/* --resume: FB_ERR_USAGE naming the first option that differs between
 * recorded (a header's "sweep" object) and o. */
fb_status fb_sweep_check_options(const json_t *recorded, const fb_sweep_options *o);

/* The command line that continues this sweep: suite, --out, --resume and
 * every option that shapes the plan, quoted for the shell. */
void fb_sweep_resume_command(const fb_suite *s, const fb_sweep_options *o, char *buf, size_t len);

#endif
