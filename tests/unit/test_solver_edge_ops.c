/* test_solver_edge_ops.c - the solver's edge operators against
 * element-by-element P1 assembly, coefficient by coefficient, on a small
 * cube mesh whose interior nodes are moved off the lattice (so no
 * coefficient is right by symmetry alone). The assembly here is written
 * independently: gradients from the inverse Jacobian (cofactors), dense
 * n x n matrices per operator. Also: the structure holds every coupled
 * pair and nothing else; row sums (zero for Ld and nd, the boundary
 * integral int N_I n for dn, equal to boundary.c's nodal normals); exact
 * gradients of linear fields; the masses sum to the volume. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/boundary.h"
#include "solver/edge_ops.h"

typedef struct dense_ops {
    int n;
    double *mc, *ld, *nd, *dn; /* n*n, 9 n*n, 3 n*n, 3 n*n; pair (I, J) at I*n + J */
} dense_ops;

/* The unit cube, N^3 nodes, interior nodes moved by up to 20% of h. */
static void perturbed_cube(int n, fb_mesh *m)
{
    assert_int_equal(fb_mesh_cube(n, m), FB_OK);
    unsigned seed = 12345;
    double h = 1.0 / (n - 1);
    for (int i = 0; i < m->nnodes; ++i) {
        double *x = m->xyz + 3 * i;
        int interior = 1;
        for (int k = 0; k < 3; ++k)
            interior &= x[k] > 1e-12 && x[k] < 1 - 1e-12;
        for (int k = 0; interior && k < 3; ++k) {
            seed = seed * 1103515245u + 12345u;
            x[k] += 0.2 * h * ((double)(seed >> 8 & 0xffff) / 65535.0 - 0.5);
        }
    }
}

/* grad N_b (b = 0..3) by the inverse of J (rows x_k - x_0), by cofactors. */
static double gradients(const fb_mesh *m, int t, double g[4][3])
{
    const int *v = m->tets + 4 * t;
    double J[3][3], inv[3][3];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c)
            J[k][c] = m->xyz[3 * v[k + 1] + c] - m->xyz[3 * v[0] + c];
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det;
        }
    /* (x_k - x_0) . grad N_b = delta_kb: grad N_b is column b-1 of J^-1 */
    for (int b = 1; b < 4; ++b)
        for (int c = 0; c < 3; ++c)
            g[b][c] = inv[c][b - 1];
    for (int c = 0; c < 3; ++c)
        g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
    return fabs(det) / 6.0;
}

static void assemble_dense(const fb_mesh *m, dense_ops *d)
{
    const int n = m->nnodes;
    d->n = n;
    d->mc = calloc((size_t)n * n, sizeof(double));
    d->ld = calloc((size_t)9 * n * n, sizeof(double));
    d->nd = calloc((size_t)3 * n * n, sizeof(double));
    d->dn = calloc((size_t)3 * n * n, sizeof(double));
    for (int t = 0; t < m->ntets; ++t) {
        double g[4][3], vol = gradients(m, t, g);
        const int *v = m->tets + 4 * t;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                long ij = (long)v[a] * n + v[b];
                d->mc[ij] += a == b ? vol / 10 : vol / 20;
                for (int k = 0; k < 3; ++k) {
                    d->nd[3 * ij + k] += vol / 4 * g[b][k];
                    d->dn[3 * ij + k] += vol / 4 * g[a][k];
                    for (int l = 0; l < 3; ++l)
                        d->ld[9 * ij + 3 * k + l] += vol * g[a][k] * g[b][l];
                }
            }
    }
}

static void dense_free(dense_ops *d) { free(d->mc), free(d->ld), free(d->nd), free(d->dn); }

static void assert_close(double got, double want, double scale, const char *what, int i, int j)
{
    if (fabs(got - want) > 1e-12 * scale) fail_msg("%s(%d, %d): %.17g, element assembly %.17g", what, i, j, got, want);
}

static void test_every_coefficient(void **state)
{
    (void)state;
    fb_mesh m;
    fb_edge_ops ops;
    dense_ops d;
    perturbed_cube(5, &m);
    assert_int_equal(fb_edge_ops_build(&m, &ops), FB_OK);
    assemble_dense(&m, &d);
    const int n = m.nnodes;
    const double h = 0.25, smass = h * h * h, sgrad = h * h, slap = h;
    int compared = 0;
    for (int i = 0; i < n; ++i) {
        int e = ops.rowptr[i];
        for (int j = 0; j < n; ++j) {
            long ij = (long)i * n + j;
            if (j == i) {
                assert_close(ops.mc_diag[i], d.mc[ij], smass, "mc_diag", i, j);
                continue;
            }
            int coupled = d.mc[ij] != 0.0;
            int stored = e < ops.rowptr[i + 1] && ops.col[e] == j;
            if (coupled != stored) fail_msg("pair (%d, %d): coupled %d, stored %d", i, j, coupled, stored);
            if (!stored) continue;
            assert_close(ops.mc[e], d.mc[ij], smass, "mc", i, j);
            for (int k = 0; k < 3; ++k) {
                assert_close(ops.nd[3 * e + k], d.nd[3 * ij + k], sgrad, "nd", i, j);
                assert_close(ops.dn[3 * e + k], d.dn[3 * ij + k], sgrad, "dn", i, j);
            }
            for (int k = 0; k < 9; ++k)
                assert_close(ops.ld[9 * e + k], d.ld[9 * ij + k], slap, "ld", i, j);
            assert_int_equal(fb_edge_find(&ops, i, j), e);
            ++e, ++compared;
        }
        assert_int_equal(e, ops.rowptr[i + 1]);
    }
    assert_int_equal(compared, ops.nedges);
    assert_true(ops.nedges > 0);
    dense_free(&d);
    fb_edge_ops_free(&ops);
    fb_mesh_free(&m);
}

static fb_bc_kind all_walls(void *ctx, const double c[3], const double n[3])
{
    (void)ctx, (void)c, (void)n;
    return FB_BC_WALL;
}

/* Row sums: Ld and nd vanish over all J (diagonal = minus the off-diagonal
 * sum), dn sums to int N_I n over the boundary, which boundary.c computes
 * from the faces. Linear fields: sum nd (f_J - f_I) = M_I grad f exactly. */
static void test_row_sums_and_linear_fields(void **state)
{
    (void)state;
    fb_mesh m;
    fb_edge_ops ops;
    fb_boundary b;
    dense_ops d;
    perturbed_cube(5, &m);
    assert_int_equal(fb_edge_ops_build(&m, &ops), FB_OK);
    assert_int_equal(fb_boundary_build(&m, all_walls, NULL, &b), FB_OK);
    assemble_dense(&m, &d);
    const int n = m.nnodes;
    const double grad[3] = {0.3, -1.7, 2.2};
    double mass = 0, mc = 0;
    int boundary_nodes = 0;
    for (int i = 0; i < n; ++i) {
        double ld[9] = {0}, nd[3] = {0}, dn[3] = {0}, g[3] = {0};
        const double fi = grad[0] * m.xyz[3 * i] + grad[1] * m.xyz[3 * i + 1] + grad[2] * m.xyz[3 * i + 2];
        for (int e = ops.rowptr[i]; e < ops.rowptr[i + 1]; ++e) {
            int j = ops.col[e];
            double fj = grad[0] * m.xyz[3 * j] + grad[1] * m.xyz[3 * j + 1] + grad[2] * m.xyz[3 * j + 2];
            for (int k = 0; k < 9; ++k)
                ld[k] += ops.ld[9 * e + k];
            for (int k = 0; k < 3; ++k)
                nd[k] += ops.nd[3 * e + k], dn[k] += ops.dn[3 * e + k], g[k] += ops.nd[3 * e + k] * (fj - fi);
            mc += ops.mc[e];
        }
        long ii = (long)i * n + i;
        for (int k = 0; k < 9; ++k)
            assert_true(fabs(ld[k] + d.ld[9 * ii + k]) < 1e-12);
        for (int k = 0; k < 3; ++k) {
            assert_true(fabs(nd[k] + d.nd[3 * ii + k]) < 1e-13);
            assert_true(fabs(dn[k] + d.dn[3 * ii + k] - b.normal[3 * i + k]) < 1e-13);
            assert_true(fabs(g[k] - ops.mass[i] * grad[k]) < 1e-12);
        }
        boundary_nodes += b.kind[i] != FB_BC_FREE;
        mass += ops.mass[i], mc += ops.mc_diag[i];
    }
    assert_true(fabs(mass - 1.0) < 1e-12);
    assert_true(fabs(mc - 1.0) < 1e-12);
    assert_int_equal(boundary_nodes, 5 * 5 * 5 - 3 * 3 * 3);
    dense_free(&d);
    fb_boundary_free(&b);
    fb_edge_ops_free(&ops);
    fb_mesh_free(&m);
}

/* Either orientation of a tetrahedron gives the same operators. */
static void test_orientation(void **state)
{
    (void)state;
    fb_mesh m;
    fb_edge_ops a, b;
    perturbed_cube(3, &m);
    assert_int_equal(fb_edge_ops_build(&m, &a), FB_OK);
    for (int t = 0; t < m.ntets; t += 2) {
        int tmp = m.tets[4 * t];
        m.tets[4 * t] = m.tets[4 * t + 1], m.tets[4 * t + 1] = tmp;
    }
    assert_int_equal(fb_edge_ops_build(&m, &b), FB_OK);
    assert_int_equal(a.nedges, b.nedges);
    for (long e = 0; e < 3L * a.nedges; ++e)
        assert_true(fabs(a.nd[e] - b.nd[e]) < 1e-14 && fabs(a.dn[e] - b.dn[e]) < 1e-14);
    fb_edge_ops_free(&a);
    fb_edge_ops_free(&b);
    fb_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_coefficient),
        cmocka_unit_test(test_row_sums_and_linear_fields),
        cmocka_unit_test(test_orientation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
