/* test_matrix_source.c - SRC resolution: files by extension, gen:cube specs,
 * :block= / :matrix= / :reader= / :reorder= options, RCM before blocking, and the
 * usage errors for specs that mean nothing. */
#include "test_matrix_util.h"

#include "matrix/source.h"

static void load_ok(const char *src, int rcm, fb_matrix *m)
{
    fb_matrix_options opt = {.reorder_rcm = rcm};
    if (fb_matrix_load(src, &opt, m) != FB_OK) fail_msg("%s: %s", src, fb_error_message());
}

static void test_gen_cube(void **state)
{
    (void)state;
    fb_matrix m;
    load_ok("gen:cube:level=0", 0, &m);
    assert_int_equal(m.A.nrows, 3375);
    assert_int_equal(m.mesh_nodes, 3375);
    assert_int_equal(m.mesh_tets, 16464);
    assert_int_equal(m.block, 0);
    fb_matrix_free(&m);
    load_ok("gen:cube:4:matrix=graph:block=3", 0, &m);
    assert_int_equal(m.A.nrows, 3 * 64);
    assert_int_equal(m.block, 3);
    assert_int_equal(m.B.r, 3);
    assert_int_equal(m.B.nblocks, m.A.nnz / 9);
    assert_true(fb_bcsr_fill(&m.B) == 1.0);
    fb_matrix_free(&m);
}

static void test_files(void **state)
{
    (void)state;
    char src[4200];
    fb_matrix m;
    load_ok(shipped("vector.mtx"), 0, &m);
    assert_true(m.is_vector);
    assert_int_equal(m.A.nrows, 6);
    fb_matrix_free(&m);
    snprintf(src, sizeof src, "%s:reader=cholmod:block=2", shipped("general.mtx"));
    load_ok(src, 0, &m);
    assert_int_equal(m.B.nbrows, 3);
    assert_true(fb_bcsr_fill(&m.B) > 1.0);
    fb_matrix_free(&m);
    snprintf(src, sizeof src, "%s:matrix=graph", shipped("tiny_cube.su2"));
    load_ok(src, 0, &m);
    assert_int_equal(m.mesh_tets, 101);
    fb_matrix_free(&m);
}

static void test_rcm_before_blocking(void **state)
{
    (void)state;
    fb_matrix plain, m;
    char src[4200];
    snprintf(src, sizeof src, "%s:block=4", shipped("tiny_cube_v41.msh"));
    load_ok(src, 0, &plain);
    load_ok(src, 1, &m);
    assert_true(m.reordered);
    assert_int_equal(m.A.nnz, plain.A.nnz);
    assert_true(fb_bcsr_fill(&m.B) == 1.0); /* nodes were renumbered, not scalar rows */
    assert_true(m.bandwidth_before >= fb_csr_bandwidth(&m.A) / 4);
    fb_matrix_free(&plain);
    fb_matrix_free(&m);
}

/* :reorder=rcm in SRC is --reorder rcm: the same renumbered matrix,
 * value for value; :reorder=none keeps the natural order. */
static void test_reorder_in_source(void **state)
{
    (void)state;
    fb_matrix by_option, by_source, natural;
    load_ok("gen:cube:5:block=2", 1, &by_option);
    load_ok("gen:cube:5:reorder=rcm:block=2", 0, &by_source);
    load_ok("gen:cube:5:block=2:reorder=none", 0, &natural);
    assert_true(by_source.reordered);
    assert_false(natural.reordered);
    /* whether SRC named the order (either one), which --reorder does not */
    assert_true(by_source.order_named && natural.order_named);
    assert_false(by_option.order_named);
    assert_int_equal(by_source.A.nnz, by_option.A.nnz);
    assert_memory_equal(by_source.A.rowptr, by_option.A.rowptr, sizeof(int) * (size_t)(by_option.A.nrows + 1));
    assert_memory_equal(by_source.A.colidx, by_option.A.colidx, sizeof(int) * (size_t)by_option.A.nnz);
    assert_memory_equal(by_source.A.values, by_option.A.values, sizeof(double) * (size_t)by_option.A.nnz);
    assert_int_equal(by_source.bandwidth_before, by_option.bandwidth_before);
    assert_true(fb_csr_bandwidth(&by_source.A) < fb_csr_bandwidth(&natural.A));
    fb_matrix_free(&by_option);
    fb_matrix_free(&by_source);
    fb_matrix_free(&natural);
    /* the two ways of naming an order that disagree are refused, not settled silently */
    fb_matrix_options rcm = {.reorder_rcm = 1};
    assert_int_equal(fb_matrix_load("gen:cube:5:reorder=none", &rcm, &natural), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "reorder=none in the source, --reorder rcm beside it"));
}

static void expect_usage(const char *src, fb_status want, const char *needle)
{
    fb_matrix m;
    fb_status st = fb_matrix_load(src, NULL, &m);
    if (st != want) fail_msg("%s: status %d, want %d (%s)", src, st, want, fb_error_message());
    if (!strstr(fb_error_message(), needle)) fail_msg("%s: '%s' lacks '%s'", src, fb_error_message(), needle);
}

static void test_bad_specs(void **state)
{
    (void)state;
    expect_usage("gen:cube:1", FB_ERR_USAGE, "N must be an integer >= 2");
    expect_usage("gen:cube:level=3", FB_ERR_USAGE, "level must be 0, 1 or 2");
    expect_usage("gen:cube:abc", FB_ERR_USAGE, "N must be");
    expect_usage("gen:cube:2000", FB_ERR_USAGE, "32-bit indices");
    expect_usage("gen:cube:500:block=5", FB_ERR_USAGE, "32-bit indices");
    expect_usage("gen:sphere:4", FB_ERR_USAGE, "unknown generator");
    expect_usage("gen:cube:4:block=6", FB_ERR_USAGE, "K must be an integer 1..5");
    expect_usage("gen:cube:4:block=2:block=3", FB_ERR_USAGE, "block= given twice");
    expect_usage("gen:cube:4:matrix=stokes", FB_ERR_USAGE, "expected laplacian or graph");
    expect_usage("gen:cube:4:reader=cholmod", FB_ERR_USAGE, "reader= applies to Matrix Market");
    expect_usage("matrix.txt", FB_ERR_USAGE, "unknown matrix source");
    expect_usage("", FB_ERR_USAGE, "empty matrix source");
    expect_usage("a.mtx:matrix=graph", FB_ERR_USAGE, "matrix= applies to meshes");
    expect_usage("gen:cube:4:reorder=amd", FB_ERR_USAGE, "reorder=amd: expected rcm or none");
    expect_usage("gen:cube:4:reorder=rcm:reorder=none", FB_ERR_USAGE, "reorder= given twice");
    expect_usage("/nonexistent/a.mtx", FB_ERR_INPUT, "cannot open");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_cube),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_rcm_before_blocking),
        cmocka_unit_test(test_reorder_in_source),
        cmocka_unit_test(test_bad_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
