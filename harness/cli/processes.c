/* processes.c - one configuration in N fresh processes (processes.h). */
#include "processes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contention.h"
#include "../core/fresh.h"
#include "../results/records/reader.h"
#include "../results/records/quality.h"

int fb_cli_processes_wanted(const fb_parsed *args) { return fb_cli_value(args, "processes") != NULL; }

typedef struct process_runs {
    json_t *records[FB_CLI_MAX_PROCESSES];
    double medians[FB_CLI_MAX_PROCESSES];
    int n, failed_check;
} process_runs;

/* One process: its record from its --json output, and one line said. */
static fb_status run_process(char **argv, int i, int n, process_runs *runs)
{
    fb_status status = FB_OK;
    fb_fresh_result r;
    json_error_t err;
    FB_CHECK(fb_fresh_run(argv, &r));
    json_t *rec = json_loads(r.out, 0, &err);
    if (!json_is_object(rec))
        FB_FAIL(r.exit_code == 2 ? FB_ERR_USAGE : FB_ERR_BACKEND,
                "%s --processes: process %d of %d ended with exit %d%s%s", argv[1], i + 1, n, r.exit_code,
                *r.last ? ": " : "", r.last);
    runs->records[runs->n] = rec;
    runs->medians[runs->n++] = fb_json_num(rec, "stats.median_s");
    if (r.exit_code == 1) runs->failed_check = 1;
    fprintf(stderr, "process %d of %d: median %.4g ms, %s%s%s\n", i + 1, n, fb_json_num(rec, "stats.median_s") * 1e3,
            fb_json_str(rec, "stats.quality"), *fb_json_str(rec, "stats.quality_why") ? ": " : "",
            fb_json_str(rec, "stats.quality_why"));
fail:
    fb_fresh_result_free(&r);
    return status;
}

/* The records into --out (a header naming the device) and onto stdout with
 * --json. The device is opened here only for its description. */
static fb_status emit(const char *command, const fb_parsed *args, process_runs *runs)
{
    fb_status status = FB_OK;
    fb_target *t = NULL;
    const char *backend = fb_cli_value(args, "backend");
    if (!fb_cli_value(args, "out") && !fb_cli_flag(args, "json")) return FB_OK;
    FB_CHECK(fb_target_open(backend ? backend : "openmp", &t));
    for (int i = 0; i < runs->n; ++i)
        FB_CHECK(fb_cli_emit_record(args, command, fb_target_info(t), runs->records[i]));
fail:
    fb_target_close(t);
    return status;
}

int fb_cli_processes_run(const char *command, const fb_parsed *args)
{
    static const char *const drop[] = {"processes", "out", "json", NULL};
    static const char *const extra[] = {"--json", NULL};
    fb_status status = FB_OK;
    process_runs runs;
    char **argv = NULL, verdict[400];
    size_t n = 0;
    memset(&runs, 0, sizeof runs);
    FB_CHECK(fb_cli_count(args, "processes", 0, &n));
    if (n < 2 || n > FB_CLI_MAX_PROCESSES)
        FB_FAIL(FB_ERR_USAGE, "--processes: %zu is not a count of processes in [2, %d]", n, FB_CLI_MAX_PROCESSES);
    FB_CHECK(fb_cli_child_argv(command, args, drop, extra, &argv));
    fprintf(stderr, "%s: one configuration in %zu fresh processes, one after the other\n", command, n);
    for (int i = 0; i < (int)n; ++i)
        FB_CHECK(run_process(argv, i, (int)n, &runs));
    fb_json_judge_processes(runs.records, runs.medians, runs.n, verdict, sizeof verdict);
    fprintf(fb_cli_flag(args, "json") ? stderr : stdout, "%s: %s%s\n", command, verdict, /* --json: stdout is JSON */
            runs.n && strstr(verdict, "two modes") ? ": every record unstable" : "");
    FB_CHECK(emit(command, args, &runs));
    if (runs.failed_check) FB_FAIL(FB_ERR_CHECK, "%s: a process's result was wrong (see its record)", command);
fail:
    for (int i = 0; i < runs.n; ++i)
        json_decref(runs.records[i]);
    fb_cli_child_argv_free(argv);
    return status == FB_OK ? 0 : fb_comm_report(status);
}
