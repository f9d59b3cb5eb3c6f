/* cmd_sweep.c - `flowbench sweep SUITE`: every configuration of a suite,
 * measured, checked and recorded as it completes; resumable. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../tune/sweep.h"

static const fb_option options[] = {
    {"out", "FILE", "results file (default results/sweep-SUITE.jsonl); appended to", 0},
    {"resume", NULL,
     "skip configurations FILE already records; record the one a crash ended in; --backend, --tuned, --cache,"
     " --counters and --repeat must be those FILE was recorded with",
     0},
    {"backend", "B", "run on these backends instead of the suite's", 1},
    {"repeat", "N",
     "run the whole plan N times, round after round, so each configuration's runs see the machine's"
     " between-run noise; compare pools them (5 or more: it tests run medians)",
     0},
    {"limit", "N", "record at most N (1 or more) configurations this time, then stop (continue with --resume)", 0},
    {"max-points", "N",
     "refuse a suite whose plan holds more than N configurations (default 1000000; each costs about 2 KB"
     " of memory before anything runs)",
     0},
    {"counters", "LIST", "PAPI events per sample on openmp (comma-separated, or default); docs/measurement.md", 0},
    {"tuned", NULL, "run each kernel once, with its parameters from the tuning cache (else defaults)", 0},
    {"cache", "FILE", "tuning cache for --tuned (default $FLOWBENCH_TUNING_CACHE or ~/.cache/flowbench/tuning.json)",
     0},
    {NULL, NULL, NULL, 0},
};

static void print_summary(const fb_suite *s, const fb_sweep_options *o, const fb_sweep_summary *sum)
{
    char resume[4096];
    fb_sweep_resume_command(s, o, resume, sizeof resume);
    fprintf(stderr,
            "sweep %s: %d configurations: %d ok, %d wrong result, %d failed, %d pruned, %d abandoned, %d timed out,"
            " %d peer library missing; %d recorded before; %d backend(s) unavailable; %.1f s\n",
            s->name, sum->total, sum->ok, sum->wrong, sum->failed, sum->pruned, sum->abandoned, sum->timeouts,
            sum->missing, sum->skipped, sum->unavailable, sum->seconds);
    if (sum->stopped)
        fprintf(stderr, "sweep %s: stopped with %d of %d recorded; continue with: %s\n", s->name,
                sum->skipped + sum->recorded, sum->total, resume);
    else
        fprintf(stderr, "sweep %s: results in %s\n", s->name, o->out_path);
}

/* path: the cache file as resolved, recorded in the header and the resume
 * hint so that a resumed sweep reads the same cache. */
static fb_status open_cache(const fb_parsed *args, fb_tuning_cache **cache, char *path, size_t len)
{
    fb_status status = FB_OK;
    if (!fb_cli_flag(args, "tuned")) {
        if (fb_cli_value(args, "cache")) FB_FAIL(FB_ERR_USAGE, "--cache is read with --tuned only");
        return FB_OK;
    }
    fb_cache_path(fb_cli_value(args, "cache"), path, len);
    FB_CHECK(fb_cache_load(path, cache));
    fprintf(stderr, "sweep: tuning cache %s (%d entries)\n", path, fb_cache_size(*cache));
fail:
    return status;
}

static fb_status read_max_points(const fb_parsed *args, int64_t *max_points)
{
    fb_status status = FB_OK;
    int n = 0;
    FB_CHECK(fb_cli_int(args, "max-points", FB_SUITE_MAX_POINTS_DEFAULT, &n));
    if (n < 1) FB_FAIL(FB_ERR_USAGE, "--max-points: must be at least 1");
    *max_points = n;
fail:
    return status;
}

static int run_sweep(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_suite suite;
    fb_sweep_summary sum;
    fb_sweep_options o = {
        .resume = fb_cli_flag(args, "resume"), .counters = fb_cli_value(args, "counters"), .progress = stderr};
    char out[1200], cache_path[1024];
    memset(&suite, 0, sizeof suite);
    memset(&sum, 0, sizeof sum);
    FB_CHECK(fb_cli_int(args, "limit", 0, &o.limit));
    if (fb_cli_value(args, "limit") && o.limit < 1)
        FB_FAIL(FB_ERR_USAGE, "--limit: must be at least 1 (leave it out to run the whole plan)");
    FB_CHECK(fb_cli_int(args, "repeat", 1, &o.repeat));
    if (o.repeat < 1 || o.repeat > 1000)
        FB_FAIL(FB_ERR_USAGE, "--repeat: %d is not a count of rounds in [1, 1000]", o.repeat);
    FB_CHECK(read_max_points(args, &o.max_points));
    FB_CHECK(open_cache(args, &o.tuned, cache_path, sizeof cache_path));
    o.cache_path = cache_path;
    o.nbackends = fb_cli_values(args, "backend", &o.backends);
    FB_CHECK(fb_suite_load(args->positional[0], &suite));
    FB_CHECK(fb_sweep_check_size(&suite, &o)); /* before any matrix is opened */
    FB_CHECK(fb_suite_check_problems(&suite)); /* a bad matrix is a bad suite: refused before measuring */
    if (fb_cli_value(args, "out"))
        snprintf(out, sizeof out, "%s", fb_cli_value(args, "out"));
    else
        snprintf(out, sizeof out, "results/sweep-%s.jsonl", suite.name);
    o.out_path = out;
    status = fb_sweep_run(&suite, &o, &sum);
    if (sum.total && (status == FB_OK || sum.recorded || sum.stopped)) print_summary(&suite, &o, &sum);
    /* Pruned, abandoned, timed out and a missing peer library are what a
     * sweep expects to meet; a configuration that could not run or gave a
     * wrong answer is not. */
    if (status == FB_OK && (sum.wrong || sum.failed))
        FB_FAIL(FB_ERR_CHECK, "sweep %s: %d configuration(s) failed to run and %d gave a wrong result (records in %s)",
                suite.name, sum.failed, sum.wrong, out);
fail:
    fb_cache_free(o.tuned);
    fb_suite_free(&suite);
    return status == FB_OK ? 0 : fb_cli_report(status);
}

const fb_command fb_cmd_sweep = {
    .name = "sweep",
    .summary = "run a suite (cases/*.suite): every configuration measured, checked, recorded; resumable",
    .usage = "sweep SUITE [--out FILE] [--resume] [--backend B]... [--repeat N] [--limit N] [--tuned [--cache FILE]]\n"
             "        [--counters LIST] [--max-points N]",
    .description = "Expands SUITE (YAML, docs/tuning.md) into configurations - matrix x backend x\n"
                   "precision x kernel x parameter point - and runs each with the common measurement\n"
                   "policy and the result check. Every configuration ends as one record, flushed\n"
                   "to FILE as it completes: ok, wrong-result, abandoned (the fastest of 3\n"
                   "samples over abandon_factor x the best of its kernel), timeout, pruned (the device or the\n"
                   "matrix cannot take it; not compiled), build-error, launch-error, failed,\n"
                   "or crashed. One failing configuration never ends the sweep; a backend that\n"
                   "cannot be opened here is said once and left out.\n"
                   "Every matrix is opened once before anything runs: one that cannot be is a\n"
                   "bad suite (exit 2, naming the suite file, the matrix and why), and so is\n"
                   "one whose plan holds more than --max-points configurations (default\n"
                   "1000000), counted before anything is opened.\n"
                   "Ctrl-C stops cleanly (twice: at once) and prints the command that continues:\n"
                   "--resume runs only what FILE lacks. FILE's header records --backend, --tuned,\n"
                   "--cache, --counters and --repeat; --resume with others is refused (exit 2).\n"
                   "--repeat N runs the plan N times, round after round (the stream reference\n"
                   "too): for CI gates, whose noise is between runs, not between samples.\n"
                   "Exit 1 if any configuration failed to run (failed, build-error, launch-error,\n"
                   "crashed) or gave a wrong result; pruned, abandoned, timeout and a missing peer\n"
                   "library are expected outcomes.",
    .options = options,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_sweep,
};
