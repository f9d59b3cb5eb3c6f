/* test_exact.c - the Ethier-Steinman exact solution (solver/exact.h) solves
 * the equations it claims to: at random points of the paper's cube
 * [-1, 1]^3 and random times, for several viscosities, central finite
 * differences of fb_ethier_steinman_eval give div u = 0 and
 * du/dt + (u.grad)u + grad p - nu lap u = 0 to the accuracy the step allows,
 * the analytic gradient matches the differenced one, and the velocity decays
 * as exp(-nu d^2 t). The residual with a wrong viscosity must be far above
 * the tolerance, so the check can fail.
 *
 * Tolerances come from the step: a central first difference errs by
 * h^2/6 |f'''| plus rounding eps |f| / h, a central second difference by
 * h^2/12 |f''''| plus 4 eps |f| / h^2. Every derivative of the solution
 * multiplies its size by at most K = 2(|a| + |d|) (each sin/cos/exp factor
 * brings a or d), and on the cube |u_i| <= 2|a| e^{|a|}, |p| <= 9 a^2/2 e^{2|a|}. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>

#include "solver/exact.h"

#define NPOINTS 200
static const double H = 1e-4; /* near eps^(1/4): balances truncation and rounding of the second difference */

/* xorshift64: deterministic points, independent of the C library's rand */
static double uniform(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static double err_d1(double K, double M) { return H * H / 6.0 * K * K * K * M + DBL_EPSILON * M / H; }
static double err_d2(double K, double M) { return H * H / 12.0 * K * K * K * K * M + 4.0 * DBL_EPSILON * M / (H * H); }

/* Central differences at x, t: du[i][j] = du_i/dx_j, lap[i], gp[j] = dp/dx_j, dudt[i]. */
static void differences(const fb_ethier_steinman *es, const double *x, double t, double du[3][3], double lap[3],
                        double gp[3], double dudt[3])
{
    double u0[3], p0, up[3], um[3], pp, pm;
    fb_ethier_steinman_eval(es, x, t, u0, &p0);
    for (int i = 0; i < 3; ++i)
        lap[i] = 0.0;
    for (int j = 0; j < 3; ++j) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[j] += H, xm[j] -= H;
        fb_ethier_steinman_eval(es, xp, t, up, &pp);
        fb_ethier_steinman_eval(es, xm, t, um, &pm);
        gp[j] = (pp - pm) / (2 * H);
        for (int i = 0; i < 3; ++i) {
            du[i][j] = (up[i] - um[i]) / (2 * H);
            lap[i] += (up[i] - 2 * u0[i] + um[i]) / (H * H);
        }
    }
    fb_ethier_steinman_eval(es, x, t + H, up, NULL);
    fb_ethier_steinman_eval(es, x, t - H, um, NULL);
    for (int i = 0; i < 3; ++i)
        dudt[i] = (up[i] - um[i]) / (2 * H);
}

static void check_solution(double nu, uint64_t seed)
{
    fb_ethier_steinman es = fb_ethier_steinman_standard(nu);
    const double a = fabs(es.a), K = 2.0 * (fabs(es.a) + fabs(es.d));
    const double Mu = 2.0 * a * exp(a), Mp = 4.5 * a * a * exp(2.0 * a);
    /* safety factor 4 over the bounds of each differenced term */
    const double tol_div = 4.0 * 3.0 * err_d1(K, Mu);
    const double tol_mom =
        4.0 * (err_d1(nu * es.d * es.d, Mu) + 3.0 * Mu * err_d1(K, Mu) + err_d1(K, Mp) + nu * 3.0 * err_d2(K, Mu));
    const double tol_grad = 4.0 * err_d1(K, Mu);
    double worst_div = 0.0, worst_mom = 0.0, worst_grad = 0.0, wrong_nu = 0.0;
    uint64_t s = seed;
    for (int k = 0; k < NPOINTS; ++k) {
        double x[3], t = uniform(&s), u[3], p, du[3][3], lap[3], gp[3], dudt[3], g[9];
        for (int j = 0; j < 3; ++j)
            x[j] = 2.0 * uniform(&s) - 1.0;
        fb_ethier_steinman_eval(&es, x, t, u, &p);
        differences(&es, x, t, du, lap, gp, dudt);
        fb_ethier_steinman_grad(&es, x, t, g);
        worst_div = fmax(worst_div, fabs(du[0][0] + du[1][1] + du[2][2]));
        assert_true(fabs(g[0] + g[4] + g[8]) < 1e-12 * Mu * K);
        for (int i = 0; i < 3; ++i) {
            double conv = u[0] * du[i][0] + u[1] * du[i][1] + u[2] * du[i][2];
            double r = dudt[i] + conv + gp[i] - nu * lap[i];
            worst_mom = fmax(worst_mom, fabs(r));
            wrong_nu = fmax(wrong_nu, fabs(r + 0.1 * nu * lap[i])); /* the residual if nu were 10% off */
            for (int j = 0; j < 3; ++j)
                worst_grad = fmax(worst_grad, fabs(g[3 * i + j] - du[i][j]));
        }
    }
    if (worst_div > tol_div) fail_msg("nu %g: |div u| up to %.3g > %.3g", nu, worst_div, tol_div);
    if (worst_mom > tol_mom) fail_msg("nu %g: momentum residual up to %.3g > %.3g", nu, worst_mom, tol_mom);
    if (worst_grad > tol_grad) fail_msg("nu %g: gradient off by %.3g > %.3g", nu, worst_grad, tol_grad);
    if (wrong_nu < 100.0 * tol_mom) fail_msg("nu %g: a wrong viscosity leaves only %.3g", nu, wrong_nu);
}

static void test_navier_stokes_residual(void **state)
{
    (void)state;
    static const double nus[3] = {0.01, 0.5, 2.0};
    for (int k = 0; k < 3; ++k)
        check_solution(nus[k], 0x9e3779b97f4a7c15ull + (uint64_t)k);
}

/* Other a, d than the paper's: the identities hold for any pair. */
static void test_other_parameters(void **state)
{
    (void)state;
    fb_ethier_steinman es = {0.3, 1.1, 0.2};
    uint64_t s = 42;
    double worst = 0.0;
    for (int k = 0; k < NPOINTS; ++k) {
        double x[3], u[3], p, du[3][3], lap[3], gp[3], dudt[3];
        for (int j = 0; j < 3; ++j)
            x[j] = 2.0 * uniform(&s) - 1.0;
        fb_ethier_steinman_eval(&es, x, 0.3, u, &p);
        differences(&es, x, 0.3, du, lap, gp, dudt);
        for (int i = 0; i < 3; ++i)
            worst = fmax(worst,
                         fabs(dudt[i] + u[0] * du[i][0] + u[1] * du[i][1] + u[2] * du[i][2] + gp[i] - es.nu * lap[i]));
    }
    const double K = 2.0 * (es.a + es.d);
    double tol = 4.0 * (3.0 * 2 * es.a * exp(es.a) * err_d1(K, 2 * es.a * exp(es.a)) +
                        err_d1(K, 4.5 * es.a * es.a * exp(2 * es.a)) + es.nu * 3.0 * err_d2(K, 2 * es.a * exp(es.a)));
    if (worst > tol) fail_msg("a 0.3, d 1.1: momentum residual up to %.3g > %.3g", worst, tol);
}

/* u(t) = u(0) e^{-nu d^2 t}, p(t) = p(0) e^{-2 nu d^2 t}, exactly. */
static void test_decay(void **state)
{
    (void)state;
    fb_ethier_steinman es = fb_ethier_steinman_standard(0.1);
    const double x[3] = {0.3, -0.7, 0.2}, t = 0.8, f = exp(-0.1 * es.d * es.d * t);
    double u0[3], p0, u1[3], p1;
    fb_ethier_steinman_eval(&es, x, 0.0, u0, &p0);
    fb_ethier_steinman_eval(&es, x, t, u1, &p1);
    for (int i = 0; i < 3; ++i) {
        assert_true(fabs(u0[i]) > 0.01);
        assert_true(fabs(u1[i] - f * u0[i]) < 1e-14 * fabs(u0[i]));
    }
    assert_true(fabs(p1 - f * f * p0) < 1e-14 * fabs(p0));
    double only_p;
    fb_ethier_steinman_eval(&es, x, t, NULL, &only_p); /* either output may be NULL */
    assert_true(only_p == p1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navier_stokes_residual),
        cmocka_unit_test(test_other_parameters),
        cmocka_unit_test(test_decay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
