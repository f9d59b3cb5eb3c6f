/* stats.h - summary statistics of timing samples.
 *
 * The stopping rule of the measurement core uses the relative width of a
 * distribution-free 95% confidence interval of the median (order statistics:
 * ranks n/2 -+ 0.98 sqrt(n)), halved and divided by the median. It needs no
 * normality assumption, which timing samples (long right tails) violate.
 */
#ifndef FB_STATS_H
#define FB_STATS_H

#include <stddef.h>

typedef struct fb_stats {
    size_t n;
    double median, min, max, mean, stddev; /* stddev: sample (n-1) */
    double median_spread;                  /* CI half-width / median; 1 if n < 2 */
} fb_stats;

/* Computes the summary of n samples (n >= 1). Does not modify samples. */
int fb_stats_compute(const double *samples, size_t n, fb_stats *out);

/* Median of n values (sorts a copy). Returns 0 for n == 0. */
double fb_median(const double *values, size_t n);

/* Sorts v[0..n) ascending. */
void fb_sort_doubles(double *v, size_t n);

/* Median of the sorted values s[0..n), n >= 1. */
double fb_median_sorted(const double *s, size_t n);

#endif
