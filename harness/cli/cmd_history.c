/* cmd_history.c - `flowbench history SUBCOMMAND`: the throughput history
 * of CI runs in SQLite (results/history/history_store.h): add, show, plot, detect,
 * merge, export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../core/sysinfo.h"
#include "../results/gate/compare_history.h"
#include "../results/presentation/history_plot.h"
#include "../results/history/history_store.h"

static const fb_option options[] = {
    {"db", "FILE",
     "the history database (default $FLOWBENCH_HISTORY_DB, else history.db beside the tuning cache: "
     "$FLOWBENCH_CACHE_DIR/history.db, else ~/.cache/flowbench/history.db)",
     0},
    {"commit", "SHA", "add: the commit the results were measured on (required)", 0},
    {"branch", "B", "add: the branch, stored with the run", 0},
    {"when", "T",
     "add: the commit's time, seconds since 1970 or YYYY-MM-DDTHH:MM:SSZ; it orders the series (default: the time of "
     "the commit's earlier runs, else now)",
     0},
    {"filter", "REGEX", "show, plot, detect: only configurations whose key or label matches (extended regex)", 0},
    {"out", "PATH", "plot: the folder for the figures (default history-plots); export: the CSV file (default stdout)",
     0},
    {"html", "FILE", "plot: the HTML trend page (default OUT/index.html)", 0},
    {"all", NULL, "plot: every configuration, not only those with a change point", 0},
    {"no-figures", NULL, "plot: the HTML page only, no gnuplot", 0},
    {"fail-on-regression", NULL,
     "detect: exit 1 when a configuration got slower (its last change point is a slowdown; with --since, any "
     "slowdown at or after that commit)",
     0},
    {"since", "COMMIT", "detect: only change points at or after this commit's time gate", 0},
    {"junit", "FILE", "detect: also write one JUnit test case per configuration to FILE", 0},
    {"alpha", "A", "detect, plot: a change point's significance level, Welch's t-test (default 0.001)", 0},
    {"min-change", "PCT", "detect, plot: the smallest step reported, percent (default 2)", 0},
    {"penalty", "K", "detect, plot: the step fit's penalty per step, in sigma^2 ln(n) (default 3)", 0},
    {"threshold", "PCT", "plot: the gate's threshold drawn, as compare --history's (default 5)", 0},
    {"include-flagged", NULL,
     "show, detect, plot: unstable and contended runs count too (left out by default; a busy machine may have no "
     "other)",
     0},
    {NULL, NULL, NULL, 0},
};

/* ---- shared ------------------------------------------------------------------ */

static fb_status open_db(const fb_parsed *args, int create, fb_history **h)
{
    char path[1100];
    const char *given = fb_cli_value(args, "db");
    if (given)
        snprintf(path, sizeof path, "%s", given);
    else
        fb_history_default_path(path, sizeof path);
    return fb_history_open(path, create, h);
}

static fb_status read_detect(const fb_parsed *args, fb_detect_options *d)
{
    fb_status status = FB_OK;
    double pct = 100 * d->min_change;
    FB_CHECK(fb_cli_double(args, "alpha", d->alpha, &d->alpha));
    FB_CHECK(fb_cli_double(args, "min-change", pct, &pct));
    FB_CHECK(fb_cli_double(args, "penalty", d->penalty, &d->penalty));
    if (!(d->alpha > 0 && d->alpha < 1)) FB_FAIL(FB_ERR_USAGE, "--alpha: %g is not in (0, 1)", d->alpha);
    if (!(pct >= 0 && pct < 1000)) FB_FAIL(FB_ERR_USAGE, "--min-change: %g is not a percentage in [0, 1000)", pct);
    if (!(d->penalty > 0)) FB_FAIL(FB_ERR_USAGE, "--penalty: %g is not positive", d->penalty);
    d->min_change = pct / 100;
fail:
    return status;
}

static fb_status load_series(fb_history *h, const fb_parsed *args, const char *key, fb_history_series **s, int *n)
{
    fb_history_query q = {
        .filter = fb_cli_value(args, "filter"), .key = key, .include_flagged = fb_cli_flag(args, "include-flagged")};
    return fb_history_series_load(h, &q, s, n);
}

/* ---- add -------------------------------------------------------------------------- */

/* --commit and --when, read before any file is: a usage error costs nothing. */
static fb_status run_info(const fb_parsed *args, fb_history_run_info *info, int *when_given)
{
    fb_status status = FB_OK;
    const char *when = fb_cli_value(args, "when");
    info->commit = fb_cli_value(args, "commit");
    info->branch = fb_cli_value(args, "branch");
    *when_given = when != NULL;
    if (!info->commit || !*info->commit) FB_FAIL(FB_ERR_USAGE, "history add: --commit SHA is required");
    if (strlen(info->commit) > FB_HISTORY_COMMIT_MAX)
        FB_FAIL(FB_ERR_USAGE, "history add: --commit is %zu characters, more than the %d a commit id takes",
                strlen(info->commit), FB_HISTORY_COMMIT_MAX);
    if (when) FB_CHECK(fb_utc_parse(when, "--when", &info->when));
fail:
    return status;
}

/* Every file is read and checked before the first is added, so a bad
 * file adds nothing; each file is then one run, one transaction. */
static fb_status history_add(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    fb_history_run_info info = {0};
    int when_given = 0;
    FB_CHECK(run_info(args, &info, &when_given));
    FB_CHECK(open_db(args, 1, &h));
    if (!when_given) info.when = -1; /* the history's default (fb_history_add_files) */
    FB_CHECK(fb_history_add_files(h, (const char *const *)args->positional + 1, args->npositional - 1, &info, stdout));
fail:
    fb_history_close(h);
    return status;
}

/* ---- show ---------------------------------------------------------------------------- */

static fb_status history_show(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    fb_history_series *s = NULL;
    int n = 0;
    const char *key = args->npositional > 1 ? args->positional[1] : NULL;
    if (!key == !fb_cli_value(args, "filter"))
        FB_FAIL(FB_ERR_USAGE, "history show: give a configuration KEY or --filter REGEX (one of them)");
    FB_CHECK(open_db(args, 0, &h));
    FB_CHECK(load_series(h, args, key, &s, &n));
    if (!n)
        FB_FAIL(FB_ERR_INPUT, "%s: no configuration %s '%s' (history export lists the keys)", fb_history_path(h),
                key ? "has the key" : "matches", key ? key : fb_cli_value(args, "filter"));
    for (int i = 0; i < n; ++i)
        fb_history_print_series(stdout, &s[i]);
fail:
    fb_history_series_free(s, n);
    fb_history_close(h);
    return status;
}

/* ---- detect ---------------------------------------------------------------------------- */

static fb_status write_junit(const fb_parsed *args, const fb_history_detect_run *d, fb_history *h)
{
    fb_status status = FB_OK;
    fb_cli_out out = {0};
    char suite[1200];
    FB_CHECK(fb_cli_out_open(fb_cli_value(args, "junit"), &out));
    snprintf(suite, sizeof suite, "flowbench history detect %s", fb_history_path(h));
    fb_history_junit_write(out.f, suite, d->cases, d->configs);
    status = fb_cli_out_close(&out, FB_OK);
fail:
    return status;
}

static fb_status history_detect(const fb_parsed *args, int *exit_code)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    fb_history_series *s = NULL;
    fb_history_detect_run d = {.opt = fb_detect_defaults(), .since = -1};
    const char *since = fb_cli_value(args, "since");
    int n = 0;
    FB_CHECK(read_detect(args, &d.opt));
    FB_CHECK(open_db(args, 0, &h));
    if (since) {
        FB_CHECK(fb_history_commit_when(h, since, &d.since));
        if (d.since < 0) FB_FAIL(FB_ERR_INPUT, "--since: commit %s is not in %s", since, fb_history_path(h));
    }
    FB_CHECK(load_series(h, args, NULL, &s, &n));
    FB_ALLOC(d.cases, n + 1, "the JUnit cases");
    for (int i = 0; i < n; ++i)
        FB_CHECK(fb_history_detect_series(&d, &s[i], &d.cases[i]));
    printf("history detect: %d configuration(s) in %s, %d with a change point, %d slower%s\n", d.configs,
           fb_history_path(h), d.changed, d.regressions, since ? " since that commit" : " now");
    if (fb_cli_value(args, "junit")) FB_CHECK(write_junit(args, &d, h));
    *exit_code = fb_cli_flag(args, "fail-on-regression") && d.regressions > 0;
fail:
    free(d.cases);
    fb_history_series_free(s, n);
    fb_history_close(h);
    return status;
}

/* ---- plot, merge, export ------------------------------------------------------------ */

static fb_status history_plot(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    fb_history_series *s = NULL;
    fb_history_plot_summary sum;
    double pct = 5;
    int n = 0;
    fb_history_plot_options opt = {.out_dir = fb_cli_value(args, "out") ? fb_cli_value(args, "out") : "history-plots",
                                   .html = fb_cli_value(args, "html"),
                                   .gnuplot = fb_cli_flag(args, "no-figures") ? "" : "gnuplot",
                                   .all = fb_cli_flag(args, "all"),
                                   .detect = fb_detect_defaults()};
    FB_CHECK(read_detect(args, &opt.detect));
    FB_CHECK(fb_cli_double(args, "threshold", pct, &pct));
    if (!(pct >= 0 && pct < 1000)) FB_FAIL(FB_ERR_USAGE, "--threshold: %g is not a percentage in [0, 1000)", pct);
    opt.threshold = pct / 100;
    FB_CHECK(open_db(args, 0, &h));
    FB_CHECK(load_series(h, args, NULL, &s, &n));
    FB_CHECK(fb_history_plot(s, n, &opt, stderr, &sum));
    printf("history plot: %d configuration(s), %d with a change point; %d figure(s) in %s, %d section(s) on the page\n",
           n, sum.changed, sum.figures, opt.out_dir, sum.sections);
fail:
    fb_history_series_free(s, n);
    fb_history_close(h);
    return status;
}

static fb_status history_merge(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    FB_CHECK(open_db(args, 1, &h));
    for (int i = 1; i < args->npositional; ++i) {
        fb_history_merge_summary s;
        FB_CHECK(fb_history_merge(h, args->positional[i], &s));
        printf("history merge: %s: %d run(s), %lld record(s) added, %d run(s) already there -> %s\n",
               args->positional[i], s.runs, s.records, s.duplicates, fb_history_path(h));
    }
fail:
    fb_history_close(h);
    return status;
}

static fb_status history_export(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    fb_cli_out out = {0};
    long long rows = 0;
    FB_CHECK(open_db(args, 0, &h));
    FB_CHECK(fb_cli_out_open(fb_cli_value(args, "out"), &out));
    status = fb_history_export_csv(h, out.f, &rows);
    status = fb_cli_out_close(&out, status);
    FB_CHECK(status);
    fprintf(stderr, "history export: %lld record(s) from %s to %s\n", rows, fb_history_path(h), out.name);
fail:
    fb_history_close(h);
    return status;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

typedef struct subcommand {
    const char *name;
    int min_args, max_args;     /* after the subcommand's name */
    const char *const *options; /* those it takes besides --db */
} subcommand;

static const char *const add_opts[] = {"commit", "branch", "when", NULL};
static const char *const show_opts[] = {"filter", "include-flagged", NULL};
static const char *const plot_opts[] = {"filter", "out",        "html",    "all",       "no-figures",
                                        "alpha",  "min-change", "penalty", "threshold", "include-flagged",
                                        NULL};
static const char *const detect_opts[] = {"filter",  "fail-on-regression", "since", "junit", "alpha", "min-change",
                                          "penalty", "include-flagged",    NULL};
static const char *const merge_opts[] = {NULL};
static const char *const export_opts[] = {"out", NULL};

static const subcommand subcommands[] = {
    {"add", 1, 1022, add_opts},    {"show", 0, 1, show_opts},      {"plot", 0, 0, plot_opts},
    {"detect", 0, 0, detect_opts}, {"merge", 1, 1022, merge_opts}, {"export", 0, 0, export_opts},
};

static fb_status find_subcommand(const fb_parsed *args, const subcommand **out)
{
    fb_status status = FB_OK;
    const char *name = args->positional[0];
    const subcommand *sub = NULL;
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; ++i)
        if (strcmp(subcommands[i].name, name) == 0) sub = &subcommands[i];
    if (!sub) FB_FAIL(FB_ERR_USAGE, "history: '%s' is not add, show, plot, detect, merge or export", name);
    FB_CHECK(fb_cli_only_options(args, "history", sub->options, (const char *const[]){"db", NULL}));
    if (args->npositional - 1 < sub->min_args)
        FB_FAIL(FB_ERR_USAGE, "history %s: missing argument (see flowbench history --help)", name);
    if (args->npositional - 1 > sub->max_args)
        FB_FAIL(FB_ERR_USAGE, "history %s: unexpected argument '%s'", name, args->positional[1 + sub->max_args]);
    *out = sub;
fail:
    return status;
}

/* The database is every subcommand's input (merge's --db its output and
 * its DBs inputs): no report may be written over it under any name, and
 * merge may not take the database into itself (it waited the whole lock
 * on its own write). */
static fb_status check_files(const fb_parsed *args, const subcommand *sub)
{
    char db[1100];
    const char *given = fb_cli_value(args, "db");
    const int merge = !strcmp(sub->name, "merge");
    if (given)
        snprintf(db, sizeof db, "%s", given);
    else
        fb_history_default_path(db, sizeof db);
    fb_named_file in[1023], out[3] = {{"--out", strcmp(sub->name, "export") ? NULL : fb_cli_value(args, "out")},
                                      {"--junit", fb_cli_value(args, "junit")},
                                      {"--html", fb_cli_value(args, "html")}};
    int nin = 0;
    if (merge) {
        out[0] = (fb_named_file){"--db", db};
        for (int i = 1; i < args->npositional && nin < 1023; ++i)
            in[nin++] = (fb_named_file){"DB", args->positional[i]};
    } else {
        in[nin++] = (fb_named_file){"--db", db};
    }
    return fb_files_check_distinct("history", in, nin, out, 3);
}

static int run_history(const fb_parsed *args)
{
    fb_status status = FB_OK;
    const subcommand *sub = NULL;
    int exit_code = 0;
    FB_CHECK(find_subcommand(args, &sub));
    FB_CHECK(check_files(args, sub));
    if (strcmp(sub->name, "add") == 0) status = history_add(args);
    if (strcmp(sub->name, "show") == 0) status = history_show(args);
    if (strcmp(sub->name, "plot") == 0) status = history_plot(args);
    if (strcmp(sub->name, "detect") == 0) status = history_detect(args, &exit_code);
    if (strcmp(sub->name, "merge") == 0) status = history_merge(args);
    if (strcmp(sub->name, "export") == 0) status = history_export(args);
    /* what show and detect print is their result: a full disk is an error */
    if (status == FB_OK) status = fb_file_check_written(stdout, "standard output");
fail:
    fflush(stdout);
    if (status != FB_OK) return fb_comm_report(status);
    return exit_code;
}

const fb_command fb_cmd_history = {
    .name = "history",
    .summary = "keep every CI run in a SQLite history; trends, change points and a gate over commits",
    .usage = "history add RESULTS... --commit SHA [--branch B] [--when T] [--db FILE]\n"
             "       history show KEY|--filter REGEX [--include-flagged] [--db FILE]\n"
             "       history detect [--filter REGEX] [--fail-on-regression] [--since COMMIT] [--junit FILE]\n"
             "        [--alpha A] [--min-change PCT] [--penalty K] [--include-flagged] [--db FILE]\n"
             "       history plot [--out DIR] [--html FILE] [--all] [--no-figures] [--filter REGEX] [--threshold PCT]\n"
             "        [--alpha A] [--min-change PCT] [--penalty K] [--include-flagged] [--db FILE]\n"
             "       history merge DB... [--db FILE]\n"
             "       history export [--out FILE] [--db FILE]",
    .description = "A history of throughput over commits, for CI that runs flowbench on every commit\n"
                   "(docs/plots-and-compare.md, \"CI history\"). The database is one SQLite file.\n"
                   "add: stores every measurement record of each RESULTS file as one run of commit\n"
                   "SHA, in one transaction (a killed add leaves the database as it was), with its\n"
                   "configuration key (what compare pairs on), machine (CPU model and count, backend\n"
                   "and device), environment and stability verdict. A run is identified by a hash of\n"
                   "its records: adding the same results twice is refused (exit 2), a new run of the\n"
                   "same commit is kept. Concurrent adds wait for each other (up to 60 s).\n"
                   "show: one configuration's series, a point per commit: the median over the commit's\n"
                   "stable runs, the spread, runs left out as unstable or contended.\n"
                   "detect: the change points of every configuration: a penalised step fit on log\n"
                   "times (optimal partitioning with PELT pruning, penalty K x sigma^2 x ln n per\n"
                   "step, sigma from successive differences), each step kept only if Welch's t-test\n"
                   "of the segments beside it gives p <= A and the medians differ by --min-change;\n"
                   "printed with the commit it starts at, its size and p. Unstable and contended\n"
                   "runs are left out (--include-flagged counts them: on a busy machine they may\n"
                   "be all there is). --fail-on-regression: exit 1 when a configuration is slower\n"
                   "now (its last change point is a slowdown), or with --since COMMIT, when any\n"
                   "slowdown starts at or after that commit; --junit FILE writes a test case per\n"
                   "configuration.\n"
                   "plot: gnuplot figures (OUT/history-N.png and .svg) of the configurations with a\n"
                   "change point (--all: every one): median per commit with its spread, the change\n"
                   "points, the limit compare --history gates the next run at; and one HTML page\n"
                   "(inline SVG, self-contained) with a section per such configuration.\n"
                   "merge: copies the runs of other history databases (other CI runners) that this\n"
                   "one lacks. export: every record as CSV (for pandas).\n"
                   "compare --history DB NEW judges a new results file against the history.\n"
                   "Exit status: 0 ok, 1 a regression with --fail-on-regression, 2 bad input or a\n"
                   "run added twice, 3 the database or a file cannot be written.",
    .options = options,
    .min_positional = 1,
    .max_positional = 1023,
    .run = run_history,
};
