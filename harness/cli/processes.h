/* processes.h - `spmv` and `grid` with --processes N: the command line
 * again without --processes, run and judged by results/gate/processes.h,
 * and the judged records written and printed. */
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

int fb_cli_processes_wanted(const fb_parsed *args);

/* Runs args's command (spmv or grid) N times without --processes, --out
 * and --json, then writes the judged records to --out and prints them with
 * --json. Returns the exit code. */
int fb_cli_processes_run(const char *command, const fb_parsed *args);

#endif
