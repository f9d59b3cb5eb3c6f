/* test_heat2d.c BACKEND - the heat2d family: every kernel x precision x a
 * few work-group shapes and both array orders on the backend named on the
 * command line (openmp, opencl or cuda; test_family_backend.h), on small
 * odd-sized grids whose sides are not multiples of the shapes (the guarded
 * tails), each run checked by fb_heat2d_run against the reference and the
 * exact mode. The openmp instance also checks grid specs (good ones and
 * every way a bad one is refused), the stretched mesh, the serial reference
 * against the exact decaying mode (second-order convergence), the
 * constraints, the model, the variant list and the family's record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid/heat2d.h"
#include "bench/variants.h"
#include "families.h"
#include "test_family_backend.h"

static fb_measure_config quick(void)
{
    fb_measure_config c = fb_measure_defaults();
    c.warmups = 1;
    c.min_samples = 2;
    c.max_samples = 2;
    return c;
}

static void expect_bad_spec(const char *spec, const char *words)
{
    fb_heat2d_grid g;
    assert_int_equal(fb_heat2d_grid_open(spec, &g), FB_ERR_USAGE);
    if (!strstr(fb_error_message(), words) || !strstr(fb_error_message(), spec))
        print_error("%s: message '%s' lacks '%s'\n", spec, fb_error_message(), words);
    assert_non_null(strstr(fb_error_message(), words));
    assert_non_null(strstr(fb_error_message(), spec)); /* names the spec */
    assert_null(strchr(fb_error_message(), '\n'));     /* one line */
}

static void test_specs(void **state)
{
    (void)state;
    fb_heat2d_grid g;
    assert_int_equal(fb_heat2d_grid_open("grid:101x67", &g), FB_OK);
    assert_int_equal(g.nx, 101);
    assert_int_equal(g.ny, 67);
    assert_float_equal(g.stretch, 1.0, 0);
    fb_heat2d_grid_free(&g);
    assert_int_equal(fb_heat2d_grid_open("grid:30x20:stretch=4.5", &g), FB_OK);
    assert_float_equal(g.stretch, 4.5, 0);
    fb_heat2d_grid_free(&g);
    expect_bad_spec("gen:cube:10", "not a grid spec");
    expect_bad_spec("grid:", "bad size");
    expect_bad_spec("grid:10", "bad size");
    expect_bad_spec("grid:10x", "bad size");
    expect_bad_spec("grid:10x10x", "bad size");
    expect_bad_spec("grid:-5x10", "bad size");
    expect_bad_spec("grid:10 x10", "bad size");
    expect_bad_spec("grid:2x10", "NX and NY must be in 3..65536");
    expect_bad_spec("grid:65537x10", "NX and NY must be in");
    expect_bad_spec("grid:20000x20000", "cells exceed the limit");
    expect_bad_spec("grid:10x10:", "empty option");
    expect_bad_spec("grid:10x10:stretch", "unknown option 'stretch'");
    expect_bad_spec("grid:10x10:block=4", "unknown option 'block=4'");
    expect_bad_spec("grid:10x10:stretch=0.5", "stretch '0.5' is not a number in [1, 1000]");
    expect_bad_spec("grid:10x10:stretch=2x", "stretch '2x' is not a number");
    expect_bad_spec("grid:10x10:stretch=nan", "is not a number");
    expect_bad_spec("grid:10x10:stretch=2:stretch=3", "stretch given twice");
}

static void test_mesh(void **state)
{
    (void)state;
    fb_heat2d_grid g;
    assert_int_equal(fb_heat2d_grid_open("grid:40x9:stretch=8", &g), FB_OK);
    double sum = 0;
    for (int i = 0; i < g.nx; ++i)
        sum += g.dx[i];
    assert_float_equal(sum, 1.0, 1e-14);
    assert_float_equal(g.dx[g.nx - 1] / g.dx[0], 8.0, 1e-12);
    assert_float_equal(g.dy[g.ny - 1] / g.dy[0], 8.0, 1e-12);
    assert_float_equal(g.h_min, g.dy[0] < g.dx[0] ? g.dy[0] : g.dx[0], 0);
    /* the wall conductances use the half-cell distance */
    assert_float_equal(g.gx[0], 1.0 / (0.5 * g.dx[0]), 1e-9);
    assert_float_equal(g.gx[g.nx], 1.0 / (0.5 * g.dx[g.nx - 1]), 1e-9);
    assert_float_equal(g.gx[1], 1.0 / (0.5 * (g.dx[0] + g.dx[1])), 1e-9);
    fb_heat2d_grid_free(&g);
}

/* Max error of the reference against the mode after t_end, dt ~ h^2. */
static double reference_error(const char *spec, double t_end, double *bound)
{
    fb_heat2d_grid g;
    assert_int_equal(fb_heat2d_grid_open(spec, &g), FB_OK);
    double dt = fb_heat2d_check_dt(&g);
    int steps = (int)ceil(t_end / dt);
    dt = t_end / steps;
    double *T = malloc((size_t)g.nx * g.ny * sizeof *T), worst = 0, x = fb_heat2d_decay_rate(&g) * dt;
    assert_int_equal(fb_heat2d_reference(&g, dt, steps, 1e-13, T, NULL), FB_OK);
    for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i)
            worst = fmax(worst, fabs(T[j * g.nx + i] - fb_heat2d_exact(&g, i, j, t_end)));
    *bound = t_end * fb_heat2d_truncation(&g) + steps * (exp(x) - 1 - x);
    free(T);
    fb_heat2d_grid_free(&g);
    return worst;
}

/* The reference converges to the exact mode at second order, on a uniform
 * and on a stretched mesh, and stays within the truncation bound the
 * device check uses. */
static void test_reference_against_exact_mode(void **state)
{
    (void)state;
    const char *coarse[] = {"grid:16x16", "grid:16x12:stretch=3"}, *fine[] = {"grid:32x32", "grid:32x24:stretch=3"};
    const double t_end = 0.01; /* the mode decays by exp(-0.197) */
    for (int m = 0; m < 2; ++m) {
        double b1, b2, e1 = reference_error(coarse[m], t_end, &b1), e2 = reference_error(fine[m], t_end, &b2);
        printf("%s: error %.3g (bound %.3g); %s: %.3g (bound %.3g); ratio %.2f\n", coarse[m], e1, b1, fine[m], e2, b2,
               e1 / e2);
        assert_true(e1 / e2 > 3.2 && e1 / e2 < 5.0);
        assert_true(e1 <= b1 && e2 <= b2);
        assert_true(e2 < 1e-3); /* and small: the discretisation is right */
    }
}

static void expect_refused(const char *kernel, int bx, int by, int order, const fb_device_info *dev, const char *words)
{
    const fb_family *f = fb_family_find("heat2d");
    fb_family_run run = {.kernel = fb_family_kernel_find(f, kernel), .point = {{bx, by, order}}, .is_double = 1};
    assert_true(run.kernel >= 0);
    assert_int_equal(f->check(NULL, &run, dev), FB_ERR_USAGE);
    if (!strstr(fb_error_message(), words)) print_error("message '%s' lacks '%s'\n", fb_error_message(), words);
    assert_non_null(strstr(fb_error_message(), words));
}

static void test_constraints(void **state)
{
    (void)state;
    const fb_family *f = fb_family_find("heat2d");
    fb_device_info gpu = {.id = "fake:0",
                          .max_work_group_size = 1024,
                          .max_work_item_sizes = {1024, 1024, 64},
                          .local_mem_bytes = 48 * 1024,
                          .double_support = 1};
    fb_device_info small = {.id = "fake:1",
                            .max_work_group_size = 256,
                            .max_work_item_sizes = {256, 64, 64},
                            .local_mem_bytes = 1024,
                            .double_support = 1};
    assert_non_null(f);
    assert_string_equal(f->problem_key, "grid");
    fb_family_run ok = {.kernel = 0, .point = {{128, 1, 0}}, .is_double = 1};
    assert_int_equal(f->check(NULL, &ok, &gpu), FB_OK);
    expect_refused("heat-jacobi", 3, 32, 0, &gpu, "BLOCK_X=3 is not a power of two");
    expect_refused("heat-rbgs", 32, 2048, 0, &gpu, "BLOCK_Y=2048 is not a power of two in 1..1024");
    expect_refused("heat-jacobi", 4, 4, 0, &gpu, "work-group 4x4 has 16 items, under 32");
    expect_refused("heat-jacobi", 64, 32, 0, &gpu, "2048 items exceeds the device limit 1024");
    expect_refused("heat-jacobi", 32, 2, 2, &gpu, "ORDER=2 is not 0 (row-major) or 1 (column-major)");
    expect_refused("heat-jacobi", 2, 128, 0, &small, "BLOCK_Y=128 exceeds the device's 64 items in dimension 1");
    expect_refused("heat-rbgs", 256, 1, 0, &small, "needs 2048 bytes of local memory, device has 1024");
    /* a problem-dependent limit: CUDA grids have at most 65535 blocks in y */
    fb_device_info cuda = gpu;
    cuda.max_groups[1] = 65535;
    void *tall = NULL;
    assert_int_equal(f->problem_open("grid:3x65536", &tall), FB_OK);
    fb_family_run column = {.kernel = 0, .point = {{32, 1, 0}}, .is_double = 1};
    assert_int_equal(f->check(tall, &column, &gpu), FB_OK);
    assert_int_equal(f->check(tall, &column, &cuda), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "65536 groups in y exceed the device's 65535"));
    column.point.values[FB_HEAT2D_BLOCK_Y] = 2;
    assert_int_equal(f->check(tall, &column, &cuda), FB_OK);
    f->problem_close(tall);
}

static void test_model(void **state)
{
    (void)state;
    const fb_heat2d_kernel_def *jac = &fb_heat2d_kernels[0], *rb = &fb_heat2d_kernels[1];
    assert_string_equal(jac->name, "heat-jacobi");
    assert_string_equal(rb->name, "heat-rbgs");
    fb_heat2d_model m = fb_heat2d_model_of(jac, 10, 20, 1, 3);
    assert_float_equal(m.flops, 21.0 * 200, 0);
    assert_float_equal(m.min_bytes, 8.0 * (3 * 200 + (2 * 10 + 2 * 20 + 2) + 2 * 3 + 1), 0);
    m = fb_heat2d_model_of(rb, 10, 20, 0, 3);
    assert_float_equal(m.min_bytes, 4.0 * (4 * 200 + 62 + 6 + 1), 0);
    /* the tail is padded: 37 cells in groups of 16 -> 48 items */
    fb_launch l = fb_heat2d_geometry(&(fb_param_point){{16, 8, 0}}, 37, 23);
    assert_int_equal(l.dims, 2);
    assert_int_equal(l.global[0], 48);
    assert_int_equal(l.global[1], 24);
    assert_int_equal(l.local[0] * l.local[1], 128);
}

static void test_variants_listed(void **state)
{
    (void)state;
    int n = fb_variant_count(), heat = 0;
    fb_variant v;
    for (int i = 0; i < n; ++i) {
        assert_int_equal(fb_variant_get(i, &v), FB_OK);
        if (strcmp(v.spec.source_name, "grid/heat2d.cl") == 0) ++heat;
    }
    /* 2 precisions x (2 solvers x 2 orders x group sizes 32..1024 + the reduction
     * + the decomposed update (row-major) x group sizes + its pack and unpack) */
    assert_int_equal(heat, 2 * (2 * 2 * 6 + 1 + 6 + 2));
}

/* Every solver x precision x shape on the backend under test and one grid, checked. */
static void run_shapes(fb_heat2d_problem *p, const int (*shapes)[3], int nshapes)
{
    for (int k = 0; k < fb_heat2d_kernel_count; ++k)
        for (int is_double = 1; is_double >= 0; --is_double)
            for (int s = 0; s < nshapes; ++s) {
                fb_heat2d_config cfg = {
                    &fb_heat2d_kernels[k], {{shapes[s][0], shapes[s][1], shapes[s][2]}}, is_double, quick()};
                fb_heat2d_result r;
                fb_status st = fb_heat2d_run(test_target, p, &cfg, &r);
                if (st != FB_OK)
                    print_error("%s %dx%d ORDER=%d on %s (%s), %s: %s\n", cfg.kernel->name, shapes[s][0], shapes[s][1],
                                shapes[s][2], fb_target_info(test_target)->id, is_double ? "double" : "single",
                                p->g.spec, fb_error_message());
                assert_int_equal(st, FB_OK);
                assert_true(r.checked_ok);
                assert_true(r.rel_error <= r.tolerance);
                assert_true(r.analytic_error > 0 && r.analytic_error <= r.analytic_bound);
                assert_true(r.iterations >= FB_HEAT2D_CHECK_STEPS);
                assert_true(r.ns_per_cell > 0 && r.gbs > 0);
                fb_heat2d_result_free(&r);
            }
}

/* Every kernel on the backend under test. */
static void test_every_kernel(void **state)
{
    (void)state;
    /* sides that no shape divides: every launch has a guarded tail in x and y */
    const char *grids[] = {"grid:37x23", "grid:19x41:stretch=3"};
    const int shapes[][3] = {{128, 1, 0}, {1, 128, 1}, {32, 4, 1}, {4, 32, 0}, {16, 2, 0}};
    for (int g = 0; g < 2; ++g) {
        fb_heat2d_problem *p = NULL;
        assert_int_equal(fb_heat2d_problem_open(grids[g], &p), FB_OK);
        run_shapes(p, shapes, g == 0 ? 5 : 2);
        fb_heat2d_problem_close(p);
    }
}

/* The decomposed code on one rank (1x1, no MPI: --decomp without mpirun)
 * on the backend under test: the padded-block update and the reduction
 * give one device's bits and iteration count, in both precisions, on an
 * odd grid with guarded tails; its record says so. Several ranks are
 * tests/e2e/heat2d_mpi.sh. */
static void test_decomposed_one_rank(void **state)
{
    (void)state;
    const char *grids[] = {"grid:37x23", "grid:19x41:stretch=3"};
    for (int g = 0; g < 2; ++g)
        for (int is_double = 1; is_double >= 0; --is_double) {
            fb_heat2d_problem *p = NULL;
            fb_heat2d_dist_config cfg = {{&fb_heat2d_kernels[0], {{16, 8, 0}}, is_double, quick()}, {1, 1, "1d"}, 2};
            fb_heat2d_dist_result r;
            assert_int_equal(fb_heat2d_problem_open(grids[g], &p), FB_OK);
            fb_status st = fb_heat2d_dist_run(test_backend, p, &cfg, &r);
            if (st != FB_OK) print_error("%s on %s: %s\n", grids[g], test_backend, fb_error_message());
            assert_int_equal(st, FB_OK);
            assert_true(r.checked && r.identical && r.single.checked_ok);
            assert_int_equal(r.mismatched_cells, 0);
            assert_int_equal(r.iterations, r.single_iterations);
            assert_true(r.iterations >= FB_HEAT2D_CHECK_STEPS);
            json_t *rec = fb_heat2d_dist_record(p, &cfg, &r);
            assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
            assert_true(json_is_true(json_object_get(json_object_get(rec, "check"), "identical_to_single_device")));
            assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "params"), "RANKS")), 1);
            assert_int_equal(json_array_size(json_object_get(json_object_get(rec, "stats"), "samples_s")), 2);
            json_decref(rec);
            fb_heat2d_dist_result_free(&r);
            fb_heat2d_problem_close(p);
        }
}

/* The family's run returns a record with the fields docs/results.md lists. */
static void test_family_record(void **state)
{
    (void)state;
    const fb_family *f = fb_family_find("heat2d");
    void *p = NULL;
    fb_target *t = NULL;
    json_t *rec = NULL;
    assert_int_equal(f->problem_open("grid:nope", &p), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "grid:nope: bad size"));
    assert_int_equal(f->problem_open("grid:21x13:stretch=2", &p), FB_OK);
    assert_int_equal(json_integer_value(json_object_get(f->problem_json(p), "cells")), 21 * 13);
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    fb_family_run run = {.kernel = 1, .point = {{8, 8, 1}}, .is_double = 1, .measure = quick()};
    assert_int_equal(f->run(t, p, &run, &rec), FB_OK);
    assert_string_equal(json_string_value(json_object_get(rec, "benchmark")), "heat2d");
    assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
    assert_true(json_real_value(json_object_get(rec, "ns_per_cell")) > 0);
    assert_int_equal(json_integer_value(json_object_get(rec, "working_set_bytes")), 3 * 21 * 13 * 8);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "params"), "ORDER")), 1);
    assert_true(json_is_true(json_object_get(json_object_get(rec, "check"), "ok")));
    assert_non_null(json_object_get(json_object_get(rec, "check"), "analytic_error"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(rec, "grid"), "spec")),
                        "grid:21x13:stretch=2");
    json_decref(rec);
    fb_target_close(t);
    f->problem_close(p);
}

/* The check is not vacuous: a reference moved by 10 x the tolerance at
 * one cell turns the same run into FB_ERR_CHECK and a "wrong-result" record. */
static void test_check_catches_wrong_result(void **state)
{
    (void)state;
    const fb_family *f = fb_family_find("heat2d");
    fb_heat2d_problem *p = NULL;
    fb_target *t = NULL;
    json_t *rec = NULL;
    fb_family_run run = {.kernel = 0, .point = {{32, 4, 0}}, .is_double = 1, .measure = quick()};
    assert_int_equal(fb_heat2d_problem_open("grid:15x11", &p), FB_OK);
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    assert_int_equal(f->run(t, p, &run, &rec), FB_OK);
    double tol = json_real_value(json_object_get(json_object_get(rec, "check"), "tolerance"));
    json_decref(rec);
    p->ref[7 * 15 + 5] += 10 * tol;
    assert_int_equal(f->run(t, p, &run, &rec), FB_ERR_CHECK);
    assert_non_null(strstr(fb_error_message(), "wrong result"));
    assert_string_equal(json_string_value(json_object_get(rec, "status")), "wrong-result");
    assert_non_null(strstr(json_string_value(json_object_get(rec, "reason")), "against the reference"));
    json_decref(rec);
    fb_target_close(t);
    fb_heat2d_problem_close(p);
}

int main(int argc, char **argv)
{
    int code = test_backend_open(argc, argv);
    if (code != TEST_GO_ON) return code;
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_mesh),
        cmocka_unit_test(test_reference_against_exact_mode),
        cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_variants_listed),
        cmocka_unit_test(test_family_record),
        cmocka_unit_test(test_check_catches_wrong_result),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_every_kernel),
        cmocka_unit_test(test_decomposed_one_rank),
    };
    int failed = test_on_host() ? cmocka_run_group_tests_name("host", host, NULL, NULL) : 0;
    failed += cmocka_run_group_tests_name(test_backend, device, NULL, NULL);
    return test_backend_close(failed);
}
