/* start.h - where anneal starts (docs/tuning.md, "The prior"): the
 * kernel's default, or the point a prior (prior.h) fitted to recorded
 * sweeps predicts for this kernel, problem and device; from the prior's
 * start, the prior also ranks the walk's moves (search.h). */
#ifndef FB_TUNE_START_H
#define FB_TUNE_START_H

#include <jansson.h>

#include "prior.h"
#include "tune.h"

typedef struct fb_tune_start {
    fb_param_point point; /* the prior's prediction, when json's source is "prior" */
    json_t *json;         /* {"source": "prior"|"default", ...}: what the records and the report say */
    char text[1024];      /* the same in one line */
    /* with a prediction, what ranks the walk's moves (search.h's rank) */
    fb_prior *prior;
    fb_prior_query query;
    fb_prior_prediction prediction;
    char device[1024];
} fb_tune_start;

/* Chooses anneal's start for rq (its family, problem, target, kernel and
 * precision set) by start ("default", "prior", or NULL: the prior's when
 * it has one for the problem, else the default) from the prior file at
 * path, and points rq->search.start and rq->start into *out. Under
 * rq->replay the replayed matrix is left out of the prior (its own
 * landscape would answer the question the replay asks). No prior file,
 * no entry for the kernel or a problem that is no matrix means the
 * default start; with start "prior" each is an error. A prior file that
 * is not one is an error either way. Strategies other than anneal have no
 * start: FB_OK, *out empty, unless start was given (a usage error). *out
 * must outlive the search. */
fb_status fb_tune_start_choose(const char *start, const char *path, fb_tune_request *rq, fb_tune_start *out);
void fb_tune_start_free(fb_tune_start *s);

#endif
