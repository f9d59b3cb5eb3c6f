/* speedup.h - the one definition of the solver's speedup over its
 * baseline, used by `solve --compare`, the record's "speedup" object and
 * `report` (docs/solver.md, docs/results.md):
 *
 *   per step = the baseline's median time step / this run's median time
 *              step (set-up, CPU->GPU and GPU->CPU are in no step);
 *   total    = the baseline's whole run / this run's whole run (every step
 *              plus CPU->GPU and GPU->CPU; set-up is in neither).
 *
 * A speedup is trusted only when both sides were stable and uncontended
 * (quality.h); otherwise its figure is still given, flagged "?" ("5.51x?"),
 * with the reason: which side, unstable or contended, and the figures. */
#ifndef FB_RESULTS_SPEEDUP_H
#define FB_RESULTS_SPEEDUP_H

#include <stddef.h>

#include <jansson.h>

#include "../records/quality.h"

#define FB_SPEEDUP_PER_STEP_DEF                                                                                        \
    "the baseline's median time step / this run's median time step (set-up, CPU->GPU and GPU->CPU are in no step)"
#define FB_SPEEDUP_TOTAL_DEF                                                                                           \
    "the baseline's whole run / this run's whole run (all steps, CPU->GPU and GPU->CPU; set-up in neither)"

/* The mark of a figure that is not to be trusted, and of a throttled run. */
#define FB_SPEEDUP_FLAG "?"
#define FB_THROTTLED_FLAG "*"

/* One side of a speedup: a run's times and its verdict. */
typedef struct fb_speedup_side {
    const char *id; /* what a reason names: "openmp:0" */
    double step_s;  /* median time step (NAN: unknown) */
    double total_s; /* the whole run: steps, CPU->GPU, GPU->CPU (NAN: unknown) */
    fb_quality quality;
    const char *why; /* the quality's reason ("" or NULL when stable) */
    int throttled;
} fb_speedup_side;

typedef struct fb_speedup {
    double per_step, total; /* NAN where a side lacks the time */
    int trusted;            /* both sides stable and uncontended */
    int throttled;          /* either side ran throttled */
    char why[1024];         /* not trusted: "openmp:0 unstable: CV 45%, ..." per side, "; " between; else "" */
} fb_speedup;

void fb_speedup_of(const fb_speedup_side *base, const fb_speedup_side *run, fb_speedup *out);

/* "7.27x"; "7.27x?" when not trusted; "*" added when throttled; "-" for
 * a NAN value. */
void fb_speedup_text(double value, int trusted, int throttled, char *buf, size_t len);

/* The reason of one side, "ID QUALITY: WHY", appended to buf after "; "
 * when buf holds one already; nothing for a stable side. */
void fb_speedup_side_why(const fb_speedup_side *side, char *buf, size_t len);

/* {"over", "per_step", "total", "trusted", "why" (null when trusted),
 * "throttled", "definition": {"per_step", "total"}}: a record's speedup. */
json_t *fb_speedup_json(const fb_speedup *s, const char *over);

/* A solve record as a side (id: its device): stats.median_s,
 * total_s + timings.cpu_to_gpu_s + timings.gpu_to_cpu_s, its quality and
 * energy.throttled. 0 when it has no step times. */
int fb_speedup_side_of_record(const json_t *rec, fb_speedup_side *side);

#endif
