/* test_heat2d_decomp.c - which cells each rank of a decomposed heat2d run
 * owns (kernels/grid/heat2d_decomp.c), in one process: the split of an
 * axis for sizes that do not divide (contiguous, covering, sizes within
 * one of each other, the larger parts first), every block of a
 * decomposition tiling the grid exactly once with neighbours that name
 * each other and share their side, the "2d" choice of the shortest cut,
 * and each way a --decomp is refused, in one line naming why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "grid/heat2d.h"

static void test_split_uneven(void **state)
{
    (void)state;
    const int expect[][3] = {{10, 3, 0}, {10, 3, 4}, {10, 3, 7}}; /* n, parts, lo of part 0, 1, 2 */
    const int sizes[] = {4, 3, 3};
    for (int c = 0; c < 3; ++c) {
        int lo, count;
        fb_heat2d_split(expect[c][0], expect[c][1], c, &lo, &count);
        assert_int_equal(lo, expect[c][2]);
        assert_int_equal(count, sizes[c]);
    }
    int lo, count;
    fb_heat2d_split(7, 4, 3, &lo, &count); /* 2, 2, 2, 1 */
    assert_int_equal(lo, 6);
    assert_int_equal(count, 1);
    fb_heat2d_split(5, 5, 4, &lo, &count); /* one cell each */
    assert_int_equal(lo, 4);
    assert_int_equal(count, 1);
}

/* Every n and parts <= n: the parts cover 0..n-1 in order, each non-empty,
 * sizes n / parts or one more, the larger ones first. */
static void test_split_covers(void **state)
{
    (void)state;
    for (int n = 1; n <= 60; ++n)
        for (int parts = 1; parts <= n; ++parts) {
            int next = 0, prev = n + 1;
            for (int c = 0; c < parts; ++c) {
                int lo, count;
                fb_heat2d_split(n, parts, c, &lo, &count);
                assert_int_equal(lo, next);
                assert_true(count == n / parts || count == n / parts + 1);
                assert_true(count <= prev);
                next = lo + count, prev = count;
            }
            assert_int_equal(next, n);
        }
}

static fb_heat2d_decomp decomp(int px, int py)
{
    fb_heat2d_decomp d = {px, py, "explicit"};
    return d;
}

/* want: i0, nx, j0, ny, then the south, north, west and east neighbours */
static void expect_block(fb_heat2d_block b, const int want[8])
{
    const int got[8] = {b.i0,
                        b.nx,
                        b.j0,
                        b.ny,
                        b.nb[FB_HEAT2D_SOUTH],
                        b.nb[FB_HEAT2D_NORTH],
                        b.nb[FB_HEAT2D_WEST],
                        b.nb[FB_HEAT2D_EAST]};
    for (int k = 0; k < 8; ++k)
        assert_int_equal(got[k], want[k]);
}

static void test_blocks_2x2_uneven(void **state)
{
    (void)state;
    fb_heat2d_decomp d = decomp(2, 2);
    expect_block(fb_heat2d_block_of(&d, 5, 7, 0), (const int[8]){0, 3, 0, 4, -1, 2, -1, 1});
    expect_block(fb_heat2d_block_of(&d, 5, 7, 3), (const int[8]){3, 2, 4, 3, 1, -1, 2, -1});
    /* row strips: rank r is strip r from y = 0 up */
    d = decomp(1, 3);
    expect_block(fb_heat2d_block_of(&d, 8, 10, 2), (const int[8]){0, 8, 7, 3, 1, -1, -1, -1});
}

/* The blocks tile the grid once; a neighbour names this block back and
 * spans the same columns (rows) across the shared side, which is what lets
 * the halo lists of both ends list the same cells in the same order. */
static void check_tiling(int px, int py, int nx, int ny)
{
    fb_heat2d_decomp d = decomp(px, py);
    int *owner = calloc((size_t)nx * ny, sizeof *owner);
    assert_non_null(owner);
    for (int r = 0; r < px * py; ++r) {
        fb_heat2d_block b = fb_heat2d_block_of(&d, nx, ny, r);
        assert_true(b.nx >= 1 && b.ny >= 1);
        for (int j = b.j0; j < b.j0 + b.ny; ++j)
            for (int i = b.i0; i < b.i0 + b.nx; ++i)
                owner[(size_t)j * nx + i]++;
        static const int back[4] = {FB_HEAT2D_NORTH, FB_HEAT2D_SOUTH, FB_HEAT2D_EAST, FB_HEAT2D_WEST};
        for (int side = 0; side < 4; ++side) {
            if (b.nb[side] < 0) continue;
            fb_heat2d_block o = fb_heat2d_block_of(&d, nx, ny, b.nb[side]);
            assert_int_equal(o.nb[back[side]], r);
            const fb_heat2d_block *lo = side == FB_HEAT2D_SOUTH || side == FB_HEAT2D_WEST ? &o : &b;
            const fb_heat2d_block *hi = lo == &o ? &b : &o;
            if (side < 2) { /* same columns; lo's last row touches hi's first */
                assert_int_equal(o.i0, b.i0);
                assert_int_equal(o.nx, b.nx);
                assert_int_equal(lo->j0 + lo->ny, hi->j0);
            } else {
                assert_int_equal(o.j0, b.j0);
                assert_int_equal(o.ny, b.ny);
                assert_int_equal(lo->i0 + lo->nx, hi->i0);
            }
        }
    }
    for (size_t q = 0; q < (size_t)nx * ny; ++q)
        assert_int_equal(owner[q], 1);
    free(owner);
}

static void test_blocks_tile(void **state)
{
    (void)state;
    const int cases[][4] = {{1, 1, 3, 3},  {1, 4, 7, 9}, {4, 1, 9, 7}, {2, 2, 5, 7},
                            {3, 2, 10, 5}, {2, 3, 3, 3}, {3, 3, 3, 3}, {5, 4, 101, 67}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
        check_tiling(cases[k][0], cases[k][1], cases[k][2], cases[k][3]);
}

static void expect_decomp(const char *text, int ranks, int nx, int ny, int px, int py, const char *kind)
{
    fb_heat2d_decomp d;
    assert_int_equal(fb_heat2d_decomp_parse(text, ranks, nx, ny, &d), FB_OK);
    assert_int_equal(d.px, px);
    assert_int_equal(d.py, py);
    assert_string_equal(d.kind, kind);
}

static void test_parse(void **state)
{
    (void)state;
    expect_decomp("1d", 4, 100, 100, 1, 4, "1d");
    expect_decomp("1d", 1, 3, 3, 1, 1, "1d");
    expect_decomp("2d", 4, 100, 100, 2, 2, "2d");
    expect_decomp("2d", 2, 100, 100, 1, 2, "2d"); /* a tie: row strips */
    expect_decomp("2d", 6, 100, 100, 2, 3, "2d"); /* a tie: fewer column cuts */
    expect_decomp("2d", 4, 400, 100, 4, 1, "2d"); /* wide: cut across x */
    expect_decomp("2d", 4, 100, 400, 1, 4, "2d"); /* tall: row strips */
    expect_decomp("2d", 8, 3, 1000, 1, 8, "2d");  /* narrow: 2x4 would cut 1000 rows */
    expect_decomp("2d", 6, 2, 3, 2, 3, "2d");     /* one cell each */
    expect_decomp("3x2", 6, 10, 10, 3, 2, "explicit");
    expect_decomp("1x1", 1, 3, 3, 1, 1, "explicit");
}

static void expect_refused(const char *text, int ranks, int nx, int ny, const char *words)
{
    fb_heat2d_decomp d;
    assert_int_equal(fb_heat2d_decomp_parse(text, ranks, nx, ny, &d), FB_ERR_USAGE);
    if (!strstr(fb_error_message(), words)) fail_msg("'%s': '%s' lacks '%s'", text, fb_error_message(), words);
    assert_null(strchr(fb_error_message(), '\n'));
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", "x", "2x", "x2", "2x2x", "-1x2", "0x4", "4x0", "2d2", "1D", "2 x2", "2x 2", "3y"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
        expect_refused(bad[k], 4, 10, 10, "is not 1d, 2d or PXxPY");
    expect_refused("99999999999x1", 4, 10, 10, "is not 1d, 2d or PXxPY");
    expect_refused("3x2", 4, 10, 10, "--decomp 3x2: 6 blocks for 4 ranks (launch 6 ranks: mpirun -np 6)");
    expect_refused("2x2", 1, 10, 10, "4 blocks for 1 rank");
    expect_refused("1d", 8, 8, 5, "--decomp 1d: 8 row strips but the grid has 5 rows");
    expect_refused("8x1", 8, 5, 8, "--decomp 8x1: 8 column blocks but the grid has 5 columns");
    expect_refused("2d", 7, 3, 3, "--decomp 2d: no PX x PY = 7 ranks gives every rank a cell of the 3x3 grid");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_uneven),
        cmocka_unit_test(test_split_covers),
        cmocka_unit_test(test_blocks_2x2_uneven),
        cmocka_unit_test(test_blocks_tile),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
