/* gp.h - a Gaussian-process surrogate of a cost over a discrete parameter
 * space, for the Bayesian-optimisation strategy (search.h, "bayes").
 *
 * Points are encoded per axis in [0, 1] (the value's index over the axis's
 * last index: for power-of-two axes, declared ascending, that is log2
 * spacing). An ordered axis adds ((a - b) / l)^2 to the squared distance;
 * a categorical one (a layout, an array order: its values are names, not
 * amounts) adds (1 / l)^2 when the two differ. The kernel is Matern 5/2
 * on that distance:
 *
 *   k(r) = s2 (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)
 *
 * The observations are log costs minus a prior mean given per point (a
 * constant, or a learned prior's prediction); s2 is their variance, and the
 * length scale l and the noise are the pair of a fixed grid with the
 * highest marginal likelihood, so a fit is deterministic. The linear
 * algebra is LAPACK's (LAPACKE: dpotrf, dpotrs, dtrtrs). */
#ifndef FB_TUNE_GP_H
#define FB_TUNE_GP_H

#include "../core/status.h"

#define FB_GP_MAX_DIMS 16

typedef struct fb_gp {
    int n, d;
    int categorical[FB_GP_MAX_DIMS]; /* 1: an axis of names, compared equal or not */
    double *x;                       /* n x d encoded points */
    double *chol;                    /* n x n lower Cholesky factor of K + noise I, row-major */
    double *alpha;                   /* (K + noise I)^-1 (y - mean) */
    double length, signal, noise;    /* the chosen hyperparameters */
    double *scratch;                 /* n: a prediction's k and v */
} fb_gp;

/* Fits the process to n >= 1 points x (n x d, encoded) with values y and
 * prior means m (each n). categorical: d flags, or NULL for none.
 * FB_ERR_NOMEM; FB_ERR_CHECK when no grid point gives a positive-definite
 * matrix (duplicate points with no noise cannot, as the noise is > 0). */
fb_status fb_gp_fit(fb_gp *gp, const double *x, const double *y, const double *m, int n, int d, const int *categorical);

/* The posterior at encoded point x with prior mean m: *mean and *var (>= 0). */
void fb_gp_predict(const fb_gp *gp, const double *x, double m, double *mean, double *var);

/* Expected improvement below best (minimisation) of a normal (mean, var),
 * with an exploration margin xi: E[max(best - xi - f, 0)]. */
double fb_gp_expected_improvement(double mean, double var, double best, double xi);

void fb_gp_free(fb_gp *gp);

#endif
