/* test_matrix_mesh.c - meshes and the matrices built on them.
 *
 * gen:cube: exact node, tetrahedron and nonzero counts for the cavity
 * levels N = 15, 29, 57 and small N; every tetrahedron positively oriented.
 * The P1 Laplacian: exactly symmetric, zero row sums, positive diagonal,
 * and u^T L u = |grad u|^2 * volume for linear u (P1 is exact on linear
 * functions, so this checks the stiffness values themselves). The single
 * reference tetrahedron against its element matrix written by hand.
 * Gmsh 2.2, Gmsh 4.1 and SU2 files of the same mesh give the same mesh. */
#include "test_matrix_util.h"

#include <math.h>

#include "matrix/mesh.h"

static void test_cube_counts(void **state)
{
    (void)state;
    static const int levels[3][3] = {{15, 3375, 16464}, {29, 24389, 131712}, {57, 185193, 1053696}};
    for (int l = 0; l < 3; ++l) {
        fb_mesh m;
        assert_int_equal(fb_mesh_cube_level(l), levels[l][0]);
        assert_int_equal(fb_mesh_cube(levels[l][0], &m), FB_OK);
        assert_int_equal(m.nnodes, levels[l][1]);
        assert_int_equal(m.ntets, levels[l][2]);
        fb_mesh_free(&m);
    }
    assert_int_equal(fb_mesh_cube_level(3), 0);
    /* refining N -> 2N - 1 is the 8-way split: 8x the tetrahedra */
    assert_int_equal(levels[1][2], 8 * levels[0][2]);
    assert_int_equal(levels[2][2], 8 * levels[1][2]);
}

static double det3(const double *a, const double *b, const double *c, const double *o)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; ++k)
        u[k] = a[k] - o[k], v[k] = b[k] - o[k], w[k] = c[k] - o[k];
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static void test_cube_orientation_and_graph(void **state)
{
    (void)state;
    for (int n = 2; n <= 6; ++n) {
        fb_mesh m;
        fb_csr G;
        assert_int_equal(fb_mesh_cube(n, &m), FB_OK);
        double h3 = 1.0 / ((n - 1.0) * (n - 1.0) * (n - 1.0)), total = 0.0;
        for (int t = 0; t < m.ntets; ++t) {
            const int *v = m.tets + 4 * t;
            double d = det3(m.xyz + 3 * v[1], m.xyz + 3 * v[2], m.xyz + 3 * v[3], m.xyz + 3 * v[0]);
            assert_true(d > 0.0);
            total += d / 6.0;
        }
        assert_true(fabs(total - 1.0) < 1e-12); /* they tile the unit cube */
        assert_true(fabs(h3 / 6.0 * m.ntets - 1.0) < 1e-12);
        assert_int_equal(fb_mesh_graph(&m, &G), FB_OK);
        assert_int_equal(G.nnz, fb_mesh_cube_nnz(n));
        assert_int_equal(fb_csr_validate(&G, "graph"), FB_OK);
        fb_csr_free(&G);
        fb_mesh_free(&m);
    }
    assert_int_equal(fb_mesh_cube_nnz(2), 8 + 2 * 19); /* one cell: 12 edges, 6 face and 1 body diagonal */
}

/* u_i = a . x_i: u^T L u must equal |a|^2 * volume. */
static double energy(const fb_csr *L, const fb_mesh *m, const double *a)
{
    double *u = malloc((size_t)m->nnodes * sizeof *u), *y = malloc((size_t)m->nnodes * sizeof *y), e = 0.0;
    for (int i = 0; i < m->nnodes; ++i)
        u[i] = a[0] * m->xyz[3 * i] + a[1] * m->xyz[3 * i + 1] + a[2] * m->xyz[3 * i + 2];
    fb_csr_multiply(L, u, y);
    for (int i = 0; i < m->nnodes; ++i)
        e += u[i] * y[i];
    free(u);
    free(y);
    return e;
}

static void assert_laplacian(const fb_csr *L, const fb_mesh *m, double volume, int m_matrix)
{
    fb_csr_stats s;
    static const double a[3] = {1.0, -2.0, 3.0}, x[3] = {1.0, 0.0, 0.0};
    assert_int_equal(fb_csr_stats_compute(L, &s), FB_OK);
    assert_int_equal(s.symmetry, FB_SYM_SYMMETRIC);
    for (int i = 0; i < L->nrows; ++i) {
        double diag = 0.0, sum = 0.0, scale = 0.0;
        for (int p = L->rowptr[i]; p < L->rowptr[i + 1]; ++p) {
            sum += L->values[p];
            scale += fabs(L->values[p]);
            if (L->colidx[p] == i)
                diag = L->values[p];
            else if (m_matrix)
                assert_true(L->values[p] <= 1e-15 * scale + 1e-300);
        }
        assert_true(diag > 0.0);
        if (fabs(sum) > 1e-13 * scale) fail_msg("row %d sums to %g", i, sum);
    }
    if (fabs(energy(L, m, x) - volume) > 1e-11 * volume) fail_msg("u = x: %.17g", energy(L, m, x));
    if (fabs(energy(L, m, a) - 14.0 * volume) > 1e-11 * volume) fail_msg("u = x - 2y + 3z: %.17g", energy(L, m, a));
}

static void test_cube_laplacian(void **state)
{
    (void)state;
    static const int ns[3] = {2, 15, 29};
    for (int k = 0; k < 3; ++k) {
        fb_mesh m;
        fb_csr L, G;
        assert_int_equal(fb_mesh_cube(ns[k], &m), FB_OK);
        assert_int_equal(fb_mesh_laplacian(&m, &L), FB_OK);
        assert_int_equal(fb_mesh_graph(&m, &G), FB_OK);
        assert_memory_equal(L.rowptr, G.rowptr, ((size_t)L.nrows + 1) * sizeof(int)); /* pattern = node graph */
        assert_memory_equal(L.colidx, G.colidx, (size_t)L.nnz * sizeof(int));
        assert_laplacian(&L, &m, 1.0, 1); /* Kuhn cells give an M-matrix */
        fb_csr_free(&L);
        fb_csr_free(&G);
        fb_mesh_free(&m);
    }
}

static void test_reference_tetrahedron(void **state)
{
    (void)state;
    static const char su2[] = "% one tetrahedron\nNDIME= 3\nNELEM= 1\n10 0 1 2 3 0\nNPOIN= 4\n"
                              "0 0 0 0\n1 0 0 1\n0 1 0 2\n0 0 1 3\nNMARK= 0\n";
    const double s = 1.0 / 6.0;
    const double want[16] = {0.5, -s, -s, -s, -s, s, 0, 0, -s, 0, s, 0, -s, 0, 0, s};
    fb_mesh m;
    fb_csr L;
    assert_int_equal(fb_mesh_read_su2_memory("one.su2", su2, sizeof su2 - 1, &m), FB_OK);
    assert_int_equal(fb_mesh_laplacian(&m, &L), FB_OK);
    assert_int_equal(L.nnz, 16);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            assert_true(fabs(csr_at(&L, i, j, NULL) - want[4 * i + j]) < 1e-15);
    fb_csr_free(&L);
    fb_mesh_free(&m);
}

static void read_file_mesh(const char *name, fb_mesh *m)
{
    if (fb_mesh_read(shipped(name), m) != FB_OK) fail_msg("%s: %s", name, fb_error_message());
}

static void test_three_formats_agree(void **state)
{
    (void)state;
    fb_mesh a, b, c;
    fb_csr La;
    read_file_mesh("tiny_cube_v22.msh", &a);
    read_file_mesh("tiny_cube_v41.msh", &b);
    read_file_mesh("tiny_cube.su2", &c);
    assert_int_equal(a.nnodes, 45);
    assert_int_equal(a.ntets, 101);
    const fb_mesh *others[2] = {&b, &c};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(others[k]->nnodes, a.nnodes);
        assert_int_equal(others[k]->ntets, a.ntets);
        assert_memory_equal(others[k]->tets, a.tets, 4 * (size_t)a.ntets * sizeof(int));
        for (int i = 0; i < 3 * a.nnodes; ++i)
            assert_true(fabs(others[k]->xyz[i] - a.xyz[i]) < 1e-12);
    }
    assert_int_equal(fb_mesh_laplacian(&a, &La), FB_OK);
    assert_laplacian(&La, &a, 1.0, 0); /* Delaunay meshes need not give an M-matrix */
    fb_csr_free(&La);
    fb_mesh_free(&a);
    fb_mesh_free(&b);
    fb_mesh_free(&c);
}

/* One tetrahedron in each format with what the readers must step over:
 * other sections, boundary elements, sparse and huge tags, parametric
 * nodes, an unused node (dropped). All give the same 4-node mesh. */
static void test_reader_details(void **state)
{
    (void)state;
    static const char v22[] =
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"fluid\"\n$EndPhysicalNames\n"
        "$Nodes\n5\n10 0 0 0\n20 1 0 0\n99 5 5 5\n30 0 1 0\n40 0 0 1\n$EndNodes\n"
        "$Elements\n3\n1 15 2 0 1 10\n2 2 2 0 1 10 20 30\n3 4 2 1 1 10 20 30 40\n$EndElements\n";
    static const char v41[] = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n"
                              "$EndEntities\n$Nodes\n2 5 10 1000000000000\n0 1 0 1\n99\n5 5 5\n"
                              "3 1 1 4\n10\n20\n30\n1000000000000\n0 0 0 0.1 0.2 0.3\n1 0 0 0 0 0\n0 1 0 0 0 0\n"
                              "0 0 1 0 0 0\n$EndNodes\n$Elements\n2 2 1 2\n2 1 2 1\n1 10 20 30\n"
                              "3 1 4 1\n2 10 20 30 1000000000000\n$EndElements\n";
    static const char su2[] = "%\n% comments\n%\nNDIME= 3\nNPOIN= 5 5\n0 0 0 0\n1 0 0 1\n5 5 5 2\n0 1 0 3\n0 0 1 4\n"
                              "NELEM=1\n10 0 1 3 4 0\nNMARK= 1\nMARKER_TAG= wall\nMARKER_ELEMS= 1\n5 0 1 3\n"
                              "FFD_NBOX= 0\n";
    fb_mesh m[3];
    assert_int_equal(fb_mesh_read_gmsh_memory("a.msh", v22, sizeof v22 - 1, &m[0]), FB_OK);
    if (fb_mesh_read_gmsh_memory("b.msh", v41, sizeof v41 - 1, &m[1]) != FB_OK) fail_msg("%s", fb_error_message());
    if (fb_mesh_read_su2_memory("c.su2", su2, sizeof su2 - 1, &m[2]) != FB_OK) fail_msg("%s", fb_error_message());
    static const double xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int tet[4] = {0, 1, 2, 3};
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(m[k].nnodes, 4);
        assert_int_equal(m[k].ntets, 1);
        assert_memory_equal(m[k].xyz, xyz, sizeof xyz);
        assert_memory_equal(m[k].tets, tet, sizeof tet);
        fb_mesh_free(&m[k]);
    }
}

static void test_kron_block(void **state)
{
    (void)state;
    fb_mesh m;
    fb_csr L, K4, K1;
    fb_bcsr B;
    assert_int_equal(fb_mesh_cube(4, &m), FB_OK);
    assert_int_equal(fb_mesh_laplacian(&m, &L), FB_OK);
    assert_int_equal(fb_csr_kron_block(&L, 1, &K1), FB_OK);
    assert_csr_identical(&L, &K1);
    assert_int_equal(fb_csr_kron_block(&L, 4, &K4), FB_OK);
    assert_int_equal(K4.nrows, 4 * L.nrows);
    assert_int_equal(K4.nnz, 16 * L.nnz);
    /* entry (4i+a, 4j+b) = L_ij / (1 + |a-b|) */
    assert_true(csr_at(&K4, 4 * 1 + 2, 4 * 2 + 0, NULL) == csr_at(&L, 1, 2, NULL) / 3.0);
    fb_csr_stats s;
    assert_int_equal(fb_csr_stats_compute(&K4, &s), FB_OK);
    assert_int_equal(s.symmetry, FB_SYM_SYMMETRIC);
    assert_int_equal(fb_csr_to_bcsr(&K4, 4, 4, &B), FB_OK);
    assert_int_equal(B.nblocks, L.nnz);
    assert_true(fb_bcsr_fill(&B) == 1.0);
    fb_bcsr_free(&B);
    fb_csr_free(&K1);
    fb_csr_free(&K4);
    fb_csr_free(&L);
    fb_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_counts),         cmocka_unit_test(test_cube_orientation_and_graph),
        cmocka_unit_test(test_cube_laplacian),      cmocka_unit_test(test_reference_tetrahedron),
        cmocka_unit_test(test_three_formats_agree), cmocka_unit_test(test_reader_details),
        cmocka_unit_test(test_kron_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
