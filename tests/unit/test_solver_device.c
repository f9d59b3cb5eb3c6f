/* test_solver_device.c BACKEND - the Navier-Stokes solver's device path
 * against its OpenMP baseline, on one backend (registered once per backend
 * built, skipped where a device backend has no device):
 * - the cavity at levels 0 and 1 from rest to t = 0.1: every step's CG
 *   iteration count equal or within one, and u and p after the run within
 *   a relative L2 tolerance of the OpenMP run's; level 0 again with the
 *   work-group trees and the classic CG (the defaults are per-item partials
 *   and the single-reduction CG), and with the pipelined CG;
 * - Ethier-Steinman (time-dependent boundary velocities, fixed pressures):
 *   the same validation errors;
 * - level 0 with the packed edge records in the mesh's order, and with the
 *   CG's product by the SpMV family (CG_SPMV: csr-vector; csr-multirow on a
 *   renumbered device), and that choice's launch count, SpMV point checks
 *   and pressure matrix record;
 * - the halo's pack and unpack kernels, which only several ranks launch;
 * - a reduction's two folds both ways (a GPU's coalesced reads, a CPU
 *   device's streamed runs), exact, on a device backend.
 * The baseline is the same driver on openmp at fb_ns_openmp_point, the
 * kernels' OpenMP twins (kernels/ns/ns_omp_twins.c); on openmp each
 * variant runs on the twins against it, and that instance also checks a
 * state on no backend (no download, no step).
 *
 * Why the variants run at level 0 (729 nodes, 4 steps) and only the
 * defaults at level 1 too (4,913 nodes, 8 steps, five times the time): a
 * variant changes which kernels run and how they reduce, not what depends
 * on the mesh's size; at level 0 every reduction still spans several
 * work-groups (6 of 128 items, 46 of csr-multirow's 16 rows), the CG takes
 * tens of iterations a step, and each planted bug of e2e.grid_mutants
 * still fails its comparison here (the CG stops converging, or u moves by
 * orders of magnitude more than the tolerance). Level 1 at the defaults
 * keeps the finer mesh's agreement checked.
 *
 * Why the tolerances: both runs take the same steps with the same dt, but
 * the device sums its reductions (dot products, norms) in another order and
 * a GPU compiler fuses multiply-adds, so a CG that stops at
 * ||r|| <= 1e-6 ||b|| may stop one iteration earlier or later, at an
 * iterate that differs by up to about that tolerance: p within 1e-4
 * relative (the CG tolerance times the pressure matrix's conditioning, with
 * margin), u within 1e-6 (dt times that pressure gradient). Measured on
 * PoCL: the same CG iterations every step and differences of 1e-16
 * (rounding) at levels 0 and 1; a wrong kernel moves them by orders of
 * magnitude more (e2e.grid_mutants plants some). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "solver/cases.h"
#include "solver/ns_device.h"
#include "test_family_backend.h"

#define U_TOLERANCE 1e-6
#define P_TOLERANCE 1e-4
#define MAX_STEPS 64

typedef struct run {
    fb_solve_case c;
    fb_ns ns;
    int steps, its[MAX_STEPS];
} run;

/* The OpenMP baseline's backend, opened at its first use. */
static fb_target *openmp_baseline;

static fb_target *baseline_target(void)
{
    if (!openmp_baseline && fb_target_open("openmp", &openmp_baseline) != FB_OK) fail_msg("%s", fb_error_message());
    return openmp_baseline;
}

/* case at level from rest to t_end: the OpenMP baseline (t NULL: openmp
 * at fb_ns_openmp_point) or on t's device with the kernels at point (NULL:
 * the defaults). */
static void solve_at(run *r, const char *name, int level, double t_end, fb_target *t, const fb_param_point *at)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(fb_case_open(name, level, NULL, &r->c), FB_OK);
    assert_int_equal(fb_ns_init(&r->ns, &r->c.mesh, &r->c.bnd, &r->c.cfg, &r->c.bc), FB_OK);
    fb_case_initial(&r->c, &r->ns);
    const fb_param_point point = !t ? fb_ns_openmp_point() : at ? *at : fb_ns_default_point();
    if (fb_ns_device_open(&r->ns, t ? t : baseline_target(), &point, NULL, NULL) != FB_OK)
        fail_msg("%s", fb_error_message());
    fb_ns_step_info info;
    while (r->ns.t < t_end * (1.0 - 1e-12)) {
        assert_true(r->steps < MAX_STEPS);
        if (fb_ns_step(&r->ns, t_end, &info) != FB_OK) fail_msg("%s: %s", name, fb_error_message());
        r->its[r->steps++] = info.cg_its;
    }
    assert_int_equal(fb_ns_device_download(&r->ns, NULL), FB_OK);
}

static void solve(run *r, const char *name, int level, double t_end, fb_target *t)
{
    solve_at(r, name, level, t_end, t, NULL);
}

static void finish(run *r)
{
    fb_ns_free(&r->ns);
    fb_case_free(&r->c);
}

/* ||a - b|| / ||b|| over n values. */
static double rel_l2(const double *a, const double *b, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; ++i)
        d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

static void compare_cavity(int level, const fb_param_point *at)
{
    run host, dev;
    solve(&host, "cavity", level, 0.1, NULL);
    solve_at(&dev, "cavity", level, 0.1, test_target, at);
    assert_int_equal(dev.steps, host.steps);
    int worst = 0;
    for (int k = 0; k < host.steps; ++k) {
        int d = abs(dev.its[k] - host.its[k]);
        worst = d > worst ? d : worst;
    }
    const size_t n = (size_t)host.ns.E.n;
    const double du = rel_l2(dev.ns.u, host.ns.u, 3 * n), dp = rel_l2(dev.ns.p, host.ns.p, n);
    print_message("cavity level %d on %s: %d steps, CG iterations differ by at most %d, relative L2 u %.3g, p %.3g\n",
                  level, test_backend, host.steps, worst, du, dp);
    assert_true(worst <= 1);
    assert_true(du <= U_TOLERANCE);
    assert_true(dp <= P_TOLERANCE);
    finish(&host);
    finish(&dev);
}

static void test_cavity_level0(void **state)
{
    (void)state;
    compare_cavity(0, NULL);
}

static void test_cavity_level1(void **state)
{
    (void)state;
    compare_cavity(1, NULL);
}

/* The other reduction scheme and the classic CG: the same run. */
static void test_cavity_level0_classic_cg(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_GROUP_REDUCE_AXIS] = 1;
    at.values[FB_NS_CG_VARIANT_AXIS] = 0;
    print_message("GROUP_REDUCE=1 CG_VARIANT=0:\n");
    compare_cavity(0, &at);
}

/* The pipelined CG (its recurrences round differently from the classic
 * CG's, but stop at the same tolerance): the same run and bounds. */
static void test_cavity_level0_pipelined_cg(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_CG_VARIANT_AXIS] = 2;
    print_message("CG_VARIANT=2:\n");
    compare_cavity(0, &at);
}

/* Time-dependent velocities on every boundary node and the exact pressure
 * at fixed nodes: the device's boundary uploads and pressure values. */
static void compare_ethier_steinman(const fb_param_point *at)
{
    run host, dev;
    json_t *vh = NULL, *vd = NULL;
    solve(&host, "ethier-steinman", 0, 0.02, NULL);
    solve_at(&dev, "ethier-steinman", 0, 0.02, test_target, at);
    assert_int_equal(fb_case_validate(&host.c, &host.ns, &vh), FB_OK);
    assert_int_equal(fb_case_validate(&dev.c, &dev.ns, &vd), FB_OK);
    const char *key;
    json_t *v;
    int compared = 0;
    json_object_foreach(vh, key, v)
    {
        if (!json_is_number(v) || strstr(key, "flux")) continue; /* the net flux is rounding noise */
        double a = json_number_value(v), b = json_number_value(json_object_get(vd, key));
        print_message("ethier-steinman %s: openmp %.6g, %s %.6g\n", key, a, test_backend, b);
        assert_true(fabs(a - b) <= 1e-6 * fabs(a) + 1e-12);
        ++compared;
    }
    assert_true(compared >= 2);
    json_decref(vh);
    json_decref(vd);
    finish(&host);
    finish(&dev);
}

static void test_ethier_steinman(void **state)
{
    (void)state;
    compare_ethier_steinman(NULL);
}

/* The packed edge records in the mesh's own order (the defaults hold the
 * nodes in RCM order): the same run, the sums only in another order. */
static void test_cavity_level0_packed_mesh_order(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_EDGE_LAYOUT_AXIS] = 1;
    at.values[FB_NS_RENUMBER_AXIS] = 0;
    print_message("EDGE_LAYOUT=1 RENUMBER=0:\n");
    compare_cavity(0, &at);
}

/* Renumbered by neighbour count, with prescribed pressures and
 * time-dependent boundary lists: every list goes through the renumbering. */
static void test_ethier_steinman_by_degree(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_RENUMBER_AXIS] = 2;
    print_message("RENUMBER=2:\n");
    compare_ethier_steinman(&at);
}

/* The CG's product by the SpMV family's csr-vector on the pressure
 * matrix as CSR (ns_csr_values, ns_cg1_dots): the same run. */
static void test_cavity_level0_spmv_vector(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_CG_SPMV_AXIS] = 2;
    print_message("CG_SPMV=2:\n");
    compare_cavity(0, &at);
}

/* csr-multirow on a renumbered device: the CSR pattern and the edge
 * positions in the device's order. */
static void test_cavity_level0_spmv_multirow_rcm(void **state)
{
    (void)state;
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_CG_SPMV_AXIS] = 3;
    at.values[FB_NS_RENUMBER_AXIS] = 1;
    print_message("CG_SPMV=3 RENUMBER=1:\n");
    compare_cavity(0, &at);
}

/* The launch count each choice reports, the SpMV point's checks, the
 * record the tuning cache's lookup needs, and the classic CG refused. */
static void test_spmv_point_and_record(void **state)
{
    (void)state;
    run r;
    json_t *rec = NULL;
    memset(&r, 0, sizeof r);
    assert_int_equal(fb_case_open("cavity", 0, NULL, &r.c), FB_OK);
    assert_int_equal(fb_ns_init(&r.ns, &r.c.mesh, &r.c.bnd, &r.c.cfg, &r.c.bc), FB_OK);
    fb_case_initial(&r.c, &r.ns);
    fb_param_point at = fb_ns_default_point();
    at.values[FB_NS_CG_SPMV_AXIS] = 2;
    at.values[FB_NS_CG_VARIANT_AXIS] = 0;
    assert_int_equal(fb_ns_device_open(&r.ns, test_target, &at, NULL, NULL), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "CG_VARIANT=1"));
    at.values[FB_NS_CG_VARIANT_AXIS] = 1;
    assert_int_equal(fb_ns_device_open(&r.ns, test_target, &at, NULL, NULL), FB_OK);
    assert_int_equal(fb_ns_device_launches_per_cg_iteration(&r.ns), 4);
    assert_string_equal(fb_ns_device_spmv_kernel(&r.ns)->name, "csr-vector");
    fb_param_point sp = *fb_ns_device_spmv_point(&r.ns);
    sp.values[1] = 64, sp.values[0] = 32; /* VECTOR_SIZE over WG_SIZE */
    assert_int_equal(fb_ns_device_set_spmv_point(&r.ns, &sp), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "VECTOR_SIZE"));
    sp.values[0] = 64, sp.values[1] = 4;
    assert_int_equal(fb_ns_device_set_spmv_point(&r.ns, &sp), FB_OK);
    assert_int_equal(fb_ns_device_spmv_point(&r.ns)->values[1], 4);
    assert_int_equal(fb_ns_pressure_matrix_record(&r.ns, &rec, NULL), FB_OK);
    const long long n = r.ns.E.n, nnz = (long long)r.ns.E.nedges + n;
    assert_int_equal(json_integer_value(json_object_get(rec, "rows")), n);
    assert_int_equal(json_integer_value(json_object_get(rec, "nnz")), nnz);
    assert_non_null(json_object_get(json_object_get(rec, "nnz_per_row"), "stddev"));
    json_decref(rec);
    fb_ns_device_close(&r.ns);
    assert_int_equal(fb_ns_device_set_spmv_point(&r.ns, &sp), FB_ERR_USAGE);
    finish(&r);
}

/* Kernel name built at the solver's defines (its twin on openmp). */
static fb_kernel *build_ns(const char *name)
{
    const fb_define defines[] = {{"REAL", "double"}, {"WG_SIZE", "128"}, {"GROUP_REDUCE", "0"}};
    const fb_program_spec spec = {FB_NS_SOURCE, fb_kernel_source(FB_NS_SOURCE), name, defines, 3, fb_ns_host_kernels};
    fb_kernel *k = NULL;
    if (fb_target_build(test_target, &spec, &k) != FB_OK) fail_msg("%s", fb_error_message());
    return k;
}

/* The halo exchange's pack and unpack, which only a run on several ranks
 * launches (so no comparison above does): the 3-vectors of the nodes idx
 * names into the buffer in idx's order, and back into their nodes. */
static void test_halo_pack_unpack(void **state)
{
    (void)state;
    enum { NODES = 5, COUNT = 3 };
    const int idx[COUNT] = {4, 0, 2};
    double v[3 * NODES], buf[3 * COUNT], back[3 * NODES] = {0};
    fb_buffer *dv, *didx, *dbuf, *dback;
    for (int i = 0; i < 3 * NODES; ++i)
        v[i] = i + 1;
    assert_int_equal(fb_target_alloc(test_target, sizeof v, &dv), FB_OK);
    assert_int_equal(fb_target_alloc(test_target, sizeof idx, &didx), FB_OK);
    assert_int_equal(fb_target_alloc(test_target, sizeof buf, &dbuf), FB_OK);
    assert_int_equal(fb_target_alloc(test_target, sizeof back, &dback), FB_OK);
    assert_int_equal(fb_target_copy_in(test_target, dv, v, sizeof v), FB_OK);
    assert_int_equal(fb_target_copy_in(test_target, didx, idx, sizeof idx), FB_OK);
    assert_int_equal(fb_target_copy_in(test_target, dback, back, sizeof back), FB_OK);
    const fb_arg pack[] = {fb_arg_i32(COUNT), fb_arg_i32(3), fb_arg_buffer(didx), fb_arg_buffer(dv),
                           fb_arg_buffer(dbuf)};
    const fb_arg unpack[] = {fb_arg_i32(COUNT), fb_arg_i32(3), fb_arg_buffer(didx), fb_arg_buffer(dbuf),
                             fb_arg_buffer(dback)};
    const fb_launch l = fb_launch_1d(COUNT, 128);
    assert_int_equal(fb_target_launch(test_target, build_ns("ns_halo_pack"), &l, pack, 5, NULL), FB_OK);
    assert_int_equal(fb_target_launch(test_target, build_ns("ns_halo_unpack"), &l, unpack, 5, NULL), FB_OK);
    assert_int_equal(fb_target_copy_out(test_target, buf, dbuf, sizeof buf), FB_OK);
    assert_int_equal(fb_target_copy_out(test_target, back, dback, sizeof back), FB_OK);
    for (int k = 0; k < COUNT; ++k)
        for (int c = 0; c < 3; ++c) {
            assert_true(buf[3 * k + c] == v[3 * idx[k] + c]);
            assert_true(back[3 * idx[k] + c] == v[3 * idx[k] + c]);
        }
    assert_true(back[3] == 0.0 && back[9] == 0.0); /* nodes 1 and 3 are in no list */
    fb_buffer *all[] = {dv, didx, dbuf, dback};
    for (int i = 0; i < 4; ++i)
        fb_target_release(test_target, all[i]);
}

/* A reduction's two folds (fb_nsd_reduce) as a GPU and as a CPU device
 * run them: ns_reduce_groups with adjacent items reading adjacent
 * partials (runs = 0) and with a streamed run per item (runs = 1), over 7
 * groups of shares that do not divide the partials, then ns_reduce over
 * the groups' values: the sums, maxima and minima of three values, exact
 * (integers). The openmp twins keep each value whole in its first partial
 * (ns_omp_twins.c), so this is for device backends. */
static void test_reduce_two_folds(void **state)
{
    (void)state;
    enum { N = 10007, NVALS = 3, GROUPS = 7, OPS = 3 };
    if (!strcmp(fb_target_info(test_target)->backend, "openmp")) skip();
    static double partial[NVALS * N];
    double want[OPS][NVALS];
    for (int v = 0; v < NVALS; ++v) {
        want[0][v] = 0, want[1][v] = -1e300, want[2][v] = 1e300;
        for (int i = 0; i < N; ++i) {
            const double x = (double)((i * (v + 3)) % 1000) - 400;
            partial[v * N + i] = x;
            want[0][v] += x, want[1][v] = fmax(want[1][v], x), want[2][v] = fmin(want[2][v], x);
        }
    }
    fb_buffer *dp, *dfolds, *dscal;
    assert_int_equal(fb_target_alloc(test_target, sizeof partial, &dp), FB_OK);
    assert_int_equal(fb_target_alloc(test_target, sizeof(double) * NVALS * GROUPS, &dfolds), FB_OK);
    assert_int_equal(fb_target_alloc(test_target, sizeof(double) * NVALS, &dscal), FB_OK);
    assert_int_equal(fb_target_copy_in(test_target, dp, partial, sizeof partial), FB_OK);
    const fb_launch many = fb_launch_1d(GROUPS * 128, 128), one = fb_launch_1d(128, 128);
    for (int runs = 0; runs <= 1; ++runs)
        for (int op = 0; op < OPS; ++op) { /* ns.cl: sum, max, min */
            double got[NVALS] = {0};
            const fb_arg first[] = {fb_arg_i32(N),  fb_arg_i32(N),     fb_arg_i32(0),         fb_arg_i32(NVALS),
                                    fb_arg_i32(op), fb_arg_buffer(dp), fb_arg_buffer(dfolds), fb_arg_i32(runs)};
            const fb_arg second[] = {fb_arg_i32(GROUPS), fb_arg_i32(GROUPS),    fb_arg_i32(0),        fb_arg_i32(NVALS),
                                     fb_arg_i32(op),     fb_arg_buffer(dfolds), fb_arg_buffer(dscal), fb_arg_i32(0)};
            assert_int_equal(fb_target_launch(test_target, build_ns("ns_reduce_groups"), &many, first, 8, NULL), FB_OK);
            assert_int_equal(fb_target_launch(test_target, build_ns("ns_reduce"), &one, second, 8, NULL), FB_OK);
            assert_int_equal(fb_target_copy_out(test_target, got, dscal, sizeof got), FB_OK);
            for (int v = 0; v < NVALS; ++v)
                if (got[v] != want[op][v])
                    fail_msg("runs %d op %d value %d: %g, want %g", runs, op, v, got[v], want[op][v]);
        }
    fb_target_release(test_target, dp);
    fb_target_release(test_target, dfolds);
    fb_target_release(test_target, dscal);
}

/* Host only: without a backend, the download is a no-op that takes no
 * time, and a step is refused (every step runs on a backend). */
static void test_download_without_device(void **state)
{
    (void)state;
    run r;
    fb_ns_step_info info;
    memset(&r, 0, sizeof r);
    assert_int_equal(fb_case_open("cavity", 0, NULL, &r.c), FB_OK);
    assert_int_equal(fb_ns_init(&r.ns, &r.c.mesh, &r.c.bnd, &r.c.cfg, &r.c.bc), FB_OK);
    double s = -1;
    assert_int_equal(fb_ns_device_download(&r.ns, &s), FB_OK);
    assert_true(s == 0.0);
    assert_int_equal(fb_ns_step(&r.ns, 0, &info), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "fb_ns_device_open first"));
    finish(&r);
}

int main(int argc, char **argv)
{
    int rc = test_backend_open(argc, argv);
    if (rc != TEST_GO_ON) return rc;
    /* FB_TEST_ONLY=GLOB runs the matching tests only: e2e.grid_mutants runs
     * each mutant against the comparison that exercises it, not all of them */
    const char *only = getenv("FB_TEST_ONLY");
    if (only && *only) cmocka_set_test_filter(only);
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_cavity_level0),
        cmocka_unit_test(test_cavity_level1),
        cmocka_unit_test(test_cavity_level0_classic_cg),
        cmocka_unit_test(test_cavity_level0_pipelined_cg),
        cmocka_unit_test(test_ethier_steinman),
        cmocka_unit_test(test_cavity_level0_packed_mesh_order),
        cmocka_unit_test(test_ethier_steinman_by_degree),
        cmocka_unit_test(test_cavity_level0_spmv_vector),
        cmocka_unit_test(test_cavity_level0_spmv_multirow_rcm),
        cmocka_unit_test(test_spmv_point_and_record),
        cmocka_unit_test(test_halo_pack_unpack),
        cmocka_unit_test(test_reduce_two_folds),
    };
    const struct CMUnitTest host[] = {cmocka_unit_test(test_download_without_device)};
    int failed = cmocka_run_group_tests(device, NULL, NULL);
    if (test_on_host()) failed += cmocka_run_group_tests(host, NULL, NULL);
    fb_target_close(openmp_baseline);
    return test_backend_close(failed);
}
