/* test_stream.c - the bandwidth probe on every backend present: results
 * checked, byte model as documented, and a corrupted result caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream/stream.h"
#include "core/kernel_sources.h"

static fb_stream_config small_config(int is_double)
{
    fb_stream_config cfg = {.n = 100003, .is_double = is_double, .wg = 128, .measure = fb_measure_defaults()};
    cfg.measure.max_samples = 10;
    cfg.measure.budget_s = 0.5;
    return cfg;
}

static void run_on(const char *spec, int is_double)
{
    fb_target *t = NULL;
    fb_stream_result r[FB_STREAM_NKERNELS];
    if (fb_target_open(spec, &t) != FB_OK) {
        printf("skipped %s: %s\n", spec, fb_error_message());
        skip();
    }
    fb_stream_config cfg = small_config(is_double);
    assert_int_equal(fb_stream_run(t, &cfg, r, NULL, NULL), FB_OK);
    size_t elem = is_double ? 8 : 4;
    const int words[] = {2, 2, 3, 3};
    for (int k = 0; k < FB_STREAM_NKERNELS; ++k) {
        assert_true(r[k].checked_ok);
        assert_true(r[k].m.nsamples >= cfg.measure.min_samples);
        assert_float_equal(r[k].bytes, (double)(words[k] * cfg.n * elem), 0);
        assert_true(r[k].gbs > 0 && r[k].gbs_best >= r[k].gbs);
    }
    printf("%s %s: triad %.2f GB/s\n", fb_target_info(t)->id, is_double ? "double" : "single", r[3].gbs);
    fb_stream_results_free(r);
    fb_target_close(t);
}

static void test_openmp_double(void **state)
{
    (void)state;
    run_on("openmp", 1);
}
static void test_openmp_single(void **state)
{
    (void)state;
    run_on("openmp", 0);
}
static void test_opencl_double(void **state)
{
    (void)state;
    run_on("opencl", 1);
}
static void test_opencl_single(void **state)
{
    (void)state;
    run_on("opencl", 0);
}

static void test_models_match_babelstream(void **state)
{
    (void)state;
    assert_string_equal(fb_stream_models[3].name, "triad");
    assert_int_equal(fb_stream_models[3].words, 3);
    assert_int_equal(fb_stream_models[3].flops, 2);
    assert_int_equal(fb_stream_models[0].words, 2);
    assert_int_equal(fb_stream_models[0].flops, 0);
}

static void test_oversized_work_group_refused(void **state)
{
    (void)state;
    fb_target *t = NULL;
    fb_stream_result r[FB_STREAM_NKERNELS];
    if (fb_target_open("opencl", &t) != FB_OK) skip();
    fb_stream_config cfg = small_config(1);
    cfg.wg = fb_target_info(t)->max_work_group_size * 2;
    assert_int_equal(fb_stream_run(t, &cfg, r, NULL, NULL), FB_ERR_USAGE);
    fb_stream_results_free(r);
    fb_target_close(t);
}

/* A kernel that gets one element wrong must fail the check: the override
 * directory serves a stream.cl whose triad corrupts element 777 (and the
 * prelude every program reads, which comes from that directory too). */
static void test_wrong_result_is_caught(void **state)
{
    (void)state;
    const char *good = fb_kernel_source("stream/stream.cl");
    const char *needle = "a[i] = b[i] + scalar * c[i];";
    const char *at = strstr(good, needle);
    assert_non_null(at);
    const char *prelude = fb_kernel_source("common.cl");
    assert_non_null(prelude);
    char dir[] = "/tmp/fb-test-XXXXXX", sub[64], path[96], prelude_path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(prelude_path, sizeof prelude_path, "%s/common.cl", dir);
    FILE *pf = fopen(prelude_path, "w");
    assert_non_null(pf);
    fputs(prelude, pf);
    fclose(pf);
    snprintf(sub, sizeof sub, "%s/stream", dir);
    snprintf(path, sizeof path, "%s/stream.cl", sub);
    assert_int_equal(mkdir(sub, 0700), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*sa[i] = b[i] + scalar * c[i] + (i == 777 ? 1 : 0);%s", (int)(at - good), good, at + strlen(needle));
    fclose(f);
    setenv("FLOWBENCH_KERNEL_DIR", dir, 1);

    fb_target *t = NULL;
    fb_stream_result r[FB_STREAM_NKERNELS];
    fb_status open_status = fb_target_open("opencl", &t);
    if (open_status == FB_OK) {
        fb_stream_config cfg = small_config(1);
        assert_int_equal(fb_stream_run(t, &cfg, r, NULL, NULL), FB_ERR_CHECK);
        assert_true(r[0].checked_ok && r[1].checked_ok && r[2].checked_ok);
        assert_false(r[3].checked_ok);
        assert_true(r[3].max_rel_error > 1.0);
        fb_stream_results_free(r);
        fb_target_close(t);
    }
    unsetenv("FLOWBENCH_KERNEL_DIR");
    unlink(path);
    unlink(prelude_path);
    rmdir(sub);
    rmdir(dir);
    if (open_status != FB_OK) skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_models_match_babelstream),
        cmocka_unit_test(test_openmp_double),
        cmocka_unit_test(test_openmp_single),
        cmocka_unit_test(test_opencl_double),
        cmocka_unit_test(test_opencl_single),
        cmocka_unit_test(test_oversized_work_group_refused),
        cmocka_unit_test(test_wrong_result_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
