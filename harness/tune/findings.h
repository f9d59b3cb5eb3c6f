/* findings.h - what `flowbench tune` says of a search once it has run: the
 * best point, the default beside it (with whether the gain is beyond the
 * measurement noise, judged as compare judges two runs), the family's
 * other kernels at their defaults, and, replaying a recorded exhaustive
 * sweep, the recorded optimum and how close the strategy gets to it over
 * many seeds (docs/tuning.md). All to stdout. */
#ifndef FB_TUNE_FINDINGS_H
#define FB_TUNE_FINDINGS_H

#include "start.h"
#include "tune.h"

/* The search's line and its best point (problem names the problem as
 * given; start, when it chose one, where anneal began). */
void fb_tune_print_best(const fb_tune_request *rq, const char *problem, const fb_tune_start *start,
                        const fb_tune_outcome *o);

/* The default point's time against the best's, measured again beside it
 * where the best is faster. */
fb_status fb_tune_print_versus_default(const fb_tune_request *rq, const fb_tune_outcome *o);

/* Each other kernel of the family at its default point. */
fb_status fb_tune_print_versus_variants(const fb_tune_request *rq, const fb_tune_outcome *o);

/* Replay only: the recorded sweep's optimum, into *optimum. */
fb_status fb_tune_replay_optimum(const fb_tune_request *rq, double *optimum);

/* Replay only: the strategy over seeds seeds (rq->search.seed on), each
 * best against optimum, and where the searches ended. */
fb_status fb_tune_replay_seeds(fb_tune_request *rq, int seeds, double optimum);

/* rq->pareto: the evaluated points on the Pareto front of time and energy
 * (no other point both faster and using less energy), fastest first. */
void fb_tune_print_pareto(const fb_tune_request *rq, fb_tune_outcome *o);

/* All of the above in tune's order: the best (and the Pareto front), the
 * default beside it, the other kernels unless no_variants, and with a
 * replay the optimum and, for seeds > 1, the strategy over seeds.
 * FB_ERR_CHECK when no point of the kernel ran. */
fb_status fb_tune_print_findings(fb_tune_request *rq, const char *problem, const fb_tune_start *start,
                                 fb_tune_outcome *o, int no_variants, int seeds);

#endif
