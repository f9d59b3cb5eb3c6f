/* solve_run.h - what `flowbench solve CASE` runs once its options are read
 * (the command is cli/cmd_solve.c): the case on each backend in turn,
 * compared when there are several; the case on the P ranks of an MPI
 * launch; or a sweep of the device kernels' points (--param lists,
 * --tune) through tune's search. Where the records go, how the stream
 * triad is found and how --tune confirms and stores its best are the
 * command's: handed in as sinks. */
#ifndef FB_SOLVER_SOLVE_RUN_H
#define FB_SOLVER_SOLVE_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "../backends/target.h"
#include "../core/params.h"
#include "../tune/tune.h"
#include "cases.h"

#define FB_SOLVE_MAX_BACKENDS 8

typedef struct fb_solve_sinks {
    void *ctx;
    /* the triad the record's fraction divides by, into *gbs (-1: none) */
    fb_status (*stream_triad)(void *ctx, fb_target *t, double *gbs);
    /* a run's record (--out, --json) */
    fb_status (*emit_record)(void *ctx, const fb_device_info *d, json_t *rec);
    /* --tune: the sweep's best confirmed and stored; its lines to f */
    fb_status (*store_best)(void *ctx, const fb_tune_request *rq, const fb_tune_outcome *out, FILE *f);
} fb_solve_sinks;

typedef struct fb_solve_request {
    const char *backends[FB_SOLVE_MAX_BACKENDS]; /* in order, the OpenMP baseline first */
    int nbackends, compare;                      /* compare: a backend that does not open is left out */
    fb_param_point point;                        /* of the device kernels (fb_ns_axes) */
    fb_search_space space;                       /* a sweep's points */
    int tune, tuned;                             /* --tune (a sweep stores its best), --tuned (the cache's point) */
    const char *cache;                           /* the tuning cache */
    int steps;                                   /* > 0: this many steps instead of to t_end */
    double t_end;
    int quiet, as_json; /* as_json: the table to stderr (the record is on stdout) */
    const char *peer;   /* --peer NAME (solve_peer.h), or NULL */
    const char *vtk, *profiles, *out;
    int kernel_times;
    fb_solve_sinks sinks;
} fb_solve_request;

/* Each backend's run of c in turn, its table and record; with several, a
 * backend that cannot open or run is said and the others go on, then the
 * comparison. FB_ERR_CHECK when a run's watch stopped it (the record is
 * written), else the first backend's error. */
fb_status fb_solve_run_backends(const fb_solve_request *o, fb_solve_case *c);

/* Collective: c on the ranks of an MPI launch on o->backends[0] (the
 * checks of solve_ranks.h made): rank 0 measures the triad, validates,
 * prints and writes; the others compute their part and stay silent. */
fb_status fb_solve_run_ranks(const fb_solve_request *o, fb_solve_case *c);

/* Every point of o->space on o->backends[0] (tune.h, exhaustive), a
 * record each in o->out; the table; with o->tune the best handed to
 * store_best. Ctrl-C stops the run in progress (FB_ERR_INTERRUPTED),
 * nothing stored. */
fb_status fb_solve_run_sweep(const fb_solve_request *o, fb_solve_case *c);

#endif
