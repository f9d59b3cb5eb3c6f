/* test_counters.c - hardware counters: the unavailable path (what a VM
 * without a PMU, a build without PAPI and a device backend all give), the
 * record it makes, a measurement that goes on without counters, names PAPI
 * does not know, and - where this machine has counters - real counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/counters.h"
#include "core/measure.h"

static fb_status busy_sample(void *ctx, double *seconds)
{
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i)
        x += i * 0.5;
    (void)ctx;
    *seconds = 1e-3;
    return FB_OK;
}

static void test_unavailable_set_records_reason_once(void **state)
{
    fb_counters *c = NULL;
    const char *why;
    (void)state;
    assert_int_equal(fb_counters_unavailable("opencl:0.0 runs elsewhere", &c), FB_OK);
    assert_false(fb_counters_available(c, &why));
    assert_string_equal(why, "opencl:0.0 runs elsewhere");
    json_t *j = fb_counters_json(c, 1000);
    assert_string_equal(json_string_value(json_object_get(j, "unavailable")), "opencl:0.0 runs elsewhere");
    assert_int_equal(json_object_size(j), 1); /* the reason only: no per-sample entries */
    json_decref(j);
    fb_counters_close(c);
}

static void test_measurement_goes_on_without_counters(void **state)
{
    fb_counters *c = NULL;
    fb_measurement m;
    fb_measure_config cfg = fb_measure_defaults();
    (void)state;
    assert_int_equal(fb_counters_unavailable("no PMU", &c), FB_OK);
    cfg.counters = c;
    cfg.max_samples = 7;
    cfg.min_samples = 7;
    assert_int_equal(fb_measure(&cfg, busy_sample, NULL, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, 7);
    fb_measurement_free(&m);
    fb_counters_close(c);
}

/* Whatever this machine has: open succeeds; either counts arrive for every
 * timed sample (warm-ups excluded), or the set says why not. */
static void test_default_events_count_or_say_why(void **state)
{
    fb_counters *c = NULL;
    fb_measurement m;
    fb_measure_config cfg = fb_measure_defaults();
    const char *why;
    (void)state;
    assert_int_equal(fb_counters_open("default", &c), FB_OK);
    cfg.counters = c;
    cfg.min_samples = cfg.max_samples = 4;
    assert_int_equal(fb_measure(&cfg, busy_sample, NULL, NULL, NULL, &m), FB_OK);
    json_t *j = fb_counters_json(c, 8e5);
    if (fb_counters_available(c, &why)) {
        assert_int_equal(json_integer_value(json_object_get(j, "samples")), 4);
        json_t *cyc = json_object_get(json_object_get(j, "events"), "PAPI_TOT_CYC");
        if (cyc) assert_true(json_number_value(cyc) > 1e4); /* 100000 additions take more cycles */
    } else {
        print_message("counters unavailable here: %s\n", why);
        assert_true(strlen(why) > 0);
        assert_non_null(json_object_get(j, "unavailable"));
    }
    json_decref(j);
    fb_measurement_free(&m);
    fb_counters_close(c);
}

static void test_bad_lists(void **state)
{
    fb_counters *c = NULL;
    const char *why;
    (void)state;
    assert_int_equal(fb_counters_open("A,B,C,D,E,F,G,H,I", &c), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "at most"));
    assert_int_equal(fb_counters_open(",", &c), FB_ERR_USAGE);
    /* An unknown name is a usage error where PAPI runs; without PAPI the set is unavailable. */
    fb_status st = fb_counters_open("PAPI_NO_SUCH_EVENT", &c);
    if (st == FB_OK) {
        assert_false(fb_counters_available(c, &why));
        fb_counters_close(c);
    } else {
        assert_int_equal(st, FB_ERR_USAGE);
        assert_non_null(strstr(fb_error_message(), "PAPI_NO_SUCH_EVENT"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unavailable_set_records_reason_once),
        cmocka_unit_test(test_measurement_goes_on_without_counters),
        cmocka_unit_test(test_default_events_count_or_say_why),
        cmocka_unit_test(test_bad_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
