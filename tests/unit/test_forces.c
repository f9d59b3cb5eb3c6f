/* test_forces.c - surface forces (solver/forces.h) on the generated unit
 * cube, whose boundary is a closed surface with known sides:
 *  - boundary faces: 2 (N-1)^2 triangles per side, normals out of the cube
 *    (out of the fluid), areas summing to 6;
 *  - pressure: p = 1 over the closed surface gives zero; over one side the
 *    side's area times its outward normal; the linear p = x + 2y - 3z over
 *    the closed surface gives the volume integral of grad p (divergence
 *    theorem, exact for P1 because the face mean of P1 is its integral);
 *  - viscous: the shear u = (z, 0, 0) puts the traction -nu x on the z = 1
 *    side, +nu x on z = 0, -nu z on x = 1 and +nu z on x = 0 (the fluid
 *    drags each wall the way it moves relative to it), zero in total;
 *  - the node order within a face does not change the result;
 *  - bad input is refused with the face's number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/forces.h"

#define N 5

typedef struct cube_faces {
    fb_mesh m;
    int *nodes, *tet, n;
} cube_faces;

static void open_cube(cube_faces *c)
{
    assert_int_equal(fb_mesh_cube(N, &c->m), FB_OK);
    assert_int_equal(fb_mesh_boundary_faces(&c->m, &c->nodes, &c->tet, &c->n), FB_OK);
}

static void close_cube(cube_faces *c)
{
    free(c->nodes);
    free(c->tet);
    fb_mesh_free(&c->m);
}

/* The side a boundary face lies on, as 2 * axis + (0 for the 0 side, 1 for
 * the 1 side), from its centroid; -1 if it is on none. */
static int side_of(const fb_mesh *m, const int *f)
{
    for (int ax = 0; ax < 3; ++ax) {
        int on0 = 1, on1 = 1;
        for (int k = 0; k < 3; ++k) {
            double c = m->xyz[3 * f[k] + ax];
            on0 &= fabs(c) < 1e-12, on1 &= fabs(c - 1.0) < 1e-12;
        }
        if (on0) return 2 * ax;
        if (on1) return 2 * ax + 1;
    }
    return -1;
}

/* The faces of one side, copied out. */
static int select_side(const cube_faces *c, int side, int *nodes, int *tet)
{
    int n = 0;
    for (int f = 0; f < c->n; ++f)
        if (side_of(&c->m, c->nodes + 3 * f) == side) {
            memcpy(nodes + 3 * n, c->nodes + 3 * f, 3 * sizeof *nodes);
            tet[n++] = c->tet[f];
        }
    return n;
}

static void test_boundary_faces(void **state)
{
    (void)state;
    cube_faces c;
    open_cube(&c);
    assert_int_equal(c.n, 6 * 2 * (N - 1) * (N - 1));
    int per_side[6] = {0};
    double area = 0.0;
    for (int f = 0; f < c.n; ++f) {
        const int *v = c.nodes + 3 * f;
        const double *a = c.m.xyz + 3 * v[0], *b = c.m.xyz + 3 * v[1], *d = c.m.xyz + 3 * v[2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        double s[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        int side = side_of(&c.m, v);
        assert_true(side >= 0);
        ++per_side[side];
        /* the outward normal of side 2 ax + hi is (2 hi - 1) e_ax */
        assert_true(s[side / 2] * (2 * (side % 2) - 1) > 0.0);
        area += 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        int in_owner = 0;
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 3; ++j)
                in_owner += c.m.tets[4 * c.tet[f] + k] == v[j];
        assert_int_equal(in_owner, 3);
    }
    for (int s = 0; s < 6; ++s)
        assert_int_equal(per_side[s], 2 * (N - 1) * (N - 1));
    assert_true(fabs(area - 6.0) < 1e-12);
    close_cube(&c);
}

static void test_pressure(void **state)
{
    (void)state;
    cube_faces c;
    open_cube(&c);
    double *u = calloc(3 * (size_t)c.m.nnodes, sizeof *u), *p = malloc((size_t)c.m.nnodes * sizeof *p);
    int *nodes = malloc(3 * (size_t)c.n * sizeof *nodes), *tet = malloc((size_t)c.n * sizeof *tet);
    double fp[3], fv[3];

    for (int i = 0; i < c.m.nnodes; ++i)
        p[i] = 1.0;
    assert_int_equal(fb_surface_force(&c.m, c.nodes, c.tet, c.n, u, p, 0.1, fp, fv), FB_OK);
    for (int k = 0; k < 3; ++k)
        assert_true(fabs(fp[k]) < 1e-13 && fv[k] == 0.0);
    for (int side = 0; side < 6; ++side) {
        int n = select_side(&c, side, nodes, tet), ax = side / 2;
        assert_int_equal(fb_surface_force(&c.m, nodes, tet, n, u, p, 0.1, fp, fv), FB_OK);
        /* unit area, pointing out of the fluid: the pressure pushes the wall outwards */
        for (int k = 0; k < 3; ++k)
            assert_true(fabs(fp[k] - (k == ax ? 2.0 * (side % 2) - 1.0 : 0.0)) < 1e-13);
    }

    static const double gp[3] = {1.0, 2.0, -3.0};
    for (int i = 0; i < c.m.nnodes; ++i)
        p[i] = gp[0] * c.m.xyz[3 * i] + gp[1] * c.m.xyz[3 * i + 1] + gp[2] * c.m.xyz[3 * i + 2] + 5.0;
    assert_int_equal(fb_surface_force(&c.m, c.nodes, c.tet, c.n, u, p, 0.1, fp, fv), FB_OK);
    for (int k = 0; k < 3; ++k)
        assert_true(fabs(fp[k] - gp[k] * 1.0) < 1e-12); /* volume 1 */
    free(u);
    free(p);
    free(nodes);
    free(tet);
    close_cube(&c);
}

static void test_shear(void **state)
{
    (void)state;
    cube_faces c;
    open_cube(&c);
    const double nu = 0.37;
    double *u = calloc(3 * (size_t)c.m.nnodes, sizeof *u), *p = calloc((size_t)c.m.nnodes, sizeof *p);
    int *nodes = malloc(3 * (size_t)c.n * sizeof *nodes), *tet = malloc((size_t)c.n * sizeof *tet);
    double fp[3], fv[3];
    for (int i = 0; i < c.m.nnodes; ++i)
        u[3 * i] = c.m.xyz[3 * i + 2]; /* u = (z, 0, 0): tau_xz = tau_zx = nu */
    /* expected viscous force per side: -tau n, n the outward normal */
    static const double want[6][3] = {{0, 0, 1}, {0, 0, -1}, {0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {-1, 0, 0}};
    for (int side = 0; side < 6; ++side) {
        int n = select_side(&c, side, nodes, tet);
        assert_int_equal(fb_surface_force(&c.m, nodes, tet, n, u, p, nu, fp, fv), FB_OK);
        for (int k = 0; k < 3; ++k) {
            if (fabs(fv[k] - nu * want[side][k]) > 1e-13)
                fail_msg("side %d: viscous force %d is %.17g, want %g", side, k, fv[k], nu * want[side][k]);
            assert_true(fabs(fp[k]) == 0.0);
        }
        /* the node order within a face is free: reverse every face */
        for (int f = 0; f < n; ++f) {
            int x = nodes[3 * f + 1];
            nodes[3 * f + 1] = nodes[3 * f + 2], nodes[3 * f + 2] = x;
        }
        double fv2[3];
        assert_int_equal(fb_surface_force(&c.m, nodes, tet, n, u, p, nu, fp, fv2), FB_OK);
        for (int k = 0; k < 3; ++k)
            assert_true(fabs(fv2[k] - fv[k]) < 1e-15);
    }
    assert_int_equal(fb_surface_force(&c.m, c.nodes, c.tet, c.n, u, p, nu, fp, fv), FB_OK);
    for (int k = 0; k < 3; ++k)
        assert_true(fabs(fv[k]) < 1e-13); /* div tau = nu lap u = 0 inside */
    free(u);
    free(p);
    free(nodes);
    free(tet);
    close_cube(&c);
}

static void expect_input_error(const cube_faces *c, const int *nodes, const int *tet, int n, const char *what)
{
    double *u = calloc(3 * (size_t)c->m.nnodes, sizeof *u), *p = calloc((size_t)c->m.nnodes, sizeof *p);
    double fp[3] = {7, 7, 7}, fv[3] = {7, 7, 7};
    assert_int_equal(fb_surface_force(&c->m, nodes, tet, n, u, p, 1.0, fp, fv), FB_ERR_INPUT);
    if (!strstr(fb_error_message(), "face 1:") || !strstr(fb_error_message(), what))
        fail_msg("message \"%s\" lacks \"face 1:\" or \"%s\"", fb_error_message(), what);
    assert_true(fp[0] == 7 && fv[0] == 7); /* untouched on failure */
    free(u);
    free(p);
}

static void test_bad_input(void **state)
{
    (void)state;
    cube_faces c;
    open_cube(&c);
    int nodes[6], tet[2];
    memcpy(nodes, c.nodes, sizeof nodes);
    memcpy(tet, c.tet, sizeof tet);
    nodes[4] = c.m.nnodes;
    expect_input_error(&c, nodes, tet, 2, "out of range");
    nodes[4] = -1;
    expect_input_error(&c, nodes, tet, 2, "out of range");
    memcpy(nodes, c.nodes, sizeof nodes);
    tet[1] = c.m.ntets;
    expect_input_error(&c, nodes, tet, 2, "out of range");
    /* any tetrahedron but its owner: a boundary face belongs to one tetrahedron only */
    tet[1] = c.tet[1] == 0 ? 1 : 0;
    expect_input_error(&c, nodes, tet, 2, "not a face");
    memcpy(tet, c.tet, sizeof tet);
    nodes[5] = nodes[3];
    expect_input_error(&c, nodes, tet, 2, "repeated node");
    close_cube(&c);
}

static void test_coefficients(void **state)
{
    (void)state;
    const double f[3] = {3.0, -1.0, 0.5}, rho = 1.2, U = 40.0, area = 0.112;
    double cd, cl, q = 0.5 * rho * U * U * area;
    fb_force_coefficients(f, rho, U, area, &cd, &cl);
    assert_true(fabs(cd * q - f[0]) < 1e-12 * f[0]);
    assert_true(fabs(cl * q - f[2]) < 1e-12 * f[2]);
    assert_true(cd > 0.0 && cl > 0.0); /* drag along +x, lift along +z */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundary_faces), cmocka_unit_test(test_pressure),     cmocka_unit_test(test_shear),
        cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_coefficients),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
