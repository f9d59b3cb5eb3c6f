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
        *space; /* the points searched (a kernel's axes narrowed); NULL: the kernel's declared space */
} fb_tune_request;

typedef struct fb_tune_outcome {
    fb_search_result search;
    json_t *best_record; /* the measurement record of the best point (NULL in replay or if none ran) */
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
