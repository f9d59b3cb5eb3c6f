/* cmd_compare.c - `flowbench compare BASE NEW`: regression verdicts for CI.
 * Exit 1 when any configuration is SLOWER, WRONG or MISSING (the last two
 * unless allowed), 2 when the files cannot be compared (unreadable,
 * different machines, nothing in common). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compare_history_cli.h"
#include "../results/gate/interleave_run.h"
#include "../results/gate/compare_files.h"
#include "../results/gate/interleave.h"
#include "../results/gate/noise.h"
#include "../tune/suite.h"

static const fb_option options[] = {
    {"threshold", "PCT", "smallest change of the median time that counts (default 5)", 0},
    {"alpha", "A",
     "significance level of the Mann-Whitney U test (default 0.01); with --interleave, of the sign test over rounds"
     " (default 0.05)",
     0},
    {"markdown", NULL, "print a markdown table (for CI job summaries)", 0},
    {"any-machine", NULL, "compare even when the two files come from different machines", 0},
    {"allow-missing", NULL, "a configuration of BASE that NEW lacks (or failed to measure) does not fail", 0},
    {"allow-wrong", NULL, "a wrong result in NEW does not fail", 0},
    {"pair-by", "WHAT",
     "config (default: kernel, params, problem, device, precision all match) or kernel (params may differ, and a"
     " user's kernel file may have been edited: the row says so)",
     0},
    {"junit", "FILE", "also write the verdicts as JUnit XML to FILE", 0},
    {"min-gbs", "GBS",
     "an absolute floor: a compared configuration whose NEW runs reach less than GBS GB/s fails the gate, whatever"
     " its verdict against BASE (a slow drift passes every pairwise gate)",
     0},
    {"json", "FILE",
     "also write the verdicts as one JSON document to FILE: per configuration the verdict, medians, change, p and"
     " the gate's part (two-file compare only)",
     0},
    {"learn-noise", NULL,
     "BASE and NEW are two runs of the same code (A/A): store each configuration's change as this machine's noise"
     " (exit 0 unless the files cannot be compared)",
     0},
    {"noise-file", "FILE",
     "the A/A noise store (default $FLOWBENCH_NOISE_FILE, else $FLOWBENCH_CACHE_DIR/noise.json, else "
     "~/.cache/flowbench/noise.json)",
     0},
    {"no-noise", NULL, "ignore the stored A/A noise floor", 0},
    {"interleave", NULL,
     "the arguments are BASE_BIN NEW_BIN SUITE: run both builds' sweeps of SUITE alternately on this machine"
     " (BASE first in odd rounds, NEW first in even ones) and judge each configuration on the rounds' ratios"
     " NEW/BASE (a sign test over rounds); contended rounds still count",
     0},
    {"rounds", "N",
     "--interleave: rounds to run and judge (default " FB_CLI_STR(
         FB_INTERLEAVE_DEFAULT_ROUNDS) ": one wild round still lets a change through; fewer than 5 can never be "
                                       "SLOWER)",
     0},
    {"out", "DIR",
     "--interleave: the rounds' results files and logs (default results/interleave-SUITE); the same command again"
     " continues the rounds DIR holds",
     0},
    {"history", "DB",
     "compare NEW against the last stable runs of each configuration in the history DB (flowbench history), not"
     " against one BASE: compare --history DB NEW",
     0},
    {"lookback", "N", "--history: the stable runs a baseline takes, newest first (default 20)", 0},
    {NULL, NULL, NULL, 0},
};

static fb_status read_options(const fb_parsed *args, fb_compare_options *opt)
{
    fb_status status = FB_OK;
    double pct = 100 * opt->threshold;
    const char *pair = fb_cli_value(args, "pair-by");
    FB_CHECK(fb_cli_double(args, "threshold", pct, &pct));
    FB_CHECK(fb_cli_double(args, "alpha", opt->alpha, &opt->alpha));
    if (pct < 0 || pct >= 1000) FB_FAIL(FB_ERR_USAGE, "--threshold: %g is not a percentage in [0, 1000)", pct);
    if (!(opt->alpha > 0 && opt->alpha < 1)) FB_FAIL(FB_ERR_USAGE, "--alpha: %g is not in (0, 1)", opt->alpha);
    FB_CHECK(fb_cli_double(args, "min-gbs", 0, &opt->min_gbs));
    if (fb_cli_value(args, "min-gbs") && !(opt->min_gbs > 0))
        FB_FAIL(FB_ERR_USAGE, "--min-gbs: %g is not a positive number of GB/s", opt->min_gbs);
    opt->threshold = pct / 100;
    opt->markdown = fb_cli_flag(args, "markdown");
    opt->any_machine = fb_cli_flag(args, "any-machine");
    opt->allow_missing = fb_cli_flag(args, "allow-missing");
    opt->allow_wrong = fb_cli_flag(args, "allow-wrong");
    if (pair && strcmp(pair, "kernel") == 0)
        opt->pair_by = FB_PAIR_KERNEL;
    else if (pair && strcmp(pair, "config") != 0)
        FB_FAIL(FB_ERR_USAGE, "--pair-by: '%s' is not config or kernel", pair);
fail:
    return status;
}

/* What compare reads (BASE and NEW, or --interleave's two binaries and
 * suite; the noise store) and writes (--junit, --json, and --learn-noise's
 * store): no output may be an input or another output (core/files.h),
 * checked before any work. */
static fb_status check_outputs(const fb_parsed *args, int interleave)
{
    static const char *const names[2][3] = {{"BASE", "NEW", NULL}, {"BASE_BIN", "NEW_BIN", "SUITE"}};
    fb_named_file inputs[3], outputs[3] = {{"--junit", fb_cli_value(args, "junit")},
                                           {"--json", fb_cli_value(args, "json")},
                                           {"--noise-file", NULL}};
    char noise[1024];
    int n = 0;
    for (; n < (interleave ? 3 : 2) && n < args->npositional; ++n)
        inputs[n] = (fb_named_file){names[interleave][n], args->positional[n]};
    const fb_named_file store = {"noise store", noise};
    const int learn = fb_cli_flag(args, "learn-noise") && !interleave;
    fb_noise_path(fb_cli_value(args, "noise-file"), noise, sizeof noise);
    if (learn) outputs[2].path = noise;
    fb_status status = fb_files_check_distinct("compare", inputs, n, outputs, 3);
    /* the learned floors are written with --learn-noise and read otherwise;
     * with --no-noise or --interleave this compare reads them not, but the
     * next compare gates with them: a report named like them, learned yet
     * or not, is refused whatever the mode */
    if (status == FB_OK && !learn) status = fb_files_check_stores("compare", &store, 1, outputs, 3);
    return status;
}

/* --junit or --json (option), opened before comparing, so a bad path
 * fails before any table is printed; *f stays NULL without the option. */
static fb_status open_output(const fb_parsed *args, const char *option, fb_cli_out *out, FILE **f)
{
    fb_status status = FB_OK;
    const char *path = fb_cli_value(args, option);
    if (!path) return FB_OK;
    FB_CHECK(fb_cli_out_open(path, out));
    *f = out->f;
fail:
    return status;
}

static fb_status interleave_request(const fb_parsed *args, fb_interleave_request *rq, char *suite, size_t len)
{
    fb_status status = FB_OK;
    static const char *const not_here[] = {"learn-noise", "noise-file", "no-noise", "any-machine", "pair-by", NULL};
    const char *other = fb_cli_first_given(args, not_here);
    if (other) FB_FAIL(FB_ERR_USAGE, "compare: --%s does not apply to --interleave", other);
    if (args->npositional != 3)
        FB_FAIL(FB_ERR_USAGE, "compare --interleave: needs BASE_BIN NEW_BIN SUITE (%d argument%s given)",
                args->npositional, args->npositional == 1 ? "" : "s");
    *rq = (fb_interleave_request){.base_bin = args->positional[0],
                                  .new_bin = args->positional[1],
                                  .suite = suite,
                                  .dir = fb_cli_value(args, "out"),
                                  .junit = fb_cli_value(args, "junit")};
    FB_CHECK(fb_suite_find(args->positional[2], suite, len));
    FB_CHECK(fb_cli_int(args, "rounds", FB_INTERLEAVE_DEFAULT_ROUNDS, &rq->rounds));
    if (rq->rounds < 1 || rq->rounds > FB_SWEEP_MAX_ROUNDS)
        FB_FAIL(FB_ERR_USAGE, "--rounds: %d is not a count of rounds in [1, %d]", rq->rounds, FB_SWEEP_MAX_ROUNDS);
fail:
    return status;
}

/* --interleave: the rounds are run (results/gate/interleave_run.h), then judged. */
static int run_interleave(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary summary = {0};
    fb_cli_out junit = {0};
    fb_interleave_request rq;
    char suite[PATH_MAX];
    opt.alpha = FB_INTERLEAVE_ALPHA;
    if (fb_cli_value(args, "json") || fb_cli_value(args, "min-gbs"))
        FB_FAIL(FB_ERR_USAGE, "compare: --%s is a two-file compare's; --interleave judges the rounds' ratios only",
                fb_cli_value(args, "json") ? "json" : "min-gbs");
    FB_CHECK(read_options(args, &opt));
    FB_CHECK(check_outputs(args, 1));
    FB_CHECK(open_output(args, "junit", &junit, &opt.junit));
    FB_CHECK(interleave_request(args, &rq, suite, sizeof suite));
    status = fb_interleave_run(&rq, &opt, &summary);
fail:
    fflush(stdout);
    if (junit.f) status = fb_cli_out_close(&junit, status);
    if (status != FB_OK) return fb_comm_report(status);
    return fb_compare_gate(&summary, &opt);
}

static fb_status check_two_files(const fb_parsed *args)
{
    fb_status status = FB_OK;
    static const char *const interleave_only[] = {"rounds", "out", NULL};
    const char *only = fb_cli_first_given(args, interleave_only);
    if (only) FB_FAIL(FB_ERR_USAGE, "compare: --%s is an option of --interleave", only);
    if (fb_cli_flag(args, "lookback")) FB_FAIL(FB_ERR_USAGE, "compare: --lookback is an option of --history");
    if (args->npositional < 2)
        FB_FAIL(FB_ERR_USAGE,
                "compare: missing argument (usage: flowbench compare BASE NEW, or compare --history DB NEW)");
    if (args->npositional != 2)
        FB_FAIL(FB_ERR_USAGE,
                "compare: unexpected argument '%s' (usage: flowbench compare BASE NEW, or --interleave "
                "BASE_BIN NEW_BIN SUITE)",
                args->positional[2]);
fail:
    return status;
}

static int run_compare(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary summary = {0};
    fb_cli_out junit = {0}, json = {0};
    const fb_compare_files_request rq = {.base = args->positional[0],
                                         .next = args->npositional > 1 ? args->positional[1] : NULL,
                                         .noise_file = fb_cli_value(args, "noise-file"),
                                         .no_noise = fb_cli_flag(args, "no-noise"),
                                         .learn = fb_cli_flag(args, "learn-noise")};
    if (fb_cli_flag(args, "interleave")) return run_interleave(args);
    if (fb_cli_value(args, "history")) return fb_compare_history_command(args, read_options);
    FB_CHECK(check_two_files(args));
    FB_CHECK(check_outputs(args, 0));
    FB_CHECK(read_options(args, &opt));
    FB_CHECK(open_output(args, "junit", &junit, &opt.junit));
    FB_CHECK(open_output(args, "json", &json, &opt.json));
    status = fb_compare_files(&rq, &opt, stdout, &summary);
fail:
    fflush(stdout);
    if (junit.f) status = fb_cli_out_close(&junit, status);
    if (json.f) status = fb_cli_out_close(&json, status);
    json_decref((json_t *)opt.noise);
    json_decref(opt.learned);
    if (status != FB_OK) return fb_comm_report(status);
    return rq.learn ? 0 : fb_compare_gate(&summary, &opt);
}

const fb_command fb_cmd_compare = {
    .name = "compare",
    .summary = "label each configuration SAME, FASTER or SLOWER between two results files",
    .usage =
        "compare BASE NEW [--threshold PCT] [--alpha A] [--markdown] [--any-machine] [--allow-missing]\n"
        "        [--allow-wrong] [--pair-by config|kernel] [--junit FILE] [--json FILE] [--min-gbs GBS] "
        "[--learn-noise] [--noise-file "
        "FILE]\n"
        "        [--no-noise]\n"
        "       compare --history DB NEW [--lookback N] [--threshold PCT] [--markdown] [--allow-missing]\n"
        "        [--allow-wrong] [--junit FILE]\n"
        "       compare --interleave BASE_BIN NEW_BIN SUITE [--rounds N] [--out DIR] [--threshold PCT] [--alpha A]\n"
        "        [--markdown] [--allow-missing] [--allow-wrong] [--junit FILE]",
    .description = "Pairs the measurements of BASE and NEW by what was measured (benchmark, kernel,\n"
                   "backend, device name, precision, parameters, problem hash, cold caches), not by\n"
                   "the suite or case that asked for it, so spmv and sweep records pair. With\n"
                   "--pair-by kernel the parameters may differ when each file holds one setting\n"
                   "of the kernel on that problem (a changed default); the table names them.\n"
                   "Each pair is labelled from its samples: SLOWER (FASTER) when the median time\n"
                   "rose (fell) by at least --threshold percent AND a two-sided Mann-Whitney U\n"
                   "test finds the two sample sets different at level --alpha; SAME otherwise, so\n"
                   "noise does not raise alarms. Several runs of a configuration in one file\n"
                   "(append repeated runs to it) are repetitions: with 5 or more a side the test\n"
                   "compares the run medians; with fewer, the samples are pooled and the change\n"
                   "must also exceed the spread of the run medians (sweep --repeat N makes them).\n"
                   "A significant change no larger than that spread, or than this machine's A/A\n"
                   "noise floor (1.5 x the largest change seen between runs of the same code,\n"
                   "stored per configuration by --learn-noise), is INCONCLUSIVE and does not fail.\n"
                   "So is a SLOWER or FASTER resting on a run whose record says it was contended or\n"
                   "unstable (the row gives the first reason), and every verdict of a configuration\n"
                   "whose floor is above 25%: this machine cannot gate it. --learn-noise learns\n"
                   "nothing from a pair with a contended or unstable run.\n"
                   "--interleave BASE_BIN NEW_BIN SUITE runs `BIN sweep SUITE` of both builds (SUITE\n"
                   "a file or a suite's name, looked up as sweep does; or\n"
                   "wrapper scripts, e.g. one setting an environment variable) alternately, --rounds\n"
                   "times, BASE first in odd rounds, NEW first in even ones, into --out DIR (a file\n"
                   "per round and side, DIR/base-rR.jsonl and DIR/new-rR.jsonl, their logs beside;\n"
                   "the same command again continues), and judges each configuration on the ratios\n"
                   "NEW/BASE of the rounds' medians: SLOWER when their median is above 1 + threshold\n"
                   "and a one-sided sign test over the rounds gives p <= --alpha (default 0.05:\n"
                   "5 of 5 rounds, 7 of 8), FASTER likewise, SAME within the threshold, else\n"
                   "INCONCLUSIVE. Both sides of a round share the machine's load, so contended\n"
                   "rounds count (and are counted).\n"
                   "--history DB NEW judges each configuration of NEW against its last --lookback\n"
                   "stable runs on the same machine in a history (flowbench history): SLOWER when\n"
                   "its median is 4 robust standard deviations (1.4826 x MAD of the log medians)\n"
                   "above theirs and at least --threshold slower; unstable or contended runs never\n"
                   "enter a baseline, and with fewer than 5 stable runs a configuration is not\n"
                   "judged (new).\n"
                   "WRONG: a NEW record of it failed its correctness check. MISSING: BASE measured\n"
                   "it and NEW has no usable record of it (the table says which key field differs\n"
                   "from NEW's closest record). FAILED: BASE has no usable record (not compared). Configurations\n"
                   "only NEW has are listed as new. Files from different machines (CPU model, or\n"
                   "a different device on the same backend) are refused. See docs/plots-and-compare.md.\n"
                   "Exit status: 0 pass, 1 something SLOWER, WRONG (unless --allow-wrong) or\n"
                   "MISSING (unless --allow-missing), 2 unusable input, nothing in common, or a\n"
                   "--junit FILE that is BASE, NEW or the noise store under any name (with\n"
                   "--interleave: a binary or the suite missing, a sweep refusing its input, DIR\n"
                   "holding rounds of other binaries), 3 the --junit file cannot be written (or a\n"
                   "sweep failed to run), 130 interrupted (--interleave keeps the finished rounds).",
    .options = options,
    .min_positional = 1, /* --history DB NEW */
    .max_positional = 3, /* --interleave BASE_BIN NEW_BIN SUITE */
    .run = run_compare,
};
