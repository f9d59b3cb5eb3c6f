/* tune_prior.h - `flowbench tune`'s prior (tune/prior.h) on the command
 * line: --fit-prior fits one to recorded sweeps and writes it beside the
 * tuning cache; --start and --prior choose where anneal starts. Kept out of
 * cmd_tune.c, which only calls these two entry points. docs/tuning.md,
 * "The prior". */
#ifndef FB_CLI_TUNE_PRIOR_H
#define FB_CLI_TUNE_PRIOR_H

#include <jansson.h>

#include "cli.h"
#include "../tune/tune.h"

#include "../tune/prior.h"

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

/* `tune --fit-prior SWEEP.jsonl... [--prior FILE] [--cache FILE]`: the
 * exit code. */
int fb_tune_prior_fit(const fb_parsed *args);

/* Chooses anneal's start for rq (its family, problem, target, kernel and
 * precision set) from --start and --prior (default: FB_PRIOR_FILE_NAME
 * beside cache_path) and points rq->search.start and rq->start into *out.
 * With --replay the replayed matrix is left out of the prior (its own
 * landscape would answer the question the replay asks). Without --start,
 * no prior file, no entry for the kernel or a problem that is no matrix
 * means the default start; with --start prior each is an error. A prior
 * file that is not one is an error either way. From the prior's start,
 * the prior also ranks anneal's moves (search.h). *out must outlive the
 * search. */
fb_status fb_tune_prior_start(const fb_parsed *args, const char *cache_path, fb_tune_request *rq, fb_tune_start *out);
void fb_tune_start_free(fb_tune_start *s);

#endif
