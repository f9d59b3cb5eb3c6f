/* cmd_sweep.c - `flowbench sweep SUITE`: every configuration of a suite,
 * measured, checked and recorded as it completes; resumable; split into
 * --shard shares or among MPI ranks (tune/sweep.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../core/comm.h"
#include "../results/records/reader.h"
#include "../tune/sweep.h"

static const fb_option options[] = {
    {"out", "FILE",
     "results file (default results/sweep-SUITE.jsonl); appended to; on P MPI ranks rank R > 0"
     " writes FILE.rank-R beside it, joined into FILE at the end (FILE's folder must be shared by every rank)",
     0},
    {"resume", NULL,
     "skip configurations FILE (and FILE.rank-R files a killed run left) already records; record the one a"
     " crash ended in; --backend, --tuned, --cache, --counters, --repeat, --shard and --filter must be those FILE was"
     " recorded with; any number of ranks",
     0},
    {"filter", "REGEX",
     "only the configurations whose case, kernel or matrix this extended regular expression matches (recorded;"
     " --resume must give the same)",
     0},
    {"dry-run", NULL,
     "list the plan (after --filter and --shard): each configuration as run or pruned with the reason, and the"
     " counts; nothing is measured or written",
     0},
    {"shard", "I/N",
     "run only share I of N (1-based: 1/N .. N/N): every N-th configuration of the plan, the same split on"
     " every machine (a Slurm job array: --shard $SLURM_ARRAY_TASK_ID/N); join the files with flowbench merge",
     0},
    {"backend", "B", "run on these backends instead of the suite's", 1},
    {"repeat", "N",
     "run the whole plan N times, round after round, so each configuration's runs see the machine's"
     " between-run noise; compare pools them (5 or more: it tests run medians)",
     0},
    {"limit", "N",
     "record at most N (1 or more) configurations this time, then stop (continue with --resume); on MPI ranks,"
     " per rank",
     0},
    {"max-points", "N",
     "refuse a suite whose plan holds more than N configurations (default 1000000; each costs about 2 KB"
     " of memory before anything runs)",
     0},
    {"counters", "LIST", "PAPI events per sample on openmp (comma-separated, or default); docs/measurement.md", 0},
    {"tuned", NULL, "run each kernel once, with its parameters from the tuning cache (else defaults)", 0},
    {"cache", "FILE",
     "tuning cache for --tuned (default $FLOWBENCH_TUNING_CACHE, else $FLOWBENCH_CACHE_DIR/tuning.json, else "
     "~/.cache/flowbench/tuning.json)",
     0},
    {NULL, NULL, NULL, 0},
};

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

/* Everything before the sweep: options, the suite (its problems opened
 * once), the results file's name. */
static fb_status prepare(const fb_parsed *args, fb_sweep_options *o, fb_suite *suite, char *out, size_t out_len,
                         char *cache_path, size_t cache_len)
{
    fb_status status = FB_OK;
    char suite_path[sizeof suite->path];
    FB_CHECK(fb_suite_find(args->positional[0], suite_path, sizeof suite_path));
    const fb_named_file suite_file = {"SUITE", suite_path};
    FB_CHECK(fb_cli_check_files(args, "sweep", (const char *const[]){"cache", NULL}, (const char *const[]){"out", NULL},
                                &suite_file, 1, NULL, 0));
    FB_CHECK(fb_cli_int(args, "limit", 0, &o->limit));
    if (fb_cli_value(args, "limit") && o->limit < 1)
        FB_FAIL(FB_ERR_USAGE, "--limit: must be at least 1 (leave it out to run the whole plan)");
    FB_CHECK(fb_cli_int(args, "repeat", 1, &o->repeat));
    if (o->repeat < 1 || o->repeat > FB_SWEEP_MAX_ROUNDS)
        FB_FAIL(FB_ERR_USAGE, "--repeat: %d is not a count of rounds in [1, %d]", o->repeat, FB_SWEEP_MAX_ROUNDS);
    if (fb_cli_value(args, "shard")) FB_CHECK(fb_sweep_parse_shard(fb_cli_value(args, "shard"), o));
    FB_CHECK(read_max_points(args, &o->max_points));
    FB_CHECK(open_cache(args, &o->tuned, cache_path, cache_len));
    o->cache_path = cache_path;
    o->nbackends = fb_cli_values(args, "backend", &o->backends);
    FB_CHECK(fb_suite_load(suite_path, suite));
    FB_CHECK(fb_sweep_check_size(suite, o));  /* before any matrix is opened */
    FB_CHECK(fb_suite_check_problems(suite)); /* a bad matrix is a bad suite: refused before measuring */
    if (fb_cli_value(args, "out"))
        snprintf(out, out_len, "%s", fb_cli_value(args, "out"));
    else
        snprintf(out, out_len, "results/sweep-%s.jsonl", suite->name);
    o->out_path = out;
fail:
    return status;
}

static int run_sweep(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_suite suite;
    fb_sweep_options o = {.resume = fb_cli_flag(args, "resume"),
                          .counters = fb_cli_value(args, "counters"),
                          .filter = fb_cli_value(args, "filter"),
                          .progress = stderr};
    char out[1200], cache_path[1024];
    int quiet = 0;
    memset(&suite, 0, sizeof suite);
    status = prepare(args, &o, &suite, out, sizeof out, cache_path, sizeof cache_path);
    if (fb_comm_size() > 1 && !fb_sweep_all_ok(status) && status == FB_OK) {
        quiet = fb_comm_rank() != 0; /* the rank that failed says why */
        status = fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__,
                              "another rank could not start the sweep (its message"
                              " says why)");
    }
    if (status == FB_OK && fb_cli_flag(args, "dry-run")) {
        status = fb_sweep_dry_run(&suite, &o, stdout);
    } else if (status == FB_OK) {
        status = fb_sweep_run_summarised(&suite, &o, &quiet);
    }
    fb_cache_free(o.tuned);
    fb_suite_free(&suite);
    if (status == FB_ERR_INTERRUPTED && fb_comm_rank() != 0) quiet = 1; /* rank 0 says it once */
    if (status != FB_OK && quiet) return status == FB_ERR_INTERRUPTED ? 130 : fb_status_exit_code(status);
    return fb_comm_report(status);
}

const fb_command fb_cmd_sweep = {
    .name = "sweep",
    .summary = "run a suite (cases/*.suite): every configuration measured, checked, recorded; resumable",
    .usage = "sweep SUITE [--out FILE] [--resume] [--shard I/N] [--backend B]... [--repeat N] [--limit N]\n"
             "        [--filter REGEX] [--dry-run] [--tuned [--cache FILE]] [--counters LIST] [--max-points N]\n"
             "       mpirun -np P flowbench sweep SUITE --out FILE ... (or srun)",
    .description = "SUITE is a suite file, or the name of one (quick, or quick.suite: cases/quick.suite)\n"
                   "looked up in ./cases, then in flowbench's data folder: $FLOWBENCH_DATA_DIR when\n"
                   "set, else PREFIX/share/flowbench beside an installed PREFIX/bin/flowbench, else\n"
                   "the source tree of a build folder; an unknown name is an error naming the\n"
                   "folders searched (exit 2). A suite's matrices are relative to its file.\n"
                   "Expands SUITE (YAML, docs/tuning.md) into configurations - matrix x backend x\n"
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
                   "--cache, --counters, --repeat, --shard and --filter; --resume with others is refused (exit 2).\n"
                   "--dry-run lists the plan and what would be pruned, and runs nothing; with --resume,\n"
                   "only the configurations FILE lacks.\n"
                   "--repeat N runs the plan N times, round after round (the stream reference\n"
                   "too): for CI gates, whose noise is between runs, not between samples.\n"
                   "Exit 1 if any configuration failed to run (failed, build-error, launch-error,\n"
                   "crashed, or a timeout the guard killed because it never returned) or gave a\n"
                   "wrong result; pruned, abandoned, timeout (timeout_s reached, samples kept) and\n"
                   "a missing peer library are expected outcomes.\n"
                   "Across nodes (docs/scaling.md): under mpirun or srun the configurations\n"
                   "FILE lacks are dealt round-robin to the ranks, each on its node's device (a\n"
                   "backend without a device index, such as cuda, is taken as cuda:K, K = local\n"
                   "rank % devices); rank R > 0 records into FILE.rank-R, which rank 0 joins into\n"
                   "FILE at the end; progress lines start with [rank R/P host], and rank 0 prints\n"
                   "the summary. A rank that dies loses only the configuration it was in (crashed\n"
                   "on --resume); --resume, on any number of ranks or none, joins the .rank-R files\n"
                   "a killed run left and runs what is missing.\n"
                   "--shard I/N runs share I of N alone (a job array); flowbench merge joins the\n"
                   "shares' files. Every record of a share says host, and shard or rank/ranks.",
    .options = options,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_sweep,
    .ranks = 1,
    .measures = 1,
    .guarded = 1,
};
