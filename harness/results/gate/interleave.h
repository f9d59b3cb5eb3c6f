/* interleave.h - the verdict of `compare --interleave`: two builds run
 * alternately, round after round, on the same machine.
 *
 * Between separate runs a shared machine's load changes, and no test on
 * one run's samples can tell that from the code (compare.h). Interleaved,
 * round r runs BASE then NEW (odd r) or NEW then BASE (even r), so both
 * sides of a round meet nearly the same load and an order effect (a warm
 * cache, a clock that ramps) falls on each side in turn. Each round gives
 * one number per configuration, the ratio of its medians
 *
 *     ratio_r = median(NEW's samples in round r) / median(BASE's in round r)
 *
 * and the verdict is taken over the ratios, the rounds being the unit of
 * replication:
 *   - SLOWER when the median ratio exceeds 1 + threshold AND a one-sided
 *     sign test over the rounds agrees: with k of n rounds above 1 (rounds
 *     with a ratio of exactly 1 count for neither side), p = P(X >= k) for
 *     X ~ Binomial(n, 1/2), and p <= alpha (default 0.05). With 5 rounds
 *     that takes all 5 (p = 1/32); one wild round among 8 still passes
 *     (7 of 8: p = 9/256). (Counting only rounds beyond the threshold was
 *     tried: beside a busy process a 1.5x kernel on PoCL, whose rounds
 *     ranged -20%..+221%, was then found in 15 of 20 comparisons; the
 *     suite's false-discovery control below is what keeps A/A quiet);
 *   - FASTER symmetrically (the median ratio below 1 / (1 + threshold),
 *     the rounds below 1 counted);
 *   - SAME when the median ratio is within the threshold either way;
 *   - INCONCLUSIVE otherwise: a change beyond the threshold that the
 *     rounds do not agree on.
 * Over a suite, the SLOWER and FASTER verdicts then pass a false-discovery
 * control (Benjamini-Hochberg at alpha over the configurations judged):
 * with 41 configurations, chance alone gives a p of 0.035 somewhere. A
 * slowdown of many configurations keeps them all; one configuration among
 * 41 needs p <= alpha / 41 (10 rounds, all agreeing, at 0.05).
 * Fewer than fb_interleave_min_rounds(alpha) rounds (5 at 0.05) can never
 * reach alpha: such a run gives SAME or INCONCLUSIVE only.
 * Contention does not block this verdict (both sides of a round share the
 * load; that is the point), nor change the exit status, but a verdict on
 * contended rounds holds for that load only: the rows say in how many
 * rounds a run of the configuration was contended, and such a verdict
 * says "FASTER under load: 8 of 8 rounds contended" (a 2-thread build
 * FASTER than a 1-thread one beside a busy process was SLOWER +100% on
 * the quiet machine). The settings the two sides' records differ in
 * (OpenMP threads, wait policy, binding, places, OMP_* / GOMP_* / POCL_*
 * variables) are named before the table: such a verdict is about them.
 */
#ifndef FB_INTERLEAVE_H
#define FB_INTERLEAVE_H

#include <stdio.h>

#include "compare.h"

#define FB_INTERLEAVE_ALPHA 0.05 /* the sign test's default level */

/* The verdict on one configuration's per-round ratios. */
typedef struct fb_ratio_verdict {
    fb_verdict verdict; /* SAME, FASTER, SLOWER or INCONCLUSIVE */
    int n;              /* rounds with a ratio */
    int above, below;   /* ratios > 1 and < 1 */
    double median;      /* the median ratio */
    double lo, hi;      /* the smallest and largest ratio */
    double p;           /* one-sided sign-test p in the direction of the median (1 when it is 1) */
} fb_ratio_verdict;

/* P(X >= k) for X ~ Binomial(n, 1/2): the one-sided sign test. */
double fb_sign_test_p(int k, int n);

/* The fewest rounds in which all agreeing reaches p <= alpha. */
int fb_interleave_min_rounds(double alpha);

/* The rule above; threshold is the relative change (0.05 = 5%). */
fb_ratio_verdict fb_interleave_judge(const double *ratios, int n, double threshold, double alpha);

/* Pairs every configuration (compare's key) of the rounds' results files,
 * base[r] and next[r] for r < rounds, judges it (opt: threshold, alpha as
 * the sign test's level, markdown, allow_missing, allow_wrong, junit),
 * prints the settings the sides differ in and the table to out, the
 * JUnit XML to opt->junit (the settings as the suite's properties; a
 * passed case under load with its words in <system-out>), and fills the
 * summary (its unsettled field: configurations judged under load).
 * WRONG: a NEW record of it failed its check in some round; MISSING: BASE
 * measured it and NEW has no usable record in any round; FAILED: BASE has
 * none. FB_ERR_INPUT when no configuration is in both. */
fb_status fb_interleave_sets(fb_results_set *const *base, fb_results_set *const *next, int rounds,
                             const fb_compare_options *opt, FILE *out, fb_compare_summary *summary);

#endif
