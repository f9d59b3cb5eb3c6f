/* confirm.h - tuning ships only what reproduces. A search ranks points by
 * one measurement each, in one process: its best is partly the point that
 * drew the luckiest sample (Kernel Tuner's users see another best on every
 * run; here `tune ... --strategy random --evals 8` stored a csr-vector
 * point at 0.033 ms, "1.86x faster than csr-scalar", that ran 0.045-0.066
 * ms in three later runs against the default's 0.059-0.063). So before
 * anything is stored, the search's best, its runner-ups and the kernel's
 * default are measured again in fresh processes, interleaved (round r
 * runs every candidate once, the order rotated each round, so a machine
 * that drifts moves every candidate alike), and each candidate's
 * per-process medians decide:
 *   - the winner is the candidate of the smallest median of its
 *     per-process medians;
 *   - it is stored only when it beats the default by FB_CONFIRM_MIN_GAIN
 *     or more at p < FB_CONFIRM_ALPHA (a two-sided Mann-Whitney U test of
 *     the per-process medians; 5 rounds: complete separation gives p =
 *     0.008, one overlap 0.016);
 *   - otherwise "no significant winner: default kept", and the default is
 *     stored as the answer, so --tuned does not search again.
 * The entry keeps every candidate's medians, the gain and p against the
 * default and against the runner-up (tune export carries them). */
#ifndef FB_TUNE_CONFIRM_H
#define FB_TUNE_CONFIRM_H

#include <stdio.h>

#include <jansson.h>

#include "bench/family.h"
#include "search.h"

#define FB_CONFIRM_MAX_CANDIDATES 4 /* the best, two runner-ups, the default */
#define FB_CONFIRM_ROUNDS 5
#define FB_CONFIRM_MAX_ROUNDS 20
#define FB_CONFIRM_MIN_GAIN 0.03
#define FB_CONFIRM_ALPHA 0.05

typedef struct fb_confirm_candidate {
    fb_param_point point;
    const char *role; /* "search's best", "runner-up", "default" (or "default, the search's best") */
    double medians[FB_CONFIRM_MAX_ROUNDS];
    int n;                       /* processes that measured it */
    char failure[300];           /* why a process could not, when one could not */
    json_t *record;              /* its first process's record */
    double center;               /* the median of its per-process medians (INFINITY: it failed) */
    double expect_lo, expect_hi; /* where a new process's median falls 99 times in 100 (NAN: unknown) */
} fb_confirm_candidate;

typedef struct fb_confirm_outcome {
    fb_confirm_candidate c[FB_CONFIRM_MAX_CANDIDATES];
    int n, rounds;
    int winner, runner_up, def; /* candidate indices, -1 for none */
    double gain_vs_default, p_vs_default, gain_vs_runner_up, p_vs_runner_up;
    int significant; /* the winner beats the default (or the default cannot run) */
} fb_confirm_outcome;

/* Measures one point in a fresh process: *median its samples' median (or
 * INFINITY, with why in failure), *record its record (NULL when none). */
typedef fb_status (*fb_confirm_measure_fn)(void *ctx, const fb_param_point *p, double *median, json_t **record,
                                           char *failure, size_t len);

/* The candidates of a search: its best, up to two more of its points with
 * finite costs (fastest first, distinct), and the default (def). */
void fb_confirm_candidates(const fb_search_result *s, const fb_param_point *def, fb_confirm_outcome *o);

/* rounds rounds of every candidate, then the decision (above). A line per
 * process on progress (NULL: quiet). */
fb_status fb_confirm_run(fb_confirm_outcome *o, int rounds, const fb_family_kernel *k, fb_confirm_measure_fn measure,
                         void *ctx, FILE *progress);

/* The point to store: the winner when significant, else the default. */
const fb_confirm_candidate *fb_confirm_chosen(const fb_confirm_outcome *o);

/* The entry's "confidence": {"rounds", "verdict", "candidates": [{"role",
 * "params", "medians_s", "median_s"}], "gain_vs_default", "p_vs_default",
 * "gain_vs_runner_up", "p_vs_runner_up", "min_gain", "alpha"}. */
json_t *fb_confirm_json(const fb_confirm_outcome *o, const fb_family_kernel *k);

/* One line: "WG_SIZE=64 VECTOR_SIZE=8 1.12x faster than the default (p
 * 0.008 over 5 processes each)" or "no significant winner: default kept
 * (...)". */
void fb_confirm_verdict(const fb_confirm_outcome *o, const fb_family_kernel *k, char *buf, size_t len);

void fb_confirm_free(fb_confirm_outcome *o);

#endif
