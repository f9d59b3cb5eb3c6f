/* test_ns_order.c - the device solver's node orders and edge layouts
 * (solver/ns_order.h) on the cavity's level-0 mesh:
 * - each order is a permutation, its inverse is one, every renumbered row
 *   holds the old row's neighbours, renumbered and sorted, and the edge map
 *   points at the same (row, column) edge;
 * - by neighbour count the row lengths never decrease; RCM's band is a
 *   structured numbering's (about one plane of the cube), far below that
 *   of a random numbering;
 * - gather then scatter gives the array back; the packed records carry nd,
 *   dn and ls at 0, 3 and 6 and zero padding;
 * - the pressure matrix's CSR pattern (solver/ns_csr.h) in every order:
 *   each row the edge row plus its diagonal, sorted, every edge and
 *   diagonal where epos and diagpos say; unsorted rows refused;
 * - a rank's part (owned rows first, then halo nodes, as ns_dist.c lays
 *   it out; here the mesh's last nodes play the halo): every order permutes
 *   the owned nodes among themselves, keeps each halo node and every
 *   column into the halo, and holds the owned rows' edges only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "solver/cases.h"
#include "solver/ns_csr.h"
#include "solver/ns_order.h"

typedef struct fixture {
    fb_solve_case c;
    fb_ns ns;
} fixture;

static void open_cavity(fixture *f)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(fb_case_open("cavity", 0, NULL, &f->c), FB_OK);
    assert_int_equal(fb_ns_init(&f->ns, &f->c.mesh, &f->c.bnd, &f->c.cfg, &f->c.bc), FB_OK);
}

static void close_cavity(fixture *f)
{
    fb_ns_free(&f->ns);
    fb_case_free(&f->c);
}

static void check_rows(const fb_ns *ns, const fb_ns_order *o)
{
    for (int r = 0; r < o->nown; ++r) {
        const int i = fb_ns_order_old(o, r);
        assert_int_equal(fb_ns_order_new(o, i), r);
        assert_int_equal(o->rowptr[r + 1] - o->rowptr[r], ns->rowptr[i + 1] - ns->rowptr[i]);
        for (int e = o->rowptr[r]; e < o->rowptr[r + 1]; ++e) {
            if (e > o->rowptr[r]) assert_true(o->col[e] > o->col[e - 1]);
            const int old_e = o->emap ? o->emap[e] : e;
            assert_true(old_e >= ns->rowptr[i] && old_e < ns->rowptr[i + 1]);
            assert_int_equal(fb_ns_order_old(o, o->col[e]), ns->col[old_e]);
        }
    }
}

static void test_orders_are_permutations(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    for (int method = FB_NS_ORDER_MESH; method <= FB_NS_ORDER_DEGREE; ++method) {
        fb_ns_order o;
        assert_int_equal(fb_ns_order_build(&f.ns, method, &o), FB_OK);
        char *seen = calloc((size_t)o.n, 1);
        for (int r = 0; r < o.n; ++r)
            seen[fb_ns_order_old(&o, r)]++;
        for (int i = 0; i < o.n; ++i)
            assert_int_equal(seen[i], 1);
        free(seen);
        check_rows(&f.ns, &o);
        assert_int_equal(o.perm == NULL, method == FB_NS_ORDER_MESH);
        fb_ns_order_free(&o);
    }
    fb_ns_order bad;
    assert_int_equal(fb_ns_order_build(&f.ns, 3, &bad), FB_ERR_USAGE);
    close_cavity(&f);
}

static void test_degree_order(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    fb_ns_order o;
    assert_int_equal(fb_ns_order_build(&f.ns, FB_NS_ORDER_DEGREE, &o), FB_OK);
    int changes = 0;
    for (int r = 1; r < o.n; ++r) {
        const int a = o.rowptr[r] - o.rowptr[r - 1], b = o.rowptr[r + 1] - o.rowptr[r];
        assert_true(b >= a);
        changes += b != a;
    }
    assert_true(changes >= 2); /* the cavity has corner, edge, face and inner rows */
    fb_ns_order_free(&o);
    close_cavity(&f);
}

static int bandwidth(const int *rowptr, const int *col, int n, const int *inv)
{
    int band = 0;
    for (int i = 0; i < n; ++i)
        for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
            const int d = abs((inv ? inv[i] : i) - (inv ? inv[col[e]] : col[e]));
            band = d > band ? d : band;
        }
    return band;
}

/* A random numbering has a band near n; RCM's is about one plane of the
 * cube (15^2 nodes), as the generator's structured numbering is. */
static void test_rcm_band(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    fb_ns *ns = &f.ns;
    const int n = ns->E.n;
    int *shuffle = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i)
        shuffle[i] = i;
    srand(7);
    for (int i = n - 1; i > 0; --i) {
        const int j = rand() % (i + 1), t = shuffle[i];
        shuffle[i] = shuffle[j], shuffle[j] = t;
    }
    assert_true(bandwidth(ns->rowptr, ns->col, n, shuffle) > n / 2);
    fb_ns_order o;
    assert_int_equal(fb_ns_order_build(ns, FB_NS_ORDER_RCM, &o), FB_OK);
    const int band = bandwidth(o.rowptr, o.col, n, NULL);
    print_message("cavity level 0: %d nodes, band %d in the mesh's order, %d after RCM\n", n,
                  bandwidth(ns->rowptr, ns->col, n, NULL), band);
    assert_true(band <= 2 * 15 * 15 + 2 * 15);
    free(shuffle);
    fb_ns_order_free(&o);
    close_cavity(&f);
}

static void test_gather_scatter_and_packing(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    fb_ns *ns = &f.ns;
    fb_ns_order o;
    assert_int_equal(fb_ns_order_build(ns, FB_NS_ORDER_RCM, &o), FB_OK);
    const size_t n = (size_t)o.n;
    double *ordered = malloc(3 * sizeof(double) * n), *back = malloc(3 * sizeof(double) * n);
    fb_ns_order_gather(&o, ns->bnorm, 3, ordered);
    fb_ns_order_scatter(&o, ordered, 3, back);
    assert_memory_equal(back, ns->bnorm, 3 * sizeof(double) * n);
    double *packed, *dn, *ls;
    assert_int_equal(fb_ns_order_edge_data(&o, ns, 1, &packed, &dn, &ls), FB_OK);
    assert_null(dn);
    assert_null(ls);
    for (int e = 0; e < o.nedges; ++e) {
        const double *rec = packed + 16 * (size_t)e;
        const int old_e = o.emap[e];
        assert_memory_equal(rec, ns->nd + 3 * (size_t)old_e, 3 * sizeof(double));
        assert_memory_equal(rec + 3, ns->dn + 3 * (size_t)old_e, 3 * sizeof(double));
        assert_memory_equal(rec + 6, ns->ls + 6 * (size_t)old_e, 6 * sizeof(double));
        for (int k = 12; k < 16; ++k)
            assert_true(rec[k] == 0.0);
    }
    free(packed);
    free(ordered);
    free(back);
    fb_ns_order_free(&o);
    close_cavity(&f);
}

static void check_csr(const fb_ns_order *o, const fb_ns_csr *c)
{
    assert_int_equal(c->nnz, (long long)o->nedges + o->n);
    for (int i = 0; i < o->n; ++i) {
        assert_int_equal(c->rowptr[i], o->rowptr[i] + i);
        for (int k = c->rowptr[i] + 1; k < c->rowptr[i + 1]; ++k)
            assert_true(c->col[k] > c->col[k - 1]);
        assert_int_equal(c->col[c->diagpos[i]], i);
        for (int e = o->rowptr[i]; e < o->rowptr[i + 1]; ++e) {
            assert_true(c->epos[e] >= c->rowptr[i] && c->epos[e] < c->rowptr[i + 1]);
            assert_int_equal(c->col[c->epos[e]], o->col[e]);
        }
    }
}

static void test_pressure_csr(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    for (int method = FB_NS_ORDER_MESH; method <= FB_NS_ORDER_DEGREE; ++method) {
        fb_ns_order o;
        fb_ns_csr c;
        json_t *rec = NULL;
        assert_int_equal(fb_ns_order_build(&f.ns, method, &o), FB_OK);
        assert_int_equal(fb_ns_csr_build(o.n, o.rowptr, o.col, &c), FB_OK);
        check_csr(&o, &c);
        assert_int_equal(fb_ns_csr_record(&c, "p", &rec, NULL), FB_OK);
        assert_int_equal(json_integer_value(json_object_get(rec, "nnz")), c.nnz);
        assert_string_equal(json_string_value(json_object_get(rec, "symmetry")), "symmetric");
        json_decref(rec);
        fb_ns_csr_free(&c);
        fb_ns_order_free(&o);
    }
    const int rowptr[] = {0, 2, 3}, col[] = {1, 0, 0}; /* row 0 unsorted */
    fb_ns_csr c;
    assert_int_equal(fb_ns_csr_build(2, rowptr, col, &c), FB_ERR_INPUT);
    close_cavity(&f);
}

/* The mesh's top HALO nodes (its numbering's last) as a rank's halo: its
 * rows are not renumbered, only read through the owned rows' columns. */
enum { HALO = 2 * 15 * 15 };

static void test_owned_rows_only(void **state)
{
    (void)state;
    fixture f;
    open_cavity(&f);
    fb_ns *ns = &f.ns;
    const int n = ns->E.n, nown = n - HALO;
    ns->E.n = nown;
    for (int method = FB_NS_ORDER_MESH; method <= FB_NS_ORDER_DEGREE; ++method) {
        fb_ns_order o;
        assert_int_equal(fb_ns_order_build(ns, method, &o), FB_OK);
        assert_int_equal(o.n, n);
        assert_int_equal(o.nown, nown);
        assert_int_equal(o.nedges, ns->rowptr[nown]);
        for (int r = 0; r < n; ++r) {
            const int old = fb_ns_order_old(&o, r);
            assert_int_equal(fb_ns_order_new(&o, old), r);
            if (r >= nown)
                assert_int_equal(old, r);
            else
                assert_true(old < nown);
        }
        check_rows(ns, &o);
        int into_halo = 0;
        for (int e = 0; e < o.nedges; ++e)
            if (o.col[e] >= nown) assert_int_equal(o.col[e], ns->col[o.emap ? o.emap[e] : e]), ++into_halo;
        assert_true(into_halo > 0);
        for (int r = 1; method == FB_NS_ORDER_DEGREE && r < nown; ++r)
            assert_true(o.rowptr[r + 1] - o.rowptr[r] >= o.rowptr[r] - o.rowptr[r - 1]);
        double *ordered = malloc(sizeof(double) * (size_t)n), *back = malloc(sizeof(double) * (size_t)n);
        fb_ns_order_gather(&o, ns->mass, 1, ordered);
        fb_ns_order_scatter(&o, ordered, 1, back);
        assert_memory_equal(back, ns->mass, sizeof(double) * (size_t)n);
        assert_memory_equal(ordered + nown, ns->mass + nown, sizeof(double) * HALO);
        free(ordered), free(back);
        fb_ns_order_free(&o);
    }
    ns->E.n = n;
    close_cavity(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_are_permutations),
        cmocka_unit_test(test_degree_order),
        cmocka_unit_test(test_rcm_band),
        cmocka_unit_test(test_gather_scatter_and_packing),
        cmocka_unit_test(test_pressure_csr),
        cmocka_unit_test(test_owned_rows_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
