/* gp.c - see gp.h. */
#include "gp.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The hyperparameter grid. Lengths are in encoded units (an axis spans 1):
 * from a neighbour's reach to smoother than the whole axis. The noise is a
 * share of the signal variance: repeated timings of one point differ by a
 * few percent, a log cost's variance over a space is about 0.1-1. */
static const double lengths[] = {0.15, 0.25, 0.4, 0.6, 1.0, 1.6};
static const double noises[] = {1e-4, 1e-2, 5e-2};

static double matern52(const fb_gp *gp, const double *a, const double *b, double length)
{
    double r2 = 0;
    for (int j = 0; j < gp->d; ++j) {
        const double diff = gp->categorical[j] ? (a[j] != b[j]) : a[j] - b[j];
        r2 += diff * diff;
    }
    const double r = sqrt(r2) / length, s5 = sqrt(5.0) * r;
    return gp->signal * (1 + s5 + 5.0 * r * r / 3.0) * exp(-s5);
}

/* The Cholesky factor of K + noise I for one grid point into gp->chol and
 * alpha for the residuals r; the log marginal likelihood, or -INFINITY
 * when the matrix is not positive definite. */
static double factor(fb_gp *gp, const double *r, double length, double noise)
{
    const int n = gp->n;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k <= i; ++k) {
            double v = matern52(gp, gp->x + (size_t)i * gp->d, gp->x + (size_t)k * gp->d, length);
            gp->chol[(size_t)i * n + k] = v + (i == k ? noise * gp->signal : 0.0);
            if (k < i) gp->chol[(size_t)k * n + i] = 0.0;
        }
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, gp->chol, n) != 0) return -INFINITY;
    memcpy(gp->alpha, r, (size_t)n * sizeof *r);
    if (LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', n, 1, gp->chol, n, gp->alpha, 1) != 0) return -INFINITY;
    double fit = 0, logdet = 0;
    for (int i = 0; i < n; ++i) {
        fit += r[i] * gp->alpha[i];
        logdet += log(gp->chol[(size_t)i * n + i]);
    }
    return -0.5 * fit - logdet - 0.5 * n * log(2 * M_PI);
}

static double residual_variance(const double *r, int n)
{
    double mean = 0, var = 0;
    for (int i = 0; i < n; ++i)
        mean += r[i] / n;
    for (int i = 0; i < n; ++i)
        var += (r[i] - mean) * (r[i] - mean) / n;
    return var > 1e-4 ? var : 1e-4; /* one point, or a flat start: a scale to learn from */
}

static fb_status allocate(fb_gp *gp, int n, int d)
{
    fb_status status = FB_OK;
    FB_ALLOC(gp->x, (size_t)n * d + 1, "the Gaussian process's points");
    FB_ALLOC(gp->chol, (size_t)n * n, "the Gaussian process's covariance");
    FB_ALLOC(gp->alpha, n, "the Gaussian process's weights");
    FB_ALLOC(gp->scratch, 2 * (size_t)n, "the Gaussian process's prediction");
fail:
    return status;
}

/* The grid point with the highest marginal likelihood, factored last. */
static fb_status choose(fb_gp *gp, const double *r)
{
    fb_status status = FB_OK;
    double best = -INFINITY;
    int bl = -1, bn = -1;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; ++l)
        for (size_t k = 0; k < sizeof noises / sizeof *noises; ++k) {
            const double ll = factor(gp, r, lengths[l], noises[k]);
            if (ll > best) best = ll, bl = (int)l, bn = (int)k;
        }
    if (bl < 0) FB_FAIL(FB_ERR_CHECK, "Gaussian process: no length scale gives a positive-definite covariance");
    gp->length = lengths[bl], gp->noise = noises[bn];
    factor(gp, r, gp->length, gp->noise);
fail:
    return status;
}

fb_status fb_gp_fit(fb_gp *gp, const double *x, const double *y, const double *m, int n, int d, const int *categorical)
{
    fb_status status = FB_OK;
    double *r = NULL;
    memset(gp, 0, sizeof *gp);
    if (n < 1 || d < 0 || d > FB_GP_MAX_DIMS) FB_FAIL(FB_ERR_USAGE, "Gaussian process: %d points of %d axes", n, d);
    gp->n = n, gp->d = d;
    for (int j = 0; categorical && j < d; ++j)
        gp->categorical[j] = categorical[j];
    FB_CHECK(allocate(gp, n, d));
    memcpy(gp->x, x, (size_t)n * d * sizeof *x);
    FB_ALLOC(r, n, "the Gaussian process's residuals");
    for (int i = 0; i < n; ++i)
        r[i] = y[i] - m[i];
    gp->signal = residual_variance(r, n);
    FB_CHECK(choose(gp, r));
fail:
    free(r);
    if (status != FB_OK) fb_gp_free(gp);
    return status;
}

void fb_gp_predict(const fb_gp *gp, const double *x, double m, double *mean, double *var)
{
    const int n = gp->n;
    double *k = gp->scratch, *v = gp->scratch + n;
    double mu = m;
    for (int i = 0; i < n; ++i) {
        k[i] = matern52(gp, x, gp->x + (size_t)i * gp->d, gp->length);
        mu += k[i] * gp->alpha[i];
    }
    memcpy(v, k, (size_t)n * sizeof *v);
    double s = gp->signal;
    if (LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'L', 'N', 'N', n, 1, gp->chol, n, v, 1) == 0)
        for (int i = 0; i < n; ++i)
            s -= v[i] * v[i];
    *mean = mu;
    *var = s > 0 ? s : 0;
}

double fb_gp_expected_improvement(double mean, double var, double best, double xi)
{
    const double sd = sqrt(var), gain = best - xi - mean;
    if (!(sd > 1e-12)) return gain > 0 ? gain : 0;
    const double z = gain / sd;
    const double pdf = exp(-0.5 * z * z) / sqrt(2 * M_PI), cdf = 0.5 * erfc(-z / sqrt(2.0));
    return gain * cdf + sd * pdf;
}

void fb_gp_free(fb_gp *gp)
{
    free(gp->x);
    free(gp->chol);
    free(gp->alpha);
    free(gp->scratch);
    memset(gp, 0, sizeof *gp);
}
