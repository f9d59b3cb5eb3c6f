/* history_detect.h - change points in a configuration's history: the
 * commits where its time stepped up or down and stayed there.
 *
 * The method is a penalised step fit (as airspeed velocity's step
 * detection is), confirmed by a test:
 *   1. y = log(time) per commit (a step of +10% is the same size at any
 *      speed); the noise scale sigma is the median absolute difference of
 *      successive values times 1.4826 / sqrt 2 (robust to the steps
 *      themselves and to single outliers), at least min_sigma;
 *   2. the piecewise-constant fit minimising the squared residuals plus
 *      penalty x sigma^2 x ln(n) per step (optimal partitioning, Jackson
 *      et al. 2005, with the PELT pruning of Killick, Fearnhead and Eckley
 *      2012: exact, about linear in n), segments at least min_segment
 *      commits long;
 *   3. each step is then tested: Welch's t-test of the two segments it
 *      separates, two-sided, each segment's variance at least sigma^2 (two
 *      runs that happen to agree are no tight level); a step with p > alpha or a change of the
 *      segments' medians below min_change is removed (the least
 *      significant first) and its neighbours retested.
 * docs/plots-and-compare.md ("CI history") gives the reasoning and the
 * measured detection rates.
 */
#ifndef FB_HISTORY_DETECT_H
#define FB_HISTORY_DETECT_H

#include "../../core/status.h"

typedef struct fb_detect_options {
    double alpha;      /* a step's significance level (Welch's t-test); default 0.001 */
    double min_change; /* smallest change of the segments' medians reported; default 0.02 (2%) */
    double penalty;    /* per step, in units of sigma^2 ln(n); default FB_DETECT_PENALTY */
    double min_sigma;  /* the noise scale's floor (relative); default 0.002 */
    int min_segment;   /* commits a segment has at least; default 2 (one wild run is no step) */
} fb_detect_options;

#define FB_DETECT_PENALTY 3.0

typedef struct fb_change_point {
    int at;               /* index of the first value after the step */
    double before, after; /* medians of the two segments (the input's unit) */
    double change;        /* after / before - 1: positive is slower (times) */
    double p;             /* two-sided Welch t-test p of the two segments */
} fb_change_point;

fb_detect_options fb_detect_defaults(void);

/* The change points of values[0..n) (positive times; no NAN), in order,
 * into out (room for n / min_segment); their count into *nout.
 * FB_ERR_INPUT for a value that is not positive, FB_ERR_NOMEM. */
fb_status fb_detect_steps(const double *values, int n, const fb_detect_options *opt, fb_change_point *out, int *nout);

/* Two-sided p of Welch's t-test between a[0..na) and b[0..nb) (na, nb >=
 * 2), each variance at least min_var. */
double fb_welch_p(const double *a, int na, const double *b, int nb, double min_var);

#endif
