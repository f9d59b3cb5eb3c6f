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
 * floor learned with --learn-noise (noise.h) - is INCONCLUSIVE:
 * shown, never failing the gate. Otherwise the pair is SAME. The test
 * alone would flag a 0.3% drift once there are 200 samples; the threshold
 * alone would flag one unlucky measurement of a noisy kernel; neither sees
 * the noise between runs, which is what a CI machine has.
 *
 * On a shared machine two more rules hold. A SLOWER or FASTER resting on a
 * run whose stats.quality is "contended" or "unstable" (core/contention.h;
 * older files lack the field: stable) is INCONCLUSIVE, with the first such
 * run's reason in the row: the machine, not the code, may have made the
 * change. And a configuration whose learned floor is above the cap
 * (FB_COMPARE_FLOOR_CAP) cannot be gated on this machine: INCONCLUSIVE
 * whatever its change, so that a floor grown under load never turns the
 * gate silently blind. compare --interleave (interleave.h) is the remedy
 * for both.
 * The method is written up in docs/plots-and-compare.md.
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "../records/reader.h"

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

/* The largest learned A/A floor a configuration is gated with (25%). The
 * floor is 1.5 x the largest A/A change, so this admits run-to-run noise
 * up to about 17%: beyond it a verdict between separate runs would rest
 * on luck for the changes a gate is for (5% to 20%), and on noise that
 * size SAME means as little as SLOWER. Such a configuration is reported
 * "cannot gate on this machine" (INCONCLUSIVE), never SAME or SLOWER. */
#define FB_COMPARE_FLOOR_CAP 0.25

typedef struct fb_compare_options {
    double threshold;  /* minimum relative change of the median, 0.05 = 5% */
    double alpha;      /* significance level of the rank test */
    int any_machine;   /* compare even when the machines differ */
    int markdown;      /* print a markdown table instead of text */
    int allow_missing; /* MISSING does not fail the gate */
    int allow_wrong;   /* WRONG does not fail the gate */
    fb_pair_by pair_by;
    FILE *junit;         /* JUnit XML goes here when not NULL */
    FILE *json;          /* the verdicts as one JSON document go here when not NULL (two-file compare) */
    double min_gbs;      /* > 0: a compared configuration whose NEW GB/s is below fails the gate (--min-gbs) */
    const json_t *noise; /* the machine's learned A/A noise per configuration key (noise.h), or NULL */
    json_t *learned;     /* when not NULL, gets key -> symmetric change of every compared pair of quiet runs
                            (--learn-noise; a pair with a contended or unstable run is left out) */
    double floor_cap;    /* learned floors above this cannot gate (FB_COMPARE_FLOOR_CAP; 0: no cap) */
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
    int throttled;   /* SLOWER and FASTER rows with a throttled run on a side (marked *) */
    int unsettled;   /* INCONCLUSIVE, not counted above: a SLOWER or FASTER resting on a contended or unstable run */
    int cannot_gate; /* INCONCLUSIVE, not counted above: the learned floor is above the cap */
    int not_learned; /* with opt->learned: pairs left out of the A/A floor (a contended or unstable run) */
    int below_floor; /* compared configurations whose NEW GB/s is under opt->min_gbs (they fail the gate) */
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

/* why cut to at most max characters (at most len - 1) at a word, with
 * "..." when it was cut. */
void fb_compare_shorten(const char *why, size_t max, char *buf, size_t len);

/* "1.234 ms", "56.7 us", "2.5 s". */
void fb_compare_format_time(double seconds, char *buf, size_t len);

/* A p-value to three decimals, "<0.001" below that. */
void fb_compare_format_p(double p, char *buf, size_t len);

/* XML text or attribute value: the special characters escaped, control
 * characters dropped (JUnit files). */
void fb_compare_xml_text(const char *s, FILE *f);

/* JUnit XML (compare, compare --interleave, the history commands): the
 * head of the testsuite `suite`, then each case, passed (outcome NULL) or
 * a "failure" or "skipped" with a type and a message. The caller closes
 * the file with "  </testsuite>\n</testsuites>\n". */
void fb_junit_begin(FILE *f, const char *suite, int tests, int failures, int skipped);
void fb_junit_write_case(FILE *f, const char *classname, const char *name, const char *outcome, const char *type,
                         const char *message);
/* A passed case with words for whoever reads it (<system-out>). */
void fb_junit_write_output(FILE *f, const char *classname, const char *name, const char *output);

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

/* The summary's first line, the same for both modes: "summary: 1 SLOWER,
 * ..., 2 INCONCLUSIVE (what INCONCLUSIVE means there), ..." (bold in
 * markdown). */
void fb_compare_print_counts(const fb_compare_summary *s, const fb_compare_options *opt, const char *inconclusive,
                             FILE *out);

/* Counts one row of verdict v in its field of s. */
void fb_compare_count(fb_compare_summary *s, fb_verdict v);

/* The gate: 1 when something is SLOWER, or WRONG / MISSING unless the
 * options allow it; else 0. */
int fb_compare_gate(const fb_compare_summary *s, const fb_compare_options *opt);

#endif
