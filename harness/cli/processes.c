/* processes.c - one configuration in N fresh processes (processes.h). */
#include "processes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/gate/processes.h"

int fb_cli_processes_wanted(const fb_parsed *args) { return fb_cli_value(args, "processes") != NULL; }

/* The records into --out (a header naming the device) and onto stdout with
 * --json. The device is opened here only for its description. */
static fb_status emit(const char *command, const fb_parsed *args, const fb_processes *runs)
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
    fb_processes runs = {.n = 0};
    char **argv = NULL;
    size_t n = 0;
    FB_CHECK(fb_cli_count(args, "processes", 0, &n));
    if (n < 2 || n > FB_PROCESSES_MAX)
        FB_FAIL(FB_ERR_USAGE, "--processes: %zu is not a count of processes in [2, %d]", n, FB_PROCESSES_MAX);
    FB_CHECK(fb_cli_child_argv(command, args, drop, extra, &argv));
    fprintf(stderr, "%s: one configuration in %zu fresh processes, one after the other\n", command, n);
    FB_CHECK(fb_processes_run(argv, (int)n, stderr, &runs));
    fprintf(fb_cli_flag(args, "json") ? stderr : stdout, "%s: %s%s\n", command,
            runs.verdict, /* --json: stdout is JSON */
            fb_processes_two_modes(&runs) ? ": every record unstable" : "");
    FB_CHECK(emit(command, args, &runs));
    if (runs.failed_check) FB_FAIL(FB_ERR_CHECK, "%s: a process's result was wrong (see its record)", command);
fail:
    fb_processes_free(&runs);
    fb_cli_child_argv_free(argv);
    return status == FB_OK ? 0 : fb_comm_report(status);
}
