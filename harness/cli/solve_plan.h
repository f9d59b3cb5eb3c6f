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
    const char *name;
    const char *backends[MAX_BACKENDS];
    int nbackends, compare;
    int level, steps;
    fb_param_point point;  /* of the device kernels (fb_ns_axes) */
    fb_search_space space; /* the --param lists: the points a sweep runs */
    int sweep, tune, tuned;
    char cache[1024]; /* the tuning cache (--tune, --tuned) */
    double t_end;
    int quiet, as_json;
    const char *peer; /* --peer NAME (solve_peer.h), or NULL */
} solve_opts;

/* --param NAME=V[,V...] for the device kernels (refused on openmp, which
 * runs them at the OpenMP baseline's one point), --tune and --tuned, into
 * o (its backends read): a list of values, or --tune, sweeps, each value
 * one the axis declares (--tune alone takes every point); one value per
 * axis is a single run at that point. The combinations that make no sense
 * are refused, each in one line. */
fb_status fb_solve_read_plan(const fb_parsed *args, solve_opts *o);

#endif
