/* test_matrix_csr.c - CSR construction, BCSR r x c (AoS and SoA) with its
 * fill ratio, statistics, the content hash and RCM.
 *
 * BCSR is checked three ways: a fill worked out by hand, the product B x
 * equal to A x for every r, c in 1..6 on an irregular rectangular matrix
 * (integer values, so the sums are exact in any order), and the SoA form
 * holding the same values as the AoS form. */
#include "test_matrix_util.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "matrix/mesh.h"

static unsigned lcg(unsigned *s) { return *s = *s * 1664525u + 1013904223u; }

/* An irregular nrows x ncols matrix: empty rows, a dense row, duplicates
 * in the input, small integer values. */
static void irregular(int nrows, int ncols, fb_csr *A)
{
    unsigned s = 7;
    int cap = nrows * 8 + ncols, n = 0;
    int *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    for (int i = 0; i < nrows; ++i) {
        if (i % 5 == 3) continue; /* empty rows */
        int len = i == 2 ? ncols : 1 + (int)(lcg(&s) % 7);
        for (int k = 0; k < len; ++k, ++n) {
            ri[n] = i;
            ci[n] = i == 2 ? k : (int)(lcg(&s) % (unsigned)ncols);
            v[n] = (double)((int)(lcg(&s) % 19) - 9);
        }
    }
    assert_int_equal(fb_csr_from_coo(nrows, ncols, n, ri, ci, v, A), FB_OK);
    free(ri);
    free(ci);
    free(v);
}

static void test_from_coo(void **state)
{
    (void)state;
    /* unsorted, a duplicate summed, a duplicate cancelling to a kept zero, an empty row */
    static const int ri[7] = {2, 0, 2, 0, 2, 3, 3}, ci[7] = {3, 1, 0, 1, 3, 2, 2};
    static const double v[7] = {1, 2, 3, 4, 5, 6, -6};
    static const int rowptr[5] = {0, 1, 1, 3, 4}, colidx[4] = {1, 0, 3, 2};
    static const double values[4] = {6, 3, 6, 0};
    fb_csr A;
    assert_int_equal(fb_csr_from_coo(4, 4, 7, ri, ci, v, &A), FB_OK);
    assert_int_equal(A.nnz, 4);
    assert_memory_equal(A.rowptr, rowptr, sizeof rowptr);
    assert_memory_equal(A.colidx, colidx, sizeof colidx);
    assert_memory_equal(A.values, values, sizeof values);
    fb_csr_free(&A);
}

/* Finite duplicates whose sum is not: refused naming the first such entry
 * in row order, whatever the thread count; finite sums of large values pass. */
static void test_from_coo_sum_not_finite(void **state)
{
    (void)state;
    enum { N = 20000 };
    int *ri = malloc(N * sizeof *ri), *ci = malloc(N * sizeof *ci);
    double *v = malloc(N * sizeof *v);
    assert_true(ri && ci && v);
    for (int k = 0; k < N; ++k)
        ri[k] = k / 2, ci[k] = k % 3, v[k] = 1.0;
    ri[100] = ri[101] = 9000, ci[100] = ci[101] = 7, v[100] = v[101] = 1e308;
    ri[102] = ri[103] = 7000, ci[102] = ci[103] = 5, v[102] = v[103] = -1e308;
    fb_csr A;
    assert_int_equal(fb_csr_from_coo(N, N, N, ri, ci, v, &A), FB_ERR_INPUT);
    assert_string_equal(fb_error_message(), "entry (7001, 6): duplicate entries sum to -inf, not a finite double");
    v[102] = 1e308; /* 1e308 - 1e308 = 0: finite */
    assert_int_equal(fb_csr_from_coo(N, N, N, ri, ci, v, &A), FB_ERR_INPUT);
    assert_string_equal(fb_error_message(), "entry (9001, 8): duplicate entries sum to inf, not a finite double");
    v[100] = -1e308;
    assert_int_equal(fb_csr_from_coo(N, N, N, ri, ci, v, &A), FB_OK);
    fb_csr_free(&A);
    free(ri);
    free(ci);
    free(v);
}

static void test_bcsr_by_hand(void **state)
{
    (void)state;
    /* 4x4, entries (0,0) (0,1) (1,1) (2,3) (3,0): 2x2 blocks (0,0), (1,1), (1,0) -> 3 blocks, fill 12/5 */
    static const int ri[5] = {0, 0, 1, 2, 3}, ci[5] = {0, 1, 1, 3, 0};
    static const double v[5] = {1, 2, 3, 4, 5};
    fb_csr A;
    fb_bcsr B;
    int64_t nb = 0;
    double fill = 0;
    assert_int_equal(fb_csr_from_coo(4, 4, 5, ri, ci, v, &A), FB_OK);
    assert_int_equal(fb_csr_bcsr_count(&A, 2, 2, &nb, &fill), FB_OK);
    assert_int_equal(nb, 3);
    assert_true(fill == 12.0 / 5.0);
    assert_int_equal(fb_csr_to_bcsr(&A, 2, 2, &B), FB_OK);
    static const int browptr[3] = {0, 1, 3}, bcol[3] = {0, 0, 1};
    static const double vals[12] = {1, 2, 0, 3, 0, 0, 5, 0, 0, 4, 0, 0};
    assert_memory_equal(B.browptr, browptr, sizeof browptr);
    assert_memory_equal(B.bcolidx, bcol, sizeof bcol);
    assert_memory_equal(B.values, vals, sizeof vals);
    assert_int_equal(fb_bcsr_set_layout(&B, FB_BLOCK_SOA), FB_OK);
    static const double soa[12] = {1, 0, 0, 2, 0, 4, 0, 5, 0, 3, 0, 0};
    assert_memory_equal(B.values, soa, sizeof soa);
    fb_bcsr_free(&B);
    fb_csr_free(&A);
}

static void test_bcsr_all_shapes(void **state)
{
    (void)state;
    fb_csr A;
    irregular(37, 29, &A);
    double *x = malloc(64 * sizeof *x), *y = malloc(64 * sizeof *y), *z = malloc(64 * sizeof *z);
    for (int j = 0; j < 64; ++j)
        x[j] = j < A.ncols ? (double)(j % 7 - 3) : 0.0;
    fb_csr_multiply(&A, x, y);
    int64_t table[36];
    assert_int_equal(fb_csr_bcsr_fill_table(&A, 6, 6, table), FB_OK);
    for (int r = 1; r <= 6; ++r)
        for (int c = 1; c <= 6; ++c) {
            fb_bcsr B;
            int64_t nb = 0;
            double fill = 0;
            assert_int_equal(fb_csr_bcsr_count(&A, r, c, &nb, &fill), FB_OK);
            assert_int_equal(fb_csr_to_bcsr(&A, r, c, &B), FB_OK);
            assert_int_equal(B.nblocks, nb);
            assert_int_equal(table[(r - 1) * 6 + (c - 1)], nb);
            assert_true(fill == fb_bcsr_fill(&B) && fill >= 1.0);
            assert_int_equal(B.nbrows, (A.nrows + r - 1) / r);
            for (int layout = 0; layout < 2; ++layout) {
                memset(z, 0, 64 * sizeof *z);
                fb_bcsr_multiply(&B, x, z);
                for (int i = 0; i < A.nrows; ++i)
                    if (z[i] != y[i])
                        fail_msg("%dx%d %s row %d: %g != %g", r, c, layout ? "SoA" : "AoS", i, z[i], y[i]);
                for (int i = A.nrows; i < B.nbrows * r; ++i)
                    assert_true(z[i] == 0.0); /* padding rows */
                assert_int_equal(fb_bcsr_set_layout(&B, FB_BLOCK_SOA), FB_OK);
            }
            fb_bcsr_free(&B);
        }
    assert_int_equal(fb_csr_bcsr_count(&A, 0, 2, &(int64_t){0}, &(double){0}), FB_ERR_USAGE);
    free(x);
    free(y);
    free(z);
    fb_csr_free(&A);
}

static void make(int n, const int *ri, const int *ci, const double *v, int nnz, fb_csr *A)
{
    assert_int_equal(fb_csr_from_coo(n, n, nnz, ri, ci, v, A), FB_OK);
}

static void test_stats(void **state)
{
    (void)state;
    fb_csr A;
    fb_csr_stats s;
    /* rows of 2, 0, 1, 3 entries: mean 1.5, population stddev sqrt(1.25) */
    static const int ri[6] = {0, 0, 2, 3, 3, 3}, ci[6] = {0, 3, 1, 0, 1, 3};
    static const double v[6] = {1, 2, 3, 4, 5, 6};
    make(4, ri, ci, v, 6, &A);
    assert_int_equal(fb_csr_stats_compute(&A, &s), FB_OK);
    assert_int_equal(s.row_min, 0);
    assert_int_equal(s.row_max, 3);
    assert_true(s.row_mean == 1.5);
    assert_true(fabs(s.row_stddev - sqrt(1.25)) < 1e-15);
    assert_int_equal(s.empty_rows, 1);
    assert_int_equal(s.lower_bandwidth, 3);
    assert_int_equal(s.upper_bandwidth, 3);
    assert_int_equal(s.symmetry, FB_SYM_UNSYMMETRIC);
    fb_csr_free(&A);
    /* symmetric, skew, structurally symmetric, rectangular */
    static const int r2[4] = {0, 1, 0, 1}, c2[4] = {1, 0, 0, 1};
    static const double sym[4] = {2, 2, 1, 1}, skew[4] = {2, -2, 0, 0}, str[4] = {2, 3, 1, 1};
    const double *vals[3] = {sym, skew, str};
    const fb_symmetry want[3] = {FB_SYM_SYMMETRIC, FB_SYM_SKEW, FB_SYM_STRUCTURAL};
    for (int k = 0; k < 3; ++k) {
        make(2, r2, c2, vals[k], 4, &A);
        assert_int_equal(fb_csr_stats_compute(&A, &s), FB_OK);
        assert_int_equal(s.symmetry, want[k]);
        fb_csr_free(&A);
    }
    irregular(5, 7, &A);
    assert_int_equal(fb_csr_stats_compute(&A, &s), FB_OK);
    assert_int_equal(s.symmetry, FB_SYM_RECTANGULAR);
    fb_csr_free(&A);
}

static void test_hash(void **state)
{
    (void)state;
    fb_mesh m;
    fb_csr L, C;
    assert_int_equal(fb_mesh_cube(40, &m), FB_OK); /* ~ 11 MB of CSR: many 1 MiB pieces */
    assert_int_equal(fb_mesh_laplacian(&m, &L), FB_OK);
    uint64_t h = fb_csr_hash(&L);
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    assert_true(fb_csr_hash(&L) == h);
    fb_csr L1;
    assert_int_equal(fb_mesh_laplacian(&m, &L1), FB_OK); /* assembly is deterministic too */
    assert_true(fb_csr_hash(&L1) == h);
    fb_csr_free(&L1);
    omp_set_num_threads(saved);
#endif
    assert_int_equal(fb_csr_copy(&L, &C), FB_OK);
    assert_true(fb_csr_hash(&C) == h);
    C.values[C.nnz / 2] = nextafter(C.values[C.nnz / 2], 1e300); /* one ulp */
    assert_true(fb_csr_hash(&C) != h);
    fb_csr_free(&C);
    fb_csr_free(&L);
    fb_mesh_free(&m);
}

/* A path graph numbered at random: RCM finds bandwidth 1 again. */
static void test_rcm_path(void **state)
{
    (void)state;
    int n = 500, nnz = 0;
    int *label = malloc((size_t)n * sizeof *label), *ri = malloc(3u * n * sizeof *ri),
        *ci = malloc(3u * n * sizeof *ci);
    double *v = malloc(3u * n * sizeof *v);
    unsigned s = 3;
    for (int i = 0; i < n; ++i)
        label[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(lcg(&s) % (unsigned)(i + 1)), t = label[i];
        label[i] = label[j];
        label[j] = t;
    }
    for (int i = 0; i < n; ++i)
        for (int d = -1; d <= 1; ++d)
            if (i + d >= 0 && i + d < n) ri[nnz] = label[i], ci[nnz] = label[i + d], v[nnz++] = d ? -1.0 : 2.0;
    fb_csr A, P;
    int *perm = malloc((size_t)n * sizeof *perm);
    make(n, ri, ci, v, nnz, &A);
    assert_true(fb_csr_bandwidth(&A) > 100);
    assert_int_equal(fb_csr_rcm(&A, perm), FB_OK);
    assert_int_equal(fb_csr_permute(&A, perm, &P), FB_OK);
    assert_int_equal(fb_csr_bandwidth(&P), 1);
    int64_t would = -1; /* what renumbering would give, without forming P */
    assert_int_equal(fb_csr_rcm_bandwidth(&A, &would), FB_OK);
    assert_int_equal(would, fb_csr_bandwidth(&P));
    assert_int_equal(P.nnz, A.nnz);
    fb_csr_stats st;
    assert_int_equal(fb_csr_stats_compute(&P, &st), FB_OK);
    assert_int_equal(st.symmetry, FB_SYM_SYMMETRIC);
    for (int k = 0; k < n; ++k) /* P(i, j) = A(perm[i], perm[j]) */
        for (int p = P.rowptr[k]; p < P.rowptr[k + 1]; ++p)
            assert_true(P.values[p] == csr_at(&A, perm[k], perm[P.colidx[p]], NULL));
    fb_csr_free(&A);
    fb_csr_free(&P);
    free(label);
    free(ri);
    free(ci);
    free(v);
    free(perm);
}

/* Several components, an isolated node, an unsymmetric pattern: still a
 * permutation, fb_csr_rcm_bandwidth says the band the permuted matrix has,
 * and a rectangular matrix is refused by both. */
static void test_rcm_general(void **state)
{
    (void)state;
    static const int ri[5] = {0, 1, 3, 4, 5}, ci[5] = {1, 1, 4, 3, 0};
    static const double v[5] = {1, 2, 3, 4, 5};
    fb_csr A;
    int perm[7], seen[7] = {0};
    make(7, ri, ci, v, 5, &A);
    assert_int_equal(fb_csr_rcm(&A, perm), FB_OK);
    for (int k = 0; k < 7; ++k)
        seen[perm[k]]++;
    for (int k = 0; k < 7; ++k)
        assert_int_equal(seen[k], 1);
    fb_csr P; /* an unsymmetric pattern with several components: the same band */
    int64_t would = -1;
    assert_int_equal(fb_csr_permute(&A, perm, &P), FB_OK);
    assert_int_equal(fb_csr_rcm_bandwidth(&A, &would), FB_OK);
    assert_int_equal(would, fb_csr_bandwidth(&P));
    fb_csr_free(&P);
    fb_csr_free(&A);
    irregular(6, 9, &A);
    assert_int_equal(fb_csr_rcm(&A, perm), FB_ERR_INPUT); /* rectangular */
    assert_int_equal(fb_csr_rcm_bandwidth(&A, &would), FB_ERR_INPUT);
    fb_csr_free(&A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_coo),
        cmocka_unit_test(test_bcsr_by_hand),
        cmocka_unit_test(test_bcsr_all_shapes),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_rcm_path),
        cmocka_unit_test(test_rcm_general),
        cmocka_unit_test(test_from_coo_sum_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
