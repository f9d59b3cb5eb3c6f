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
    const int words[] = {2, 2, 3, 3, 2};
    const size_t dot_chunk = fb_stream_dot_chunk(fb_target_info(t)), chunks = (cfg.n + dot_chunk - 1) / dot_chunk;
    for (int k = 0; k < FB_STREAM_NKERNELS; ++k) {
        assert_true(r[k].checked_ok);
        assert_true(r[k].m.nsamples >= cfg.measure.min_samples);
        assert_float_equal(r[k].bytes, (double)((words[k] * cfg.n + (k == FB_STREAM_DOT ? chunks : 0)) * elem), 0);
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
    assert_string_equal(fb_stream_models[FB_STREAM_DOT].name, "dot");
    assert_int_equal(fb_stream_models[FB_STREAM_DOT].words, 2);
    assert_int_equal(fb_stream_models[FB_STREAM_DOT].flops, 2);
}

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* A planted device: its last-level cache and memory are all the size
 * rule reads. */
static fb_device_info machine(size_t cache, size_t memory)
{
    fb_device_info d;
    memset(&d, 0, sizeof d);
    d.cache_bytes = cache;
    d.global_mem_bytes = memory;
    return d;
}

/* The default n follows the cache: the least power of two from 2^25 whose
 * 3 arrays are 4x the last-level cache. On a 32 MiB L3 that is 2^25 (768
 * MiB, as before); on the VM whose host reports a 480 MiB cache, where
 * 2^25 was 1.6x it, 2^27 in double (3 GiB) and 2^28 in single. */
static void test_default_size_follows_the_cache(void **state)
{
    (void)state;
    fb_device_info d = machine(32 * MIB, 23 * GIB);
    fb_stream_size s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 25);
    assert_int_equal(s.cache_reuse, 0);
    assert_int_equal(s.resident, 0);
    assert_int_equal(s.too_large, 0);
    d = machine(480 * MIB, 64 * GIB);
    s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 27);
    assert_true(s.working_set_bytes >= 4.0 * (double)d.cache_bytes);
    assert_int_equal(s.cache_reuse, 0);
    assert_int_equal(fb_stream_size_of(&d, 0, 0).n, (size_t)1 << 28);
    d = machine(1 * MIB, 64 * GIB); /* never below 2^25 */
    assert_int_equal(fb_stream_size_of(&d, 1, 0).n, (size_t)1 << 25);
    d = machine(0, 64 * GIB); /* cache unknown: 2^25, nothing judged */
    s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 25);
    assert_int_equal(s.cache_reuse, -1);
    assert_int_equal(s.resident, -1);
    d = machine(64 * GIB, 4096 * GIB); /* the kernels' 32-bit index bounds it */
    assert_int_equal(fb_stream_size_of(&d, 1, 0).n, (size_t)FB_STREAM_MAX_N);
}

/* Where 4x the cache does not fit in half the memory, the default is the
 * largest power of two that does, and the note says plainly that this
 * machine's cache is too large to measure DRAM in its memory. */
static void test_cache_too_large_for_memory(void **state)
{
    (void)state;
    char note[512];
    fb_device_info d = machine(480 * MIB, 2 * GIB);
    fb_stream_size s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 25); /* 768 MiB: 3 GiB would be over half of 2 GiB */
    assert_int_equal(s.cache_reuse, 1);
    assert_int_equal(s.resident, 0);
    assert_int_equal(s.too_large, 1);
    fb_stream_size_note(&d, &s, note, sizeof note);
    assert_non_null(strstr(note, "include cache reuse"));
    assert_non_null(strstr(note, "too large to measure DRAM in its memory"));
    d = machine(480 * MIB, 64 * MIB);
    s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 20); /* 24 MiB, within the 32 MiB half */
    assert_int_equal(s.resident, 1);
    d = machine(1 * MIB, 64 * MIB); /* small memory, small cache: under 2^25 and still DRAM */
    s = fb_stream_size_of(&d, 1, 0);
    assert_int_equal(s.n, (size_t)1 << 20);
    assert_int_equal(s.cache_reuse, 0);
    fb_stream_size_note(&d, &s, note, sizeof note);
    assert_string_equal(note, "");
}

/* A length given by hand is judged by the same rule; its note names the
 * default that measures DRAM. */
static void test_given_size_judged(void **state)
{
    (void)state;
    char note[512];
    fb_device_info d = machine(32 * MIB, 23 * GIB);
    fb_stream_size s = fb_stream_size_of(&d, 1, 2000000); /* 45.8 MiB: over the cache, under 4x it */
    assert_int_equal(s.n, 2000000);
    assert_int_equal(s.cache_reuse, 1);
    assert_int_equal(s.resident, 0);
    assert_int_equal(s.too_large, 0);
    fb_stream_size_note(&d, &s, note, sizeof note);
    assert_non_null(strstr(note, "under 4x the 32.0 MiB last-level cache"));
    assert_non_null(strstr(note, "the default, n = 33554432, measures DRAM"));
}

/* The stream record carries the same facts: cache_resident, cache_reuse
 * and the note. */
static void test_record_says_cache_reuse(void **state)
{
    (void)state;
    fb_device_info d = machine(480 * MIB, 64 * MIB);
    snprintf(d.backend, sizeof d.backend, "openmp");
    fb_stream_config cfg = small_config(1);
    cfg.n = 1 << 20;
    fb_stream_result r;
    memset(&r, 0, sizeof r);
    r.model = &fb_stream_models[3];
    json_t *rec = fb_stream_record(&d, &cfg, &r);
    assert_true(json_is_true(json_object_get(rec, "cache_resident")));
    assert_true(json_is_true(json_object_get(rec, "cache_reuse")));
    assert_non_null(strstr(json_string_value(json_object_get(rec, "roofline_note")), "too large to measure DRAM"));
    json_decref(rec);
    d = machine(32 * MIB, 23 * GIB);
    cfg.n = (size_t)1 << 25;
    rec = fb_stream_record(&d, &cfg, &r);
    assert_true(json_is_false(json_object_get(rec, "cache_resident")));
    assert_true(json_is_false(json_object_get(rec, "cache_reuse")));
    assert_null(json_object_get(rec, "roofline_note"));
    json_decref(rec);
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

typedef struct edit {
    const char *needle, *replacement;
} edit;

/* stream.cl with each edit's needle (which must be there) replaced. */
static char *edited_source(const edit *edits, int nedits)
{
    char *text = strdup(fb_kernel_source("stream/stream.cl"));
    assert_non_null(text);
    for (int e = 0; e < nedits; ++e) {
        const char *at = strstr(text, edits[e].needle);
        assert_non_null(at);
        const size_t head = (size_t)(at - text), len = strlen(text) + strlen(edits[e].replacement) + 1;
        char *next = malloc(len);
        assert_non_null(next);
        snprintf(next, len, "%.*s%s%s", (int)head, text, edits[e].replacement, at + strlen(edits[e].needle));
        free(text);
        text = next;
    }
    return text;
}

/* Runs stream on opencl with the edited stream.cl, served from an override
 * directory (with the prelude every program reads, which comes from that
 * directory too); *ran = 0 where no OpenCL device opens. */
static fb_status run_edited(const edit *edits, int nedits, fb_stream_result r[FB_STREAM_NKERNELS], int *ran)
{
    char *text = edited_source(edits, nedits);
    char dir[] = "/tmp/fb-test-XXXXXX", sub[64], path[96], prelude_path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(prelude_path, sizeof prelude_path, "%s/common.cl", dir);
    snprintf(sub, sizeof sub, "%s/stream", dir);
    snprintf(path, sizeof path, "%s/stream.cl", sub);
    assert_int_equal(mkdir(sub, 0700), 0);
    FILE *pf = fopen(prelude_path, "w"), *f = fopen(path, "w");
    assert_true(pf && f);
    fputs(fb_kernel_source("common.cl"), pf);
    fputs(text, f);
    fclose(pf);
    fclose(f);
    free(text);
    setenv("FLOWBENCH_KERNEL_DIR", dir, 1);
    fb_target *t = NULL;
    fb_status status = FB_OK;
    *ran = fb_target_open("opencl", &t) == FB_OK;
    if (*ran) {
        fb_stream_config cfg = small_config(1);
        status = fb_stream_run(t, &cfg, r, NULL, NULL);
        fb_target_close(t);
    }
    unsetenv("FLOWBENCH_KERNEL_DIR");
    unlink(path);
    unlink(prelude_path);
    rmdir(sub);
    rmdir(dir);
    return status;
}

/* The edited stream.cl must fail kernel `which`'s check and no earlier
 * one's. */
static void caught_with(const edit *edits, int nedits, int which)
{
    fb_stream_result r[FB_STREAM_NKERNELS];
    int ran = 0;
    const fb_status status = run_edited(edits, nedits, r, &ran);
    if (!ran) skip();
    assert_int_equal(status, FB_ERR_CHECK);
    for (int k = 0; k < which; ++k) {
        if (!r[k].checked_ok) printf("%s failed: %g\n", fb_stream_models[k].name, r[k].max_rel_error);
        assert_true(r[k].checked_ok);
    }
    assert_false(r[which].checked_ok);
    printf("mutant %s caught: max relative error %.3g\n", fb_stream_models[which].name, r[which].max_rel_error);
    fb_stream_results_free(r);
}

/* One element of the triad wrong. */
static void test_wrong_result_is_caught(void **state)
{
    (void)state;
    const edit e = {"a[i] = b[i] + scalar * c[i];", "a[i] = b[i] + scalar * c[i] + (i == 777 ? 1 : 0);"};
    caught_with(&e, 1, FB_STREAM_TRIAD);
}

/* On a CPU device dot's items sum contiguous runs; its GPU layout
 * (interleaved items) is what DOT_CONTIGUOUS off runs. */
static const edit gpu_layout = {"#ifdef DOT_CONTIGUOUS", "#ifdef DOT_CONTIGUOUS_OFF"};

/* A dot that skips the last element of each chunk, in either layout, or
 * one whole chunk: each changes the whole sum by under 1e-3 (n = 100003),
 * which a bound on the whole sum's rounding would have to allow at full
 * size; the check of each chunk's own sum sees every one. */
static void test_dot_skipping_reads_is_caught(void **state)
{
    (void)state;
    const edit cpu_last = {"to = min(start + (lid + 1) * per, end)", "to = min(start + (lid + 1) * per, end - 1)"};
    const edit gpu_last[] = {gpu_layout, {"i < end; i += DOT_WG", "i < end - 1; i += DOT_WG"}};
    const edit chunk = {"if (lid == 0) partial[group] = sums[0];",
                        "if (lid == 0) partial[group] = group == 2 ? 0 : sums[0];"};
    caught_with(&cpu_last, 1, FB_STREAM_DOT);
    caught_with(gpu_last, 2, FB_STREAM_DOT);
    caught_with(&chunk, 1, FB_STREAM_DOT);
}

/* The GPU layout of dot, run on the CPU device, passes every check: the
 * mutants above fail for their edit, not for the layout. */
static void test_dot_gpu_layout_checks(void **state)
{
    (void)state;
    fb_stream_result r[FB_STREAM_NKERNELS];
    int ran = 0;
    const fb_status status = run_edited(&gpu_layout, 1, r, &ran);
    if (!ran) skip();
    assert_int_equal(status, FB_OK);
    assert_true(r[FB_STREAM_DOT].checked_ok);
    fb_stream_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_models_match_babelstream),
        cmocka_unit_test(test_default_size_follows_the_cache),
        cmocka_unit_test(test_cache_too_large_for_memory),
        cmocka_unit_test(test_given_size_judged),
        cmocka_unit_test(test_record_says_cache_reuse),
        cmocka_unit_test(test_openmp_double),
        cmocka_unit_test(test_openmp_single),
        cmocka_unit_test(test_opencl_double),
        cmocka_unit_test(test_opencl_single),
        cmocka_unit_test(test_oversized_work_group_refused),
        cmocka_unit_test(test_wrong_result_is_caught),
        cmocka_unit_test(test_dot_skipping_reads_is_caught),
        cmocka_unit_test(test_dot_gpu_layout_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
