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
 *
 * Shares (docs/scaling.md). The plan is laid out the same on every
 * machine (backends that cannot be opened here included), so it can be
 * split without talking: --shard I/N keeps every configuration whose
 * position p (0-based, over the whole plan) has p % N == I - 1. Launched
 * as P > 1 MPI ranks (core/comm.h), the configurations not yet recorded
 * are dealt out the same way, the j-th of them to rank j % P; rank 0
 * writes OUT, rank R its own OUT.rank-R, which rank 0 joins into OUT at
 * the end (results/records/merge.h) and deletes. A backend named without a device
 * ("cuda") is opened on device local rank % its device count; its key
 * keeps the name as given. Every record of a share says "host" and
 * "shard" (I/N) or "rank" and "ranks". Opening OUT first joins in the
 * OUT.rank-R files a killed run left, so --resume, with any number of
 * ranks or none, runs only what no file records.
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
    const char *filter;     /* POSIX extended regex: only configurations whose case, kernel or matrix it
                               matches (NULL: all); part of the plan, recorded and compared like the above */
    int shard, nshards;     /* --shard I/N: the I-th (1-based) of N shares; 0 0: the whole plan */
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
    /* Several ranks: every count above is the sum over the ranks (stopped,
     * unavailable and seconds the largest), on every rank. */
    int ranks;
    int quiet; /* the error fb_sweep_run returned is another rank's, which said it */
} fb_sweep_summary;

/* FB_ERR_INPUT when the plan would hold more than o->max_points
 * configurations, naming the suite file, the line of the case that takes
 * it over and the count (counted in 64 bits, before anything is planned). */
fb_status fb_sweep_check_size(const fb_suite *s, const fb_sweep_options *o);

/* Runs the suite (after fb_sweep_check_size). FB_ERR_INTERRUPTED after a clean stop on SIGINT; other
 * errors only for what stops everything (the results file cannot be
 * written). Failing configurations are records, not errors. */
fb_status fb_sweep_run(const fb_suite *s, const fb_sweep_options *o, fb_sweep_summary *sum);

/* fb_sweep_run as `flowbench sweep` runs it: on several ranks each rank's
 * progress lines prefixed with "[rank R/P host] " (o->progress is set for
 * the run), then rank 0's summary on stderr (the counts, and where the
 * results are, or the command that resumes a stopped sweep), and
 * FB_ERR_CHECK when a configuration failed to run or gave a wrong result.
 * *quiet: the error returned is one another rank has said. */
fb_status fb_sweep_run_summarised(const fb_suite *suite, fb_sweep_options *o, int *quiet);

/* --shard's text "I/N" into o->shard and o->nshards: FB_ERR_USAGE saying
 * what is wrong (not I/N, I or N not a whole number, I outside 1..N). */
fb_status fb_sweep_parse_shard(const char *text, fb_sweep_options *o);

/* Under several ranks, a collective: 1 when every rank's status is FB_OK
 * (each passes its own), so a rank that fails alone does not leave the
 * others waiting. One rank: status == FB_OK. */
int fb_sweep_all_ok(fb_status mine);

/* `sweep --dry-run`: the plan (after --filter and --shard) without
 * measuring: one line per configuration, "run", or "pruned: REASON" as the
 * family's check would record it (problems are opened, devices probed,
 * nothing compiled), then the counts. With o->resume only what the
 * results file lacks is listed (the rest is counted). Refused on several
 * ranks. */
fb_status fb_sweep_dry_run(const fb_suite *s, const fb_sweep_options *o, FILE *out);

/* The options that shape the plan and its records, as the results file's
 * header holds them ("sweep": {"backends": [...], "tuned": bool, "cache":
 * FILE|null, "counters": LIST|null, "repeat": N, "shard": "I/N"|null}). */
json_t *fb_sweep_options_json(const fb_sweep_options *o);

/* --resume: FB_ERR_USAGE naming the first option that differs between
 * recorded (a header's "sweep" object) and o. */
fb_status fb_sweep_check_options(const json_t *recorded, const fb_sweep_options *o);

/* The command line that continues this sweep: suite, --out, --resume and
 * every option that shapes the plan, quoted for the shell. */
void fb_sweep_resume_command(const fb_suite *s, const fb_sweep_options *o, char *buf, size_t len);

#endif
