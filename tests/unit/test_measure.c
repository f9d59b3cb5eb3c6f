/* test_measure.c - the stopping rules of the measurement core, driven by
 * synthetic sample functions (no real timing involved). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "core/measure.h"

typedef struct fake {
    int calls, flushes, flushed_before_each;
    double value;
    int noisy;   /* alternate 1x and 3x: never converges */
    int fail_at; /* return an error on this call (0: never) */
    int sleep_us;
} fake;

static fb_status fake_sample(void *ctx, double *seconds)
{
    fake *f = ctx;
    f->calls++;
    if (f->fail_at && f->calls == f->fail_at)
        return fb_error_set(FB_ERR_LAUNCH, __FILE__, __LINE__, "synthetic launch failure");
    if (f->flushes != f->calls) f->flushed_before_each = 0;
    if (f->sleep_us) {
        struct timespec ts = {0, f->sleep_us * 1000L};
        nanosleep(&ts, NULL);
    }
    *seconds = f->noisy ? f->value * ((f->calls % 2) ? 1.0 : 3.0) : f->value;
    return FB_OK;
}

static fb_status fake_flush(void *ctx)
{
    ((fake *)ctx)->flushes++;
    return FB_OK;
}

static void test_constant_samples_converge_at_min(void **state)
{
    (void)state;
    fake f = {.value = 1e-3};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, cfg.min_samples);
    assert_int_equal(f.calls, cfg.warmups + cfg.min_samples);
    assert_int_equal(m.stop, FB_STOP_CONVERGED);
    assert_float_equal(m.stats.median, 1e-3, 1e-18);
    fb_measurement_free(&m);
}

static void test_noisy_samples_stop_at_max(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .noisy = 1};
    fb_measure_config cfg = fb_measure_defaults();
    cfg.max_samples = 40;
    cfg.budget_s = 100;
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, 40);
    assert_int_equal(m.stop, FB_STOP_MAX_SAMPLES);
    assert_true(m.stats.median_spread > cfg.target_spread);
    fb_measurement_free(&m);
}

static void test_budget_stops_sampling(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .noisy = 1, .sleep_us = 2000};
    fb_measure_config cfg = fb_measure_defaults();
    cfg.max_samples = 100000;
    cfg.budget_s = 0.05;
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.stop, FB_STOP_BUDGET);
    assert_true(m.nsamples >= cfg.min_samples);
    assert_true(m.nsamples < 1000);
    fb_measurement_free(&m);
}

static void test_cold_mode_flushes_before_every_sample(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .flushed_before_each = 1};
    fb_measure_config cfg = fb_measure_defaults();
    cfg.cold = 1;
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, fake_flush, &f, &m), FB_OK);
    assert_int_equal(f.flushes, f.calls);
    assert_true(f.flushed_before_each);
    fb_measurement_free(&m);
}

static void test_cold_without_flush_is_usage_error(void **state)
{
    (void)state;
    fake f = {.value = 1e-3};
    fb_measure_config cfg = fb_measure_defaults();
    cfg.cold = 1;
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_ERR_USAGE);
    assert_int_equal(f.calls, 0);
    fb_measurement_free(&m);
}

static void test_bad_config_rejected(void **state)
{
    (void)state;
    fake f = {.value = 1};
    fb_measurement m;
    fb_measure_config cfg = fb_measure_defaults();
    cfg.max_samples = cfg.min_samples - 1;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_ERR_USAGE);
    cfg = fb_measure_defaults();
    cfg.target_spread = 0;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_ERR_USAGE);
    fb_measurement_free(&m);
}

static void test_sample_error_propagates(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .fail_at = 4};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_ERR_LAUNCH);
    assert_string_equal(fb_error_message(), "synthetic launch failure");
    assert_int_equal(m.nsamples, 4 - 1 - cfg.warmups);
    fb_measurement_free(&m);
}

static void test_interrupt_stops_with_samples_kept(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .noisy = 1};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    fb_interrupted = 1;
    fb_status st = fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_int_equal(f.calls, 0);
    fb_measurement_free(&m);
}

/* Sweeps: when the fastest of the first FB_ABANDON_SAMPLES samples is
 * slower than abandon_above_s the measurement ends there; past the
 * deadline sampling stops between samples. */
/* One slow first sample (100x: a page-in, a late compile) does not abandon
 * a point whose next samples are fast: it is measured to the end. */
static int slow_first_calls;
static fb_status slow_first_sample(void *ctx, double *seconds)
{
    (void)ctx;
    *seconds = slow_first_calls++ == 0 ? 0.1 : 1e-3;
    return FB_OK;
}

static void test_one_slow_sample_is_not_abandoned(void **state)
{
    (void)state;
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.warmups = 0;
    cfg.abandon_above_s = 4e-3; /* 4x a best of 1 ms */
    slow_first_calls = 0;
    assert_int_equal(fb_measure(&cfg, slow_first_sample, NULL, NULL, NULL, &m), FB_OK);
    assert_int_not_equal(m.stop, FB_STOP_ABANDONED);
    assert_true(m.nsamples >= cfg.min_samples);
    assert_true(m.stats.median < 2e-3);
    fb_measurement_free(&m);
}

static void test_abandon_and_deadline(void **state)
{
    (void)state;
    fake f = {.value = 1e-3, .noisy = 1};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.abandon_above_s = 0.5e-3;
    assert_int_equal(fb_measure(&cfg, fake_sample, &f, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, FB_ABANDON_SAMPLES);
    assert_int_equal(m.stop, FB_STOP_ABANDONED);
    assert_string_equal(fb_stop_reason_name(m.stop), "abandoned");
    fb_measurement_free(&m);

    fake g = {.value = 1e-3, .noisy = 1};
    cfg = fb_measure_defaults();
    cfg.deadline = fb_now() - 1; /* already past: one sample, then stop */
    assert_int_equal(fb_measure(&cfg, fake_sample, &g, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, 1);
    assert_int_equal(m.stop, FB_STOP_TIMEOUT);
    assert_string_equal(fb_stop_reason_name(m.stop), "timeout");
    fb_measurement_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_samples_converge_at_min),
        cmocka_unit_test(test_noisy_samples_stop_at_max),
        cmocka_unit_test(test_budget_stops_sampling),
        cmocka_unit_test(test_cold_mode_flushes_before_every_sample),
        cmocka_unit_test(test_cold_without_flush_is_usage_error),
        cmocka_unit_test(test_bad_config_rejected),
        cmocka_unit_test(test_sample_error_propagates),
        cmocka_unit_test(test_interrupt_stops_with_samples_kept),
        cmocka_unit_test(test_abandon_and_deadline),
        cmocka_unit_test(test_one_slow_sample_is_not_abandoned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
