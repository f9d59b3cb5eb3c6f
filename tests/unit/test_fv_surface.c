/* test_fv_surface.c BACKEND - the fv-surface family: every kernel x layout
 * x precision on the backend named on the command line (openmp, opencl or
 * cuda; test_family_backend.h), on small odd-sized grids with tails, checked
 * by fb_fv_run against the reference, bitwise where claimed. The openmp
 * instance also checks the reference (by hand on two cells, the flux of
 * moving states against the textbook formula, zero residual for a uniform
 * state, conservation on the periodic grid), grid specs refused with their
 * reason, constraints that prune, the model, the variant list and the
 * family's record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid/fv_surface.h"
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

static fb_fv_grid *open_grid(const char *spec)
{
    fb_fv_grid *g = NULL;
    if (fb_fv_grid_open(spec, &g) != FB_OK) fail_msg("%s: %s", spec, fb_error_message());
    return g;
}

static void test_reference_two_cells_by_hand(void **state)
{
    (void)state;
    /* Two cells at rest along x (y and z are one cell thick, so their
     * faces see equal states and cancel): rho 1 and 0.5, p 1 (E 2.5).
     * Cell 0's mass residual is -2 hs (rho0 - rho1) Ax with
     * hs = max(c0, c1) / 2 = sqrt(2.8) / 2, Ax = 1; momentum and energy 0. */
    fb_fv_grid *g = open_grid("grid:2x1x1");
    double U[10] = {1, 0, 0, 0, 2.5, 0.5, 0, 0, 0, 2.5}, R[10], S[10];
    fb_fv_reference(g, U, R, S);
    assert_float_equal(R[0], -0.5 * sqrt(2.8), 1e-15);
    assert_float_equal(R[5], 0.5 * sqrt(2.8), 1e-15);
    for (int v = 1; v < 5; ++v) {
        assert_float_equal(R[v], 0, 1e-15);
        assert_float_equal(R[5 + v], 0, 1e-15);
    }
    assert_true(S[0] > 0);
    fb_fv_grid_close(g);
}

/* The Rusanov flux from the textbook, in primitive variables, written
 * independently of grid/rusanov.h (which the reference, the OpenMP twins
 * and the device kernels share, so only this test judges the physics of
 * that code). */
static void textbook_rusanov(int d, const double *wl, const double *wr, double *F)
{
    const double gamma = 1.4, *w[2] = {wl, wr};
    double U[2][5], f[2][5], s[2];
    for (int side = 0; side < 2; ++side) { /* w = rho, u, v, w, p */
        const double rho = w[side][0], *vel = w[side] + 1, p = w[side][4], un = vel[d];
        const double E = p / (gamma - 1) + 0.5 * rho * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
        U[side][0] = rho;
        f[side][0] = rho * un;
        for (int m = 0; m < 3; ++m) {
            U[side][1 + m] = rho * vel[m];
            f[side][1 + m] = rho * vel[m] * un + (m == d ? p : 0);
        }
        U[side][4] = E;
        f[side][4] = (E + p) * un;
        s[side] = fabs(un) + sqrt(gamma * p / rho);
    }
    const double smax = fmax(s[0], s[1]);
    for (int v = 0; v < 5; ++v)
        F[v] = 0.5 * (f[0][v] + f[1][v]) - 0.5 * smax * (U[1][v] - U[0][v]);
}

/* Three moving cells along each direction in turn: the middle cell's
 * residual is F(U0, U1) - F(U1, U2) (unit face area; across the other
 * directions a one-cell-thick periodic grid sees its own state, which
 * cancels exactly), so the physical fluxes do not cancel as they do
 * between two cells. */
static void test_reference_flux_against_textbook(void **state)
{
    (void)state;
    static const char *const specs[3] = {"grid:3x1x1", "grid:1x3x1", "grid:1x1x3"};
    static const double w[3][5] = {
        {1.0, 0.3, -0.2, 0.1, 1.0}, {0.8, -0.1, 0.25, -0.3, 0.9}, {1.3, 0.2, 0.05, 0.15, 1.2}};
    for (int d = 0; d < 3; ++d) {
        fb_fv_grid *g = open_grid(specs[d]);
        double U[15], R[15], S[15], lo[5], hi[5];
        assert_float_equal(g->area[d], 1.0, 0);
        for (int c = 0; c < 3; ++c) {
            const double *q = w[c];
            U[c * 5 + 0] = q[0];
            for (int m = 0; m < 3; ++m)
                U[c * 5 + 1 + m] = q[0] * q[1 + m];
            U[c * 5 + 4] = q[4] / 0.4 + 0.5 * q[0] * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        }
        fb_fv_reference(g, U, R, S);
        textbook_rusanov(d, w[0], w[1], lo);
        textbook_rusanov(d, w[1], w[2], hi);
        for (int v = 0; v < 5; ++v) {
            if (fabs(R[5 + v] - (lo[v] - hi[v])) > 1e-13)
                print_error("%s: R[%d] = %.17g, textbook %.17g\n", specs[d], v, R[5 + v], lo[v] - hi[v]);
            assert_true(fabs(R[5 + v] - (lo[v] - hi[v])) <= 1e-13);
            assert_true(fabs(lo[v] - hi[v]) > 1e-3); /* every component is exercised */
        }
        fb_fv_grid_close(g);
    }
}

static void test_reference_uniform_state_is_zero(void **state)
{
    (void)state;
    fb_fv_grid *g = open_grid("grid:5x7x3");
    const double u[5] = {1.2, 0.3, -0.2, 0.1, 3.0};
    double *R = calloc((size_t)g->cells * 5, sizeof *R), *S = calloc((size_t)g->cells * 5, sizeof *S);
    for (int c = 0; c < g->cells; ++c)
        memcpy(g->U + (size_t)c * 5, u, sizeof u);
    fb_fv_reference(g, g->U, R, S);
    /* equal states on both sides: each direction's two terms are equal */
    for (int i = 0; i < g->cells * 5; ++i)
        assert_true(R[i] == 0);
    free(R);
    free(S);
    fb_fv_grid_close(g);
}

static void test_reference_conserves(void **state)
{
    (void)state;
    fb_fv_grid *g = open_grid("grid:9x6x5");
    double *R = calloc((size_t)g->cells * 5, sizeof *R), *S = calloc((size_t)g->cells * 5, sizeof *S);
    fb_fv_reference(g, g->U, R, S);
    for (int v = 0; v < 5; ++v) {
        double sum = 0, scale = 0, largest = 0;
        for (int c = 0; c < g->cells; ++c) {
            sum += R[(size_t)c * 5 + v];
            scale += S[(size_t)c * 5 + v];
            largest = fmax(largest, fabs(R[(size_t)c * 5 + v]));
        }
        /* every face adds to one cell what it takes from the other */
        assert_true(fabs(sum) <= 4 * DBL_EPSILON * scale);
        assert_true(largest > 1e-6); /* and the field is not trivially flat */
    }
    free(R);
    free(S);
    fb_fv_grid_close(g);
}

/* The family claims bit-for-bit equality with the reference for the
 * deterministic kernels in double, except on cuda: NVRTC fuses multiply-adds
 * (fv_surface.cl turns contraction off for OpenCL only). */
static int expect_bitwise(int kernel, int is_double)
{
    return is_double && fb_fv_kernels[kernel].deterministic && strcmp(test_backend, "cuda") != 0;
}

/* Runs kernel at (layout, block, wg, reserve) in both precisions on the
 * backend under test and asserts the check passed, bit for bit where claimed. */
static void run_checked(const fb_fv_grid *g, int kernel, const int *point)
{
    for (int is_double = 1; is_double >= 0; --is_double) {
        fb_fv_config cfg = {
            .kernel = kernel, .point = fb_fv_default_point(), .is_double = is_double, .measure = quick()};
        for (int i = 0; i < FB_FV_NPARAMS; ++i)
            cfg.point.values[i] = point[i];
        fb_fv_result r;
        fb_status st = fb_fv_run(test_target, g, &cfg, &r);
        if (st != FB_OK)
            print_error("%s %s on %s (%s, LAYOUT=%d B=%d WG=%d RES=%d): %s\n", fb_fv_kernels[kernel].name, g->spec,
                        fb_target_info(test_target)->id, is_double ? "double" : "single", point[0], point[1], point[2],
                        point[3], fb_error_message());
        assert_int_equal(st, FB_OK);
        assert_true(r.checked_ok);
        assert_true(r.ns_per_cell > 0);
        if (expect_bitwise(kernel, is_double)) {
            assert_true(r.bitwise);
            assert_true(r.tolerance == 0);
        } else {
            assert_true(r.tolerance > 0);
        }
        fb_fv_result_free(&r);
    }
}

/* Every kernel x layout, on grids whose cell counts are not multiples of
 * any work-group or AoSoA block (tail guards, padded blocks). */
static void test_every_variant(void **state)
{
    (void)state;
    static const int layouts[][2] = {{0, 8}, {1, 8}, {2, 4}, {2, 32}};
    fb_fv_grid *g = open_grid("grid:5x7x3"), *flat = open_grid("grid:1x3x2");
    for (int k = 0; k < FB_FV_KERNEL_COUNT; ++k)
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l) {
            run_checked(g, k, (int[]){layouts[l][0], layouts[l][1], 32, 0});
            run_checked(flat, k, (int[]){layouts[l][0], layouts[l][1], 64, 0});
        }
    /* the occupancy cap changes the program, not the result */
    run_checked(g, FB_FV_ATOMIC, (int[]){1, 8, 256, 8192});
    run_checked(g, FB_FV_GATHER, (int[]){2, 16, 1024, 49152});
    fb_fv_grid_close(g);
    fb_fv_grid_close(flat);
}

static void test_bad_specs(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"grid:64x64", "expected 'x' after NY"},      {"grid:0x4x4", "NX must be 1..4096"},
        {"grid:4x4x4x4", "unexpected 'x4' after NZ"}, {"grid:axbxc", "NX is not a number"},
        {"grid:+4x4x4", "NX is not a number"},        {"grid:4x4x", "NZ is not a number"},
        {"grid: 4x4x4", "NX is not a number"},        {"grid:4x5000x4", "NY must be 1..4096"},
        {"grid:1024x1024x64", "more than"},           {"heat:4x4x4", "not a grid spec"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fb_fv_grid *g = NULL;
        assert_int_equal(fb_fv_grid_open(bad[i][0], &g), FB_ERR_USAGE);
        assert_null(g);
        const char *msg = fb_error_message();
        if (!strstr(msg, bad[i][0]) || !strstr(msg, bad[i][1]))
            fail_msg("%s: message '%s' lacks the spec or '%s'", bad[i][0], msg, bad[i][1]);
    }
}

static void expect_refused(const fb_fv_grid *g, int kernel, const int *point, int is_double, const fb_device_info *dev,
                           fb_status want, const char *why)
{
    fb_fv_config cfg = {.kernel = kernel, .is_double = is_double};
    memcpy(cfg.point.values, point, FB_FV_NPARAMS * sizeof *point);
    assert_int_equal(fb_fv_check_point(g, &cfg, dev), want);
    if (!strstr(fb_error_message(), why)) fail_msg("'%s' lacks '%s'", fb_error_message(), why);
}

static void test_constraints_prune(void **state)
{
    (void)state;
    fb_fv_grid *g = open_grid("grid:4x4x4");
    fb_device_info dev = {.backend = "cuda",
                          .id = "cuda:0",
                          .max_work_group_size = 256,
                          .local_mem_bytes = 32768,
                          .double_support = 1,
                          .cc_major = 5,
                          .cc_minor = 2};
    fb_fv_config ok = {.kernel = FB_FV_PASSES, .point = fb_fv_default_point(), .is_double = 1};
    assert_int_equal(fb_fv_check_point(g, &ok, &dev), FB_OK);
    expect_refused(g, FB_FV_PASSES, (int[]){1, 16, 128, 0}, 1, &dev, FB_ERR_USAGE, "AOSOA_BLOCK applies to LAYOUT 2");
    expect_refused(g, FB_FV_GATHER, (int[]){2, 16, 512, 0}, 1, &dev, FB_ERR_USAGE, "WG_SIZE 512 exceeds");
    expect_refused(g, FB_FV_GATHER, (int[]){2, 16, 128, 49152}, 1, &dev, FB_ERR_USAGE, "LOCAL_RESERVE 49152 exceeds");
    expect_refused(g, FB_FV_ATOMIC, (int[]){1, 8, 128, 0}, 1, &dev, FB_ERR_UNAVAILABLE, "compute capability 6.0");
    expect_refused(g, FB_FV_PASSES, (int[]){3, 8, 128, 0}, 1, &dev, FB_ERR_USAGE, "LAYOUT=3 is not in its space");
    expect_refused(g, FB_FV_PASSES, (int[]){1, 8, 100, 0}, 1, &dev, FB_ERR_USAGE, "WG_SIZE=100 is not in its space");
    dev.double_support = 0;
    expect_refused(g, FB_FV_PASSES, (int[]){1, 8, 128, 0}, 1, &dev, FB_ERR_UNAVAILABLE, "no double precision");
    /* single-precision atomics need nothing more */
    fb_fv_config single = {.kernel = FB_FV_ATOMIC, .point = fb_fv_default_point(), .is_double = 0};
    assert_int_equal(fb_fv_check_point(g, &single, &dev), FB_OK);
    fb_fv_grid_close(g);
}

static void test_model(void **state)
{
    (void)state;
    fb_fv_model d = fb_fv_model_of(FB_FV_GATHER, 1000, 8), s = fb_fv_model_of(FB_FV_PASSES, 1000, 4);
    assert_float_equal(d.flops, 264.0 * 1000, 0);
    assert_float_equal(d.min_bytes, 10.0 * 8 * 1000, 0); /* U read once, R written once */
    assert_float_equal(d.moved_bytes, 40.0 * 8 * 1000, 0);
    assert_float_equal(s.min_bytes, 10.0 * 4 * 1000, 0);
    assert_true(s.moved_bytes > d.moved_bytes); /* six passes re-read U and R */
}

static void test_variants_listed(void **state)
{
    (void)state;
    int n = fb_variant_count(), mine = 0, kernels_seen = 0;
    const char *names[] = {"fv_pass", "fv_face_atomic", "fv_surface", "fv_gather", "fv_zero"};
    for (int i = 0; i < n; ++i) {
        fb_variant v;
        assert_int_equal(fb_variant_get(i, &v), FB_OK);
        if (strcmp(v.spec.source_name, "grid/fv_surface.cl") != 0) continue;
        ++mine;
        assert_non_null(v.spec.source_text);
        assert_int_equal(v.spec.ndefines, 1 + FB_FV_NPARAMS); /* REAL and the 4 axes */
        for (int k = 0; k < 5; ++k)
            kernels_seen |= strcmp(v.spec.kernel_name, names[k]) == 0 ? 1 << k : 0;
    }
    /* 2 precisions x (4 kernels x 6 layouts + fv_zero + 23 other WG x reserve points) */
    assert_int_equal(mine, 2 * (4 * 6 + 1 + 23));
    assert_int_equal(kernels_seen, 31);
}

static void test_family_record(void **state)
{
    (void)state;
    const fb_family *f = fb_family_find("fv-surface");
    void *p = NULL, *bad = NULL;
    fb_target *t = NULL;
    json_t *rec = NULL;
    assert_non_null(f);
    assert_string_equal(f->problem_key, "grid");
    assert_int_equal(f->kernel_count(), 3);
    assert_int_equal(fb_family_kernel_find(f, "fv-gather"), FB_FV_GATHER);
    assert_int_equal(f->problem_open("grid:6x5x4", &p), FB_OK);
    assert_int_equal(f->problem_open("grid:6x5", &bad), FB_ERR_USAGE);
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    fb_family_run run = {.kernel = FB_FV_GATHER, .point = fb_fv_default_point(), .is_double = 1, .measure = quick()};
    run.point.values[FB_FV_LAYOUT] = 2;
    assert_int_equal(f->check(p, &run, fb_target_info(t)), FB_OK);
    assert_int_equal(f->run(t, p, &run, &rec), FB_OK);
    assert_string_equal(json_string_value(json_object_get(rec, "benchmark")), "fv-surface");
    assert_string_equal(json_string_value(json_object_get(rec, "layout")), "aosoa8");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "grid"), "cells")), 120);
    assert_true(json_is_true(json_object_get(json_object_get(rec, "check"), "bitwise")));
    assert_true(json_real_value(json_object_get(rec, "ns_per_cell")) > 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "params"), "AOSOA_BLOCK")), 8);
    assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
    json_decref(rec);
    fb_target_close(t);
    f->problem_close(p);
}

int main(int argc, char **argv)
{
    int code = test_backend_open(argc, argv);
    if (code != TEST_GO_ON) return code;
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_reference_two_cells_by_hand),
        cmocka_unit_test(test_reference_uniform_state_is_zero),
        cmocka_unit_test(test_reference_flux_against_textbook),
        cmocka_unit_test(test_reference_conserves),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_constraints_prune),
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_variants_listed),
        cmocka_unit_test(test_family_record),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_every_variant),
    };
    int failed = test_on_host() ? cmocka_run_group_tests_name("host", host, NULL, NULL) : 0;
    failed += cmocka_run_group_tests_name(test_backend, device, NULL, NULL);
    return test_backend_close(failed);
}
