/* compare.h - regression verdicts between two results files.
 *
 * Records are paired on what was measured (the configuration key of
 * reader.h without suite and case). A pair is SLOWER
 * (FASTER) only when both hold:
 *   - the two sample sets differ by a two-sided Mann-Whitney U test at
 *     level alpha (default 0.01): exact distribution for small samples
 *     without ties, else the normal approximation with tie and continuity
 *     corrections;
 *   - the median time moved by at least the threshold (default 5%).
 * A change that passes both but stays inside the noise - the spread
 * between repeated runs when a file holds several runs of the
 * configuration (their samples are pooled), or the machine's A/A noise
 * floor learned with --learn-noise (tune/noise.h) - is INCONCLUSIVE:
 * shown, never failing the gate. Otherwise the pair is SAME. The test
 * alone would flag a 0.3% drift once there are 200 samples; the threshold
 * alone would flag one unlucky measurement of a noisy kernel; neither sees
 * the noise between runs, which is what a CI machine has.
 * The method is written up in docs/plots-and-compare.md.
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "reader.h"

/* SAME/FASTER/SLOWER judge a compared pair; INCONCLUSIVE: a significant
 * change no larger than the noise between runs. WRONG: NEW's result failed its
 * check. MISSING: BASE measured it, NEW has no usable record of it.
 * FAILED: BASE has no usable record, so there is nothing to hold NEW to.
 * NEW_ONLY: a configuration BASE lacks (informational). */
typedef enum fb_verdict {
    FB_SAME,
    FB_FASTER,
    FB_SLOWER,
    FB_INCONCLUSIVE,
    FB_WRONG,
    FB_MISSING,
    FB_FAILED,
    FB_NEW_ONLY
} fb_verdict;

/* What pairs a BASE record with a NEW one. */
typedef enum fb_pair_by {
    FB_PAIR_CONFIG, /* what was measured: benchmark, kernel, device, precision, params, problem, cold */
    FB_PAIR_KERNEL  /* the same, but parameters may differ when each side has one setting */
} fb_pair_by;

typedef struct fb_compare_options {
    double threshold;  /* minimum relative change of the median, 0.05 = 5% */
    double alpha;      /* significance level of the rank test */
    int any_machine;   /* compare even when the machines differ */
    int markdown;      /* print a markdown table instead of text */
    int allow_missing; /* MISSING does not fail the gate */
    int allow_wrong;   /* WRONG does not fail the gate */
    fb_pair_by pair_by;
    FILE *junit;         /* JUnit XML goes here when not NULL */
    const json_t *noise; /* the machine's learned A/A noise per configuration key (tune/noise.h), or NULL */
    json_t *learned;     /* when not NULL, gets key -> symmetric change of every compared pair (--learn-noise) */
} fb_compare_options;

typedef struct fb_sample_test {
    double u;  /* Mann-Whitney U of the base sample */
    double p;  /* two-sided p-value */
    int exact; /* 1: exact distribution, 0: normal approximation */
} fb_sample_test;

typedef struct fb_comparison {
    double base_median, new_median;
    double change; /* new_median / base_median - 1 (positive: slower) */
    double noise;  /* what the change had to exceed: between-run spread or the learned A/A floor */
    int learned;   /* A/A comparisons behind the learned floor (0: none was used) */
    fb_sample_test test;
    fb_verdict verdict;
} fb_comparison;

typedef struct fb_compare_summary {
    int same, faster, slower;
    int inconclusive; /* significant, but inside the noise: not failing */
    int wrong;        /* NEW's record failed its correctness check */
    int missing;      /* BASE measured it, NEW has no usable record */
    int failed;       /* BASE has no usable record: not compared */
    int only_new;
    int throttled; /* SLOWER and FASTER rows with a throttled run on a side (marked *) */
} fb_compare_summary;

fb_compare_options fb_compare_defaults(void);

/* Two-sided Mann-Whitney U test of a against b (na, nb >= 1). */
fb_sample_test fb_mann_whitney(const double *a, int na, const double *b, int nb);

/* The verdict on two sets of sample times (seconds). `noise` is the
 * relative between-run spread (fb_run_spread; 0 for single runs) or a
 * learned floor: a significant change no larger than it is INCONCLUSIVE. */
fb_comparison fb_compare_samples(const double *base, int nbase, const double *next, int nnext, double noise,
                                 const fb_compare_options *opt);

/* max / min - 1 of the medians of repeated runs (0 for fewer than two). */
double fb_run_spread(const double *medians, int n);

/* The size of a change, the same either way: max(r, 1/r) - 1 for
 * r = 1 + change (+25% and -20% are both 0.25). */
double fb_change_size(double change);

const char *fb_verdict_name(fb_verdict v);

/* Checks that both files come from the same machine (CPU model, and the
 * devices of the paired records): FB_ERR_INPUT naming the difference, or
 * FB_OK. Differences that do not make a comparison meaningless (host name,
 * thread count, compiler, revision) are printed to `notes` instead. */
fb_status fb_compare_machines(const fb_results_set *base, const fb_results_set *next, FILE *notes);

/* Pairs every configuration (pooling the runs of it in each file) on what
 * was measured, not on which suite or case asked for it; prints the table
 * (text or markdown) to out, the JUnit XML to opt->junit, and fills
 * summary. FB_ERR_INPUT when no configuration is in both files. */
fb_status fb_compare_sets(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt,
                          FILE *out, fb_compare_summary *summary);

/* The gate: 1 when something is SLOWER, or WRONG / MISSING unless the
 * options allow it; else 0. */
int fb_compare_gate(const fb_compare_summary *s, const fb_compare_options *opt);

#endif
