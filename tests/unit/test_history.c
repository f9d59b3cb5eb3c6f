/* test_history.c - the CI history (results/history/history_store.h,
 * history_detect.h, compare_history.h): Welch's p against a value worked
 * out by hand; a planted step found at its commit, a flat series and one
 * wild run not taken for steps; the store refusing a run twice, keeping
 * every run of concurrent writers, and keeping unstable and contended runs
 * out of compare --history's baseline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/gate/compare_history.h"
#include "results/history/history_detect.h"
#include "results/history/history_store.h"

/* Deterministic noise in [-1, 1): the tests must not be flaky. */
static double noise(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

/* n times of 1 ms with relative noise rel, times 1 + step from index at on. */
static void series(double *v, int n, double rel, int at, double step, unsigned seed)
{
    for (int i = 0; i < n; ++i)
        v[i] = 1e-3 * (1 + rel * noise(&seed)) * (i >= at ? 1 + step : 1);
}

static void test_welch_by_hand(void **state)
{
    (void)state;
    /* means 3 and 8, variances 2.5: t = 5, df = 8; two-sided p = 0.001053 */
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    assert_float_equal(fb_welch_p(a, 5, b, 5, 0), 0.001053, 2e-6);
    assert_float_equal(fb_welch_p(a, 5, a, 5, 0), 1.0, 1e-12);
}

static void test_planted_step_found(void **state)
{
    (void)state;
    double v[30];
    fb_change_point cp[30];
    int n = 0;
    fb_detect_options opt = fb_detect_defaults();
    for (unsigned seed = 1; seed <= 20; ++seed) {
        series(v, 30, 0.01, 20, 0.10, seed);
        assert_int_equal(fb_detect_steps(v, 30, &opt, cp, &n), FB_OK);
        assert_int_equal(n, 1);
        assert_int_equal(cp[0].at, 20);
        assert_float_equal(cp[0].change, 0.10, 0.02);
        assert_true(cp[0].p < opt.alpha);
    }
    series(v, 30, 0.01, 12, -0.2, 99); /* a speed-up is a change point too, with a negative size */
    assert_int_equal(fb_detect_steps(v, 30, &opt, cp, &n), FB_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].at, 12);
    assert_true(cp[0].change < -0.15);
}

static void test_no_step_no_change_point(void **state)
{
    (void)state;
    double v[40];
    fb_change_point cp[40];
    int n = 0, total = 0;
    fb_detect_options opt = fb_detect_defaults();
    for (unsigned seed = 1; seed <= 50; ++seed) {
        series(v, 40, 0.02, 40, 0, seed);
        assert_int_equal(fb_detect_steps(v, 40, &opt, cp, &n), FB_OK);
        total += n;
    }
    assert_int_equal(total, 0);
    series(v, 40, 0.01, 40, 0, 7);
    v[25] *= 1.5; /* one wild run */
    assert_int_equal(fb_detect_steps(v, 40, &opt, cp, &n), FB_OK);
    assert_int_equal(n, 0);
    v[0] = -1;
    assert_int_equal(fb_detect_steps(v, 40, &opt, cp, &n), FB_ERR_INPUT);
}

/* ---- the store ------------------------------------------------------------- */

static char dir[] = "/tmp/fb-test-history-XXXXXX";

/* A results file of one run: a header and one stream triad record whose
 * five samples are about `ms` milliseconds, with stats.quality `quality`. */
static const char *write_run(const char *name, const char *run_id, double ms, const char *quality)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"type\":\"header\",\"schema\":1,\"run_id\":\"%s\",\"date\":\"2026-01-01T00:00:00Z\",\"command\":"
            "\"test\",\"host\":{\"cpu\":\"Test "
            "CPU\",\"logical_cpus\":2},\"devices\":[]}\n",
            run_id);
    fprintf(f,
            "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"%s\",\"benchmark\":\"stream\",\"kernel\":\"triad\","
            "\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"Test CPU\",\"precision\":\"double\","
            "\"params\":{\"n\":1000},\"status\":\"ok\",\"bytes\":24000,\"stats\":{\"median_s\":%g,"
            "\"samples_s\":[%g,%g,%g,%g,%g],"
            "\"quality\":\"%s\",\"quality_why\":\"%s\"}}\n",
            run_id, ms * 1e-3, ms * 0.99e-3, ms * 1e-3, ms * 1.01e-3, ms * 1e-3, ms * 1.005e-3, quality,
            strcmp(quality, "stable") ? "another process used the CPUs" : "");
    assert_int_equal(fclose(f), 0);
    return path;
}

static fb_history *open_fresh(const char *name)
{
    char path[256];
    fb_history *h = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    assert_int_equal(fb_history_open(path, 1, &h), FB_OK);
    return h;
}

static fb_status add_file(fb_history *h, const char *path, const char *commit, long long when)
{
    fb_results_set *set = NULL;
    fb_history_add_summary s;
    fb_history_run_info info = {.commit = commit, .branch = "main", .when = when};
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    fb_status status = fb_history_add(h, &set, 1, &info, &s);
    fb_results_set_free(set);
    return status;
}

static long long rows_of(fb_history *h)
{
    long long rows = -1;
    FILE *devnull = fopen("/dev/null", "w");
    assert_int_equal(fb_history_export_csv(h, devnull, &rows), FB_OK);
    fclose(devnull);
    return rows;
}

static void test_duplicate_run_refused(void **state)
{
    (void)state;
    fb_history *h = open_fresh("dup.db");
    const char *path = write_run("dup.jsonl", "r1", 1.0, "stable");
    assert_int_equal(add_file(h, path, "c1", 100), FB_OK);
    assert_int_equal(add_file(h, path, "c2", 200), FB_ERR_INPUT); /* the same records under another commit */
    assert_non_null(strstr(fb_error_message(), "already"));
    assert_int_equal(rows_of(h), 1);
    path = write_run("dup2.jsonl", "r2", 1.0, "stable"); /* a new run of the same commit is kept */
    assert_int_equal(add_file(h, path, "c1", 100), FB_OK);
    assert_int_equal(rows_of(h), 2);
    fb_history_close(h);
}

/* Four processes add five runs each to one database at once. */
static void test_concurrent_adds_keep_everything(void **state)
{
    (void)state;
    enum { WRITERS = 4, RUNS = 5 };
    fb_history *h = open_fresh("many.db");
    char db[256];
    snprintf(db, sizeof db, "%s", fb_history_path(h));
    fb_history_close(h);
    for (int w = 0; w < WRITERS; ++w) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid) continue;
        fb_history *mine = NULL;
        int failed = fb_history_open(db, 1, &mine) != FB_OK;
        for (int r = 0; r < RUNS && !failed; ++r) {
            char name[64], id[64];
            snprintf(name, sizeof name, "w%d-r%d.jsonl", w, r);
            snprintf(id, sizeof id, "writer%d-run%d", w, r);
            failed |= add_file(mine, write_run(name, id, 1.0 + 0.01 * r, "stable"), id, 100 + r) != FB_OK;
        }
        fb_history_close(mine);
        _exit(failed);
    }
    for (int w = 0; w < WRITERS; ++w) {
        int wstatus = 0;
        assert_true(wait(&wstatus) > 0);
        assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    }
    assert_int_equal(fb_history_open(db, 0, &h), FB_OK);
    assert_int_equal(rows_of(h), WRITERS * RUNS);
    fb_history_close(h);
}

/* Eight stable runs at 1 ms, then three contended ones at 2 ms: the
 * baseline holds only the stable ones, and NEW at 1 ms is SAME, not FASTER
 * than a baseline the contended runs would have dragged up. */
static void test_flagged_runs_stay_out_of_baseline(void **state)
{
    (void)state;
    fb_history *h = open_fresh("base.db");
    char name[64], id[64], machine[1024];
    double medians[FB_HISTORY_LOOKBACK];
    int n = 0;
    for (int r = 0; r < 11; ++r) {
        snprintf(name, sizeof name, "b%d.jsonl", r);
        snprintf(id, sizeof id, "base-%d", r);
        const char *q = r < 8 ? "stable" : r == 8 ? "unstable" : "contended";
        assert_int_equal(add_file(h, write_run(name, id, r < 8 ? 1.0 + 0.002 * r : 2.0, q), id, 100 + r), FB_OK);
    }
    fb_results_set *next = NULL;
    assert_int_equal(fb_results_load(write_run("new.jsonl", "new", 1.0, "stable"), &next), FB_OK);
    char *key = fb_measured_key(next->records[0].json, FB_KEY_PARAMS | FB_KEY_FILE);
    fb_history_machine(&next->records[0], machine, sizeof machine);
    assert_int_equal(fb_history_baseline(h, key, machine, NULL, FB_HISTORY_LOOKBACK, medians, &n), FB_OK);
    assert_int_equal(n, 8);
    for (int i = 0; i < n; ++i)
        assert_true(medians[i] < 1.1e-3);
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary s;
    FILE *devnull = fopen("/dev/null", "w");
    assert_int_equal(fb_compare_history(h, next, &opt, FB_HISTORY_LOOKBACK, devnull, &s), FB_OK);
    assert_int_equal(s.same, 1);
    assert_int_equal(s.faster + s.slower, 0);
    fb_results_set_free(next);
    assert_int_equal(fb_results_load(write_run("slow.jsonl", "slow", 1.3, "stable"), &next), FB_OK);
    assert_int_equal(fb_compare_history(h, next, &opt, FB_HISTORY_LOOKBACK, devnull, &s), FB_OK);
    assert_int_equal(s.slower, 1);
    assert_int_equal(fb_compare_gate(&s, &opt), 1);
    fclose(devnull);
    free(key);
    fb_results_set_free(next);
    fb_history_close(h);
}

static void test_not_a_history_refused(void **state)
{
    (void)state;
    char path[256];
    fb_history *h = NULL;
    snprintf(path, sizeof path, "%s/garbage.db", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, but long enough to look like a header of one. ............................", f);
    fclose(f);
    assert_int_equal(fb_history_open(path, 1, &h), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), path));
    snprintf(path, sizeof path, "%s/absent.db", dir);
    assert_int_equal(fb_history_open(path, 0, &h), FB_ERR_INPUT);
}

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch_by_hand),
        cmocka_unit_test(test_planted_step_found),
        cmocka_unit_test(test_no_step_no_change_point),
        cmocka_unit_test(test_duplicate_run_refused),
        cmocka_unit_test(test_concurrent_adds_keep_everything),
        cmocka_unit_test(test_flagged_runs_stay_out_of_baseline),
        cmocka_unit_test(test_not_a_history_refused),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
