/* plan.h - `spmv` and `grid` with their axes on the command line: a
 * repeated --matrix (--grid) or --kernel, and --param NAME=V1,V2,... lists
 * (their cross product, or advanced together with --zip). Such a command
 * line is a one-case suite built in memory and run by the sweep
 * (harness/tune/sweep.h), so its configurations are planned, pruned,
 * measured, checked and recorded by the same code, under the same value
 * rule (params.h), as a suite file's; the plan is printed before anything
 * is measured. */
#ifndef FB_CLI_PLAN_H
#define FB_CLI_PLAN_H

#include "cli.h"
#include "bench/family.h"

typedef struct fb_cli_plan_kind {
    const char *command;        /* "spmv": messages and the suite's name */
    const fb_family *family;    /* NULL: the --family option names it (grid) */
    const char *problem_option; /* "matrix" or "grid" */
    const char *default_kernel; /* NULL: the family's first kernel */
    /* Options that describe one configuration only (--x, --y-out, ...),
     * refused in a plan; NULL-terminated. */
    const char *const *single_only;
} fb_cli_plan_kind;

/* Whether the command line asks for a plan: a problem or kernel option
 * given more than once, --kernel all, a --param with a list, --zip or
 * --dry-run. */
int fb_cli_plan_wanted(const fb_parsed *args, const fb_cli_plan_kind *kind);

/* Builds the plan and prints it; with --dry-run lists each configuration
 * as the sweep's dry run does and stops there. Otherwise runs it as a sweep into --out (or a
 * temporary file removed afterwards) and prints one line per
 * configuration. Returns the exit code: 0 when every configuration that
 * ran was checked ok (pruned ones are listed with their reason), that of
 * FB_ERR_CHECK when one gave a wrong result or failed to run. */
int fb_cli_plan_run(const fb_parsed *args, const fb_cli_plan_kind *kind);

#endif
