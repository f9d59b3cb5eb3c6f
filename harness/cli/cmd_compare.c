/* cmd_compare.c - `flowbench compare BASE NEW`: regression verdicts for CI.
 * Exit 1 when any configuration is SLOWER, 2 when the files cannot be
 * compared (unreadable, different machines, nothing in common). */
#include <stdio.h>

#include "cli.h"
#include "../results/compare.h"

static const fb_option options[] = {
    {"threshold", "PCT", "smallest change of the median time that counts (default 5)", 0},
    {"alpha", "A", "significance level of the Mann-Whitney U test (default 0.01)", 0},
    {"markdown", NULL, "print a markdown table (for CI job summaries)", 0},
    {"any-machine", NULL, "compare even when the two files come from different machines", 0},
    {NULL, NULL, NULL, 0},
};

static fb_status read_options(const fb_parsed *args, fb_compare_options *opt)
{
    fb_status status = FB_OK;
    double pct = 100 * opt->threshold;
    FB_CHECK(fb_cli_double(args, "threshold", pct, &pct));
    FB_CHECK(fb_cli_double(args, "alpha", opt->alpha, &opt->alpha));
    if (pct < 0 || pct >= 1000) FB_FAIL(FB_ERR_USAGE, "--threshold: %g is not a percentage in [0, 1000)", pct);
    if (!(opt->alpha > 0 && opt->alpha < 1)) FB_FAIL(FB_ERR_USAGE, "--alpha: %g is not in (0, 1)", opt->alpha);
    opt->threshold = pct / 100;
    opt->markdown = fb_cli_flag(args, "markdown");
    opt->any_machine = fb_cli_flag(args, "any-machine");
fail:
    return status;
}

/* A machine mismatch stops the comparison unless --any-machine says go on. */
static fb_status check_machines(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt)
{
    fb_status status = fb_compare_machines(base, next, stdout);
    if (status == FB_OK || !opt->any_machine) return status;
    printf("warning: %s; comparing anyway (--any-machine)\n", fb_error_message());
    return FB_OK;
}

static int run_compare(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_results_set *base = NULL, *next = NULL;
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary summary = {0};
    FB_CHECK(read_options(args, &opt));
    FB_CHECK(fb_results_load(args->positional[0], &base));
    FB_CHECK(fb_results_load(args->positional[1], &next));
    FB_CHECK(check_machines(base, next, &opt));
    FB_CHECK(fb_compare_sets(base, next, &opt, stdout, &summary));
fail:
    fflush(stdout);
    fb_results_set_free(base);
    fb_results_set_free(next);
    if (status != FB_OK) return fb_cli_report(status);
    return summary.slower > 0 ? 1 : 0;
}

const fb_command fb_cmd_compare = {
    .name = "compare",
    .summary = "label each configuration SAME, FASTER or SLOWER between two results files",
    .usage = "compare BASE NEW [--threshold PCT] [--alpha A] [--markdown] [--any-machine]",
    .description = "Pairs the measurements of BASE and NEW by configuration (benchmark, kernel,\n"
                   "backend, device name, precision, parameters, matrix, suite, case) and labels\n"
                   "each pair from its samples: SLOWER (FASTER) when the median time rose (fell)\n"
                   "by at least --threshold percent AND a two-sided Mann-Whitney U test finds the\n"
                   "two sample sets different at level --alpha; SAME otherwise, so noise does not\n"
                   "raise alarms. Several runs of a configuration in one file (append repeated\n"
                   "runs to it) are repetitions: with 5 or more a side the test compares the run\n"
                   "medians, so run-to-run noise of a shared machine is inside the test; with\n"
                   "fewer, the samples are pooled and the change must also exceed the spread of\n"
                   "the run medians. Failed records and configurations found in one file only\n"
                   "are listed, not compared. Files from different machines (CPU model, or a\n"
                   "different device on the same backend) are refused. See docs/plots-and-compare.md.\n"
                   "Exit status: 0 nothing SLOWER, 1 something SLOWER, 2 unusable input.",
    .options = options,
    .min_positional = 2,
    .max_positional = 2,
    .run = run_compare,
};
