/* stats.c - median, mean, stddev and the median's confidence spread. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void fb_sort_doubles(double *v, size_t n) { qsort(v, n, sizeof *v, cmp_double); }

double fb_median_sorted(const double *s, size_t n) { return (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]); }

/* Half-width of the order-statistic 95% CI of the median, relative to it. */
static double median_spread_of_sorted(const double *s, size_t n, double median)
{
    if (n < 2 || median <= 0) return 1.0;
    double half = 0.98 * sqrt((double)n); /* 1.96 * sqrt(n) / 2 */
    double lo = floor((double)n / 2.0 - half);
    double hi = ceil((double)n / 2.0 + half);
    size_t j = lo < 0 ? 0 : (size_t)lo;
    size_t k = hi > (double)(n - 1) ? n - 1 : (size_t)hi;
    return (s[k] - s[j]) / (2.0 * median);
}

int fb_stats_compute(const double *samples, size_t n, fb_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return -1;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, samples, n * sizeof *sorted);
    fb_sort_doubles(sorted, n);

    double sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += sorted[i];
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; ++i)
        ss += (sorted[i] - mean) * (sorted[i] - mean);

    out->n = n;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->median = fb_median_sorted(sorted, n);
    out->median_spread = median_spread_of_sorted(sorted, n, out->median);
    free(sorted);
    return 0;
}

double fb_median(const double *values, size_t n)
{
    fb_stats s;
    if (n == 0 || fb_stats_compute(values, n, &s) != 0) return 0.0;
    return s.median;
}
