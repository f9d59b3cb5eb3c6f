/* solve_tune.h - the solver's device kernels swept, tuned and looked up
 * (`flowbench solve --param NAME=V1,V2 ...`, `--tune`, `--tuned`, and
 * `flowbench tune --case CASE --kernel ns`, which runs `solve --tune`).
 *
 * The solver is not a family the sweep or `tune` can drive (it is a time
 * loop over many kernels, and the solver layer sits above tune/), so the
 * cli layer, which may call both, does it around `flowbench solve`: each
 * point of fb_ns_axes is a whole run of the case on the same mesh, timed
 * per step and compared with the first point's u and p; `--tune` stores
 * the fastest correct point in the tuning cache under (device, "ns",
 * double, the mesh's signature: cache.h's mesh kind), and `--tuned` reads
 * it back. Everything
 * here is written over fb_ns_axes / FB_NS_NAXES, so new axes join the
 * sweep without a change. docs/solver.md, "Sweeping and tuning the device
 * kernels". */
#ifndef FB_CLI_SOLVE_TUNE_H
#define FB_CLI_SOLVE_TUNE_H

#include <jansson.h>

#include "cli.h"
#include "../solver/cases.h"
#include "../tune/search.h"
#include "../solver/output.h"

/* --tune with no --param sweeps every point of every axis; more than this
 * is refused unless --param narrows it (each point is a whole solver run). */
#define FB_SOLVE_MAX_TUNE_POINTS 200

/* What --param, --tune and --tuned ask for. */
typedef struct fb_solve_plan {
    fb_param_point *points; /* the cross product of the --param lists; the default point first if in it */
    int npoints;
    fb_search_options search; /* how they are run (fb_solve_tune_search): exhaustive in order, or searched */
    fb_search_space space;    /* the same points as a search space (random, anneal) */
    int runs;                 /* the most points the sweep runs */
    int sweep;                /* run every point and tabulate them (a list, or --tune) */
    int tune;                 /* then store the fastest correct point in the cache */
    int tuned;                /* take the point from the cache, per device backend */
    int quiet;                /* --quiet: no progress line per point */
    int as_json;              /* the table goes to stderr */
    char cache[1024];         /* the tuning cache (--tune, --tuned) */
    char out[1024];           /* --out, where --tune appends the best point's record again, marked */
} fb_solve_plan;

/* Reads --param (comma-separated values: the cross product), --tune,
 * --tuned and --cache for the backends given (compare: --compare). Each
 * value passes fb_cli_param; a swept value must be one of the axis's
 * values. FB_ERR_USAGE, one line, for a refused combination. */
fb_status fb_solve_plan_read(const fb_parsed *args, const char *const *backends, int nbackends, int compare,
                             fb_solve_plan *plan);

void fb_solve_plan_free(fb_solve_plan *plan);

/* How `flowbench tune --case CASE --kernel ns` searches: cmd_tune.c sets
 * it, then runs `solve CASE --tune` through fb_cmd_solve, so that both
 * commands share one sweep. Exhaustive runs the plan in order, the
 * default point first, as `solve --tune` does, and stops after `budget`
 * points (0: all of them); random and anneal search the same points with
 * search.h (fb_search), at most `budget` runs (0: its default, a quarter
 * of the points, at least 4). Plain `solve` is exhaustive without a budget. */
void fb_solve_tune_search(const fb_search_options *search);

/* "WG_SIZE=128 GROUP_REDUCE=0 ..." over every axis of fb_ns_axes. */
void fb_solve_point_text(const fb_param_point *p, char *buf, size_t len);

/* --tuned: the cached point for device d and the mesh of c (ns set up, its
 * edges built), or the defaults; says which on stderr as `spmv --tuned`
 * does. *tuning (new reference) is the record's "tuning" object. */
fb_status fb_solve_tuned_point(const fb_solve_plan *plan, const fb_device_info *d, const fb_solve_case *c,
                               const fb_ns *ns, fb_param_point *point, json_t **tuning);

/* --tuned, after the device is open with CG_SPMV != 0: the SpMV kernel's
 * cached point for the pressure matrix (exact, nearest signature, else its
 * defaults) set on the device, said on stderr, and kept in tuning.spmv. */
fb_status fb_solve_tuned_spmv(const fb_solve_plan *plan, const fb_device_info *d, fb_ns *ns, json_t *tuning);

typedef struct fb_solve_sweep fb_solve_sweep;

/* Runs the case once at *point (a record of its own), and before freeing
 * the run hands its result to fb_solve_sweep_note. Returns the run's
 * status: FB_ERR_CHECK (the watch stopped it) and other errors mark the
 * point failed; FB_ERR_INTERRUPTED ends the sweep. */
typedef fb_status (*fb_solve_point_fn)(void *ctx, const fb_param_point *point, fb_solve_sweep *sw);

/* Every point of the plan through run, a progress line per point on
 * stderr, then the table sorted by time per step; with --tune the fastest
 * correct point goes into the cache, and its record once more into --out
 * with "best": true in its "search" part (as tune --out marks its best).
 * Ctrl-C stops between points (exit 130; nothing is stored); FB_ERR_CHECK
 * when no point ran correctly. */
fb_status fb_solve_sweep_run(const fb_solve_plan *plan, const fb_solve_case *c, fb_solve_point_fn run, void *ctx);

/* With --tune, the "search" part of the record of the point being run
 * (strategy, seed, budget, which evaluation: tune --out's), a new
 * reference; NULL when the sweep does not tune. */
json_t *fb_solve_sweep_search_part(const fb_solve_sweep *sw);

/* The result of the point being run: time per step, CG iterations, and u
 * and p against the first point that ran (downloaded: fb_ns_device_download);
 * rec, its record, is kept while it is the fastest correct point. */
fb_status fb_solve_sweep_note(fb_solve_sweep *sw, const fb_device_info *d, const fb_solve_case *c, const fb_ns *ns,
                              const fb_solve_log *log, const json_t *rec);

#endif
