/* counters.h - hardware counters (PAPI) around each timed sample.
 *
 * `--counters LIST` opens a set of PAPI preset or native events, one event
 * set per OpenMP thread (the OpenMP kernels' work runs on those threads;
 * counting only the calling thread would miss it). The measurement loop
 * (measure.c) starts them before each timed sample and stops them after it,
 * so warm-ups and cache flushes are not counted; the record gets the totals
 * divided by the number of samples, and derived figures.
 *
 * Where counters cannot work - no PAPI in the build, a virtual machine
 * without a PMU, perf_event_paranoid too high, a device backend whose work
 * runs outside this process's OpenMP threads - opening still succeeds: the
 * counter set is "unavailable" with one reason, which the record carries
 * once ("counters": {"unavailable": REASON}), and the run goes on.
 */
#ifndef FB_COUNTERS_H
#define FB_COUNTERS_H

#include <jansson.h>

#include "status.h"

#define FB_COUNTERS_MAX 8
#define FB_COUNTERS_DEFAULT "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,PAPI_DP_OPS"

typedef struct fb_counters fb_counters;

/* list: comma-separated event names, or "default" (cycles, instructions,
 * last-level cache misses, double-precision operations; those this CPU
 * lacks are left out). FB_ERR_USAGE for a name PAPI does not know or more
 * than FB_COUNTERS_MAX events; everything else that stops counting makes
 * an unavailable set. */
fb_status fb_counters_open(const char *list, fb_counters **out);

/* An unavailable set with this reason (for backends counters cannot see). */
fb_status fb_counters_unavailable(const char *reason, fb_counters **out);

/* 1 if counting works; else 0 and *reason says why. */
int fb_counters_available(const fb_counters *c, const char **reason);

/* Zeroes the totals (before each measurement). */
void fb_counters_reset(fb_counters *c);

/* Around one timed sample; no-ops on an unavailable set. A failure makes
 * the set unavailable (with the reason) rather than stopping the run. */
void fb_counters_start(fb_counters *c);
void fb_counters_stop(fb_counters *c);

/* {"events": {NAME: per-sample count}, "samples": N, "derived": {"ipc",
 * "bytes_per_llc_miss", "flops_per_cycle"}} with derived figures only where
 * their events were counted (model_bytes <= 0: no bytes_per_llc_miss), or
 * {"unavailable": REASON}. */
json_t *fb_counters_json(const fb_counters *c, double model_bytes);

void fb_counters_close(fb_counters *c);

#endif
