/* test_contention.c - the contention window and the samples' spread test
 * (core/contention.h) on planted machines: a fake /proc tree
 * ($FLOWBENCH_PROC_ROOT) whose files the test writes, and a real competing
 * busy process for the end-to-end case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/contention.h"
#include "core/measure.h"

static char root[256];
static int ncpu; /* planted runnable counts are relative to the real CPU count (the rule compares with it) */

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The machine's runnable count, this process's one thread (running) and
 * its run-queue wait so far (wait_ns < 0: no schedstat). */
static void plant(int runnable, long long wait_ns, unsigned long long steal, unsigned long long busy)
{
    char text[256];
    snprintf(text, sizeof text, "1.00 0.50 0.25 %d/300 4242\n", runnable);
    write_file("loadavg", text);
    snprintf(text, sizeof text, "cpu  %llu 0 100 1000 0 0 0 %llu 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", busy, steal);
    write_file("stat", text);
    write_file("self/task/1/stat", "1 (flow bench) R 0 1 1 0 -1\n");
    if (wait_ns >= 0) {
        snprintf(text, sizeof text, "5000000 %lld 10\n", wait_ns);
        write_file("self/task/1/schedstat", text);
    } else {
        char path[512];
        snprintf(path, sizeof path, "%s/self/task/1/schedstat", root);
        unlink(path);
    }
}

static int setup(void **state)
{
    (void)state;
    char path[512];
    snprintf(root, sizeof root, "/tmp/fb-proc-XXXXXX");
    assert_non_null(mkdtemp(root));
    snprintf(path, sizeof path, "%s/self", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/self/task", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/self/task/1", root);
    mkdir(path, 0700);
    setenv("FLOWBENCH_PROC_ROOT", root, 1);
    ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    unsetenv("FLOWBENCH_PROC_ROOT");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* The planted waits are fractions of the window up to the plant; the window
 * ends a little later (the end's poll), by milliseconds on a busy CI runner,
 * which only lowers the fraction: windows of 20 ms and planted fractions
 * several times the thresholds keep the verdicts off the edge. */
#define WINDOW_MS 20

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_waiting_behind_a_competitor_is_contended(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    char others[64];
    plant(ncpu + 2, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(ncpu + 2, (long long)(0.8e9 * (fb_now() - w.start)), 0, 1000); /* 80% of the window waiting for a CPU */
    fb_contention_end(&w);
    assert_true(fb_contention_wait_fraction(&w) > 0.5); /* 0.8 planted */
    assert_int_equal(w.others_max, ncpu + 1);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 1);
    assert_non_null(strstr(why, "waited for a CPU"));
    snprintf(others, sizeof others, "%d other runnable tasks", ncpu + 1);
    assert_non_null(strstr(why, others));
}

static void test_quiet_machine_is_not_contended(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(1, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(1, 10000, 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(w.others_max, 0);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
    assert_string_equal(why, "");
}

/* Threads that sleep at barriers (passive waiting) wait little for a CPU
 * even beside a competitor that is always there: a small wait with the
 * competitor in most polls is contended too. */
static void test_small_wait_beside_a_constant_competitor_is_contended(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(ncpu + 2, 0, 0, 1000);
    fb_contention_begin(&w, 0);
    sleep_ms(WINDOW_MS);
    fb_contention_poll_now(&w);
    plant(ncpu + 2, (long long)(0.08e9 * ncpu * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_true(fb_contention_wait_fraction(&w) < 0.10);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 1);
    plant(1, 0, 0, 1000); /* the same wait with nobody else runnable: not contended */
    fb_contention_begin(&w, 0);
    sleep_ms(WINDOW_MS);
    fb_contention_poll_now(&w);
    plant(1, (long long)(0.08e9 * ncpu * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
}

/* A process's own threads wait for each other (PoCL's host thread beside
 * its workers), and a kernel thread shows at one poll of four: a long
 * wait, but no competitor most of the time: not contended. */
static void test_own_threads_waiting_is_not_contention(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(ncpu + 2, 0, 0, 1000);
    fb_contention_begin(&w, 0);
    plant(1, 0, 0, 1000);
    sleep_ms(WINDOW_MS);
    fb_contention_poll_now(&w);
    fb_contention_poll_now(&w);
    plant(1, (long long)(0.3e9 * ncpu * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(w.busy_polls, 1);
    assert_true(fb_contention_wait_fraction(&w) > FB_CONTENTION_WAIT_BUSY); /* 0.3 planted */
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
}

/* One long preemption by a kernel thread nobody saw runnable is a wait,
 * but no competitor: not contended (this VM's kdamond). */
static void test_wait_without_a_competitor_is_not_contended(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(1, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(1, (long long)(0.6e9 * (fb_now() - w.start)), 0, 1000); /* the VM's sleeps overrun: in proportion */
    fb_contention_end(&w);
    assert_true(fb_contention_wait_fraction(&w) > 0.10);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
}

/* The run's own threads waiting most of the window with nothing else
 * runnable (PoCL's workers on one CPU): not contended, but not a figure of
 * the machine either: unstable, with why and what helps; a third of the
 * window (the fast mode's own waiting) stays stable. */
static void test_own_threads_waiting_most_of_the_time_is_unstable(void **state)
{
    (void)state;
    fb_contention w;
    char why[512];
    const double samples[8] = {5e-4, 5.01e-4, 5.02e-4, 5e-4, 5.01e-4, 5.03e-4, 5e-4, 5.01e-4};
    plant(1, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(1, (long long)(0.8e9 * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
    assert_int_equal(fb_quality_judge(samples, 8, &w, why, sizeof why), FB_QUALITY_UNSTABLE);
    assert_non_null(strstr(why, "own threads waited for a CPU"));
    assert_non_null(strstr(why, "POCL_AFFINITY=1"));
    plant(1, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(1, (long long)(0.2e9 * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(fb_quality_judge(samples, 8, &w, why, sizeof why), FB_QUALITY_STABLE);
}

/* One configuration's medians in several fresh processes: two modes when
 * sorted neighbours are 1.5x apart, one process in a mode being enough. */
static void test_processes_in_two_modes(void **state)
{
    (void)state;
    char why[320];
    const double one[5] = {0.26e-3, 0.261e-3, 0.259e-3, 0.27e-3, 0.262e-3};
    const double two[6] = {0.26e-3, 0.50e-3, 0.261e-3, 0.259e-3, 0.503e-3, 0.262e-3};
    const double lone[4] = {0.036e-3, 0.035e-3, 0.066e-3, 0.037e-3};
    assert_int_equal(fb_processes_judge(one, 5, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(fb_processes_judge(two, 6, why, sizeof why), 1);
    assert_non_null(strstr(why, "across 6 processes, two modes: 4 near 0.261 ms and 2 near 0.501 ms"));
    assert_int_equal(fb_processes_judge(lone, 4, why, sizeof why), 1);
    assert_non_null(strstr(why, "3 near"));
    assert_int_equal(fb_processes_judge(one, 1, why, sizeof why), 0); /* one process: nothing to compare */
}

/* Competitors on CPUs this run leaves free take nothing from it. */
static void test_competitors_on_spare_cpus_are_not_contention(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    if (ncpu < 2) skip();
    plant(ncpu, 0, 0, 1000); /* ncpu - 1 others beside a run on one CPU */
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(ncpu, (long long)(0.6e9 * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(w.others_max, ncpu - 1);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
}

static void test_steal_is_contention(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(1, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    plant(1, 0, 30, 1070); /* 100 more ticks, 30 of them stolen */
    fb_contention_end(&w);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 1);
    assert_non_null(strstr(why, "VM steal 30%"));
}

/* Without schedstat the polls decide: most of them saw a competitor. */
static void test_polls_decide_without_schedstat(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    plant(4, -1, 0, 1000);
    fb_contention_begin(&w, 0);
    fb_contention_poll_now(&w);
    fb_contention_end(&w);
    assert_int_equal(w.wait_known, 0);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 1);
    assert_non_null(strstr(why, "up to 3 other runnable tasks"));
}

static void test_missing_proc_is_unknown_not_contended(void **state)
{
    (void)state;
    fb_contention w;
    char why[256];
    setenv("FLOWBENCH_PROC_ROOT", "/nonexistent/proc", 1);
    fb_contention_begin(&w, 0);
    fb_contention_end(&w);
    setenv("FLOWBENCH_PROC_ROOT", root, 1);
    assert_int_equal(w.polls, 0);
    assert_int_equal(fb_contention_judge(&w, why, sizeof why), 0);
    json_t *env = fb_environment_json(&w);
    assert_true(json_is_null(json_object_get(env, "other_runnable")));
    assert_true(json_is_null(json_object_get(env, "steal_fraction")));
    /* nothing could be read: not measured, never "not contended" */
    assert_true(json_is_null(json_object_get(env, "contended")));
    assert_non_null(strstr(json_string_value(json_object_get(env, "contended_why")), "not measured"));
    json_decref(env);
}

static void test_environment_json_says_why(void **state)
{
    (void)state;
    fb_contention w;
    plant(ncpu + 2, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(ncpu + 2, (long long)(0.9e9 * (fb_now() - w.start)), 0, 1000); /* 90% of the window, however long it was */
    fb_contention_end(&w);
    json_t *env = fb_environment_json(&w);
    assert_true(json_is_true(json_object_get(env, "contended")));
    assert_non_null(strstr(json_string_value(json_object_get(env, "contended_why")), "waited"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(env, "other_runnable"), "max")), ncpu + 1);
    assert_non_null(json_object_get(json_object_get(env, "openmp"), "wait"));
    assert_true(json_real_value(json_object_get(json_object_get(env, "calibration"), "omp_region_us")) > 0);
    json_decref(env);
}

/* ---- the samples' spread ---- */

static void test_tight_samples_are_stable(void **state)
{
    (void)state;
    double s[20];
    fb_spread sp;
    char why[160];
    for (int i = 0; i < 20; ++i)
        s[i] = 1e-3 * (1 + 0.001 * (i % 5));
    s[7] = 50e-3; /* one preempted sample changes nothing */
    assert_int_equal(fb_samples_judge(s, 20, &sp, why, sizeof why), 0);
    assert_float_equal(sp.median, 1.002e-3, 1e-6);
}

static void test_two_modes_are_unstable(void **state)
{
    (void)state;
    double s[20];
    fb_spread sp;
    char why[160];
    for (int i = 0; i < 20; ++i)
        s[i] = i % 3 == 0 ? 3.6e-3 : 0.65e-3; /* 7 slow, 13 fast: the median's interval is tight */
    assert_int_equal(fb_samples_judge(s, 20, &sp, why, sizeof why), 1);
    assert_int_equal(sp.two_modes, 1);
    assert_int_equal(sp.low_count, 13);
    assert_non_null(strstr(why, "two modes, 13 samples near 0.65 ms and 7 near 3.6 ms"));
}

static void test_wide_samples_are_unstable(void **state)
{
    (void)state;
    double s[21];
    fb_spread sp;
    char why[160];
    for (int i = 0; i < 21; ++i)
        s[i] = 1e-3 * (1 + 0.05 * i); /* evenly spread from 1 to 2 ms: no gap, a wide middle */
    assert_int_equal(fb_samples_judge(s, 21, &sp, why, sizeof why), 1);
    assert_int_equal(sp.two_modes, 0);
    assert_non_null(strstr(why, "interquartile range"));
}

static void test_quality_text_names_figures_and_cause(void **state)
{
    (void)state;
    double s[8] = {8e-3, 8e-3, 8.01e-3, 8e-3, 7.99e-3, 8e-3, 8e-3, 8.02e-3};
    fb_contention w;
    char why[320];
    plant(ncpu + 2, 0, 0, 1000);
    fb_contention_begin(&w, 1);
    sleep_ms(WINDOW_MS);
    plant(ncpu + 2, (long long)(0.9e9 * (fb_now() - w.start)), 0, 1000);
    fb_contention_end(&w);
    assert_int_equal(fb_quality_judge(s, 8, &w, why, sizeof why), FB_QUALITY_CONTENDED);
    assert_non_null(strstr(why, "min 7.99 ms, median 8 ms: this run's threads waited"));
}

/* ---- the stopping rule ---- */

typedef struct planted {
    double seconds;
    int calls;
    long long wait_ns; /* grows with every sample when a competitor is planted */
    double last;       /* short_planted_sample: when it was last called */
    int competitor;
} planted;

static fb_status planted_sample(void *ctx, double *seconds)
{
    planted *p = ctx;
    struct timespec ts = {0, 1000000L};
    nanosleep(&ts, NULL);
    if (p->competitor) { /* 90% of the time since the last call (the VM's sleeps can overrun 10x) */
        const double now = fb_now();
        p->wait_ns += p->last > 0 ? (long long)(0.9e9 * (now - p->last)) : 0;
        p->last = now;
        plant(ncpu + 2, p->wait_ns, 0, 1000);
    }
    *seconds = p->competitor || p->calls % 3 ? p->seconds : 3 * p->seconds; /* one in three slow */
    p->calls++;
    return FB_OK;
}

/* Tight samples while a competitor held the CPUs: not "converged" but
 * "contended", and the record's quality says so. */
static void test_contended_run_does_not_converge(void **state)
{
    (void)state;
    planted p = {.seconds = 1e-3, .competitor = 1};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.cpu_threads = 1;
    plant(ncpu + 2, 0, 0, 1000);
    assert_int_equal(fb_measure(&cfg, planted_sample, &p, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.stop, FB_STOP_CONTENDED);
    assert_int_equal(m.quality, FB_QUALITY_CONTENDED);
    char text[400];
    assert_non_null(strstr(fb_measurement_verdict(&m, text, sizeof text), "contended: CV 0%"));
    fb_measurement_free(&m);
}

/* Two modes (one sample in three 3x slower) whose median interval gets
 * tight after about 36 samples: sampling goes on to the cap, and the
 * verdict is unstable, not converged. */
static void test_unstable_run_goes_on_to_the_cap(void **state)
{
    (void)state;
    planted p = {.seconds = 1e-3};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.max_samples = 60;
    cfg.budget_s = 10;
    plant(1, 0, 0, 1000);
    assert_int_equal(fb_measure(&cfg, planted_sample, &p, NULL, NULL, &m), FB_OK);
    assert_true(m.stats.median_spread <= cfg.target_spread);
    assert_int_equal(m.stop, FB_STOP_MAX_SAMPLES);
    assert_int_equal(m.nsamples, 60);
    assert_int_equal(m.quality, FB_QUALITY_UNSTABLE);
    char text[400];
    assert_non_null(strstr(fb_measurement_verdict(&m, text, sizeof text), "unstable: CV"));
    fb_measurement_free(&m);
}

static fb_status short_planted_sample(void *ctx, double *seconds)
{
    planted *p = ctx;
    /* a competitor: 50 ms of waiting for a CPU a call, more than any of this
     * VM's pauses can stretch the window by (a fake may claim that much) */
    p->wait_ns += 50000000;
    plant(ncpu + 2, p->wait_ns, 0, 1000);
    p->calls++;
    *seconds = 50e-6;
    return FB_OK;
}

/* One sample of a few microseconds stops at the cap long before the
 * window can be judged: the run is repeated (not recorded) until it can,
 * and the competitor is seen (without the repeats the window is too
 * short for the wait rule, and the run passes as stable). */
static void test_short_measurement_is_judged_too(void **state)
{
    (void)state;
    planted p = {0};
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.min_samples = cfg.max_samples = 1;
    cfg.warmups = 0;
    cfg.cpu_threads = 1;
    plant(ncpu + 2, 0, 0, 1000);
    assert_int_equal(fb_measure(&cfg, short_planted_sample, &p, NULL, NULL, &m), FB_OK);
    assert_int_equal(m.nsamples, 1);
    assert_true(m.env.wall_s >= FB_CONTENTION_MIN_WINDOW_S);
    assert_int_equal(m.quality, FB_QUALITY_CONTENDED);
    fb_measurement_free(&m);
}

/* ---- a real competitor ---- */

static fb_status busy_sample(void *ctx, double *seconds)
{
    (void)ctx;
    double t0 = fb_now();
    volatile double x = 0;
    while (fb_now() - t0 < 2e-3)
        x += 1;
    *seconds = fb_now() - t0;
    return FB_OK;
}

/* Twice as many busy processes as CPUs beside a run on one CPU: the real
 * /proc shows the wait (about half the time) and the competitors. */
static void test_real_competitors_are_seen(void **state)
{
    (void)state;
    unsetenv("FLOWBENCH_PROC_ROOT");
    if (access("/proc/self/task", R_OK) != 0) skip();
    const int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    pid_t kids[64];
    int n = 2 * cpus < 64 ? 2 * cpus : 64;
    for (int i = 0; i < n; ++i) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            alarm(30);
            for (volatile unsigned long x = 0;; ++x) {
            }
        }
    }
    sleep_ms(50);
    fb_measure_config cfg = fb_measure_defaults();
    fb_measurement m;
    cfg.budget_s = 0.3;
    cfg.cpu_threads = 1;
    fb_status st = fb_measure(&cfg, busy_sample, NULL, NULL, NULL, &m);
    for (int i = 0; i < n; ++i) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    setenv("FLOWBENCH_PROC_ROOT", root, 1);
    assert_int_equal(st, FB_OK);
    assert_int_equal(m.quality, FB_QUALITY_CONTENDED);
    assert_int_not_equal(m.stop, FB_STOP_CONVERGED);
    assert_true(m.env.others_max >= 1);
    fb_measurement_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_behind_a_competitor_is_contended),
        cmocka_unit_test(test_quiet_machine_is_not_contended),
        cmocka_unit_test(test_wait_without_a_competitor_is_not_contended),
        cmocka_unit_test(test_own_threads_waiting_most_of_the_time_is_unstable),
        cmocka_unit_test(test_processes_in_two_modes),
        cmocka_unit_test(test_own_threads_waiting_is_not_contention),
        cmocka_unit_test(test_small_wait_beside_a_constant_competitor_is_contended),
        cmocka_unit_test(test_competitors_on_spare_cpus_are_not_contention),
        cmocka_unit_test(test_steal_is_contention),
        cmocka_unit_test(test_polls_decide_without_schedstat),
        cmocka_unit_test(test_missing_proc_is_unknown_not_contended),
        cmocka_unit_test(test_environment_json_says_why),
        cmocka_unit_test(test_tight_samples_are_stable),
        cmocka_unit_test(test_two_modes_are_unstable),
        cmocka_unit_test(test_wide_samples_are_unstable),
        cmocka_unit_test(test_quality_text_names_figures_and_cause),
        cmocka_unit_test(test_contended_run_does_not_converge),
        cmocka_unit_test(test_unstable_run_goes_on_to_the_cap),
        cmocka_unit_test(test_short_measurement_is_judged_too),
        cmocka_unit_test(test_real_competitors_are_seen),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
