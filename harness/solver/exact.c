/* exact.c - the Ethier-Steinman exact Navier-Stokes solution (formulas and
 * citation in exact.h).
 *
 * The three velocity components are one function f(X, Y, Z) with its
 * arguments permuted cyclically: u = f(x, y, z), v = f(y, z, x),
 * w = f(z, x, y). Writing f once keeps the three components (and their
 * gradients) from drifting apart through a typo. */
#include "solver/exact.h"

#include <math.h>
#include <stddef.h>

fb_ethier_steinman fb_ethier_steinman_standard(double nu)
{
    fb_ethier_steinman es = {M_PI / 4.0, M_PI / 2.0, nu};
    return es;
}

/* f = -a [e^{aX} sin(aY + dZ) + e^{aZ} cos(aX + dY)] (without the decay)
 * and, if df is not NULL, its partial derivatives along X, Y, Z. */
static double f_component(double a, double d, double X, double Y, double Z, double df[3])
{
    double eX = exp(a * X), eZ = exp(a * Z);
    double s1 = sin(a * Y + d * Z), c1 = cos(a * Y + d * Z);
    double s2 = sin(a * X + d * Y), c2 = cos(a * X + d * Y);
    if (df) {
        df[0] = -a * (a * eX * s1 - a * eZ * s2);
        df[1] = -a * (a * eX * c1 - d * eZ * s2);
        df[2] = -a * (d * eX * c1 + a * eZ * c2);
    }
    return -a * (eX * s1 + eZ * c2);
}

void fb_ethier_steinman_eval(const fb_ethier_steinman *es, const double x[3], double t, double u[3], double *p)
{
    const double a = es->a, d = es->d, decay = exp(-es->nu * d * d * t);
    if (u)
        for (int i = 0; i < 3; ++i)
            u[i] = decay * f_component(a, d, x[i], x[(i + 1) % 3], x[(i + 2) % 3], NULL);
    if (p) {
        const double X = x[0], Y = x[1], Z = x[2];
        double s = exp(2 * a * X) + exp(2 * a * Y) + exp(2 * a * Z) +
                   2 * sin(a * X + d * Y) * cos(a * Z + d * X) * exp(a * (Y + Z)) +
                   2 * sin(a * Y + d * Z) * cos(a * X + d * Y) * exp(a * (Z + X)) +
                   2 * sin(a * Z + d * X) * cos(a * Y + d * Z) * exp(a * (X + Y));
        *p = -0.5 * a * a * s * decay * decay;
    }
}

void fb_ethier_steinman_grad(const fb_ethier_steinman *es, const double x[3], double t, double g[9])
{
    const double a = es->a, d = es->d, decay = exp(-es->nu * d * d * t);
    for (int i = 0; i < 3; ++i) {
        /* component i is f(x_i, x_{i+1}, x_{i+2}): its derivative along
         * x_{i+k} is f's k-th partial */
        double df[3];
        f_component(a, d, x[i], x[(i + 1) % 3], x[(i + 2) % 3], df);
        for (int k = 0; k < 3; ++k)
            g[3 * i + (i + k) % 3] = decay * df[k];
    }
}
