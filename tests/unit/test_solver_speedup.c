/* test_solver_speedup.c - the solver's speedup over its baseline
 * (results/presentation/speedup.h, solver/output.c) on synthetic rows and records: per
 * step and total, trusted only when both runs were stable and uncontended,
 * else the figure flagged '?' with the reason (which side, unstable or
 * contended, the figures); `solve --compare`'s header names both
 * definitions; and the step times' verdict in the record (stats.quality,
 * "environment"), judged on the times scaled to each step's CG work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contention.h"
#include "results/records/quality.h"
#include "results/records/reader.h"
#include "results/presentation/speedup.h"
#include "solver/cases.h"
#include "solver/output.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j) fail_msg("%s: %s", text, err.text);
    return j;
}

/* Missing stats.quality is stable (files written before the verdict); the
 * environment's verdict counts where the stats say stable. */
static void test_quality_from_record(void **state)
{
    (void)state;
    const char *why = NULL;
    json_t *old = parse("{\"stats\":{\"median_s\":1}}");
    json_t *unstable = parse("{\"stats\":{\"quality\":\"unstable\",\"quality_why\":\"CV 45%\"}}");
    json_t *env = parse("{\"stats\":{\"quality\":\"stable\",\"quality_why\":null},"
                        "\"environment\":{\"contended\":true,\"contended_why\":\"VM steal 30%\"}}");
    assert_int_equal(fb_json_quality(old, &why), FB_QUALITY_STABLE);
    assert_string_equal(why, "");
    assert_int_equal(fb_json_quality(unstable, &why), FB_QUALITY_UNSTABLE);
    assert_string_equal(why, "CV 45%");
    assert_int_equal(fb_json_quality(env, &why), FB_QUALITY_CONTENDED);
    assert_string_equal(why, "VM steal 30%");
    json_decref(old);
    json_decref(unstable);
    json_decref(env);
}

static fb_speedup_side side(const char *id, double step_s, double total_s, fb_quality q, const char *why)
{
    return (fb_speedup_side){.id = id, .step_s = step_s, .total_s = total_s, .quality = q, .why = why};
}

/* Stable against stable: a number, per step and total, each by its own
 * definition (the device's transfers make the total far smaller). */
static void test_speedup_stable_is_a_number(void **state)
{
    (void)state;
    char text[32];
    fb_speedup sp;
    const fb_speedup_side omp = side("openmp:0", 10e-3, 0.1, FB_QUALITY_STABLE, "");
    const fb_speedup_side dev = side("opencl:0.0", 1e-3, 0.09, FB_QUALITY_STABLE, "");
    fb_speedup_of(&omp, &dev, &sp);
    assert_float_equal(sp.per_step, 10.0, 1e-12);
    assert_float_equal(sp.total, 0.1 / 0.09, 1e-12);
    assert_true(sp.trusted);
    assert_string_equal(sp.why, "");
    fb_speedup_text(sp.per_step, sp.trusted, sp.throttled, text, sizeof text);
    assert_string_equal(text, "10.00x");
    fb_speedup_text(sp.total, sp.trusted, sp.throttled, text, sizeof text);
    assert_string_equal(text, "1.11x");
}

/* One side contended, or unstable: the figure flagged, the reason naming
 * the side, its verdict and its figures; a throttled side adds '*'. */
static void test_speedup_flagged_with_reason(void **state)
{
    (void)state;
    char text[32];
    fb_speedup sp;
    const char *busy = "CV 3%, min 2.1 ms, median 2.2 ms: this run's threads waited for a CPU 45% of the time";
    fb_speedup_side omp = side("openmp:0", 5.51e-3, 0.1, FB_QUALITY_STABLE, "");
    fb_speedup_side dev = side("opencl:0.0", 1e-3, 0.2, FB_QUALITY_CONTENDED, busy);
    fb_speedup_of(&omp, &dev, &sp);
    assert_false(sp.trusted);
    assert_float_equal(sp.per_step, 5.51, 1e-12); /* the figure is still there */
    assert_non_null(strstr(sp.why, "opencl:0.0 contended: CV 3%, min 2.1 ms"));
    assert_null(strstr(sp.why, "openmp:0"));
    fb_speedup_text(sp.per_step, sp.trusted, sp.throttled, text, sizeof text);
    assert_string_equal(text, "5.51x?");

    omp.quality = FB_QUALITY_UNSTABLE, omp.why = "CV 45%, two modes";
    dev.throttled = 1;
    fb_speedup_of(&omp, &dev, &sp);
    assert_non_null(strstr(sp.why, "openmp:0 unstable: CV 45%, two modes; opencl:0.0 contended: "));
    fb_speedup_text(sp.per_step, sp.trusted, sp.throttled, text, sizeof text);
    assert_string_equal(text, "5.51x?*");
    fb_speedup_text(NAN, 1, 0, text, sizeof text);
    assert_string_equal(text, "-");
}

/* The record's "speedup": both figures, their definitions, the verdict. */
static void test_speedup_json(void **state)
{
    (void)state;
    fb_speedup sp;
    const fb_speedup_side omp = side("openmp:0", 10e-3, 0.1, FB_QUALITY_UNSTABLE, "CV 45%");
    const fb_speedup_side dev = side("opencl:0.0", 1e-3, 0.09, FB_QUALITY_STABLE, "");
    fb_speedup_of(&omp, &dev, &sp);
    json_t *j = fb_speedup_json(&sp, "openmp:0");
    assert_string_equal(json_string_value(json_object_get(j, "over")), "openmp:0");
    assert_float_equal(json_real_value(json_object_get(j, "per_step")), 10.0, 1e-12);
    assert_float_equal(json_real_value(json_object_get(j, "total")), 0.1 / 0.09, 1e-12);
    assert_true(json_is_false(json_object_get(j, "trusted")));
    assert_string_equal(json_string_value(json_object_get(j, "why")), "openmp:0 unstable: CV 45%");
    assert_string_equal(fb_json_str(j, "definition.per_step"), FB_SPEEDUP_PER_STEP_DEF);
    assert_string_equal(fb_json_str(j, "definition.total"), FB_SPEEDUP_TOTAL_DEF);
    json_decref(j);
}

/* A solve record as a side: its median step, and its whole run with the
 * transfers. */
static void test_side_of_record(void **state)
{
    (void)state;
    fb_speedup_side s;
    json_t *rec = parse("{\"device\":\"opencl:0.0\",\"stats\":{\"median_s\":0.001,\"quality\":\"contended\","
                        "\"quality_why\":\"busy\"},\"total_s\":0.01,"
                        "\"timings\":{\"cpu_to_gpu_s\":0.05,\"gpu_to_cpu_s\":0.03},\"energy\":{\"throttled\":true}}");
    assert_true(fb_speedup_side_of_record(rec, &s));
    assert_string_equal(s.id, "opencl:0.0");
    assert_float_equal(s.step_s, 0.001, 1e-15);
    assert_float_equal(s.total_s, 0.09, 1e-15);
    assert_int_equal(s.quality, FB_QUALITY_CONTENDED);
    assert_string_equal(s.why, "busy");
    assert_true(s.throttled);
    json_decref(rec);
}

/* ---- solve --compare's table ----------------------------------------------- */

static fb_solve_row row(const char *id, int on_device, double step_s, double steps_s, double up, double down,
                        fb_quality q, const char *why)
{
    fb_solve_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.name, sizeof r.name, "%s device", id);
    r.on_device = on_device, r.steps = 10;
    r.s.step_time_median = step_s, r.s.total_s = steps_s;
    r.upload_s = up, r.download_s = down;
    r.quality = q;
    snprintf(r.quality_why, sizeof r.quality_why, "%s", why);
    return r;
}

/* The comparison as text (at most 16 KiB). */
static char *comparison_text(const fb_solve_row *rows, int n)
{
    static char buf[1 << 14];
    fb_solve_case c;
    memset(&c, 0, sizeof c);
    c.name = "cavity", c.level = 0;
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    fb_solve_print_comparison(f, &c, rows, n);
    fclose(f);
    return buf;
}

/* The header defines both speedups; stable rows give plain numbers (the
 * old table divided total time only: 0.75x where the report said 7.27x). */
static void test_comparison_both_definitions(void **state)
{
    (void)state;
    const fb_solve_row rows[] = {row("openmp:0", 0, 7.27e-3, 0.0727, 0, 0, FB_QUALITY_STABLE, ""),
                                 row("opencl:0.0", 1, 1e-3, 0.01, 0.07, 0.0169, FB_QUALITY_STABLE, "")};
    const char *out = comparison_text(rows, 2);
    assert_non_null(strstr(out, "per step: openmp:0's median time step / the backend's (set-up, CPU->GPU and "
                                "GPU->CPU are in no step)"));
    assert_non_null(strstr(out, "total:    openmp:0's whole run / the backend's (all steps + CPU->GPU + GPU->CPU"));
    assert_non_null(strstr(out, "per step      total"));
    assert_non_null(strstr(out, "7.27x      0.75x"));
    assert_null(strstr(out, "x?"));
    assert_null(strstr(out, "no speedup to trust"));
}

/* A contended device run: both of its figures flagged, and a line below
 * the table says why; the baseline stays unflagged. */
static void test_comparison_flags_contended_row(void **state)
{
    (void)state;
    const char *busy = "CV 40%, min 3 ms, median 5 ms: this run's threads waited for a CPU 60% of the time";
    const fb_solve_row rows[] = {row("openmp:0", 0, 7.27e-3, 0.0727, 0, 0, FB_QUALITY_STABLE, ""),
                                 row("opencl:0.0", 1, 1e-3, 0.01, 0.07, 0.0169, FB_QUALITY_CONTENDED, busy)};
    const char *out = comparison_text(rows, 2);
    assert_non_null(strstr(out, "7.27x?     0.75x?"));
    assert_non_null(strstr(out, "1.00x      1.00x"));
    assert_non_null(strstr(out, "? opencl:0.0: no speedup to trust: opencl:0.0 contended: CV 40%, min 3 ms"));
}

/* ---- the record's verdict ----------------------------------------------- */

typedef struct solver_fixture {
    fb_solve_case c;
    fb_ns ns;
    fb_solve_log log;
} solver_fixture;

static void fixture_open(solver_fixture *x)
{
    memset(x, 0, sizeof *x);
    assert_int_equal(fb_case_open("cavity", 0, NULL, &x->c), FB_OK);
    assert_int_equal(fb_ns_init(&x->ns, &x->c.mesh, &x->c.bnd, &x->c.cfg, &x->c.bc), FB_OK);
}

static void fixture_close(solver_fixture *x)
{
    fb_solve_log_free(&x->log);
    fb_ns_free(&x->ns);
    fb_case_free(&x->c);
}

/* A step of its CG iterations that takes `scale` times its model bytes'
 * share of a second. */
static void add_step(solver_fixture *x, int its, double scale)
{
    fb_ns_step_info info = {.step = x->log.n + 1, .dt = 1e-3, .cg_its = its};
    const double t = scale * fb_ns_bytes_per_step(&x->ns, its) / 1e9;
    info.t_step1 = 0.2 * t, info.t_step2 = 0.7 * t, info.t_step3 = 0.1 * t;
    assert_int_equal(fb_solve_log_add(&x->log, &info), FB_OK);
}

/* Steps whose CG iterations fall from 200 to 60, each as fast per byte:
 * the raw times spread (and would be called unstable), the work explains
 * it, so the verdict is stable. The same iterations at two speeds, 3x
 * apart, are two modes: unstable. */
static void test_verdict_on_scaled_step_times(void **state)
{
    (void)state;
    solver_fixture x;
    fb_measurement m;
    fb_spread sp;
    char why[160];
    fixture_open(&x);
    for (int k = 0; k < 8; ++k)
        add_step(&x, 200 - 20 * k, 1.0);
    fb_solve_measurement(&x.log, &x.ns, &m);
    assert_int_equal(m.nsamples, 8);
    assert_true(fb_samples_judge(m.samples, m.nsamples, &sp, why, sizeof why)); /* raw: spread */
    assert_int_equal(m.quality, FB_QUALITY_STABLE);
    fb_measurement_free(&m);
    fb_solve_log_free(&x.log);
    for (int k = 0; k < 8; ++k)
        add_step(&x, 100, k < 4 ? 1.0 : 3.0);
    fb_solve_measurement(&x.log, &x.ns, &m);
    assert_int_equal(m.quality, FB_QUALITY_UNSTABLE);
    assert_non_null(strstr(m.quality_why, "two modes"));
    fb_measurement_free(&m);
    fixture_close(&x);
}

/* A time loop whose threads waited for a CPU a quarter of the time while
 * others ran: the record's stats say contended, with the reason, and its
 * environment says so too. */
static void test_record_contended(void **state)
{
    (void)state;
    solver_fixture x;
    fb_device_info d;
    fixture_open(&x);
    memset(&d, 0, sizeof d);
    snprintf(d.backend, sizeof d.backend, "openmp");
    d.in_process = 1;
    snprintf(d.id, sizeof d.id, "openmp:0");
    snprintf(d.name, sizeof d.name, "CPU");
    for (int k = 0; k < 6; ++k)
        add_step(&x, 100, 1.0);
    x.log.env = (fb_contention){.on = 1,
                                .cpus = 2,
                                .cpu_threads = 2,
                                .polls = 3,
                                .busy_polls = 3,
                                .others_max = 2,
                                .load_first = -1,
                                .load_last = -1,
                                .wait_known = 1,
                                .wait_ns = 500000000ULL,
                                .wall_s = 1.0};
    json_t *rec = fb_solve_record(&x.c, &x.ns, &x.log, &d, -1, 0, NULL, "ok", NULL);
    assert_string_equal(fb_json_str(rec, "stats.quality"), "contended");
    assert_non_null(strstr(fb_json_str(rec, "stats.quality_why"), "waited for a CPU 25% of the time"));
    assert_true(json_is_true(fb_json_get(rec, "environment.contended")));
    assert_int_equal((int)fb_json_num(rec, "environment.cpu_threads"), 2);
    json_decref(rec);
    x.log.env.on = 0; /* not watched: stable, and no environment */
    rec = fb_solve_record(&x.c, &x.ns, &x.log, &d, -1, 0, NULL, "ok", NULL);
    assert_string_equal(fb_json_str(rec, "stats.quality"), "stable");
    assert_true(json_is_null(fb_json_get(rec, "stats.quality_why")));
    assert_null(json_object_get(rec, "environment"));
    json_decref(rec);
    fixture_close(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quality_from_record),
        cmocka_unit_test(test_speedup_stable_is_a_number),
        cmocka_unit_test(test_speedup_flagged_with_reason),
        cmocka_unit_test(test_speedup_json),
        cmocka_unit_test(test_side_of_record),
        cmocka_unit_test(test_comparison_both_definitions),
        cmocka_unit_test(test_comparison_flags_contended_row),
        cmocka_unit_test(test_verdict_on_scaled_step_times),
        cmocka_unit_test(test_record_contended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
