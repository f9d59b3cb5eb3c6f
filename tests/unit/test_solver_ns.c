/* test_solver_ns.c - the Navier-Stokes solver on small meshes:
 * - boundary classification of the cavity (lid, walls, lid edges as walls,
 *   the pressure reference point) and the closed-surface normals;
 * - one time step's conservation (on openmp, the baseline): the discrete stabilised continuity
 *   equation, recomputed from the edge data, holds to the CG tolerance; no
 *   net mass flux through the closed cavity; the boundary values held;
 * - the watch: a non-finite velocity and a time step far too long each stop
 *   the run with FB_ERR_CHECK and a message naming the step;
 * - the verification flow (Ethier-Steinman) on N = 9 and 17: errors under a
 *   bound, and smaller on the finer mesh by about the expected order;
 * - a channel with an inlet, an outlet, slip side walls and no-slip floor and
 *   ceiling: the priorities where the kinds meet, unit slip normals, and
 *   after 20 steps u . n = 0 on slip nodes, p = 0 on the outlet, the inlet
 *   and walls held, and the mass that enters leaving (to 0.5%);
 * - two runs on three threads give the same bits (the sums in a fixed order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "backends/target.h"
#include "solver/cases.h"
#include "solver/ns_device.h"

/* The baseline's backend: every step runs the one driver (ns_step.c) on
 * the OpenMP twins of the kernels, at the baseline's point. */
static fb_target *host;

static void on_openmp(fb_ns *ns)
{
    const fb_param_point point = fb_ns_openmp_point();
    if (fb_ns_device_open(ns, host, &point, NULL, NULL) != FB_OK) fail_msg("%s", fb_error_message());
}

/* Cavity level 0 from rest, its state on openmp. */
static void cavity_on_openmp(fb_solve_case *c, fb_ns *ns)
{
    assert_int_equal(fb_case_open("cavity", 0, NULL, c), FB_OK);
    assert_int_equal(fb_ns_init(ns, &c->mesh, &c->bnd, &c->cfg, &c->bc), FB_OK);
    fb_case_initial(c, ns);
    on_openmp(ns);
}

static int open_host(void **state)
{
    (void)state;
    return fb_target_open("openmp", &host) == FB_OK ? 0 : -1;
}

static int close_host(void **state)
{
    (void)state;
    fb_target_close(host);
    return 0;
}

static void test_cavity_boundary(void **state)
{
    (void)state;
    fb_solve_case c;
    assert_int_equal(fb_case_open("cavity", 0, NULL, &c), FB_OK);
    const int n = 15;
    const fb_boundary *b = &c.bnd;
    assert_int_equal(b->count[FB_BC_VELOCITY], (n - 2) * (n - 2)); /* the lid without its edges */
    assert_int_equal(b->count[FB_BC_WALL], n * n * n - (n - 2) * (n - 2) * (n - 2) - (n - 2) * (n - 2));
    assert_int_equal(b->count[FB_BC_SLIP] + b->count[FB_BC_OUTLET], 0);
    assert_int_equal(b->nfixed, b->count[FB_BC_VELOCITY] + b->count[FB_BC_WALL]);
    assert_int_equal(b->nfaces, 6 * 2 * (n - 1) * (n - 1));
    assert_int_equal(b->npfixed, 0);
    assert_true(b->p_ref >= 0);
    const double *pin = c.mesh.xyz + 3 * b->p_ref;
    assert_true(fabs(pin[0] - 0.5) < 1e-12 && fabs(pin[1] - 0.5) < 1e-12 && pin[2] == 0.0);
    double sum[3] = {0};
    for (int i = 0; i < c.mesh.nnodes; ++i) {
        const double *x = c.mesh.xyz + 3 * i;
        int on_lid = x[2] == 1.0, on_side = x[0] == 0.0 || x[0] == 1.0 || x[1] == 0.0 || x[1] == 1.0;
        if (on_lid && !on_side) assert_int_equal(b->kind[i], FB_BC_VELOCITY);
        if (on_lid && on_side) assert_int_equal(b->kind[i], FB_BC_WALL); /* walls win at the lid's edges */
        for (int k = 0; k < 3; ++k)
            sum[k] += b->normal[3 * i + k];
        if (on_lid && !on_side) assert_true(fabs(b->normal[3 * i + 2] - 1.0 / 196) < 1e-14); /* h^2, outward */
    }
    for (int k = 0; k < 3; ++k)
        assert_true(fabs(sum[k]) < 1e-14);
    fb_case_free(&c);
}

static void test_one_step_conservation(void **state)
{
    (void)state;
    fb_solve_case c;
    fb_ns ns;
    fb_ns_step_info info;
    cavity_on_openmp(&c, &ns);
    for (int k = 0; k < 3; ++k)
        assert_int_equal(fb_ns_step(&ns, 0, &info), FB_OK);
    assert_int_equal(fb_ns_device_download_step(&ns), FB_OK);
    assert_int_equal(info.step, 3);
    assert_true(info.cg_its > 0 && info.cg_res <= c.cfg.cg_tol);
    /* the discrete (stabilised) continuity equation of step 2,
     *   D u~ + dt K (p^{n+1} - p^n) + tau (K p^{n+1} - P pi_p) = 0,
     * recomputed here from the edge data, holds to the CG tolerance */
    double res2 = 0, b2 = 0, net, norm, *res = malloc(ns.E.n * sizeof *res), *rhs = malloc(ns.E.n * sizeof *rhs);
    const fb_ns_edges *E = &ns.E;
    for (int i = 0; i < E->n; ++i) {
        double a = 0, b = 0, ti = ns.tau[i];
        for (int e = E->rowptr[i]; e < E->rowptr[i + 1]; ++e) {
            int j = E->col[e];
            const double *l = E->ls + 6 * e, k = l[0] + l[3] + l[5];
            a += (info.dt + 0.5 * (ti + ns.tau[j])) * k * (ns.p[j] - ns.p[i]);
            b += info.dt * k * (ns.p_old[j] - ns.p_old[i]);
            for (int d = 0; d < 3; ++d)
                b += ti * E->dn[3 * e + d] * (ns.pip[3 * j + d] - ns.pip[3 * i + d]) -
                     E->nd[3 * e + d] * (ns.u2[3 * j + d] - ns.u2[3 * i + d]);
        }
        for (int d = 0; d < 3; ++d)
            b += ti * c.bnd.normal[3 * i + d] * ns.pip[3 * i + d];
        res[i] = a, rhs[i] = b;
    }
    double mean = 0; /* no fixed pressure: the compatible (zero-sum) right-hand side */
    for (int i = 0; i < E->n; ++i)
        mean += rhs[i] / E->n;
    for (int i = 0; i < E->n; ++i)
        res2 += (res[i] - rhs[i] + mean) * (res[i] - rhs[i] + mean), b2 += (rhs[i] - mean) * (rhs[i] - mean);
    free(res), free(rhs);
    print_message("continuity residual %.3g of right-hand side %.3g\n", sqrt(res2), sqrt(b2));
    assert_true(b2 > 0 && sqrt(res2) <= 2 * c.cfg.cg_tol * sqrt(b2));
    fb_ns_divergence(&ns, &norm, &net);
    assert_true(fabs(net) < 1e-12); /* closed cavity: no mass in or out */
    /* boundary values held: lid at (1,0,0), walls at rest, the reference pressure at 0 */
    for (int k = 0; k < c.bnd.nfixed; ++k) {
        int i = c.bnd.fixed[k];
        double want = c.bnd.kind[i] == FB_BC_VELOCITY ? 1.0 : 0.0;
        assert_true(ns.u[3 * i] == want && ns.u[3 * i + 1] == 0.0 && ns.u[3 * i + 2] == 0.0);
    }
    assert_true(ns.p[c.bnd.p_ref] == 0.0);
    /* the flow has started: the node under the lid's centre moves with it */
    const double under[3] = {0.5, 0.5, 13.0 / 14.0};
    for (int i = 0; i < ns.E.n; ++i)
        if (fabs(c.mesh.xyz[3 * i] - under[0]) + fabs(c.mesh.xyz[3 * i + 1] - under[1]) +
                fabs(c.mesh.xyz[3 * i + 2] - under[2]) <
            1e-9)
            assert_true(ns.u[3 * i] > 0.0);
    fb_ns_free(&ns);
    fb_case_free(&c);
}

static void test_watch(void **state)
{
    (void)state;
    fb_solve_case c;
    fb_ns ns;
    fb_ns_step_info info;
    assert_int_equal(fb_case_open("cavity", 0, NULL, &c), FB_OK);
    assert_int_equal(fb_ns_init(&ns, &c.mesh, &c.bnd, &c.cfg, &c.bc), FB_OK);
    fb_case_initial(&c, &ns);
    int victim = c.mesh.nnodes / 2;
    assert_int_equal(c.bnd.kind[victim], FB_BC_FREE);
    ns.u[3 * victim + 1] = NAN; /* in the state uploaded: the first step finds it */
    on_openmp(&ns);
    assert_int_equal(fb_ns_step(&ns, 0, &info), FB_ERR_CHECK);
    assert_non_null(strstr(fb_error_message(), "step 1: velocity is not finite at node"));
    fb_ns_free(&ns);

    /* a time step far above the stability limit: blows up within a few steps */
    c.cfg.dt_fixed = 0.25;
    assert_int_equal(fb_ns_init(&ns, &c.mesh, &c.bnd, &c.cfg, &c.bc), FB_OK);
    fb_case_initial(&c, &ns);
    on_openmp(&ns);
    fb_status st = FB_OK;
    for (int k = 0; k < 50 && st == FB_OK; ++k)
        st = fb_ns_step(&ns, 0, &info);
    assert_int_equal(st, FB_ERR_CHECK);
    char want[32];
    snprintf(want, sizeof want, "step %d: ", ns.step + 1);
    assert_non_null(strstr(fb_error_message(), want));
    fb_ns_free(&ns);
    fb_case_free(&c);
}

static void es_errors(int level, double *eu, double *ep)
{
    fb_solve_case c;
    fb_ns ns;
    fb_ns_step_info info;
    double eu_abs, ep_abs;
    assert_int_equal(fb_case_open("ethier-steinman", level, NULL, &c), FB_OK);
    c.cfg.dt_fixed = 0.004 / (1 << 2 * level); /* dt ~ h^2: the spatial error dominates */
    assert_int_equal(fb_ns_init(&ns, &c.mesh, &c.bnd, &c.cfg, &c.bc), FB_OK);
    fb_case_initial(&c, &ns);
    on_openmp(&ns);
    while (ns.t < 0.05 * (1 - 1e-12))
        assert_int_equal(fb_ns_step(&ns, 0.05, &info), FB_OK);
    assert_int_equal(fb_ns_device_download(&ns, NULL), FB_OK);
    fb_case_es_errors(&c, &ns, &eu_abs, eu, &ep_abs, ep);
    fb_ns_free(&ns);
    fb_case_free(&c);
}

static void test_verification_flow(void **state)
{
    (void)state;
    double eu0, ep0, eu1, ep1;
    es_errors(0, &eu0, &ep0);
    es_errors(1, &eu1, &ep1);
    print_message("ethier-steinman t = 0.05: N = 9: velocity %.4g pressure %.4g; N = 17: velocity %.4g pressure "
                  "%.4g (relative L2)\n",
                  eu0, ep0, eu1, ep1);
    assert_true(eu0 < 0.02 && eu1 < 0.004);
    assert_true(ep0 < 0.25 && ep1 < 0.06);
    assert_true(eu1 < eu0 / 3.0); /* about second order (2^2 = 4) */
    assert_true(ep1 < ep0 / 3.0); /* also about second order */
}

/* x = 0 inlet, x = 1 outlet, y = 0 and 1 slip, z = 0 and 1 walls */
static fb_bc_kind channel_tag(void *ctx, const double c[3], const double n[3])
{
    (void)ctx, (void)c;
    if (fabs(n[0]) > 0.5) return n[0] < 0 ? FB_BC_VELOCITY : FB_BC_OUTLET;
    return fabs(n[1]) > 0.5 ? FB_BC_SLIP : FB_BC_WALL;
}

static void channel_inlet(void *ctx, const double x[3], double t, double u[3])
{
    (void)ctx, (void)t;
    u[0] = 16.0 * x[2] * (1.0 - x[2]) * x[1] * (1.0 - x[1]) + 0.5, u[1] = u[2] = 0.0;
}

static void test_channel_slip_outlet(void **state)
{
    (void)state;
    const int n = 9;
    fb_mesh m;
    fb_boundary b;
    fb_ns ns;
    fb_ns_step_info info;
    assert_int_equal(fb_mesh_cube(n, &m), FB_OK);
    assert_int_equal(fb_boundary_build(&m, channel_tag, NULL, &b), FB_OK);
    assert_int_equal(b.p_ref, -1);
    assert_int_equal(b.npfixed, n * n); /* the whole outlet face, its edges included */
    for (int i = 0; i < m.nnodes; ++i) {
        const double *x = m.xyz + 3 * i;
        int in = x[0] == 0.0, out = x[0] == 1.0, side = x[1] == 0.0 || x[1] == 1.0, wall = x[2] == 0.0 || x[2] == 1.0;
        fb_bc_kind want = wall ? FB_BC_WALL : in ? FB_BC_VELOCITY : side ? FB_BC_SLIP : out ? FB_BC_OUTLET : FB_BC_FREE;
        if (b.kind[i] != want)
            fail_msg("node %d (%g %g %g): kind %s, expected %s", i, x[0], x[1], x[2], fb_bc_kind_name(b.kind[i]),
                     fb_bc_kind_name(want));
        assert_int_equal(b.p_fixed[i], out);
        if (b.kind[i] == FB_BC_SLIP) assert_true(fabs(fabs(b.slip_normal[3 * i + 1]) - 1.0) < 1e-14);
    }
    fb_ns_config cfg = fb_ns_config_defaults(0.05);
    fb_ns_bc bc = {.velocity = channel_inlet};
    assert_int_equal(fb_ns_init(&ns, &m, &b, &cfg, &bc), FB_OK);
    for (int i = 0; i < m.nnodes; ++i)
        ns.u[3 * i] = 0.5;
    fb_ns_impose(&ns);
    on_openmp(&ns);
    /* past the impulsive start's transient, the outflow matches the inflow */
    for (int k = 0; k < 20; ++k)
        assert_int_equal(fb_ns_step(&ns, 0, &info), FB_OK);
    assert_int_equal(fb_ns_device_download(&ns, NULL), FB_OK);
    double flux_in = 0, flux_out = 0;
    for (int i = 0; i < m.nnodes; ++i) {
        const double *x = m.xyz + 3 * i, *u = ns.u + 3 * i;
        if (b.kind[i] == FB_BC_SLIP) assert_true(fabs(u[1]) < 1e-14);
        if (b.p_fixed[i]) assert_true(ns.p[i] == 0.0);
        if (b.kind[i] == FB_BC_WALL) assert_true(u[0] == 0.0 && u[1] == 0.0 && u[2] == 0.0);
        if (b.kind[i] == FB_BC_VELOCITY) {
            double want[3];
            channel_inlet(NULL, x, 0, want);
            assert_true(u[0] == want[0] && u[1] == 0.0 && u[2] == 0.0);
        }
        double f = u[0] * b.normal[3 * i] + u[1] * b.normal[3 * i + 1] + u[2] * b.normal[3 * i + 2];
        if (x[0] == 0.0) flux_in -= f;
        if (x[0] == 1.0) flux_out += f;
    }
    print_message("channel: inflow %.5f, outflow %.5f after 20 steps\n", flux_in, flux_out);
    assert_true(flux_in > 0.5 && fabs(flux_out - flux_in) < 0.005 * flux_in);
    fb_ns_free(&ns);
    fb_boundary_free(&b);
    fb_mesh_free(&m);
}

/* The baseline gives the same bits every run at a thread count: its sums
 * are added in a fixed order (ns_omp_twins.c), which a reduction clause
 * does not do with three threads or more. */
static void cavity_fields(double *u, double *p, size_t n)
{
    fb_solve_case c;
    fb_ns ns;
    fb_ns_step_info info;
    cavity_on_openmp(&c, &ns);
    for (int k = 0; k < 2; ++k)
        assert_int_equal(fb_ns_step(&ns, 0, &info), FB_OK);
    assert_int_equal(fb_ns_device_download(&ns, NULL), FB_OK);
    assert_int_equal((size_t)ns.E.n, n);
    memcpy(u, ns.u, 3 * n * sizeof *u), memcpy(p, ns.p, n * sizeof *p);
    fb_ns_free(&ns);
    fb_case_free(&c);
}

static void test_same_bits_every_run(void **state)
{
    (void)state;
    const size_t n = 15 * 15 * 15;
    double *u[2] = {malloc(3 * n * sizeof(double)), malloc(3 * n * sizeof(double))};
    double *p[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    const int threads = omp_get_max_threads();
    omp_set_num_threads(3);
    for (int r = 0; r < 2; ++r)
        cavity_fields(u[r], p[r], n);
    omp_set_num_threads(threads);
    assert_memory_equal(u[0], u[1], 3 * n * sizeof(double));
    assert_memory_equal(p[0], p[1], n * sizeof(double));
    free(u[0]), free(u[1]), free(p[0]), free(p[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cavity_boundary),
        cmocka_unit_test(test_one_step_conservation),
        cmocka_unit_test(test_watch),
        cmocka_unit_test(test_verification_flow),
        cmocka_unit_test(test_channel_slip_outlet),
        cmocka_unit_test(test_same_bits_every_run),
    };
    return cmocka_run_group_tests(tests, open_host, close_host);
}
