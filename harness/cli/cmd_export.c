/* cmd_export.c - `flowbench export RESULTS --csv|--json|--markdown`: the
 * results file as one table for spreadsheets, gnuplot, scripts and reports. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../results/records/dashboards.h"
#include "../results/records/export.h"

static const fb_option options[] = {
    {"csv", NULL, "write CSV (the default)", 0},
    {"json", NULL, "write a JSON array, one object per record keyed by the column names (empty fields null)", 0},
    {"markdown", NULL, "write a markdown table (numbers to 6 significant digits)", 0},
    {"bmf", NULL, "write Bencher's BMF JSON (bencher run --adapter json): stable records only", 0},
    {"github-benchmark", "time|gbs",
     "write github-action-benchmark's JSON: time in ms (tool customSmallerIsBetter) or GB/s "
     "(customBiggerIsBetter); stable records only",
     0},
    {"out", "FILE", "write to FILE instead of standard output", 0},
    {"latest", NULL, "only the latest record of each configuration (drop ones a later run repeated)", 0},
    {NULL, NULL, NULL, 0},
};

/* The dashboards' formats (results/records/dashboards.h); what they leave out is
 * said, so that a dashboard with fewer benchmarks than the run is explained. */
static fb_status export_dashboard(const fb_parsed *args, const fb_results_set *set, FILE *f)
{
    fb_status status = FB_OK;
    const char *gh = fb_cli_value(args, "github-benchmark");
    int left_out = 0;
    if (gh && strcmp(gh, "time") && strcmp(gh, "gbs"))
        FB_FAIL(FB_ERR_USAGE, "--github-benchmark: '%s' is not time or gbs", gh);
    if (gh)
        FB_CHECK(fb_export_github_benchmark(set, strcmp(gh, "gbs") ? FB_GITHUB_TIME : FB_GITHUB_GBS, f, &left_out));
    else
        FB_CHECK(fb_export_bmf(set, f, &left_out));
    if (left_out)
        fprintf(stderr, "export: %d contended or unstable record(s) left out (a dashboard's baseline would move)\n",
                left_out);
fail:
    return status;
}

static int run_export(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    fb_cli_out out = {0};
    const int json = fb_cli_flag(args, "json"), markdown = fb_cli_flag(args, "markdown");
    const int dashboard = fb_cli_flag(args, "bmf") + (fb_cli_value(args, "github-benchmark") != NULL);
    if (json + markdown + fb_cli_flag(args, "csv") + dashboard > 1)
        FB_FAIL(FB_ERR_USAGE, "export: give one of --csv, --json, --markdown, --bmf and --github-benchmark");
    if (dashboard && fb_cli_flag(args, "latest"))
        FB_FAIL(FB_ERR_USAGE, "export: --bmf and --github-benchmark take the latest record of each configuration "
                              "already (--latest is for the tables)");
    const fb_export_format format = json ? FB_EXPORT_JSON : markdown ? FB_EXPORT_MARKDOWN : FB_EXPORT_CSV;
    const fb_named_file input = {"RESULTS", args->positional[0]}, output = {"--out", fb_cli_value(args, "out")};
    FB_CHECK(fb_files_check_distinct("export", &input, 1, &output, 1));
    FB_CHECK(fb_results_load(args->positional[0], &set));
    FB_CHECK(fb_cli_out_open(fb_cli_value(args, "out"), &out));
    if (dashboard)
        FB_CHECK(export_dashboard(args, set, out.f));
    else
        FB_CHECK(fb_export(set, out.f, format, fb_cli_flag(args, "latest")));
fail:
    if (out.f) status = fb_cli_out_close(&out, status);
    fb_results_set_free(set);
    return fb_comm_report(status);
}

const fb_command fb_cmd_export = {
    .name = "export",
    .summary = "write a results file as CSV, JSON or markdown, one row per measurement",
    .usage = "export RESULTS [--csv | --json | --markdown | --bmf | --github-benchmark time|gbs] [--out FILE] "
             "[--latest]",
    .description = "Reads a JSON Lines results file and writes one row per measurement record\n"
                   "(CSV; with --json an array of objects, with --markdown a table):\n"
                   "run, host, benchmark, suite, case, kernel, backend, device, precision, matrix,\n"
                   "parameters, sample count, median/min/mean/stddev time in seconds, GFLOP/s,\n"
                   "GB/s, fraction of the stream triad bandwidth, check error (max_rel_error) and\n"
                   "status, the run's provenance (git revision, compiler, device driver, command\n"
                   "line, where its header has them), then one param_NAME column per parameter and\n"
                   "one validation_NAME column per solver validation figure. Failed records are\n"
                   "rows too (empty figures).\n"
                   "--bmf and --github-benchmark write the formats of the Bencher and\n"
                   "github-action-benchmark dashboards: one benchmark per configuration (its key),\n"
                   "the latest stable record of each (contended or unstable ones are left out and\n"
                   "counted on stderr); BMF carries latency (ns) with its 95% interval, gb-per-s,\n"
                   "gflop-per-s, fraction-of-triad and joules-per-run where measured.\n"
                   "--out FILE may not be RESULTS under any name (exit 2).\n"
                   "The columns are listed in docs/results.md.",
    .options = options,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_export,
};
