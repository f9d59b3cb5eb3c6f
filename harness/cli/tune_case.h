/* tune_case.h - `flowbench tune --case CASE --kernel ns`: the solver's
 * kernels tuned on a case (docs/tuning.md, "The solver's kernels"), its
 * options read apart from the other families'. Each solver point is a
 * whole run of the case. cmd_tune.c calls these. */
#ifndef FB_CLI_TUNE_CASE_H
#define FB_CLI_TUNE_CASE_H

#include "cli.h"
#include "../tune/search.h"

/* A search of more runs than this is refused unless --evals caps it or
 * --param narrows the axes. */
#define FB_TUNE_CASE_MAX_RUNS 200

/* The options that mean nothing to a solver point (the measurement's,
 * another family's problem), each refused with why; --case, --kernel ns
 * and a device backend required. */
fb_status fb_tune_case_check_options(const fb_parsed *args);

/* The case (--case, --level, --cube, --steps, --mesh) as the ns family's
 * problem spec into spec, and the points --param leaves into space (every
 * declared value of an axis it does not name). */
fb_status fb_tune_case_problem(const fb_parsed *args, char *spec, size_t len, fb_search_space *space);

/* The runs the search would make, refused above FB_TUNE_CASE_MAX_RUNS. */
fb_status fb_tune_case_check_runs(const fb_parsed *args, const fb_search_options *search, const fb_search_space *space);

#endif
