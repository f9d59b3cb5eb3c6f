/* solve_plan.h - `flowbench solve`'s options that decide what runs: the
 * backends and the solve options the command reads (solve_opts), and
 * --param NAME=V[,V...], --tune, --tuned and --cache (fb_solve_read_plan):
 * one point, or a sweep of the device kernels' points. cmd_solve.c reads
 * the rest and calls the solver (solver/solve_run.h). */
#ifndef FB_CLI_SOLVE_PLAN_H
#define FB_CLI_SOLVE_PLAN_H

#include "cli.h"
#include "../solver/solve_run.h"
#include "../tune/search.h"

#define MAX_BACKENDS FB_SOLVE_MAX_BACKENDS
#define LIST_HINT "flowbench solve --list"

/* --tune with no --param sweeps every point of every axis; more than this
 * is refused unless --param narrows it (each point is a whole solver run). */
#define MAX_TUNE_POINTS 200

typedef struct solve_opts {
    /* what runs (solver/solve_run.h): the backends, the point or the
     * sweep's space, the run's length, quiet, --json, --peer; the command
     * adds the outputs and its sinks (cmd_solve.c) */
    fb_solve_request rq;
    const char *name;
    int level, sweep;
    char cache[1024]; /* the tuning cache (--tune, --tuned): rq.cache points here */
} solve_opts;

/* --param NAME=V[,V...] for the device kernels (refused on openmp, which
 * runs them at the OpenMP baseline's one point), --tune and --tuned, into
 * o (its backends read): a list of values, or --tune, sweeps, each value
 * one the axis declares (--tune alone takes every point); one value per
 * axis is a single run at that point. The combinations that make no sense
 * are refused, each in one line. */
fb_status fb_solve_read_plan(const fb_parsed *args, solve_opts *o);

#endif
