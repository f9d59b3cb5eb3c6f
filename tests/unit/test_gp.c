/* test_gp.c - the Gaussian process behind the bayes strategy (tune/gp.h):
 * it passes near its observations and is unsure away from them, a
 * categorical axis is a match or not, and expected improvement has its
 * closed form's values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "tune/gp.h"

static void test_fit_passes_near_observations(void **state)
{
    (void)state;
    const double x[] = {0.0, 0.25, 0.5, 0.75, 1.0}, y[] = {1.0, 0.2, -0.4, 0.1, 0.9}, m[5] = {0};
    fb_gp gp;
    assert_int_equal(fb_gp_fit(&gp, x, y, m, 5, 1, NULL), FB_OK);
    for (int i = 0; i < 5; ++i) {
        double mean, var;
        fb_gp_predict(&gp, &x[i], 0.0, &mean, &var);
        assert_true(fabs(mean - y[i]) < 0.1);
        assert_true(var < 0.05 * gp.signal);
    }
    /* between two observations: between them, and less sure */
    double mid = 0.625, mean, var, var_at;
    fb_gp_predict(&gp, &mid, 0.0, &mean, &var);
    fb_gp_predict(&gp, &x[3], 0.0, &mean, &var_at);
    assert_true(mean > -0.45 && mean < 0.15);
    assert_true(var > var_at);
    /* far outside: back to the prior mean, with the signal's variance */
    double far = 40.0;
    fb_gp_predict(&gp, &far, 3.0, &mean, &var);
    assert_true(fabs(mean - 3.0) < 1e-6);
    assert_true(fabs(var - gp.signal) < 1e-6 * gp.signal);
    fb_gp_free(&gp);
}

/* Two categories of one axis: the encoded values 0 and 1 are names, so a
 * point at 0.5 (no such category) is as far from both as they are from
 * each other, not between them. */
static void test_categorical_axis(void **state)
{
    (void)state;
    const double x[] = {0.0, 0.0, 1.0, 0.0, 0.0, 1.0}, y[] = {0.0, 1.0, 0.0}, m[3] = {0};
    const int categorical[] = {1, 0};
    fb_gp gp;
    assert_int_equal(fb_gp_fit(&gp, x, y, m, 3, 2, categorical), FB_OK);
    double a[] = {1.0, 0.0}, b[] = {0.0, 1.0}, mean, var;
    fb_gp_predict(&gp, a, 0.0, &mean, &var);
    assert_true(fabs(mean - 1.0) < 0.1); /* the observed (1, 0) */
    fb_gp_predict(&gp, b, 0.0, &mean, &var);
    assert_true(fabs(mean) < 0.1); /* the observed (0, 1) */
    /* another category, whatever its code, is one step from every other */
    double c[] = {0.5, 0.0}, d[] = {0.25, 0.0}, mean_d, var_d;
    fb_gp_predict(&gp, c, 0.0, &mean, &var);
    fb_gp_predict(&gp, d, 0.0, &mean_d, &var_d);
    assert_true(mean == mean_d && var == var_d);
    fb_gp_free(&gp);
}

static void test_expected_improvement(void **state)
{
    (void)state;
    /* no uncertainty: the gain itself, or nothing */
    assert_true(fabs(fb_gp_expected_improvement(-1.0, 0.0, 0.0, 0.0) - 1.0) < 1e-12);
    assert_true(fb_gp_expected_improvement(1.0, 0.0, 0.0, 0.0) == 0.0);
    /* at the best with unit variance: sd x pdf(0) = 1/sqrt(2 pi) */
    assert_true(fabs(fb_gp_expected_improvement(0.0, 1.0, 0.0, 0.0) - 1.0 / sqrt(2 * M_PI)) < 1e-12);
    /* more uncertainty, more to gain; a margin asks for more */
    assert_true(fb_gp_expected_improvement(0.5, 4.0, 0.0, 0.0) > fb_gp_expected_improvement(0.5, 1.0, 0.0, 0.0));
    assert_true(fb_gp_expected_improvement(0.0, 1.0, 0.0, 0.1) < fb_gp_expected_improvement(0.0, 1.0, 0.0, 0.0));
}

static void test_bad_sizes(void **state)
{
    (void)state;
    fb_gp gp;
    const double x[1] = {0}, y[1] = {0}, m[1] = {0};
    assert_int_equal(fb_gp_fit(&gp, x, y, m, 0, 1, NULL), FB_ERR_USAGE);
    assert_int_equal(fb_gp_fit(&gp, x, y, m, 1, FB_GP_MAX_DIMS + 1, NULL), FB_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_passes_near_observations),
        cmocka_unit_test(test_categorical_axis),
        cmocka_unit_test(test_expected_improvement),
        cmocka_unit_test(test_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
