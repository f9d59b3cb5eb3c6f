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

#include "../tune/start.h"

/* `tune --fit-prior SWEEP.jsonl... [--prior FILE] [--cache FILE]`: the
 * exit code. */
int fb_tune_prior_fit(const fb_parsed *args);

/* Anneal's start (tune/start.h) from --start and --prior (default:
 * FB_PRIOR_FILE_NAME beside cache_path). */
fb_status fb_tune_prior_start(const fb_parsed *args, const char *cache_path, fb_tune_request *rq, fb_tune_start *out);

#endif
