/* test_compare.c - Mann-Whitney U against values worked out by hand, the
 * SAME/FASTER/SLOWER rule on constructed samples (equal, shifted, noisy,
 * too few), the between-run noise floor, pairing and the machine check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/compare.h"

/* Deterministic noise in [-1, 1): the tests must not be flaky. */
static double noise(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

static void fill(double *x, int n, double t, double rel, unsigned seed)
{
    for (int i = 0; i < n; ++i)
        x[i] = t * (1 + rel * noise(&seed));
}

static void test_mw_exact_small(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    fb_sample_test t = fb_mann_whitney(a, 3, b, 3);
    assert_true(t.exact);
    assert_float_equal(t.u, 0, 0);
    assert_float_equal(t.p, 2.0 / 20.0, 1e-12); /* 1 of C(6,3) orderings, two-sided */
    const double c[] = {1, 2, 3, 4, 5}, d[] = {6, 7, 8, 9, 10};
    t = fb_mann_whitney(d, 5, c, 5);
    assert_float_equal(t.u, 25, 0);
    assert_float_equal(t.p, 2.0 / 252.0, 1e-12);
}

static void test_mw_exact_is_symmetric_and_bounded(void **state)
{
    (void)state;
    const double a[] = {1, 4, 6, 9}, b[] = {2, 3, 5, 7, 8};
    fb_sample_test ab = fb_mann_whitney(a, 4, b, 5), ba = fb_mann_whitney(b, 5, a, 4);
    assert_float_equal(ab.p, ba.p, 1e-12);
    assert_float_equal(ab.u + ba.u, 20, 0);
    assert_true(ab.p > 0.5 && ab.p <= 1.0); /* interleaved samples: no evidence */
}

/* a = {1,2,2,3}, b = {2,3,4,5,5}: ranks of a 1, 3, 3, 5.5 (ties averaged),
 * U = 12.5 - 10 = 2.5; tie term 24 + 6 + 6 = 36; var = 20/12 (10 - 36/72);
 * z = (|2.5 - 10| - 0.5) / sqrt(var) = 1.75919; p = erfc(z / sqrt 2). */
static void test_mw_ties_normal_approximation(void **state)
{
    (void)state;
    const double a[] = {1, 2, 2, 3}, b[] = {2, 3, 4, 5, 5};
    fb_sample_test t = fb_mann_whitney(a, 4, b, 5);
    assert_false(t.exact);
    assert_float_equal(t.u, 2.5, 1e-12);
    assert_float_equal(t.p, 0.0785458509511907, 1e-9);
}

static void test_mw_all_equal(void **state)
{
    (void)state;
    const double a[] = {1, 1, 1}, b[] = {1, 1};
    assert_float_equal(fb_mann_whitney(a, 3, b, 2).p, 1.0, 0);
}

static void test_mw_large_separated(void **state)
{
    (void)state;
    double a[40], b[40];
    fill(a, 40, 1.0, 0.01, 1);
    fill(b, 40, 1.5, 0.01, 2);
    fb_sample_test t = fb_mann_whitney(a, 40, b, 40);
    assert_false(t.exact); /* beyond the exact table */
    assert_true(t.p < 1e-10);
}

static fb_verdict verdict_of(double t_base, double t_new, double rel_noise, int n)
{
    double a[200], b[200];
    fb_compare_options opt = fb_compare_defaults();
    fill(a, n, t_base, rel_noise, 11);
    fill(b, n, t_new, rel_noise, 12);
    return fb_compare_samples(a, n, b, n, 0, &opt).verdict;
}

static void test_verdicts(void **state)
{
    (void)state;
    assert_int_equal(verdict_of(1e-3, 1e-3, 0.01, 20), FB_SAME);     /* equal */
    assert_int_equal(verdict_of(1e-3, 1.2e-3, 0.01, 20), FB_SLOWER); /* shifted +20 % */
    assert_int_equal(verdict_of(1e-3, 0.8e-3, 0.01, 20), FB_FASTER); /* shifted -20 % */
    assert_int_equal(verdict_of(1e-3, 1.03e-3, 0.04, 20), FB_SAME);  /* noisy, 3 % < threshold */
    assert_int_equal(verdict_of(1e-3, 1.1e-3, 0.5, 20), FB_SAME);    /* +10 % drowned in +-50 % noise */
    assert_int_equal(verdict_of(1e-3, 1.5e-3, 0.01, 2), FB_SAME);    /* 2 samples cannot show it */
}

/* With 200 samples a 2 % drift is significant, and still SAME: the test
 * alone would page someone for it. */
static void test_significant_but_small_is_same(void **state)
{
    (void)state;
    double a[200], b[200];
    fb_compare_options opt = fb_compare_defaults();
    fill(a, 200, 1.00, 0.002, 3);
    fill(b, 200, 1.02, 0.002, 4);
    fb_comparison c = fb_compare_samples(a, 200, b, 200, 0, &opt);
    assert_true(c.test.p < 1e-6);
    assert_int_equal(c.verdict, FB_SAME);
    opt.threshold = 0.01; /* a stricter threshold makes it count */
    assert_int_equal(fb_compare_samples(a, 200, b, 200, 0, &opt).verdict, FB_SLOWER);
}

static void test_noise_floor(void **state)
{
    (void)state;
    double a[30], b[30];
    const double medians[] = {1.0, 1.15, 1.05};
    fb_compare_options opt = fb_compare_defaults();
    fill(a, 30, 1.0, 0.01, 5);
    fill(b, 30, 1.1, 0.01, 6);
    assert_float_equal(fb_run_spread(medians, 3), 0.15, 1e-12);
    assert_float_equal(fb_run_spread(medians, 1), 0, 0);
    assert_int_equal(fb_compare_samples(a, 30, b, 30, 0, &opt).verdict, FB_SLOWER);
    /* +10 % when repeated runs of the same code already differ by 15 %:
     * significant, but the evidence cannot tell it from the noise */
    fb_comparison c = fb_compare_samples(a, 30, b, 30, 0.15, &opt);
    assert_int_equal(c.verdict, FB_INCONCLUSIVE);
    assert_float_equal(c.noise, 0.15, 0);
    /* -10 % is as far as +11.1 %: faster inside the noise is no FASTER either */
    assert_int_equal(fb_compare_samples(b, 30, a, 30, 0.12, &opt).verdict, FB_INCONCLUSIVE);
    assert_int_equal(fb_compare_samples(b, 30, a, 30, 0.05, &opt).verdict, FB_FASTER);
}

static void test_change_size_is_symmetric(void **state)
{
    (void)state;
    assert_float_equal(fb_change_size(0.25), 0.25, 1e-12);
    assert_float_equal(fb_change_size(-0.2), 0.25, 1e-12);
    assert_float_equal(fb_change_size(0), 0, 0);
    assert_true(isinf(fb_change_size(-1)));
}

/* ---- files: pairing, failures, machines ----------------------------------- */

#define HEADER(id, cpu, gpu, threads)                                                                                  \
    "{\"type\":\"header\",\"schema\":1,\"run_id\":\"" id "\",\"date\":\"d\",\"host\":{\"hostname\":\"h\","             \
    "\"cpu\":\"" cpu "\",\"omp_threads\":" threads "},\"devices\":[{\"backend\":\"openmp\",\"name\":\"" cpu "\"}" gpu  \
    "]}"
#define GPU(name) ",{\"backend\":\"opencl\",\"name\":\"" name "\"}"
#define REC(id, kernel, status, samples)                                                                               \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"stream\",\"kernel\":\"" kernel       \
    "\",\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"CPU\",\"precision\":\"double\","              \
    "\"params\":{},\"status\":\"" status "\",\"stats\":{\"samples_s\":[" samples "],\"median_s\":1}}"
#define FAST "1.00,1.01,0.99,1.00,1.02,0.98,1.01,0.99"
#define SLOW "1.30,1.31,1.29,1.30,1.32,1.28,1.31,1.29"

static fb_results_set *load(const char *name, const char *const *lines)
{
    char path[256];
    fb_results_set *set = NULL;
    snprintf(path, sizeof path, "/tmp/fb-test-compare-%ld-%s", (long)getpid(), name);
    FILE *f = fopen(path, "w");
    for (int i = 0; lines[i]; ++i)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    unlink(path);
    return set;
}

static void test_compare_sets(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "copy", "ok", FAST), REC("b", "triad", "ok", FAST),
                          REC("b", "add", "ok", FAST), REC("b", "mul", "ok", FAST),  NULL};
    const char *next[] = {HEADER("n", "CPU", "", "1"),   REC("n", "copy", "ok", FAST),
                          REC("n", "triad", "ok", SLOW), REC("n", "add", "wrong-result", FAST),
                          REC("n", "scale", "ok", FAST), NULL};
    fb_results_set *b = load("base.jsonl", base), *n = load("new.jsonl", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(fb_compare_machines(b, n, f), FB_OK); /* thread count: a note, not a refusal */
    assert_int_equal(fb_compare_sets(b, n, &opt, f, &s), FB_OK);
    fclose(f);
    assert_int_equal(s.same, 1);
    assert_int_equal(s.slower, 1);
    assert_int_equal(s.faster, 0);
    assert_int_equal(s.wrong, 1);   /* add */
    assert_int_equal(s.missing, 1); /* mul */
    assert_int_equal(s.failed, 0);
    assert_int_equal(s.only_new, 1); /* scale: informational */
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    assert_non_null(strstr(out, "note: host.omp_threads differs"));
    assert_non_null(strstr(out, "SLOWER"));
    assert_non_null(strstr(out, "wrong-result"));
    assert_non_null(strstr(out, "\nWRONG "));
    assert_non_null(strstr(out, "\nMISSING "));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

static void test_repeated_runs_pool(void **state)
{
    (void)state;
    /* BASE: the same code twice, 1.0 and 1.3: a later 1.3 is within that noise */
    const char *base[] = {HEADER("b1", "CPU", "", "2"), REC("b1", "triad", "ok", FAST), HEADER("b2", "CPU", "", "2"),
                          REC("b2", "triad", "ok", SLOW), NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "triad", "ok", SLOW), NULL};
    fb_results_set *b = load("base2.jsonl", base), *n = load("new2.jsonl", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[4096] = "";
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(fb_compare_sets(b, n, &opt, f, &s), FB_OK);
    fclose(f);
    assert_int_equal(s.same, 1);
    assert_non_null(strstr(out, "16/8 samples, 2x1 runs"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

#define RUN(id, samples) HEADER(id, "CPU", "", "2"), REC(id, "triad", "ok", samples)
#define SLOWER_B "1.40,1.41,1.39,1.40,1.42,1.38,1.41,1.39"

/* Five runs a side: the test runs on run medians. BASE's runs are bimodal
 * (1.0 or 1.3, a shared machine), NEW's are all slower than any of them. */
static void test_enough_runs_test_run_medians(void **state)
{
    (void)state;
    const char *base[] = {RUN("b1", FAST), RUN("b2", SLOW), RUN("b3", FAST), RUN("b4", FAST), RUN("b5", SLOW), NULL};
    const char *same[] = {RUN("s1", SLOW), RUN("s2", FAST), RUN("s3", FAST), RUN("s4", SLOW), RUN("s5", FAST), NULL};
    const char *slow[] = {RUN("n1", SLOWER_B), RUN("n2", SLOWER_B), RUN("n3", SLOWER_B),
                          RUN("n4", SLOWER_B), RUN("n5", SLOWER_B), NULL};
    fb_results_set *b = load("b5", base), *s = load("s5", same), *n = load("n5", slow);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary sum;
    char out[4096] = "";
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(fb_compare_sets(b, s, &opt, f, &sum), FB_OK);
    assert_int_equal(sum.same, 1);
    assert_int_equal(fb_compare_sets(b, n, &opt, f, &sum), FB_OK);
    assert_int_equal(sum.slower, 1); /* +40 %, every NEW run above every BASE run: p = 2/252 */
    fclose(f);
    assert_non_null(strstr(out, "5x5 runs"));
    fb_results_set_free(b);
    fb_results_set_free(s);
    fb_results_set_free(n);
}

static void test_machine_check(void **state)
{
    (void)state;
    const char *a[] = {HEADER("a", "CPU", GPU("GPU A"), "2"), REC("a", "copy", "ok", FAST), NULL};
    const char *cpu[] = {HEADER("c", "Other CPU", GPU("GPU A"), "2"), REC("c", "copy", "ok", FAST), NULL};
    const char *gpu[] = {HEADER("g", "CPU", GPU("GPU B"), "2"), REC("g", "copy", "ok", FAST), NULL};
    const char *nogpu[] = {HEADER("x", "CPU", "", "2"), REC("x", "copy", "ok", FAST), NULL};
    fb_results_set *sa = load("a", a), *sc = load("c", cpu), *sg = load("g", gpu), *sx = load("x", nogpu);
    FILE *null = fopen("/dev/null", "w");
    assert_int_equal(fb_compare_machines(sa, sc, null), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "different machines: BASE ran on CPU 'CPU', NEW on 'Other CPU'"));
    assert_int_equal(fb_compare_machines(sa, sg, null), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "opencl device 'GPU A'"));
    assert_int_equal(fb_compare_machines(sa, sx, null), FB_OK); /* a backend missing is not another machine */
    fclose(null);
    fb_results_set_free(sa);
    fb_results_set_free(sc);
    fb_results_set_free(sg);
    fb_results_set_free(sx);
}

static void test_nothing_in_common(void **state)
{
    (void)state;
    const char *a[] = {HEADER("a", "CPU", "", "2"), REC("a", "copy", "ok", FAST), NULL};
    const char *b[] = {HEADER("b", "CPU", "", "2"), REC("b", "triad", "ok", FAST), NULL};
    fb_results_set *sa = load("a", a), *sb = load("b", b);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    FILE *null = fopen("/dev/null", "w");
    assert_int_equal(fb_compare_sets(sa, sb, &opt, null, &s), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "nothing to compare"));
    fclose(null);
    fb_results_set_free(sa);
    fb_results_set_free(sb);
}

#define RECP(id, kernel, status, params, extra, samples)                                                               \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"spmv\",\"kernel\":\"" kernel         \
    "\",\"backend\":\"opencl\",\"device\":\"opencl:0.0\",\"device_name\":\"GPU\",\"precision\":\"double\","            \
    "\"matrix\":{\"name\":\"m\",\"hash\":\"h1\"},\"params\":{" params "},\"status\":\"" status "\"" extra              \
    ",\"stats\":{\"samples_s\":[" samples "],\"median_s\":1}}"

/* Runs fb_compare_sets into `out` (text) and returns its status. */
static fb_status compare_into(fb_results_set *b, fb_results_set *n, const fb_compare_options *opt,
                              fb_compare_summary *s, char *out, size_t len)
{
    FILE *f = fmemopen(out, len, "w");
    fb_status st = fb_compare_sets(b, n, opt, f, s);
    fclose(f);
    return st;
}

/* Issue "compare as a CI gate": every NEW record wrong exited 0. */
static void test_wrong_fails_gate(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "copy", "ok", FAST), REC("b", "triad", "ok", FAST),
                          NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "copy", "wrong-result", FAST),
                          REC("n", "triad", "wrong-result", FAST), NULL};
    fb_results_set *b = load("bw", base), *n = load("nw", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.wrong, 2);
    assert_int_equal(s.same + s.slower + s.faster, 0);
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    assert_non_null(strstr(out, "WRONG "));
    opt.allow_wrong = 1;
    assert_int_equal(fb_compare_gate(&s, &opt), 0);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* NEW lacking most of BASE's configurations exited 0. */
static void test_missing_fails_gate(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "copy", "ok", FAST), REC("b", "triad", "ok", FAST),
                          REC("b", "add", "ok", FAST), NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "copy", "ok", FAST), REC("n", "scale", "ok", FAST),
                          NULL};
    fb_results_set *b = load("bm", base), *n = load("nm", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.same, 1);
    assert_int_equal(s.missing, 2);
    assert_int_equal(s.only_new, 1); /* new is information, not a failure */
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    assert_non_null(strstr(out, "kernel differs: triad vs"));
    opt.allow_missing = 1;
    assert_int_equal(fb_compare_gate(&s, &opt), 0);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* The same configuration from `spmv` and from a sweep pairs. */
static void test_suite_and_case_do_not_split_pairs(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", GPU("GPU"), "2"), RECP("b", "csr", "ok", "\"WG_SIZE\":128", "", FAST),
                          NULL};
    const char *next[] = {HEADER("n", "CPU", GPU("GPU"), "2"),
                          RECP("n", "csr", "ok", "\"WG_SIZE\":128", ",\"suite\":\"s.json\",\"case\":\"c\"", FAST),
                          NULL};
    fb_results_set *b = load("bs", base), *n = load("ns", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.same, 1);
    assert_int_equal(s.missing + s.only_new, 0);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* A changed default: nothing to compare, naming the parameter; --pair-by
 * kernel pairs them and says the parameters differ. */
static void test_pair_by_kernel(void **state)
{
    (void)state;
    /* two runs of BASE's setting: repetitions, still one setting */
    const char *base[] = {
        HEADER("b", "CPU", GPU("GPU"), "2"), RECP("b", "csr", "ok", "\"WG_SIZE\":128,\"R\":1", "", FAST),
        HEADER("b2", "CPU", GPU("GPU"), "2"), RECP("b2", "csr", "ok", "\"WG_SIZE\":128,\"R\":1", "", FAST), NULL};
    const char *next[] = {HEADER("n", "CPU", GPU("GPU"), "2"),
                          RECP("n", "csr", "ok", "\"WG_SIZE\":256,\"R\":1", "", SLOW), NULL};
    fb_results_set *b = load("bk", base), *n = load("nk", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "nothing to compare"));
    assert_non_null(strstr(out, "params differ: WG_SIZE 128 vs 256"));
    opt.pair_by = FB_PAIR_KERNEL;
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.slower, 1);
    assert_int_equal(s.missing + s.only_new, 0);
    assert_non_null(strstr(out, "paired by kernel, params differ: WG_SIZE 128 vs 256"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        ++n;
    return n;
}

/* JUnit: a testcase per configuration, failures for SLOWER, WRONG and
 * MISSING with the numbers, text escaped. */
/* A learned A/A floor: the same +30 % is INCONCLUSIVE under a 50 % floor
 * and SLOWER under a 20 % one; --learn-noise hands back each change's size. */
static void test_learned_floor(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "triad", "ok", FAST), NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "triad", "ok", SLOW), NULL};
    fb_results_set *b = load("bl", base), *n = load("nl", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[4096] = "";
    json_t *floors = json_object(), *floor = json_pack("{s:f, s:i}", "floor", 0.5, "n", 4);
    opt.learned = json_object();
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.slower, 1);
    assert_int_equal(json_object_size(opt.learned), 1);
    void *only = json_object_iter(opt.learned);
    assert_float_equal(json_real_value(json_object_iter_value(only)), 0.3, 1e-9);
    json_object_set(floors, json_object_iter_key(only), floor);
    opt.noise = floors;
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.inconclusive, 1);
    assert_int_equal(fb_compare_gate(&s, &opt), 0);
    assert_non_null(strstr(out, "\nINCONCLUSIVE "));
    assert_non_null(strstr(out, "50.0%A"));
    json_object_set_new(floor, "floor", json_real(0.2));
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.slower, 1);
    json_decref(floor);
    json_decref(floors);
    json_decref(opt.learned);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

#define T140 "1.40,1.41,1.39,1.40,1.42,1.38,1.41,1.39"
#define T150 "1.50,1.51,1.49,1.50,1.52,1.48,1.51,1.49"
#define T200 "2.00,2.01,1.99,2.00,2.02,1.98,2.01,1.99"

/* Three runs a side, medians 1, 1, 1.5 against 1.4, 2, 2: +100 % is beyond
 * either side's spread (50 %, 43 %), but NEW's fastest run is faster than
 * BASE's slowest, so the runs cannot tell the code from the machine. */
static void test_overlapping_runs_are_inconclusive(void **state)
{
    (void)state;
    const char *base[] = {RUN("b1", FAST), RUN("b2", FAST), RUN("b3", T150), NULL};
    const char *next[] = {RUN("n1", T140), RUN("n2", T200), RUN("n3", T200), NULL};
    const char *apart[] = {RUN("a1", T200), RUN("a2", T200), RUN("a3", T200), NULL};
    fb_results_set *b = load("bo", base), *n = load("no", next), *a = load("ao", apart);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[4096] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.inconclusive, 1);
    assert_non_null(strstr(out, "the runs overlap"));
    assert_int_equal(compare_into(b, a, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.slower, 1); /* +100 %, every NEW run above every BASE run */
    fb_results_set_free(b);
    fb_results_set_free(n);
    fb_results_set_free(a);
}

/* A | in a label would split the markdown row into extra cells. */
static void test_markdown_escapes_bars(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "a|b", "ok", FAST), NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "a|b", "ok", FAST), NULL};
    fb_results_set *b = load("bm", base), *n = load("nm", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[4096] = "";
    opt.markdown = 1;
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_non_null(strstr(out, "a\\|b"));
    assert_null(strstr(out, " a|b"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

static void test_junit(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"),
                          REC("b", "copy", "ok", FAST),
                          REC("b", "triad", "ok", FAST),
                          REC("b", "add", "ok", FAST),
                          REC("b", "mul", "ok", FAST),
                          REC("b", "a<b&c", "ok", FAST),
                          NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"),   REC("n", "copy", "ok", FAST),
                          REC("n", "triad", "ok", SLOW), REC("n", "add", "wrong-result", FAST),
                          REC("n", "a<b&c", "ok", FAST), NULL};
    fb_results_set *b = load("bj", base), *n = load("nj", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "", xml[8192] = "";
    opt.junit = fmemopen(xml, sizeof xml, "w");
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    fclose(opt.junit);
    assert_non_null(strstr(xml, "<?xml version=\"1.0\""));
    assert_non_null(strstr(xml, "tests=\"5\" failures=\"3\""));
    assert_int_equal(count(xml, "<testcase "), 5);
    assert_int_equal(count(xml, "<failure "), 3);
    assert_non_null(strstr(xml, "classname=\"stream/triad\""));
    assert_non_null(strstr(xml, "type=\"SLOWER\" message=\"SLOWER: median 1 s -&gt; 1.3 s (+30.0%"));
    assert_non_null(strstr(xml, "type=\"WRONG\""));
    assert_non_null(strstr(xml, "type=\"MISSING\""));
    assert_non_null(strstr(xml, "classname=\"stream/a&lt;b&amp;c\""));
    assert_null(strstr(xml, "a<b"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mw_exact_small),
        cmocka_unit_test(test_mw_exact_is_symmetric_and_bounded),
        cmocka_unit_test(test_mw_ties_normal_approximation),
        cmocka_unit_test(test_mw_all_equal),
        cmocka_unit_test(test_mw_large_separated),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_significant_but_small_is_same),
        cmocka_unit_test(test_noise_floor),
        cmocka_unit_test(test_change_size_is_symmetric),
        cmocka_unit_test(test_learned_floor),
        cmocka_unit_test(test_overlapping_runs_are_inconclusive),
        cmocka_unit_test(test_markdown_escapes_bars),
        cmocka_unit_test(test_compare_sets),
        cmocka_unit_test(test_repeated_runs_pool),
        cmocka_unit_test(test_enough_runs_test_run_medians),
        cmocka_unit_test(test_machine_check),
        cmocka_unit_test(test_nothing_in_common),
        cmocka_unit_test(test_wrong_fails_gate),
        cmocka_unit_test(test_missing_fails_gate),
        cmocka_unit_test(test_suite_and_case_do_not_split_pairs),
        cmocka_unit_test(test_pair_by_kernel),
        cmocka_unit_test(test_junit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
