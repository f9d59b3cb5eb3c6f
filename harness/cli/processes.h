/* processes.h - `spmv` and `grid` with --processes N: one configuration
 * measured in N fresh processes, one after the other (core/fresh.h), each
 * its own record, and the processes' medians judged together
 * (fb_json_judge_processes, results/records/quality.h): where they fall in
 * two modes every record is unstable with that reason. */
#ifndef FB_CLI_PROCESSES_H
#define FB_CLI_PROCESSES_H

#include "cli.h"

#define FB_CLI_OPTION_PROCESSES                                                                                        \
    {                                                                                                                  \
        "processes", "N",                                                                                              \
            "measure the configuration in N fresh processes (2..100), a record each, and judge their medians "         \
            "together: "                                                                                               \
            "two modes across processes make every record unstable",                                                   \
            0                                                                                                          \
    }

#define FB_CLI_MAX_PROCESSES 100

int fb_cli_processes_wanted(const fb_parsed *args);

/* Runs args's command (spmv or grid) N times without --processes, --out
 * and --json, then writes the judged records to --out and prints them with
 * --json. Returns the exit code. */
int fb_cli_processes_run(const char *command, const fb_parsed *args);

#endif
