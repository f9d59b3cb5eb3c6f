/* cmd_report.c - `flowbench report RESULTS`: a markdown report of a run. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "../results/presentation/report.h"
#include "../results/presentation/report_html.h"

static const fb_option options[] = {
    {"plots", "DIR", "where `flowbench plot` wrote its figures (default: RESULTS's folder)", 0},
    {"out", "FILE", "write the report to FILE instead of standard output", 0},
    {"html", "FILE", "also (without --out: only) write the report as one self-contained HTML page, figures inline", 0},
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

/* The files a folder stood for, against the outputs: `report DIR --html
 * DIR/results.jsonl` would replace a results file with the page. */
static fb_status check_folder_files(const fb_results_set *set, const fb_named_file *outputs, int noutputs)
{
    fb_named_file files[1024];
    int n = 0;
    for (int i = 0; i < set->nfiles && n < 1024; ++i)
        files[n++] = (fb_named_file){"RESULTS", set->files[i]};
    return fb_files_check_distinct("report", files, n, outputs, noutputs);
}

/* A folder is its own figures' folder (the default suite's run folder). */
static void default_plots(const char *first, char *plots, size_t len)
{
    struct stat st;
    if (stat(first, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(plots, len, "%s", first);
    else
        folder_of(first, plots, len);
}

static int run_report(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    const char *path = fb_cli_value(args, "out"), *html = fb_cli_value(args, "html");
    char plots[PATH_MAX], prefix[PATH_MAX + 1];
    fb_cli_out out = {0};
    fb_report_options opt = {plots, prefix};
    fb_named_file inputs[1024];
    const fb_named_file outputs[] = {{"--out", path}, {"--html", html}};
    for (int i = 0; i < args->npositional; ++i)
        inputs[i] = (fb_named_file){"RESULTS", args->positional[i]};
    FB_CHECK(fb_files_check_distinct("report", inputs, args->npositional, outputs, 2));
    snprintf(plots, sizeof plots, "%s", fb_cli_value(args, "plots") ? fb_cli_value(args, "plots") : "");
    if (!*plots) default_plots(args->positional[0], plots, sizeof plots);
    link_prefix(plots, path, prefix, sizeof prefix);
    FB_CHECK(fb_results_load_run(args->positional, args->npositional, &set));
    FB_CHECK(check_folder_files(set, outputs, 2)); /* a folder's files are inputs too; nothing written yet */
    if (html) FB_CHECK(fb_report_html_file(set, plots, html));
    if (html && !path) goto fail; /* only the page was asked for */
    FB_CHECK(fb_cli_out_open(path, &out));
    FB_CHECK(fb_report_write(set, &opt, out.f));
fail:
    if (out.f) status = fb_cli_out_close(&out, status);
    fb_results_set_free(set);
    return fb_comm_report(status);
}

const fb_command fb_cmd_report = {
    .name = "report",
    .summary = "one report of a run: devices and triads, SpMV, grids, solver, sweeps, tuning, energy",
    .usage = "report RESULTS... [--plots DIR] [--out FILE] [--html FILE]",
    .description = "Summarises a run in markdown: RESULTS are its results files, or a folder\n"
                   "standing for every *.jsonl in it (the default suite's run folder). The\n"
                   "report gives the files, the machine and its devices with driver and runtime\n"
                   "versions, each device's stream triad (one per device: every fraction of\n"
                   "the triad in the report divides by it; the other triads the run measured\n"
                   "are counted beside it) and the stream kernels of that measurement, the\n"
                   "fastest SpMV variant per matrix with its settings, GFLOP/s, GB/s and\n"
                   "fraction of the triad (\"-\" where a record has no such figure), speedups\n"
                   "over OpenMP, grid studies (time per cell), the solver's tables in the\n"
                   "paper's layout (time and speedup, per step and total: Tables 4 and 7; the\n"
                   "split per step with GB/s and fraction of the triad: Tables 5 and 6) and its\n"
                   "validation figures, each sweep's counts and fastest configuration, tuning\n"
                   "results, energy, the environment and the verdict (stable, unstable,\n"
                   "contended) of the numbers, every configuration that failed (failed,\n"
                   "crashed, wrong-result, build-error, launch-error) with its reason, the\n"
                   "expected outcomes (pruned, abandoned, skipped, timeout, unavailable)\n"
                   "counted per status apart, and links to the figures `flowbench plot` drew\n"
                   "into --plots DIR (default: the folder, or the first file's folder).\n"
                   "--html FILE writes the same report as one self-contained HTML page: the\n"
                   "figures inline as SVG, tables sorted by a click on a column's head,\n"
                   "flagged numbers marked, nothing fetched from elsewhere; on load it checks\n"
                   "that every figure and table rendered and says so in its title.\n"
                   "When the files hold several records of a configuration, its latest stable one by time\n"
                   "counts (its run's start; the latest when none is stable; a latest failure stands),\n"
                   "said under the files where that is not the record read last.\n"
                   "--out FILE and --html FILE may not be a RESULTS file under any name (exit 2).",
    .options = options,
    .min_positional = 1,
    .max_positional = 1024,
    .run = run_report,
};
