/* test_compare.c - Mann-Whitney U against values worked out by hand, the
 * SAME/FASTER/SLOWER rule on constructed samples (equal, shifted, noisy,
 * too few), the between-run noise floor, pairing and the machine check;
 * on a shared machine: contended and unstable records, the floor's cap,
 * and the interleaved rounds' ratio verdict (results/gate/interleave.h). */
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

#include "results/gate/compare.h"
#include "results/gate/interleave.h"

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
    opt.floor_cap = 0.6; /* a 50 % floor is above the default cap: cannot gate (test_floor_above_cap) */
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

/* ---- a shared machine ------------------------------------------------------- */

#define RECQ(id, kernel, status, quality, why, samples)                                                                \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"stream\",\"kernel\":\"" kernel       \
    "\",\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"CPU\",\"precision\":\"double\","              \
    "\"params\":{},\"status\":\"" status "\",\"stats\":{\"samples_s\":[" samples                                       \
    "],\"median_s\":1,\"quality\":\"" quality "\",\"quality_why\":" why "}}"
#define BUSY                                                                                                           \
    "\"CV 45%, min 0.65 ms, median 3.59 ms: this run's threads waited for a CPU 34% of the time, with up to 2 other "  \
    "runnable tasks on 2 CPUs, 2 used by this run\""
#define SPREAD "\"CV 25%, min 0.0325 ms, median 0.0374 ms, interquartile range 32% of the median\""

/* Issue "a gate that survives a busy runner": +30 % measured while other
 * work took the CPUs was SLOWER. Now it is INCONCLUSIVE with the reason,
 * counted apart; SAME and WRONG are what they were. */
static void test_contended_is_inconclusive(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"),
                          RECQ("b", "triad", "ok", "stable", "null", FAST),
                          RECQ("b", "copy", "ok", "unstable", SPREAD, FAST),
                          RECQ("b", "add", "ok", "stable", "null", FAST),
                          RECQ("b", "mul", "ok", "stable", "null", FAST),
                          NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"),
                          RECQ("n", "triad", "ok", "contended", BUSY, SLOW),
                          RECQ("n", "copy", "ok", "stable", "null", SLOW),
                          RECQ("n", "add", "ok", "contended", BUSY, FAST),
                          RECQ("n", "mul", "wrong-result", "contended", BUSY, SLOW),
                          NULL};
    fb_results_set *b = load("bq", base), *n = load("nq", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "", xml[8192] = "";
    opt.junit = fmemopen(xml, sizeof xml, "w");
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    fclose(opt.junit);
    assert_int_equal(s.slower, 0);    /* triad (NEW contended) and copy (BASE unstable) */
    assert_int_equal(s.unsettled, 2); /* counted apart from INCONCLUSIVE inside the noise */
    assert_int_equal(s.inconclusive, 0);
    assert_int_equal(s.same, 1);  /* add: no change, contended or not */
    assert_int_equal(s.wrong, 1); /* mul: a wrong result outranks the machine */
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    assert_non_null(strstr(out, "NEW contended, line 2: CV 45%, min 0.65 ms, median 3.59 ms: this run's threads"));
    assert_non_null(strstr(out, "...")); /* the reason is cut short */
    assert_non_null(strstr(out, "BASE unstable, line 3: CV 25%"));
    assert_non_null(strstr(out, "SLOWER not trusted: BASE 0 of 1 runs, NEW 1 of 1 contended or unstable"));
    assert_non_null(strstr(out, "2 INCONCLUSIVE because a run was contended or unstable"));
    assert_non_null(strstr(xml, "type=\"INCONCLUSIVE\" message=\"INCONCLUSIVE: median 1 s -&gt; 1.3 s (+30.0%"));
    assert_non_null(strstr(xml, "; NEW contended, line 2: CV 45%"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* Pooled runs: one contended run of three is enough to distrust the pair. */
static void test_one_contended_run_of_several(void **state)
{
    (void)state;
    const char *base[] = {RUN("b1", FAST), RUN("b2", FAST), RUN("b3", FAST), NULL};
    const char *next[] = {HEADER("n1", "CPU", "", "2"),
                          RECQ("n1", "triad", "ok", "stable", "null", T200),
                          HEADER("n2", "CPU", "", "2"),
                          RECQ("n2", "triad", "ok", "contended", BUSY, T200),
                          HEADER("n3", "CPU", "", "2"),
                          RECQ("n3", "triad", "ok", "stable", "null", T200),
                          NULL};
    fb_results_set *b = load("b3q", base), *n = load("n3q", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.unsettled, 1);
    assert_int_equal(s.slower, 0);
    assert_non_null(strstr(out, "NEW contended, line 4:"));
    assert_non_null(strstr(out, "NEW 1 of 3 contended or unstable"));
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* A floor above the cap: never SAME or SLOWER, even at +100 % or at no
 * change at all; said per configuration and counted apart. */
static void test_floor_above_cap(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), REC("b", "triad", "ok", FAST), REC("b", "copy", "ok", FAST),
                          NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), REC("n", "triad", "ok", T200), REC("n", "copy", "ok", FAST),
                          NULL};
    fb_results_set *b = load("bc", base), *n = load("nc", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    json_t *floors = json_object();
    for (int i = 0; i < b->nrecords; ++i) {
        char *key = fb_measured_key(b->records[i].json, FB_KEY_PARAMS | FB_KEY_FILE);
        json_object_set_new(floors, key, json_pack("{s:f, s:i}", "floor", 0.3, "n", 5));
        free(key);
    }
    opt.noise = floors;
    assert_float_equal(opt.floor_cap, FB_COMPARE_FLOOR_CAP, 0);
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.slower + s.same + s.inconclusive, 0);
    assert_int_equal(s.cannot_gate, 2);
    assert_int_equal(fb_compare_gate(&s, &opt), 0);
    assert_non_null(strstr(out, "cannot gate on this machine (A/A noise 30.0%: the floor learned from 5 A/A"));
    assert_non_null(strstr(out, "2 INCONCLUSIVE because this machine cannot gate them"));
    json_object_set_new(json_object_iter_value(json_object_iter(floors)), "floor", json_real(0.2));
    json_object_set_new(json_object_iter_value(json_object_iter_next(floors, json_object_iter(floors))), "floor",
                        json_real(0.2));
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(s.cannot_gate, 0); /* under the cap: judged as before */
    assert_int_equal(s.slower, 1);
    assert_int_equal(s.same, 1);
    json_decref(floors);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

/* --learn-noise: a pair with a contended or unstable run is left out. */
static void test_learning_skips_unsettled_pairs(void **state)
{
    (void)state;
    const char *base[] = {HEADER("b", "CPU", "", "2"), RECQ("b", "triad", "ok", "stable", "null", FAST),
                          RECQ("b", "copy", "ok", "stable", "null", FAST), NULL};
    const char *next[] = {HEADER("n", "CPU", "", "2"), RECQ("n", "triad", "ok", "contended", BUSY, SLOW),
                          RECQ("n", "copy", "ok", "stable", "null", FAST), NULL};
    fb_results_set *b = load("bn", base), *n = load("nn", next);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    opt.learned = json_object();
    assert_int_equal(compare_into(b, n, &opt, &s, out, sizeof out), FB_OK);
    assert_int_equal(json_object_size(opt.learned), 1);
    assert_int_equal(s.not_learned, 1);
    assert_non_null(strstr(json_object_iter_key(json_object_iter(opt.learned)), "|copy|"));
    json_decref(opt.learned);
    fb_results_set_free(b);
    fb_results_set_free(n);
}

static void test_shorten(void **state)
{
    (void)state;
    char buf[64];
    fb_compare_shorten("short", 20, buf, sizeof buf);
    assert_string_equal(buf, "short");
    fb_compare_shorten("CV 45%, min 0.65 ms, median 3.59 ms: waited", 24, buf, sizeof buf);
    assert_string_equal(buf, "CV 45%, min 0.65 ms...");
    fb_compare_shorten("abcdefghijklmnopqrstuvwxyz", 10, buf, sizeof buf);
    assert_string_equal(buf, "abcdefghij...");
}

/* ---- interleaved rounds ------------------------------------------------------ */

static void test_sign_test(void **state)
{
    (void)state;
    assert_float_equal(fb_sign_test_p(5, 5), 1.0 / 32, 1e-12);
    assert_float_equal(fb_sign_test_p(7, 8), 9.0 / 256, 1e-12);
    assert_float_equal(fb_sign_test_p(4, 5), 6.0 / 32, 1e-12);
    assert_float_equal(fb_sign_test_p(0, 5), 1, 0);
    assert_float_equal(fb_sign_test_p(0, 0), 1, 0);
    assert_true(fb_sign_test_p(1000, 1000) > 0); /* no underflow to a false 0 */
    assert_int_equal(fb_interleave_min_rounds(0.05), 5);
    assert_int_equal(fb_interleave_min_rounds(0.01), 7);
}

static fb_verdict ratio_verdict(const double *r, int n)
{
    return fb_interleave_judge(r, n, 0.05, FB_INTERLEAVE_ALPHA).verdict;
}

static void test_interleave_rule(void **state)
{
    (void)state;
    const double slow[] = {1.52, 1.47, 1.55, 1.49, 1.51};
    const double fast[] = {0.66, 0.68, 0.65, 0.7, 0.67};
    const double aa[] = {0.97, 1.02, 1.01, 0.99, 1.03};
    const double aa_wild[] = {0.98, 1.02, 3.0, 0.99, 1.01};                   /* one round hit by a burst of load */
    const double slow_wild[] = {1.5, 1.45, 1.52, 0.6, 1.48, 1.55, 1.5, 1.47}; /* one wild round of 8 */
    const double disagree[] = {1.5, 0.8, 1.4, 0.9, 1.3};
    const double few[] = {1.5, 1.5, 1.5, 1.5};
    fb_ratio_verdict v = fb_interleave_judge(slow, 5, 0.05, 0.05);
    assert_int_equal(v.verdict, FB_SLOWER);
    assert_int_equal(v.above, 5);
    assert_float_equal(v.median, 1.51, 1e-12);
    assert_float_equal(v.p, 1.0 / 32, 1e-12);
    assert_float_equal(v.lo, 1.47, 0);
    assert_float_equal(v.hi, 1.55, 0);
    assert_int_equal(ratio_verdict(fast, 5), FB_FASTER);
    assert_int_equal(ratio_verdict(aa, 5), FB_SAME);
    assert_int_equal(ratio_verdict(aa_wild, 5), FB_SAME);     /* the wild round does not make it SLOWER */
    assert_int_equal(ratio_verdict(slow_wild, 8), FB_SLOWER); /* nor hide a real slowdown */
    assert_int_equal(ratio_verdict(disagree, 5), FB_INCONCLUSIVE);
    assert_int_equal(ratio_verdict(few, 4), FB_INCONCLUSIVE); /* 4 rounds cannot reach 0.05 */
    assert_int_equal(ratio_verdict(aa, 0), FB_INCONCLUSIVE);
    assert_int_equal(fb_interleave_judge(slow, 5, 0.6, 0.05).verdict, FB_SAME); /* +51 % under a 60 % threshold */
}

#define ROUND(id, samples, quality, why)                                                                               \
    HEADER(id, "CPU", "", "2"), RECQ(id, "triad", "ok", quality, why, samples),                                        \
        RECQ(id, "copy", "ok", "stable", "null", FAST)

/* Six rounds: NEW's triad 1.3x BASE's in each, three rounds contended on
 * one side or the other; copy the same on both sides. Contention does not
 * block the interleaved verdict. Five rounds of two configurations do not
 * survive the false-discovery control (p 1/32 > 0.05 / 2), three cannot
 * reach alpha at all. */
static void test_interleave_sets(void **state)
{
    (void)state;
    const char *b1[] = {ROUND("b1", FAST, "contended", BUSY), NULL},
               *n1[] = {ROUND("n1", SLOW, "stable", "null"), NULL};
    const char *b2[] = {ROUND("b2", FAST, "stable", "null"), NULL},
               *n2[] = {ROUND("n2", SLOW, "contended", BUSY), NULL};
    const char *b3[] = {ROUND("b3", SLOW, "contended", BUSY), NULL}; /* the whole round slower: the ratio is 1.3 */
    const char *n3[] = {ROUND("n3", "1.69,1.70,1.68,1.69,1.71,1.67,1.70,1.68", "stable", "null"), NULL};
    const char *b4[] = {ROUND("b4", FAST, "stable", "null"), NULL}, *n4[] = {ROUND("n4", SLOW, "stable", "null"), NULL};
    const char *b5[] = {ROUND("b5", FAST, "stable", "null"), NULL}, *n5[] = {ROUND("n5", SLOW, "stable", "null"), NULL};
    const char *b6[] = {ROUND("b6", FAST, "stable", "null"), NULL}, *n6[] = {ROUND("n6", SLOW, "stable", "null"), NULL};
    const char *const *bl[] = {b1, b2, b3, b4, b5, b6}, *const * nl[] = {n1, n2, n3, n4, n5, n6};
    fb_results_set *bs[6], *ns[6];
    char name[32], out[8192] = "", xml[8192] = "";
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    for (int r = 0; r < 6; ++r) {
        snprintf(name, sizeof name, "ib%d", r);
        bs[r] = load(name, bl[r]);
        snprintf(name, sizeof name, "in%d", r);
        ns[r] = load(name, nl[r]);
    }
    opt.alpha = FB_INTERLEAVE_ALPHA;
    opt.junit = fmemopen(xml, sizeof xml, "w");
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(fb_interleave_sets(bs, ns, 6, &opt, f, &s), FB_OK);
    fclose(f);
    fclose(opt.junit);
    assert_int_equal(s.slower, 1);
    assert_int_equal(s.same, 1);
    assert_int_equal(s.unsettled, 1); /* triad had contended rounds: counted, not excluded */
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    assert_non_null(strstr(out, "\nSLOWER "));
    assert_non_null(strstr(out, "6/0 of 6"));
    assert_non_null(strstr(out, "3 of 6"));
    /* the verdict says it was taken under load, in how many rounds */
    assert_non_null(strstr(out, "\n             SLOWER under load: 3 of 6 rounds contended, 3 quiet\n"));
    assert_non_null(strstr(out, "1 configuration judged under load"));
    assert_null(strstr(out, "ran with other settings")); /* records without environment: nothing to tell */
    assert_non_null(strstr(xml, "SLOWER under load: 3 of 6 rounds contended, 3 quiet: median ratio 1.3 (+30.0%, "
                                "threshold 5%) over 6 interleaved rounds: 6 above 1"));
    /* five rounds: p 1/32 passes alpha alone, not over two configurations */
    f = fmemopen(out, sizeof out, "w");
    opt.junit = NULL;
    assert_int_equal(fb_interleave_sets(bs, ns, 5, &opt, f, &s), FB_OK);
    fclose(f);
    assert_int_equal(s.slower, 0);
    assert_int_equal(s.inconclusive, 1);
    assert_non_null(strstr(out, "does not survive the false-discovery control over 2 configurations"));
    /* three rounds cannot reach alpha: never SLOWER, and the table says why */
    f = fmemopen(out, sizeof out, "w");
    opt.junit = NULL;
    assert_int_equal(fb_interleave_sets(bs, ns, 3, &opt, f, &s), FB_OK);
    fclose(f);
    assert_int_equal(s.slower, 0);
    assert_int_equal(s.inconclusive, 1);
    assert_non_null(strstr(out, "3 rounds cannot reach p <= 0.05"));
    for (int r = 0; r < 6; ++r) {
        fb_results_set_free(bs[r]);
        fb_results_set_free(ns[r]);
    }
}

/* One configuration, its record of a round with an environment: OpenMP
 * threads, and the variables in force. */
#define RECE(id, samples, quality, threads, vars)                                                                      \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"stream\",\"kernel\":\"triad\","      \
    "\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"CPU\",\"precision\":\"double\","                 \
    "\"params\":{},\"status\":\"ok\",\"stats\":{\"samples_s\":[" samples "],\"median_s\":1,\"quality\":\"" quality     \
    "\"},\"environment\":{\"contended\":false,\"openmp\":{\"threads\":" threads ",\"proc_bind\":\"false\","            \
    "\"places\":0,\"wait\":{\"policy\":\"passive\"},\"variables\":{" vars "}},\"pocl\":{\"variables\":{}}}}"

/* Runs sets[r] of rounds rounds of BASE against NEW; the table in out,
 * the JUnit XML in xml. */
static void interleave_into(fb_results_set **bs, fb_results_set **ns, int rounds, char *out, size_t len, char *xml,
                            size_t xml_len, fb_compare_summary *s)
{
    fb_compare_options opt = fb_compare_defaults();
    opt.alpha = FB_INTERLEAVE_ALPHA;
    opt.junit = fmemopen(xml, xml_len, "w");
    FILE *f = fmemopen(out, len, "w");
    assert_int_equal(fb_interleave_sets(bs, ns, rounds, &opt, f, s), FB_OK);
    fclose(f);
    fclose(opt.junit);
}

/* A 2-thread build against a 1-thread one beside a busy process: FASTER
 * in every round, every round contended. The verdict says it holds under
 * that load (the same pair was SLOWER +100% on the quiet machine), the
 * exit status is the verdict's, and the header names the threads. */
static void test_interleave_under_load_and_settings(void **state)
{
    (void)state;
    fb_results_set *bs[6], *ns[6];
    char name[32], out[8192] = "", xml[8192] = "";
    fb_compare_summary s;
    const fb_compare_options defaults = fb_compare_defaults();
    for (int r = 0; r < 6; ++r) {
        const char *b[] = {HEADER("b", "CPU", "", "1"), RECE("b", SLOW, "contended", "1", "\"OMP_NUM_THREADS\":\"1\""),
                           NULL};
        const char *n[] = {HEADER("n", "CPU", "", "2"),
                           RECE("n", FAST, "contended", "2", "\"OMP_NUM_THREADS\":\"2\",\"GOMP_SPINCOUNT\":\"0\""),
                           NULL};
        snprintf(name, sizeof name, "lb%d", r);
        bs[r] = load(name, b);
        snprintf(name, sizeof name, "ln%d", r);
        ns[r] = load(name, n);
    }
    interleave_into(bs, ns, 6, out, sizeof out, xml, sizeof xml, &s);
    assert_int_equal(s.faster, 1);
    assert_int_equal(s.unsettled, 1);
    assert_int_equal(fb_compare_gate(&s, &defaults), 0); /* FASTER passes, under load or not */
    assert_non_null(strstr(out, "\n             FASTER under load: 6 of 6 rounds contended\n"));
    assert_non_null(strstr(out, "NEW ran with other settings than BASE (their records' environment):\n"
                                "  OpenMP threads: BASE 1, NEW 2\n"
                                "  GOMP_SPINCOUNT: BASE (unset), NEW 0\n"
                                "  OMP_NUM_THREADS: BASE 1, NEW 2\n\n"));
    assert_null(strstr(out, "wait policy")); /* the same on both sides: not named */
    assert_non_null(strstr(xml, "<system-out>FASTER under load: 6 of 6 rounds contended: median ratio"));
    assert_non_null(strstr(xml, "<property name=\"NEW's settings differ\" value=\"OpenMP threads: BASE 1, NEW 2\"/>"));
    for (int r = 0; r < 6; ++r) {
        fb_results_set_free(bs[r]);
        fb_results_set_free(ns[r]);
    }
}

/* A wrong result in any round is WRONG; a configuration NEW never measured is MISSING. */
static void test_interleave_wrong_and_missing(void **state)
{
    (void)state;
    const char *b1[] = {HEADER("b1", "CPU", "", "2"), REC("b1", "triad", "ok", FAST), REC("b1", "copy", "ok", FAST),
                        NULL};
    const char *n1[] = {HEADER("n1", "CPU", "", "2"), REC("n1", "triad", "ok", FAST), NULL};
    const char *b2[] = {HEADER("b2", "CPU", "", "2"), REC("b2", "triad", "ok", FAST), REC("b2", "copy", "ok", FAST),
                        NULL};
    const char *n2[] = {HEADER("n2", "CPU", "", "2"), REC("n2", "triad", "wrong-result", FAST), NULL};
    fb_results_set *bs[2] = {load("wb1", b1), load("wb2", b2)}, *ns[2] = {load("wn1", n1), load("wn2", n2)};
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    char out[8192] = "";
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(fb_interleave_sets(bs, ns, 2, &opt, f, &s), FB_OK);
    fclose(f);
    assert_int_equal(s.wrong, 1);
    assert_int_equal(s.missing, 1);
    assert_non_null(strstr(out, "NEW round 2 line 2: wrong-result"));
    assert_non_null(strstr(out, "NEW has no record of it in any round"));
    for (int r = 0; r < 2; ++r) {
        fb_results_set_free(bs[r]);
        fb_results_set_free(ns[r]);
    }
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
        cmocka_unit_test(test_contended_is_inconclusive),
        cmocka_unit_test(test_one_contended_run_of_several),
        cmocka_unit_test(test_floor_above_cap),
        cmocka_unit_test(test_learning_skips_unsettled_pairs),
        cmocka_unit_test(test_shorten),
        cmocka_unit_test(test_sign_test),
        cmocka_unit_test(test_interleave_rule),
        cmocka_unit_test(test_interleave_sets),
        cmocka_unit_test(test_interleave_wrong_and_missing),
        cmocka_unit_test(test_interleave_under_load_and_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
