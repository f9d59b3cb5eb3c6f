/* tune.h - `flowbench tune`: a search strategy (search.h) over one
 * kernel's parameter space on one problem and target, each evaluation a
 * checked measurement (or, with a replay set, a cost read from a recorded
 * exhaustive sweep, to study strategies without re-measuring). */
#ifndef FB_TUNE_TUNE_H
#define FB_TUNE_TUNE_H

#include <stdio.h>

#include "../results/records/reader.h"
#include "../results/records/results.h"
#include "confirm.h"
#include "families.h"
#include "search.h"

/* What a search minimises (docs/tuning.md, "Objectives"): the median time,
 * the energy of one run (joules, energy.joules_per_run: NVML on a GPU,
 * RAPL on the CPU), or their product, the energy-delay product (J s). */
typedef enum fb_objective { FB_OBJECTIVE_TIME, FB_OBJECTIVE_ENERGY, FB_OBJECTIVE_EDP } fb_objective;

/* "time", "energy", "edp", or "time,energy": the search minimises time and
 * the Pareto front of time and energy is printed (*pareto 1). FB_ERR_USAGE
 * naming the choices. */
fb_status fb_objective_parse(const char *text, fb_objective *objective, int *pareto);
const char *fb_objective_name(fb_objective o);

/* A measured record's value under o; NAN when o needs energy and the
 * record has none measured (why: the record's own reason, or "none"). */
double fb_objective_of_record(fb_objective o, const json_t *rec, char *why, size_t len);

/* "0.0374 ms", "1.25 mJ", "3.1e-06 J s": a value of o in its unit. */
void fb_objective_text(fb_objective o, double value, char *buf, size_t len);

typedef struct fb_tune_request {
    const fb_family *family;
    void *problem;
    fb_target *t;
    int kernel; /* family kernel index */
    int is_double;
    fb_measure_config measure;
    double abandon_factor; /* stop a point's sampling at k x the best (0: never) */
    fb_search_options search;
    fb_results *out;              /* every evaluation's record (NULL: none) */
    const fb_results_set *replay; /* non-NULL: costs from these records, nothing runs */
    FILE *progress;               /* one line per evaluation (NULL: quiet) */
    const json_t *start;          /* where the search started and why: every record's search.start (NULL: unsaid) */
    const fb_search_space
        *space;             /* the points searched (a kernel's axes narrowed); NULL: the kernel's declared space */
    fb_objective objective; /* what the search minimises (default time) */
    int pareto;             /* 1: also the Pareto front of time and energy over the evaluated points */
} fb_tune_request;

/* One evaluated point's time and energy (rq->pareto). */
typedef struct fb_tune_tradeoff {
    fb_param_point point;
    double time_s, joules;
} fb_tune_tradeoff;

typedef struct fb_tune_outcome {
    fb_search_result search;
    json_t *best_record;         /* the measurement record of the best point (NULL in replay or if none ran) */
    fb_tune_tradeoff *tradeoffs; /* rq->pareto: every point that ran, with its time and energy */
    int ntradeoffs;
} fb_tune_outcome;

/* The search space of a family kernel: its declared axes and default. */
void fb_tune_space(const fb_family_kernel *k, fb_search_space *space);

/* Searches rq's kernel with rq->search. A measured search that did not
 * run the kernel's default point runs it last (so out->search.history
 * holds it, and the best is never slower); a replay does not. */
fb_status fb_tune_run(const fb_tune_request *rq, fb_tune_outcome *out);
void fb_tune_outcome_free(fb_tune_outcome *o);

/* Stores a point in the tuning cache at path (under its lock): (device
 * fingerprint, kernel, family, precision, the problem's signature), with
 * its params, median, GB/s, the problem's name under the family's problem
 * key, strategy, evaluations and space size. With a confirmation
 * (confirm.h) the point is the one it chose (the winner, or the default
 * kept), its median the median of its fresh processes' medians, with
 * "spread_s" (their range) and "confidence"; without one (NULL) the
 * search's best as measured. *entries = the cache's entries after.
 * FB_ERR_USAGE when the search has no best record; FB_ERR_CHECK when the
 * confirmation found no point that ran in every process. */
fb_status fb_tune_store(const fb_tune_request *rq, const fb_tune_outcome *o, const fb_confirm_outcome *confirmed,
                        const char *path, int *entries);

/* Measures one point (the default, another variant) the way the search
 * does; *record is the record or NULL; *seconds INFINITY if it failed and
 * NAN if pruned. */
fb_status fb_tune_measure(const fb_tune_request *rq, int kernel, const fb_param_point *p, double *seconds,
                          json_t **record);

#endif
