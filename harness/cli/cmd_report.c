/* cmd_report.c - `flowbench report RESULTS`: a markdown report of a run. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../results/report.h"

static const fb_option options[] = {
    {"plots", "DIR", "where `flowbench plot` wrote its figures (default: RESULTS's folder)", 0},
    {"out", "FILE", "write the report to FILE instead of standard output", 0},
    {NULL, NULL, NULL, 0},
};

static void folder_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else
        snprintf(dir, len, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

/* Image links are relative to the report (standard output counts as the
 * current folder): bare names when the report sits in the figures' folder,
 * else the folder as given. */
static void link_prefix(const char *plots, const char *out, char *prefix, size_t len)
{
    char a[PATH_MAX], b[PATH_MAX], where[PATH_MAX] = ".";
    if (out) folder_of(out, where, sizeof where);
    if (realpath(plots, a) && realpath(where, b) && strcmp(a, b) == 0)
        snprintf(prefix, len, "%s", "");
    else
        snprintf(prefix, len, "%s/", plots);
}

static int run_report(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    const char *path = fb_cli_value(args, "out");
    char plots[PATH_MAX], prefix[PATH_MAX + 1];
    fb_cli_out out = {0};
    fb_report_options opt = {plots, prefix};
    const fb_named_file input = {"RESULTS", args->positional[0]}, output = {"--out", path};
    FB_CHECK(fb_files_check_distinct("report", &input, 1, &output, 1));
    snprintf(plots, sizeof plots, "%s", fb_cli_value(args, "plots") ? fb_cli_value(args, "plots") : "");
    if (!*plots) folder_of(args->positional[0], plots, sizeof plots);
    link_prefix(plots, path, prefix, sizeof prefix);
    FB_CHECK(fb_results_load(args->positional[0], &set));
    FB_CHECK(fb_cli_out_open(path, &out));
    FB_CHECK(fb_report_write(set, &opt, out.f));
fail:
    if (out.f) status = fb_cli_out_close(&out, status);
    fb_results_set_free(set);
    return fb_cli_report(status);
}

const fb_command fb_cmd_report = {
    .name = "report",
    .summary = "markdown report: machine, bandwidth, best variants, speedups, failures",
    .usage = "report RESULTS [--plots DIR] [--out FILE]",
    .description = "Summarises a results file in markdown: the machine and its devices with\n"
                   "driver and runtime versions, stream bandwidth per device, the fastest\n"
                   "variant per matrix with its settings, GFLOP/s, GB/s and fraction of the\n"
                   "stream bandwidth (\"-\" where a record has no such figure), speedups over\n"
                   "OpenMP, the solver's validation figures, every configuration that failed\n"
                   "(failed, crashed, wrong-result, build-error, launch-error) with its reason,\n"
                   "the expected outcomes (pruned, abandoned, skipped, timeout, unavailable)\n"
                   "counted per status apart, and links to the figures `flowbench plot` drew\n"
                   "into --plots DIR.\n"
                   "When a file holds several runs, the latest record of each configuration counts.\n"
                   "--out FILE may not be RESULTS under any name (exit 2).",
    .options = options,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_report,
};
