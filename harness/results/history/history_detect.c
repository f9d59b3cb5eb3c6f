/* history_detect.c - penalised step fit and Welch's test (history_detect.h). */
#include "history_detect.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/stats.h"

fb_detect_options fb_detect_defaults(void)
{
    return (fb_detect_options){
        .alpha = 0.001, .min_change = 0.02, .penalty = FB_DETECT_PENALTY, .min_sigma = 0.002, .min_segment = 2};
}

/* Median of v[0..n), using scratch (room for n). */
static double median_of(const double *v, int n, double *scratch)
{
    memcpy(scratch, v, (size_t)n * sizeof *v);
    fb_sort_doubles(scratch, (size_t)n);
    return fb_median_sorted(scratch, (size_t)n);
}

/* ---- Student's t distribution ------------------------------------------ */

/* The continued fraction of the regularised incomplete beta function
 * (modified Lentz's method); converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double f = d;
    for (int m = 1; m <= 300; ++m) {
        for (int half = 0; half < 2; ++half) {
            double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1 + num * d;
            c = 1 + num / c;
            if (fabs(d) < tiny) d = tiny;
            if (fabs(c) < tiny) c = tiny;
            d = 1 / d;
            f *= c * d;
            if (half == 1 && fabs(c * d - 1) < 1e-14) return f;
        }
    }
    return f;
}

/* I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

static void mean_var(const double *v, int n, double *mean, double *var)
{
    double s = 0, ss = 0;
    for (int i = 0; i < n; ++i)
        s += v[i];
    *mean = s / n;
    for (int i = 0; i < n; ++i)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *var = ss / (n - 1);
}

double fb_welch_p(const double *a, int na, const double *b, int nb, double min_var)
{
    double ma, va, mb, vb;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    va = fmax(va, min_var) / na;
    vb = fmax(vb, min_var) / nb;
    double t = (mb - ma) / sqrt(va + vb);
    double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
    return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/* ---- the penalised fit --------------------------------------------------- */

/* Sum of squared residuals of y[s..t) about its mean, from prefix sums. */
static double segment_cost(const double *sum, const double *sum2, int s, int t)
{
    double n = t - s, d = sum[t] - sum[s];
    return (sum2[t] - sum2[s]) - d * d / n;
}

/* The robust noise scale of y (see the header). */
static double noise_sigma(const double *y, int n, double min_sigma, double *scratch)
{
    if (n < 3) return min_sigma;
    for (int i = 0; i + 1 < n; ++i)
        scratch[i] = fabs(y[i + 1] - y[i]);
    double mad = median_of(scratch, n - 1, scratch + n);
    return fmax(1.4826 * mad / sqrt(2.0), min_sigma);
}

typedef struct fit_work {
    double *sum, *sum2, *best; /* prefix sums; best[t]: the least cost of y[0..t) */
    int *last;                 /* last[t]: where the last segment of that fit starts */
    int *cand, ncand;          /* PELT's candidate starts */
} fit_work;

/* best[t] over the candidate starts s (t - s >= m); the candidates that
 * can never start the last segment of a later optimum are pruned. */
static void fit_step(fit_work *w, int t, double beta)
{
    double lowest = DBL_MAX;
    int arg = -1, kept = 0;
    for (int i = 0; i < w->ncand; ++i) {
        int s = w->cand[i];
        double c = w->best[s] + segment_cost(w->sum, w->sum2, s, t) + beta;
        if (c < lowest) lowest = c, arg = s;
    }
    w->best[t] = arg < 0 ? DBL_MAX : lowest;
    w->last[t] = arg;
    for (int i = 0; i < w->ncand; ++i) {
        int s = w->cand[i];
        if (w->best[s] + segment_cost(w->sum, w->sum2, s, t) <= w->best[t]) w->cand[kept++] = s;
    }
    w->ncand = kept;
}

/* The optimal step positions of y into bounds (0, steps..., n); returns
 * how many bounds. */
static int penalised_fit(const double *y, int n, int m, double beta, fit_work *w, int *bounds)
{
    int nb = 0, t;
    w->sum[0] = w->sum2[0] = 0;
    for (int i = 0; i < n; ++i) {
        w->sum[i + 1] = w->sum[i] + y[i];
        w->sum2[i + 1] = w->sum2[i] + y[i] * y[i];
    }
    w->best[0] = -beta;
    for (t = 1; t <= n; ++t)
        w->best[t] = DBL_MAX;
    w->ncand = 0;
    for (t = m; t <= n; ++t) {
        if (w->best[t - m] < DBL_MAX) w->cand[w->ncand++] = t - m; /* starts are ends of feasible fits */
        fit_step(w, t, beta);
    }
    for (t = n; t > 0; t = w->last[t])
        bounds[nb++] = t;
    bounds[nb++] = 0;
    for (int i = 0; i < nb / 2; ++i) { /* backtracked from the end: reverse */
        int x = bounds[i];
        bounds[i] = bounds[nb - 1 - i];
        bounds[nb - 1 - i] = x;
    }
    return nb;
}

/* ---- confirming each step ------------------------------------------------ */

/* The step at bounds[j] between its neighbouring segments. */
static fb_change_point judge_step(const double *y, const int *bounds, int j, double min_var, double *scratch)
{
    int a = bounds[j - 1], s = bounds[j], b = bounds[j + 1];
    fb_change_point c = {.at = s};
    double before = median_of(y + a, s - a, scratch), after = median_of(y + s, b - s, scratch);
    c.before = exp(before);
    c.after = exp(after);
    c.change = c.after / c.before - 1;
    c.p = fb_welch_p(y + a, s - a, y + s, b - s, min_var);
    return c;
}

/* The inner bound that fails worst (too small first, then the largest p),
 * or 0 when every step holds. */
static int weakest_step(const double *y, const int *bounds, int nb, const fb_detect_options *opt, double min_var,
                        double *scratch)
{
    int worst = 0;
    double worst_score = 0;
    for (int j = 1; j + 1 < nb; ++j) {
        fb_change_point c = judge_step(y, bounds, j, min_var, scratch);
        double score = fabs(c.change) < opt->min_change ? 2 : c.p > opt->alpha ? 1 + c.p : 0;
        if (score > worst_score) worst_score = score, worst = j;
    }
    return worst;
}

fb_status fb_detect_steps(const double *values, int n, const fb_detect_options *opt, fb_change_point *out, int *nout)
{
    fb_status status = FB_OK;
    fit_work w = {0};
    double *y = NULL, *scratch = NULL;
    int *bounds = NULL, nb, m = opt->min_segment < 2 ? 2 : opt->min_segment;
    *nout = 0;
    if (n < 2 * m) return FB_OK;
    FB_ALLOC(y, n, "a series");
    FB_ALLOC(scratch, 2 * n, "a series");
    FB_ALLOC(bounds, n + 2, "a series");
    FB_ALLOC(w.sum, n + 1, "a series");
    FB_ALLOC(w.sum2, n + 1, "a series");
    FB_ALLOC(w.best, n + 1, "a series");
    FB_ALLOC(w.last, n + 1, "a series");
    FB_ALLOC(w.cand, n + 1, "a series");
    for (int i = 0; i < n; ++i) {
        if (!(values[i] > 0) || !isfinite(values[i]))
            FB_FAIL(FB_ERR_INPUT, "change points: value %d of the series (%g) is not a positive time", i, values[i]);
        y[i] = log(values[i]);
    }
    double sigma = noise_sigma(y, n, opt->min_sigma, scratch);
    nb = penalised_fit(y, n, m, opt->penalty * sigma * sigma * log((double)n), &w, bounds);
    /* a segment's own variance is no less than the series' noise: two
     * runs that happen to agree are not a tight level */
    for (int j; (j = weakest_step(y, bounds, nb, opt, sigma * sigma, scratch)) != 0; --nb)
        memmove(bounds + j, bounds + j + 1, (size_t)(nb - j - 1) * sizeof *bounds);
    for (int j = 1; j + 1 < nb; ++j)
        out[(*nout)++] = judge_step(y, bounds, j, sigma * sigma, scratch);
fail:
    free(y);
    free(scratch);
    free(bounds);
    free(w.sum);
    free(w.sum2);
    free(w.best);
    free(w.last);
    free(w.cand);
    return status;
}
