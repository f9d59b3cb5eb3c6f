/* test_suite.c - the sweep-suite parser (tune/suite.h): values read from a
 * good suite, inheritance into cases, matrix globs and paths, the parameter
 * points a case expands to, and the errors (file, line and reason) for bad
 * suites. Every suite is written into a mkdtemp directory under /tmp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "families.h"
#include "spmv/spmv.h"
#include "tune/suite.h"
#include "tune/sweep.h"

static char tmpdir[256];

static const char small_mtx[] = "%%MatrixMarket matrix coordinate real general\n"
                                "2 2 2\n"
                                "1 1 1.0\n"
                                "2 2 2.0\n";

/* ---- files ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* tmpdir/rel */
static void tmp_path(const char *rel, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/%s", tmpdir, rel);
    assert_true(n > 0 && (size_t)n < len);
}

static void make_dir(const char *rel)
{
    char path[512];
    tmp_path(rel, path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
}

static void make_matrix(const char *rel)
{
    char path[512];
    tmp_path(rel, path, sizeof path);
    write_file(path, small_mtx);
}

/* Writes text to tmpdir/rel and loads it; the path goes to path_out. */
static fb_status load_text(const char *rel, const char *text, fb_suite *s, char *path_out, size_t len)
{
    tmp_path(rel, path_out, len);
    write_file(path_out, text);
    return fb_suite_load(path_out, s);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fb_test_suite_XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int kernel_index(const char *name)
{
    int k = fb_family_kernel_find(&fb_family_spmv, name);
    assert_true(k >= 0);
    return k;
}

static void assert_case_kernels(const fb_suite_case *c, const char *a, const char *b)
{
    assert_int_equal(c->nkernels, b ? 2 : 1);
    assert_int_equal(c->kernels[0], kernel_index(a));
    if (b) assert_int_equal(c->kernels[1], kernel_index(b));
}

/* ---- 1. a good suite ---- */

static void test_good_suite_values_and_inheritance(void **state)
{
    (void)state;
    char path[512], text[2048], general[512];
    fb_suite s;
    tmp_path("general.mtx", general, sizeof general);
    make_matrix("general.mtx");
    snprintf(text, sizeof text,
             "# a nightly sweep\n"                                                        /* 1 */
             "suite: nightly\n"                                                           /* 2 */
             "description: what the night measures\n"                                     /* 3 */
             "backends: [openmp, opencl]\n"                                               /* 4 */
             "precisions: [double, single]\n"                                             /* 5 */
             "stream: true\n"                                                             /* 6 */
             "stream_n: 4096\n"                                                           /* 7 */
             "measure: {min_samples: 3, max_samples: 50, spread_pct: 2, budget_s: 0.5,\n" /* 8 */
             "          timeout_s: 20, abandon_factor: 4, cold: true, warmups: 1}\n"      /* 9 */
             "matrices: [gen:cube:12, \"%s\"]\n"                                          /* 10 */
             "cases:\n"                                                                   /* 11 */
             "  - kernels: [csr-vector]\n"                                                /* 12 */
             "  - name: over\n"                                                           /* 13 */
             "    description: everything overridden\n"                                   /* 14 */
             "    family: spmv\n"                                                         /* 15 */
             "    kernels: [csr-scalar, csr-multirow]\n"                                  /* 16 */
             "    space: default\n"                                                       /* 17 */
             "    matrices: [\"gen:cube:4:block=2\"]\n"                                   /* 18 */
             "    backends: cuda\n"                                                       /* 19 */
             "    precisions: [single]\n"                                                 /* 20 */
             "    measure:\n"                                                             /* 21 */
             "      max_samples: 10\n"                                                    /* 22 */
             "      cold: false\n"                                                        /* 23 */
             "      spread_pct: 5\n"                                                      /* 24 */
             "      timeout_s: 0\n"                                                       /* 25 */
             "      abandon_factor: 0\n"                                                  /* 26 */
             "  - kernels: [csr-merge]\n"                                                 /* 27 */
             "    precisions: single\n",                                                  /* 28 */
             general);
    assert_int_equal(load_text("nightly-file.suite", text, &s, path, sizeof path), FB_OK);

    assert_string_equal(s.path, path);
    assert_string_equal(s.name, "nightly");
    assert_int_equal(s.stream, 1);
    assert_int_equal(s.stream_n, 4096);
    assert_int_equal(s.ncases, 3);

    /* case1: everything from the top level */
    const fb_suite_case *c = &s.cases[0];
    assert_string_equal(c->name, "case1");
    assert_int_equal(c->line, 12);
    assert_ptr_equal(c->family, &fb_family_spmv);
    assert_case_kernels(c, "csr-vector", NULL);
    assert_int_equal(c->full_space, 1);
    assert_int_equal(c->naxes, 0);
    assert_int_equal(c->nbackends, 2);
    assert_string_equal(c->backends[0], "openmp");
    assert_string_equal(c->backends[1], "opencl");
    assert_int_equal(c->nprecisions, 2);
    assert_int_equal(c->is_double[0], 1);
    assert_int_equal(c->is_double[1], 0);
    assert_int_equal(c->nmatrices, 2);
    assert_string_equal(c->matrices[0], "gen:cube:12");
    assert_string_equal(c->matrices[1], general);
    assert_int_equal(c->measure.measure.min_samples, 3);
    assert_int_equal(c->measure.measure.max_samples, 50);
    assert_int_equal(c->measure.measure.warmups, 1);
    assert_float_equal(c->measure.measure.target_spread, 0.02, 1e-12);
    assert_float_equal(c->measure.measure.budget_s, 0.5, 1e-12);
    assert_int_equal(c->measure.measure.cold, 1);
    assert_float_equal(c->measure.timeout_s, 20.0, 1e-12);
    assert_float_equal(c->measure.abandon_factor, 4.0, 1e-12);

    /* case "over": each of them overridden, the rest of measure inherited */
    c = &s.cases[1];
    assert_string_equal(c->name, "over");
    assert_int_equal(c->line, 13);
    assert_case_kernels(c, "csr-scalar", "csr-multirow");
    assert_int_equal(c->full_space, 0);
    assert_int_equal(c->nmatrices, 1);
    assert_string_equal(c->matrices[0], "gen:cube:4:block=2");
    assert_int_equal(c->nbackends, 1);
    assert_string_equal(c->backends[0], "cuda");
    assert_int_equal(c->nprecisions, 1);
    assert_int_equal(c->is_double[0], 0);
    assert_int_equal(c->measure.measure.min_samples, 3); /* inherited */
    assert_int_equal(c->measure.measure.max_samples, 10);
    assert_int_equal(c->measure.measure.warmups, 1); /* inherited */
    assert_float_equal(c->measure.measure.target_spread, 0.05, 1e-12);
    assert_float_equal(c->measure.measure.budget_s, 0.5, 1e-12);
    assert_int_equal(c->measure.measure.cold, 0);
    assert_float_equal(c->measure.timeout_s, 0.0, 0);
    assert_float_equal(c->measure.abandon_factor, 0.0, 0);

    /* case3: default name counts cases, a lone scalar is a list of one */
    c = &s.cases[2];
    assert_string_equal(c->name, "case3");
    assert_int_equal(c->line, 27);
    assert_case_kernels(c, "csr-merge", NULL);
    assert_int_equal(c->nprecisions, 1);
    assert_int_equal(c->is_double[0], 0);
    assert_int_equal(c->nbackends, 2);
    assert_int_equal(c->nmatrices, 2);
    assert_int_equal(c->measure.measure.max_samples, 50);

    fb_suite_free(&s);
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);
    fb_suite_free(&s); /* twice is harmless */
}

static void test_defaults_and_name_from_file(void **state)
{
    (void)state;
    char path[512];
    fb_suite s;
    const fb_measure_config d = fb_measure_defaults();
    assert_int_equal(load_text("my-sweep.suite",
                               "matrices: gen:cube:6\n"
                               "cases:\n"
                               "  - kernels: [csr-scalar]\n"
                               "  - kernels: csr-vector\n",
                               &s, path, sizeof path),
                     FB_OK);
    assert_string_equal(s.name, "my-sweep");
    assert_int_equal(s.stream, 0);
    assert_int_equal(s.stream_n, 0);
    assert_int_equal(s.ncases, 2);
    for (int i = 0; i < 2; ++i) {
        const fb_suite_case *c = &s.cases[i];
        char name[16];
        snprintf(name, sizeof name, "case%d", i + 1);
        assert_string_equal(c->name, name);
        assert_int_equal(c->nbackends, 1);
        assert_string_equal(c->backends[0], "openmp");
        assert_int_equal(c->nprecisions, 1);
        assert_int_equal(c->is_double[0], 1);
        assert_int_equal(c->full_space, 1);
        assert_int_equal(c->nmatrices, 1);
        assert_string_equal(c->matrices[0], "gen:cube:6");
        assert_int_equal(c->measure.measure.min_samples, d.min_samples);
        assert_int_equal(c->measure.measure.max_samples, d.max_samples);
        assert_int_equal(c->measure.measure.warmups, d.warmups);
        assert_float_equal(c->measure.measure.target_spread, d.target_spread, 1e-15);
        assert_float_equal(c->measure.measure.budget_s, d.budget_s, 1e-15);
        assert_int_equal(c->measure.measure.cold, d.cold);
        assert_float_equal(c->measure.timeout_s, 0.0, 0);
        assert_float_equal(c->measure.abandon_factor, 0.0, 0);
    }
    assert_case_kernels(&s.cases[1], "csr-vector", NULL);
    fb_suite_free(&s);

    /* only the last extension goes */
    assert_int_equal(
        load_text("a.b.suite", "matrices: gen:cube:6\ncases: [{kernels: csr-scalar}]\n", &s, path, sizeof path), FB_OK);
    assert_string_equal(s.name, "a.b");
    assert_int_equal(s.ncases, 1);
    fb_suite_free(&s);
}

/* ---- 2. matrices: globs, options, relative paths ---- */

static void test_matrix_globs_and_paths(void **state)
{
    (void)state;
    char path[512], expect[512], cwd[1024];
    fb_suite s;
    make_dir("g");
    make_dir("x");
    make_dir("g/sub");
    make_matrix("g/b.mtx");
    make_matrix("g/a.mtx");
    make_matrix("g/c.mtx");
    make_matrix("g/a.mtx.gz");
    make_matrix("g/readme.txt");
    make_matrix("x/d.mtx");
    assert_int_equal(load_text("g/globs.suite",
                               "matrices: [\"*.mtx:block=2\"]\n"
                               "cases:\n"
                               "  - kernels: [bcsr]\n"
                               "  - kernels: [csr-scalar]\n"
                               "    matrices: [\"*.mtx\", ../x/d.mtx, \"gen:cube:8:block=3\", sub/../a.mtx,\n"
                               "               \"../x/?.mtx:block=4\", gen:cube:level=1]\n",
                               &s, path, sizeof path),
                     FB_OK);
    assert_int_equal(s.ncases, 2);

    const fb_suite_case *c = &s.cases[0];
    const char *first[] = {"g/a.mtx:block=2", "g/b.mtx:block=2", "g/c.mtx:block=2"};
    assert_int_equal(c->nmatrices, 3);
    for (int i = 0; i < 3; ++i) {
        tmp_path(first[i], expect, sizeof expect);
        assert_string_equal(c->matrices[i], expect);
    }

    c = &s.cases[1];
    const char *second[] = {"g/a.mtx", "g/b.mtx", "g/c.mtx", "x/d.mtx", NULL, "g/a.mtx", "x/d.mtx:block=4", NULL};
    assert_int_equal(c->nmatrices, 8);
    for (int i = 0; i < 8; ++i) {
        if (!second[i]) continue;
        tmp_path(second[i], expect, sizeof expect);
        assert_string_equal(c->matrices[i], expect);
    }
    assert_string_equal(c->matrices[4], "gen:cube:8:block=3");
    assert_string_equal(c->matrices[7], "gen:cube:level=1");
    fb_suite_free(&s);

    /* a suite named by a relative path: matrices relative to the working
     * directory, "g/../x" collapsed to "x" */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmpdir), 0);
    fb_status st = fb_suite_load("g/globs.suite", &s);
    int chdir_back = chdir(cwd);
    assert_int_equal(chdir_back, 0);
    assert_int_equal(st, FB_OK);
    assert_string_equal(s.path, "g/globs.suite");
    assert_string_equal(s.cases[0].matrices[0], "g/a.mtx:block=2");
    assert_string_equal(s.cases[1].matrices[3], "x/d.mtx");
    assert_string_equal(s.cases[1].matrices[5], "g/a.mtx");
    assert_string_equal(s.cases[1].matrices[6], "x/d.mtx:block=4");
    fb_suite_free(&s);

    /* an absolute path is used as given */
    char text[1024], absolute[512], with_opts[600];
    tmp_path("x/d.mtx", absolute, sizeof absolute);
    snprintf(text, sizeof text, "matrices: [\"%s:block=3\"]\ncases: [{kernels: [bcsr]}]\n", absolute);
    assert_int_equal(load_text("g/abs.suite", text, &s, path, sizeof path), FB_OK);
    assert_int_equal(s.cases[0].nmatrices, 1);
    snprintf(with_opts, sizeof with_opts, "%s:block=3", absolute);
    assert_string_equal(s.cases[0].matrices[0], with_opts);
    fb_suite_free(&s);
}

/* ---- 3. parameter points ---- */

/* Loads a one-case suite of the given case body and checks the case loaded. */
static void load_case(const char *body, fb_suite *s)
{
    char path[512], text[2048];
    snprintf(text, sizeof text, "matrices: gen:cube:6\ncases:\n  - %s\n", body);
    fb_status st = load_text("points.suite", text, s, path, sizeof path);
    if (st != FB_OK) print_error("load failed: %s\n", fb_error_message());
    assert_int_equal(st, FB_OK);
    assert_int_equal(s->ncases, 1);
}

static void expect_points(const fb_suite_case *c, const char *kernel, int n, const int (*want)[2], int nvals)
{
    fb_param_point *p = NULL;
    int np = -1;
    assert_int_equal(fb_suite_points(c, kernel_index(kernel), &p, &np), FB_OK);
    assert_int_equal(np, n);
    if (want)
        for (int i = 0; i < n; ++i)
            for (int v = 0; v < nvals; ++v) {
                if (p[i].values[v] != want[i][v])
                    print_error("%s point %d value %d: %d, expected %d\n", kernel, i, v, p[i].values[v], want[i][v]);
                assert_int_equal(p[i].values[v], want[i][v]);
            }
    free(p);
}

static void test_points_cross_product(void **state)
{
    (void)state;
    fb_suite s;
    load_case("kernels: [csr-vector]\n"
              "    params: {VECTOR_SIZE: [4, 8], WG_SIZE: [64, 128, 256]}\n",
              &s);
    const int want[][2] = {{64, 4}, {64, 8}, {128, 4}, {128, 8}, {256, 4}, {256, 8}};
    expect_points(&s.cases[0], "csr-vector", 6, want, 2);
    /* the axes as parsed, in the order given */
    assert_int_equal(s.cases[0].naxes, 2);
    assert_string_equal(s.cases[0].axes[0].name, "VECTOR_SIZE");
    assert_int_equal(s.cases[0].axes[0].nvalues, 2);
    assert_int_equal(s.cases[0].axes[0].zip_group, -1);
    assert_int_equal(s.cases[0].axes[0].line, 4);
    assert_string_equal(s.cases[0].axes[1].name, "WG_SIZE");
    assert_int_equal(s.cases[0].axes[1].values[2], 256);
    fb_suite_free(&s);
}

static void test_points_generators(void **state)
{
    (void)state;
    fb_suite s;
    load_case("kernels: [csr-vector]\n"
              "    params:\n"
              "      WG_SIZE: 128\n"
              "      VECTOR_SIZE: {pow2: [2, 32]}\n",
              &s);
    const int pow2[][2] = {{128, 2}, {128, 4}, {128, 8}, {128, 16}, {128, 32}};
    expect_points(&s.cases[0], "csr-vector", 5, pow2, 2);
    fb_suite_free(&s);

    load_case("kernels: [csr-multirow]\n"
              "    params:\n"
              "      WORKGROUP_SIZE_BITS: [7]\n"
              "      ROWS_PER_WORKGROUP_BITS: {range: [0, 8, 2]}\n",
              &s);
    const int range[][2] = {{7, 0}, {7, 2}, {7, 4}, {7, 6}, {7, 8}};
    expect_points(&s.cases[0], "csr-multirow", 5, range, 2);
    fb_suite_free(&s);

    /* range without a step counts by one; pow2 of equal bounds is one value */
    load_case("kernels: [csr-multirow]\n"
              "    params:\n"
              "      WORKGROUP_SIZE_BITS: {range: [8, 10]}\n"
              "      ROWS_PER_WORKGROUP_BITS: {pow2: [4, 4]}\n",
              &s);
    const int r1[][2] = {{8, 4}, {9, 4}, {10, 4}};
    expect_points(&s.cases[0], "csr-multirow", 3, r1, 2);
    fb_suite_free(&s);
}

/* 4 axes of 256 values: 2^32 points, which an int product wraps to 0 (the
 * sweep then ran nothing and exited 0). Counted in 64 bits and refused. */
static void test_points_counted_in_64_bits(void **state)
{
    (void)state;
    char path[512];
    fb_suite s;
    fb_param_point *p = (fb_param_point *)&s;
    int np = -1;
    assert_int_equal(load_text("huge.suite",
                               "grids: [\"grid:9x7x5\"]\n"
                               "cases:\n"
                               "  - name: everything\n"
                               "    family: fv-surface\n"
                               "    kernels: [fv-gather]\n"
                               "    params:\n"
                               "      LAYOUT: {range: [1, 256]}\n"
                               "      AOSOA_BLOCK: {range: [1, 256]}\n"
                               "      WG_SIZE: {range: [1, 256]}\n"
                               "      LOCAL_RESERVE: {range: [1, 256]}\n",
                               &s, path, sizeof path),
                     FB_OK);
    const fb_suite_case *c = &s.cases[0];
    assert_true(fb_suite_point_count(c, c->kernels[0]) == INT64_C(1) << 32);
    assert_int_equal(fb_suite_points(c, c->kernels[0], &p, &np), FB_ERR_INPUT);
    assert_null(p);
    assert_non_null(strstr(fb_error_message(), "4294967296 parameter points is too many"));

    fb_sweep_options o = {.repeat = 1};
    assert_int_equal(fb_sweep_check_size(&s, &o), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "huge.suite: line 3: case everything brings the plan to 4294967296 "
                                               "configurations, more than the limit of 1000000"));
    o.max_points = FB_SUITE_MAX_POINTS_HARD;
    assert_int_equal(fb_sweep_check_size(&s, &o), FB_ERR_INPUT);
    o.tuned = (fb_tuning_cache *)&s; /* --tuned: one point per kernel */
    assert_int_equal(fb_sweep_check_size(&s, &o), FB_OK);
    fb_suite_free(&s);
}

static void test_points_zip(void **state)
{
    (void)state;
    fb_suite s;
    load_case("kernels: [csr-vector, csr-scalar, csr-multirow]\n"
              "    params:\n"
              "      WG_SIZE: [64, 128, 256]\n"
              "      VECTOR_SIZE: [4, 8, 16]\n"
              "    zip: [[WG_SIZE, VECTOR_SIZE]]\n"
              "    space: default\n",
              &s);
    const int vec[][2] = {{64, 4}, {128, 8}, {256, 16}};
    expect_points(&s.cases[0], "csr-vector", 3, vec, 2);
    const int scalar[][2] = {{64, 0}, {128, 0}, {256, 0}};
    expect_points(&s.cases[0], "csr-scalar", 3, scalar, 1);
    const int multirow[][2] = {{7, 4}};
    expect_points(&s.cases[0], "csr-multirow", 1, multirow, 2);
    assert_int_equal(s.cases[0].axes[0].zip_group, 0);
    assert_int_equal(s.cases[0].axes[1].zip_group, 0);
    fb_suite_free(&s);

    /* zip order need not follow params order; a generator zips with a list */
    load_case("kernels: [bcsr-lanes]\n"
              "    params:\n"
              "      BLOCKS_PER_ITER: {pow2: [1, 8]}\n"
              "      BROWS_PER_GROUP: [1, 2, 4, 8]\n"
              "    zip: [[BROWS_PER_GROUP, BLOCKS_PER_ITER]]\n",
              &s);
    const int lanes[][2] = {{1, 1}, {2, 2}, {4, 4}, {8, 8}};
    expect_points(&s.cases[0], "bcsr-lanes", 4, lanes, 2);
    fb_suite_free(&s);
}

static void test_points_space(void **state)
{
    (void)state;
    fb_suite s;
    /* default space, nothing named: one point, the kernel's default */
    load_case("kernels: [csr-vector, csr-multirow, bcsr-lanes]\n"
              "    space: default\n",
              &s);
    const int vec_def[][2] = {{128, 8}};
    const int mr_def[][2] = {{7, 4}};
    const int lanes_def[][2] = {{2, 8}};
    expect_points(&s.cases[0], "csr-vector", 1, vec_def, 2);
    expect_points(&s.cases[0], "csr-multirow", 1, mr_def, 2);
    expect_points(&s.cases[0], "bcsr-lanes", 1, lanes_def, 2);
    fb_suite_free(&s);

    /* default space, one axis named */
    load_case("kernels: [csr-vector]\n"
              "    space: default\n"
              "    params: {VECTOR_SIZE: [2, 4]}\n",
              &s);
    const int vec_named[][2] = {{128, 2}, {128, 4}};
    expect_points(&s.cases[0], "csr-vector", 2, vec_named, 2);
    fb_suite_free(&s);

    /* full space (the default): every declared value of unnamed axes */
    load_case("kernels: [csr-vector, csr-multirow, csr-scalar]\n", &s);
    assert_int_equal(s.cases[0].full_space, 1);
    {
        fb_param_point *p = NULL;
        int np = 0, i = 0;
        const int wg[] = {32, 64, 128, 256, 512, 1024}, vs[] = {1, 2, 4, 8, 16, 32, 64};
        assert_int_equal(fb_suite_points(&s.cases[0], kernel_index("csr-vector"), &p, &np), FB_OK);
        assert_int_equal(np, 6 * 7);
        for (int a = 0; a < 6; ++a)
            for (int b = 0; b < 7; ++b, ++i) {
                assert_int_equal(p[i].values[0], wg[a]);
                assert_int_equal(p[i].values[1], vs[b]);
            }
        free(p);
        assert_int_equal(fb_suite_points(&s.cases[0], kernel_index("csr-multirow"), &p, &np), FB_OK);
        assert_int_equal(np, 6 * 11);
        assert_int_equal(p[0].values[0], 5);
        assert_int_equal(p[0].values[1], 0);
        assert_int_equal(p[np - 1].values[0], 10);
        assert_int_equal(p[np - 1].values[1], 10);
        free(p);
    }
    const int scalar_full[][2] = {{32, 0}, {64, 0}, {128, 0}, {256, 0}, {512, 0}, {1024, 0}};
    expect_points(&s.cases[0], "csr-scalar", 6, scalar_full, 1);
    fb_suite_free(&s);

    /* full space with one axis named: the other takes its declared list */
    load_case("kernels: [csr-vector]\n"
              "    space: full\n"
              "    params: {VECTOR_SIZE: 2}\n",
              &s);
    const int vec_full[][2] = {{32, 2}, {64, 2}, {128, 2}, {256, 2}, {512, 2}, {1024, 2}};
    expect_points(&s.cases[0], "csr-vector", 6, vec_full, 2);
    fb_suite_free(&s);
}

static void test_kernels_all_and_peers(void **state)
{
    (void)state;
    fb_suite s;
    int nk = fb_family_spmv.kernel_count();
    assert_true(nk > 8); /* the eight flowbench kernels and the peers */
    load_case("kernels: all\n    space: default\n", &s);
    assert_int_equal(s.cases[0].nkernels, nk);
    for (int i = 0; i < nk; ++i) {
        fb_param_point *p = NULL;
        int np = 0;
        assert_int_equal(s.cases[0].kernels[i], i);
        assert_int_equal(fb_suite_points(&s.cases[0], i, &p, &np), FB_OK);
        assert_int_equal(np, 1);
        free(p);
    }
    fb_suite_free(&s);

    load_case("kernels: [peer:graphblas, csr-scalar]\n"
              "    params: {WG_SIZE: [64, 256]}\n",
              &s);
    assert_case_kernels(&s.cases[0], "peer:graphblas", "csr-scalar");
    assert_int_equal(fb_family_spmv.kernel(kernel_index("peer:graphblas"))->nparams, 0);
    expect_points(&s.cases[0], "peer:graphblas", 1, NULL, 0);
    const int scalar[][2] = {{64, 0}, {256, 0}};
    expect_points(&s.cases[0], "csr-scalar", 2, scalar, 1);
    fb_suite_free(&s);
}

/* ---- 4. errors ---- */

/* Loads text as tmpdir/err.suite: FB_ERR_INPUT naming the file, "line N:"
 * and the reason; out left empty and freeable. */
static void expect_error_in(const char *rel, const char *text, int line, const char *reason)
{
    char path[512], at[600];
    fb_suite s;
    memset(&s, 0x5a, sizeof s);
    fb_status st = load_text(rel, text, &s, path, sizeof path);
    const char *msg = fb_error_message();
    if (st != FB_ERR_INPUT || !strstr(msg, path) || !strstr(msg, reason))
        print_error("status %d, message \"%s\"; expected line %d, \"%s\"\n", (int)st, st ? msg : "(loaded)", line,
                    reason);
    if (st == FB_OK) fb_suite_free(&s);
    assert_int_equal(st, FB_ERR_INPUT);
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, reason));
    if (line > 0) {
        snprintf(at, sizeof at, "%s: line %d: ", path, line);
        if (!strstr(msg, at)) print_error("message \"%s\" lacks \"%s\"\n", msg, at);
        assert_non_null(strstr(msg, at));
    }
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);
    fb_suite_free(&s);
    assert_int_equal(s.ncases, 0);
}

static void expect_error(const char *text, int line, const char *reason)
{
    expect_error_in("err.suite", text, line, reason);
}

#define CASE_HEAD "matrices: gen:cube:6\ncases:\n" /* lines 1-2; the first case is on line 3 */

static void test_error_yaml_and_structure(void **state)
{
    (void)state;
    /* an unclosed flow sequence: the line where libyaml found the list could
     * not go on (the next key), with its problem and context */
    expect_error("suite: x\n"
                 "matrices: gen:cube:6\n"
                 "cases:\n"
                 "  - kernels: [csr-scalar, csr-vector\n"
                 "    space: default\n",
                 5, "not valid YAML (did not find expected ',' or ']', while parsing a flow sequence on line 4)");
    /* ... or the end of the file (one past the last line: see the report) */
    expect_error("suite: x\n"
                 "backends: [openmp\n",
                 0, "did not find expected ',' or ']'");
    /* a mismatched bracket on its own line */
    expect_error("suite: x\n"
                 "backends: [openmp, opencl}\n"
                 "cases: [{kernels: all}]\n",
                 2, "not valid YAML");
    /* a tab where indentation is expected */
    expect_error("suite: x\ncases:\n\t- kernels: all\n", 3, "found character that cannot start any token");

    /* nothing in the file: no line to name */
    expect_error("", 0, "the suite is empty");
    expect_error("# only a comment\n\n", 0, "the suite is empty");

    expect_error("just a word\n", 1, "suite: expected a mapping");
    expect_error("suite: x\n"
                 "matrices: gen:cube:6\n"
                 "matrixes: gen:cube:7\n"
                 "cases: [{kernels: all}]\n",
                 3, "suite: unknown key 'matrixes'");
    expect_error("suite: x\nmatrices: gen:cube:6\n", 1, "no cases");
    expect_error(CASE_HEAD "  name: a\n", 3, "cases: expected a list of cases");
    expect_error(CASE_HEAD "  - csr-vector\n", 3, "case: expected a mapping");
    expect_error(CASE_HEAD, 2, "cases: expected a list");
    expect_error(CASE_HEAD "  []\n", 3, "cases: the list is empty");
    expect_error(CASE_HEAD "  - kernels: all\n    kernal: csr-scalar\n", 4, "case: unknown key 'kernal'");
    /* kernel: names a kernel file's function (docs/kernels.md): alone, the
     * line says what it is for and what the family's own kernels take */
    expect_error(CASE_HEAD "  - kernels: all\n    kernel: csr-scalar\n", 4,
                 "kernel: describes a kernel file: give kernel_file: too (the family's own kernels are kernels:)");
    expect_error(CASE_HEAD "  - name: a\n    space: default\n", 3, "case a: no kernels");
    expect_error(CASE_HEAD "  - kernels: [csr-scalar]\n  - space: default\n", 4, "case case2: no kernels");
    expect_error(CASE_HEAD "  - {name: a, kernels: all}\n  - {name: b, kernels: all}\n  - {name: a, kernels: all}\n", 5,
                 "case name 'a' is used twice");
    expect_error(CASE_HEAD "  - {name: case2, kernels: all}\n  - {kernels: all}\n", 4,
                 "case name 'case2' is used twice");
    expect_error(CASE_HEAD "  - {name: 'a|b', kernels: all}\n", 3, "may not contain '|'");
    expect_error(CASE_HEAD "  - family: heat9d\n    kernels: all\n", 3, "family: 'heat9d' is not a benchmark family");
    expect_error("cases: [{kernels: all}]\n", 1, "case case1: no matrices");
}

static void test_error_top_level_values(void **state)
{
    (void)state;
    expect_error("suite: x\n"
                 "stream: true\n"
                 "stream_n: 1000\n" CASE_HEAD "  - kernels: all\n",
                 3, "stream_n: 1000 is under 1024 elements");
    expect_error("stream_n: lots\n" CASE_HEAD "  - kernels: all\n", 1, "stream_n: 'lots' is not an integer");
    expect_error("stream: maybe\n" CASE_HEAD "  - kernels: all\n", 1, "stream: expected true or false");
    expect_error("precisions: [double, half]\n" CASE_HEAD "  - kernels: all\n", 1,
                 "precisions: 'half' is not double or single");
    expect_error(CASE_HEAD "  - kernels: all\n"
                           "    precisions:\n"
                           "      - single\n"
                           "      - half\n",
                 6, "precisions: 'half' is not double or single");
    expect_error("precisions: [double, double]\n" CASE_HEAD "  - kernels: all\n", 1, "listed twice");
    expect_error("backends: []\n" CASE_HEAD "  - kernels: all\n", 1, "backends: the list is empty");
    expect_error(CASE_HEAD "  - kernels: all\n    space: half\n", 4, "space: expected full or default");
}

static void test_error_measure(void **state)
{
    (void)state;
    expect_error("suite: x\n"
                 "measure:\n"
                 "  min_samples: 3\n"
                 "  max_sample: 50\n" CASE_HEAD "  - kernels: all\n",
                 4, "measure: unknown key 'max_sample'");
    expect_error("measure: {abandon_factor: 0.5}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "abandon_factor must be above 1");
    expect_error("measure: {min_samples: 0}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "need 1 <= min_samples <= max_samples");
    expect_error("measure: {warmups: -1}\n" CASE_HEAD "  - kernels: all\n", 1, "warmups >= 0");
    expect_error("measure: {spread_pct: 0}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "spread_pct and budget_s must be positive");
    expect_error("measure: {budget_s: -1}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "budget_s: '-1' is not a non-negative number");
    expect_error("measure: {timeout_s: soon}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "timeout_s: 'soon' is not a non-negative number");
    expect_error("measure: {cold: 1}\n" CASE_HEAD "  - kernels: all\n", 1, "cold: expected true or false");
    expect_error("measure: {min_samples: 2.5}\n" CASE_HEAD "  - kernels: all\n", 1,
                 "min_samples: '2.5' is not an integer");
    expect_error("measure: [3, 50]\n" CASE_HEAD "  - kernels: all\n", 1, "measure: expected a mapping");
    /* a case's override is checked against what it inherits */
    expect_error("measure: {min_samples: 20}\n" CASE_HEAD "  - kernels: all\n"
                 "    measure: {max_samples: 10}\n",
                 5, "need 1 <= min_samples <= max_samples");
}

static void test_error_kernels_and_params(void **state)
{
    (void)state;
    expect_error(CASE_HEAD "  - kernels: [csr-scalar, csr-vectr]\n", 3, "kernels: 'csr-vectr' is not a spmv kernel");
    expect_error(CASE_HEAD "  - kernels: [csr-scalar, csr-scalar]\n", 3, "kernels: csr-scalar is listed twice");
    expect_error(CASE_HEAD "  - kernels: [csr-scalar]\n"
                           "    params:\n"
                           "      WG_SIZE: [64]\n"
                           "      VECTOR_SIZE: [4]\n",
                 6, "no kernel of this case has a parameter VECTOR_SIZE");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      WG_SIZE:\n"
                           "        - 64\n"
                           "        - abc\n",
                 7, "WG_SIZE: 'abc' is not an integer");
    /* an integer too large is out of range, not "not an integer", and never wraps */
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      WG_SIZE: [4294967360]\n",
                 5, "WG_SIZE: '4294967360' is out of range (-1000000000..1000000000)");
    expect_error("stream_n: 99999999999999999999\n" CASE_HEAD "  - kernels: all\n", 1,
                 "stream_n: '99999999999999999999' is out of range (-1000000000..1000000000)");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      WG_SIZE: [64, 128, 64]\n",
                 5, "WG_SIZE: the value 64 is listed twice");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      WG_SIZE: [64, 128]\n"
                           "      VECTOR_SIZE: [4, 8, 16]\n"
                           "    zip: [[WG_SIZE, VECTOR_SIZE]]\n",
                 7, "zip: VECTOR_SIZE has 3 values but WG_SIZE has 2");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      WG_SIZE: [64, 128]\n"
                           "    zip:\n"
                           "      - [WG_SIZE, VECTOR_SIZE]\n",
                 7, "zip: 'VECTOR_SIZE' is not a parameter given under params");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params: {WG_SIZE: [64], VECTOR_SIZE: [4]}\n"
                           "    zip: [WG_SIZE, VECTOR_SIZE]\n",
                 5, "zip: a group needs at least two parameters");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      VECTOR_SIZE: {pow2: [3, 32]}\n",
                 5, "VECTOR_SIZE: pow2 bounds must be powers of two");
    expect_error(CASE_HEAD "  - kernels: [csr-vector]\n"
                           "    params:\n"
                           "      VECTOR_SIZE: {pow2: [2, 32, 2]}\n",
                 5, "VECTOR_SIZE: pow2 needs [low, high]");
    expect_error(CASE_HEAD "  - kernels: [csr-multirow]\n"
                           "    params:\n"
                           "      ROWS_PER_WORKGROUP_BITS: {range: [0, 8, 0]}\n",
                 5, "ROWS_PER_WORKGROUP_BITS: range needs from <= to and step >= 1");
    expect_error(CASE_HEAD "  - kernels: [csr-multirow]\n"
                           "    params:\n"
                           "      ROWS_PER_WORKGROUP_BITS: {steps: [0, 8]}\n",
                 5, "'steps' is not pow2 or range");
    expect_error(CASE_HEAD "  - kernels: [csr-multirow]\n"
                           "    params:\n"
                           "      ROWS_PER_WORKGROUP_BITS: {range: [0, 1000]}\n",
                 5, "more than 256 values");
}

static void test_error_matrices(void **state)
{
    (void)state;
    char path[512], text[1024];
    make_dir("m");
    make_matrix("m/one.mtx");
    expect_error_in("m/err.suite",
                    "matrices:\n"
                    "  - one.mtx\n"
                    "  - \"*.nothing\"\n"
                    "cases: [{kernels: all}]\n",
                    3, "matches no file");
    tmp_path("m/*.nothing", path, sizeof path);
    snprintf(text, sizeof text, "matrices: '%s' matches no file", path);
    expect_error_in("m/err.suite", "matrices: [\"*.nothing:block=2\"]\ncases: [{kernels: all}]\n", 1, text);

    tmp_path("m/nope.mtx", path, sizeof path);
    snprintf(text, sizeof text, "matrices: %s: No such file or directory", path);
    expect_error_in("m/err.suite",
                    "matrices: gen:cube:6\n"
                    "cases:\n"
                    "  - kernels: all\n"
                    "    matrices: [one.mtx, \"nope.mtx:block=2\"]\n",
                    4, text);
    expect_error_in("m/err.suite", "matrices: [one.mtx, [two.mtx]]\ncases: [{kernels: all}]\n", 1,
                    "matrices: item 2 is not a string");
}

static void test_error_missing_file(void **state)
{
    (void)state;
    char path[512];
    fb_suite s;
    memset(&s, 0x5a, sizeof s);
    tmp_path("no-such.suite", path, sizeof path);
    assert_int_equal(fb_suite_load(path, &s), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), path));
    assert_non_null(strstr(fb_error_message(), "cannot open suite"));
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);
    fb_suite_free(&s);
}

/* An empty key ("": 1 or a line starting ": ") is an unknown key like any
 * other. Loaded in a child under an alarm so a hang fails the test instead
 * of stalling the run. */
static void test_error_empty_key(void **state)
{
    (void)state;
    const char *texts[] = {"\"\": 1\n" CASE_HEAD "  - kernels: all\n", CASE_HEAD "  - kernels: all\n    \"\": x\n"};
    const int lines[] = {1, 4};
    for (int i = 0; i < 2; ++i) {
        char path[512], at[600];
        tmp_path("empty-key.suite", path, sizeof path);
        write_file(path, texts[i]);
        snprintf(at, sizeof at, "%s: line %d: ", path, lines[i]);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            fb_suite s;
            alarm(1);
            fb_status st = fb_suite_load(path, &s);
            const char *msg = fb_error_message();
            _exit(st == FB_ERR_INPUT && strstr(msg, at) && strstr(msg, "unknown key ''") ? 0 : 1);
        }
        int wstatus = 0;
        assert_int_equal(waitpid(pid, &wstatus, 0), pid);
        if (WIFSIGNALED(wstatus))
            print_error("fb_suite_load on an empty key: killed by signal %d (%s)\n", WTERMSIG(wstatus),
                        WTERMSIG(wstatus) == SIGALRM ? "hung" : "crashed");
        assert_true(WIFEXITED(wstatus));
        assert_int_equal(WEXITSTATUS(wstatus), 0);
    }
}

/* A key given twice in the same mapping is an error naming the repeat: the
 * first "measure:" silently winning over the second would change what a
 * sweep measures just like a misspelt key. */
static void test_error_duplicate_key(void **state)
{
    (void)state;
    expect_error("matrices: gen:cube:6\n"
                 "measure: {min_samples: 3}\n"
                 "measure: {min_samples: 10}\n"
                 "cases: [{kernels: all}]\n",
                 3, "measure");
    expect_error(CASE_HEAD "  - kernels: [csr-scalar]\n"
                           "    space: default\n"
                           "    kernels: [csr-vector]\n",
                 5, "kernels");
}

/* "../" past the root stays at the root (/.. is /): a path that climbs too
 * far is still the absolute file, not a path relative to the working
 * directory. */
static void test_matrix_path_above_root(void **state)
{
    (void)state;
    char path[512], text[1024], expect[512], up[256] = "";
    fb_suite s;
    int depth = 0;
    make_dir("r");
    make_matrix("r/e.mtx");
    tmp_path("r/e.mtx", expect, sizeof expect);
    for (const char *c = tmpdir; *c; ++c)
        depth += *c == '/';
    /* the suite is in tmpdir: depth "../" reach the root, one more passes it */
    for (int i = 0; i <= depth; ++i)
        strcat(up, "../");
    snprintf(text, sizeof text, "matrices: [\"%s%s/r/e.mtx\"]\ncases: [{kernels: all}]\n", up, tmpdir + 1);
    fb_status st = load_text("above.suite", text, &s, path, sizeof path);
    if (st != FB_OK) print_error("%s\n", fb_error_message());
    assert_int_equal(st, FB_OK);
    assert_string_equal(s.cases[0].matrices[0], expect);
    fb_suite_free(&s);
}

/* ---- 5. freeing ---- */

static void test_free_after_load_and_failure(void **state)
{
    (void)state;
    char path[512];
    fb_suite s;
    assert_int_equal(load_text("free.suite",
                               "matrices: gen:cube:6\n"
                               "cases:\n"
                               "  - {kernels: all, params: {WG_SIZE: [64, 128]}}\n"
                               "  - {kernels: [csr-vector], params: {VECTOR_SIZE: [2, 4]}}\n",
                               &s, path, sizeof path),
                     FB_OK);
    assert_int_equal(s.ncases, 2);
    fb_suite_free(&s);
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);

    /* a failure in the second case, after the first one allocated */
    memset(&s, 0x5a, sizeof s);
    assert_int_equal(load_text("free.suite",
                               "matrices: gen:cube:6\n"
                               "cases:\n"
                               "  - {kernels: all, params: {WG_SIZE: [64, 128]}}\n"
                               "  - {kernels: [csr-vector], params: {VECTOR_SIZE: [2, 2]}}\n",
                               &s, path, sizeof path),
                     FB_ERR_INPUT);
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);
    fb_suite_free(&s);

    /* a failure before any YAML was read */
    memset(&s, 0x5a, sizeof s);
    assert_int_equal(load_text("free.suite", "cases: [\n", &s, path, sizeof path), FB_ERR_INPUT);
    assert_int_equal(s.ncases, 0);
    assert_null(s.cases);
    fb_suite_free(&s);
}

/* A signal stops the loading of a suite of many cases (polled per case)
 * and the check of its problems (polled per problem). */
static void test_load_and_check_poll_interrupt(void **state)
{
    (void)state;
    char path[512];
    fb_suite s;
    const char *text = "matrices: gen:cube:6\ncases:\n  - {kernels: [csr-scalar]}\n";
    fb_interrupted = 1;
    fb_status st = load_text("interrupted.suite", text, &s, path, sizeof path);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_int_equal(s.ncases, 0);

    assert_int_equal(load_text("interrupted.suite", text, &s, path, sizeof path), FB_OK);
    fb_interrupted = 1;
    st = fb_suite_check_problems(&s);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_int_equal(fb_suite_check_problems(&s), FB_OK);
    fb_suite_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_suite_values_and_inheritance),
        cmocka_unit_test(test_defaults_and_name_from_file),
        cmocka_unit_test(test_matrix_globs_and_paths),
        cmocka_unit_test(test_matrix_path_above_root),
        cmocka_unit_test(test_points_cross_product),
        cmocka_unit_test(test_points_generators),
        cmocka_unit_test(test_points_counted_in_64_bits),
        cmocka_unit_test(test_points_zip),
        cmocka_unit_test(test_points_space),
        cmocka_unit_test(test_kernels_all_and_peers),
        cmocka_unit_test(test_error_yaml_and_structure),
        cmocka_unit_test(test_error_top_level_values),
        cmocka_unit_test(test_error_measure),
        cmocka_unit_test(test_error_kernels_and_params),
        cmocka_unit_test(test_error_matrices),
        cmocka_unit_test(test_error_missing_file),
        cmocka_unit_test(test_error_empty_key),
        cmocka_unit_test(test_error_duplicate_key),
        cmocka_unit_test(test_free_after_load_and_failure),
        cmocka_unit_test(test_load_and_check_poll_interrupt),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
