/* test_stats.c - summary statistics against values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/stats.h"

static void test_odd_count(void **state)
{
    (void)state;
    const double x[] = {5, 1, 4, 2, 3};
    fb_stats s;
    assert_int_equal(fb_stats_compute(x, 5, &s), 0);
    assert_int_equal(s.n, 5);
    assert_float_equal(s.median, 3.0, 1e-15);
    assert_float_equal(s.min, 1.0, 1e-15);
    assert_float_equal(s.max, 5.0, 1e-15);
    assert_float_equal(s.mean, 3.0, 1e-15);
    assert_float_equal(s.stddev, sqrt(2.5), 1e-15); /* sample variance of 1..5 is 2.5 */
}

static void test_even_count_median_averages(void **state)
{
    (void)state;
    const double x[] = {4, 1, 3, 2};
    fb_stats s;
    fb_stats_compute(x, 4, &s);
    assert_float_equal(s.median, 2.5, 1e-15);
    assert_float_equal(fb_median(x, 4), 2.5, 1e-15);
}

static void test_input_not_modified(void **state)
{
    (void)state;
    double x[] = {3, 1, 2};
    fb_stats s;
    fb_stats_compute(x, 3, &s);
    assert_float_equal(x[0], 3, 0);
    assert_float_equal(x[1], 1, 0);
    assert_float_equal(x[2], 2, 0);
}

static void test_single_sample(void **state)
{
    (void)state;
    const double x[] = {7};
    fb_stats s;
    fb_stats_compute(x, 1, &s);
    assert_float_equal(s.median, 7, 0);
    assert_float_equal(s.stddev, 0, 0);
    assert_float_equal(s.median_spread, 1.0, 0); /* one sample says nothing about spread */
}

static void test_spread_identical_samples_is_zero(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 20; ++i)
        x[i] = 1e-3;
    fb_stats s;
    fb_stats_compute(x, 20, &s);
    assert_float_equal(s.median_spread, 0.0, 0);
}

static void test_spread_uses_order_statistics(void **state)
{
    (void)state;
    /* n = 100, values 1..100: ranks floor(50 - 9.8) = 40 and ceil(50 + 9.8) = 60
     * (0-based) hold 41 and 61; median 50.5; spread = (61 - 41) / (2 * 50.5). */
    double x[100];
    for (int i = 0; i < 100; ++i)
        x[i] = (double)(100 - i);
    fb_stats s;
    fb_stats_compute(x, 100, &s);
    assert_float_equal(s.median, 50.5, 1e-12);
    assert_float_equal(s.median_spread, 20.0 / 101.0, 1e-12);
}

static void test_spread_ignores_one_outlier(void **state)
{
    (void)state;
    /* A single slow sample (a context switch) must not block convergence. */
    double x[30];
    for (int i = 0; i < 30; ++i)
        x[i] = 1.0 + 1e-4 * (i % 3);
    x[7] = 50.0;
    fb_stats s;
    fb_stats_compute(x, 30, &s);
    assert_true(s.median_spread < 0.001);
    assert_true(s.stddev > 1.0); /* while the stddev explodes */
}

static void test_empty_is_an_error(void **state)
{
    (void)state;
    fb_stats s;
    assert_int_equal(fb_stats_compute(NULL, 0, &s), -1);
    assert_float_equal(fb_median(NULL, 0), 0.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_count),
        cmocka_unit_test(test_even_count_median_averages),
        cmocka_unit_test(test_input_not_modified),
        cmocka_unit_test(test_single_sample),
        cmocka_unit_test(test_spread_identical_samples_is_zero),
        cmocka_unit_test(test_spread_uses_order_statistics),
        cmocka_unit_test(test_spread_ignores_one_outlier),
        cmocka_unit_test(test_empty_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
