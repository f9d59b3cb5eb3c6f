/* test_matrix_mtx.c - Matrix Market in and out.
 *
 * Every shipped variant (the .mtx and .mtx.gz files in matrices/) is read and compared with
 * its values written out by hand below; CHOLMOD's reader must agree bit for
 * bit on every one; what flowbench writes reads back identically through
 * both readers, and what CHOLMOD writes reads back through ours. The
 * number parser is checked against strtod, and the parallel body parser
 * on an input large enough to be split into chunks. */
#include "test_matrix_util.h"

#include <cholmod.h>
#include <math.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "matrix/mtx.h"
#include "matrix/text.h"

static void read_ok(const char *name, fb_mtx *m)
{
    fb_status st = fb_mtx_read(shipped(name), m);
    if (st != FB_OK) fail_msg("%s: %s", name, fb_error_message());
}

static void test_general(void **state)
{
    (void)state;
    static const double want[25] = {
        4, 0, 0, 0, 0.1, 0.001, 3, 0, 0, 0, 0, 0, -2.5, -725, 0, 0, 0, 0, 100, 0, 0.5, 0, 0, 0, 1.2345678901234567};
    fb_mtx m;
    read_ok("general.mtx", &m);
    assert_false(m.info.array);
    assert_int_equal(m.info.field, FB_MTX_REAL);
    assert_int_equal(m.info.symmetry, FB_MTX_GENERAL);
    assert_csr_equals(&m.csr, 5, 5, 10, want);
    int stored = 0;
    csr_at(&m.csr, 3, 1, &stored);
    assert_true(stored); /* the explicit zero is structure */
    fb_mtx gz;
    read_ok("general.mtx.gz", &gz);
    assert_csr_identical(&m.csr, &gz.csr);
    fb_mtx_free(&m);
    fb_mtx_free(&gz);
}

static void test_symmetric_expanded(void **state)
{
    (void)state;
    static const double want[16] = {2, -1, 0, 0.5, -1, 2, -1, 0, 0, -1, 2, 0, 0.5, 0, 0, 2};
    fb_mtx m;
    read_ok("symmetric.mtx", &m);
    assert_int_equal(m.info.symmetry, FB_MTX_SYMMETRIC);
    assert_int_equal(m.info.entries, 7);
    assert_csr_equals(&m.csr, 4, 4, 10, want);
    fb_mtx_free(&m);
}

static void test_skew_expanded(void **state)
{
    (void)state;
    static const double want[16] = {0, -1.5, 2, 0, 1.5, 0, 0, -3.25, -2, 0, 0, 0.125, 0, 3.25, -0.125, 0};
    fb_mtx m;
    read_ok("skew.mtx", &m);
    assert_int_equal(m.info.symmetry, FB_MTX_SKEW);
    assert_csr_equals(&m.csr, 4, 4, 8, want);
    fb_mtx_free(&m);
}

static void test_integer(void **state)
{
    (void)state;
    static const double want[16] = {7, 0, 0, 0, 0, 0, -12, 0, 0, 9007199254740992.0, 0, 0, 0, 0, 0, 3};
    fb_mtx m;
    read_ok("integer.mtx", &m);
    assert_int_equal(m.info.field, FB_MTX_INTEGER);
    assert_csr_equals(&m.csr, 4, 4, 5, want);
    fb_mtx_free(&m);
}

static void test_pattern(void **state)
{
    (void)state;
    static const double want[20] = {1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    static const double want_sym[16] = {1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1};
    fb_mtx m;
    read_ok("pattern.mtx", &m);
    assert_int_equal(m.info.field, FB_MTX_PATTERN);
    assert_csr_equals(&m.csr, 4, 5, 6, want);
    fb_mtx_free(&m);
    read_ok("pattern_symmetric.mtx", &m);
    assert_csr_equals(&m.csr, 4, 4, 10, want_sym);
    fb_mtx_free(&m);
}

static void test_arrays(void **state)
{
    (void)state;
    static const double vec[6] = {1.0, -2.5, 0, 3.141592653589793, 1e-300, -4e10};
    static const double sym[9] = {4, 1, 2, 1, 5, 3, 2, 3, 6}; /* symmetric: same by rows and columns */
    fb_mtx m;
    read_ok("vector.mtx", &m);
    assert_true(m.info.array);
    assert_int_equal(m.dense.nrows, 6);
    assert_int_equal(m.dense.ncols, 1);
    assert_memory_equal(m.dense.values, vec, sizeof vec);
    fb_mtx_free(&m);
    read_ok("array_symmetric.mtx", &m);
    assert_int_equal(m.dense.nrows, 3);
    assert_memory_equal(m.dense.values, sym, sizeof sym);
    fb_csr A;
    assert_int_equal(fb_csr_from_dense(&m.dense, &A), FB_OK);
    assert_csr_equals(&A, 3, 3, 9, sym);
    fb_csr_free(&A);
    fb_mtx_free(&m);
}

static void test_shapes(void **state)
{
    (void)state;
    static const double rect[18] = {1, 0, 0, 0, 0, 2, 0, 3, 4, 0, 0, 0, 0, 0, 0, 5, 6, 7};
    static const double empty[36] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const double dups[9] = {3, 0, 0, 0, 0, 0, 0, 4, 0};
    fb_mtx m;
    read_ok("rectangular.mtx", &m);
    assert_csr_equals(&m.csr, 3, 6, 7, rect);
    fb_mtx_free(&m);
    read_ok("empty_rows.mtx", &m);
    assert_csr_equals(&m.csr, 6, 6, 4, empty);
    fb_mtx_free(&m);
    read_ok("duplicates.mtx", &m);
    assert_csr_equals(&m.csr, 3, 3, 3, dups);
    fb_mtx_free(&m);
    double *dense = calloc(1600, sizeof *dense);
    for (int j = 0; j < 40; ++j)
        dense[1 * 40 + j] = j + 1.5;
    for (int i = 0; i < 40; ++i)
        if (i != 1) dense[i * 40 + i] = -(i + 1);
    read_ok("dense_row.mtx", &m);
    assert_csr_equals(&m.csr, 40, 40, 79, dense);
    fb_mtx_free(&m);
    free(dense);
}

static void test_complex_refused(void **state)
{
    (void)state;
    fb_mtx m;
    assert_int_equal(fb_mtx_read(shipped("complex.mtx"), &m), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "complex matrices are not supported"));
    assert_int_equal(fb_mtx_read_cholmod(shipped("complex.mtx"), &m), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "complex"));
}

static const char *const every_file[] = {
    "general.mtx",         "general.mtx.gz",  "symmetric.mtx",         "skew.mtx",
    "integer.mtx",         "pattern.mtx",     "pattern_symmetric.mtx", "vector.mtx",
    "array_symmetric.mtx", "rectangular.mtx", "empty_rows.mtx",        "duplicates.mtx",
    "dense_row.mtx"};

static void assert_same_mtx(const fb_mtx *a, const fb_mtx *b)
{
    assert_int_equal(a->dense.nrows, b->dense.nrows);
    assert_int_equal(a->dense.ncols, b->dense.ncols);
    if (a->dense.values)
        assert_memory_equal(a->dense.values, b->dense.values, (size_t)a->dense.nrows * a->dense.ncols * sizeof(double));
    else
        assert_csr_identical(&a->csr, &b->csr);
}

/* CHOLMOD's reader is an independent implementation: it must agree. */
static void test_cholmod_agrees(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof every_file / sizeof every_file[0]; ++k) {
        fb_mtx ours, theirs;
        read_ok(every_file[k], &ours);
        if (fb_mtx_read_cholmod(shipped(every_file[k]), &theirs) != FB_OK)
            fail_msg("%s: %s", every_file[k], fb_error_message());
        assert_same_mtx(&ours, &theirs);
        fb_mtx_free(&ours);
        fb_mtx_free(&theirs);
    }
}

static void temp_path(char *buf, size_t n, const char *suffix)
{
    snprintf(buf, n, "%s/flowbench-test-mtx-%ld%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(),
             suffix);
}

/* What we write reads back identically, through both readers, plain and gzip. */
static void test_write_round_trip(void **state)
{
    (void)state;
    const char *suffixes[2] = {".mtx", ".mtx.gz"};
    for (size_t k = 0; k < sizeof every_file / sizeof every_file[0]; ++k)
        for (int s = 0; s < 2; ++s) {
            fb_mtx in, back, back2;
            char path[512];
            temp_path(path, sizeof path, suffixes[s]);
            read_ok(every_file[k], &in);
            if (in.info.array)
                assert_int_equal(fb_mtx_write_dense(path, &in.dense, "round trip\ntwo lines"), FB_OK);
            else
                assert_int_equal(fb_mtx_write(path, &in.csr, NULL), FB_OK);
            assert_int_equal(fb_mtx_read(path, &back), FB_OK);
            assert_int_equal(fb_mtx_read_cholmod(path, &back2), FB_OK);
            assert_same_mtx(&in, &back);
            assert_same_mtx(&in, &back2);
            fb_mtx_free(&in);
            fb_mtx_free(&back);
            fb_mtx_free(&back2);
            unlink(path);
        }
}

/* CHOLMOD writes (symmetric storage where it detects symmetry, its own
 * number format); we read its file back to the same matrix. */
static void test_read_what_cholmod_writes(void **state)
{
    (void)state;
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0;
    const char *names[3] = {"general.mtx", "symmetric.mtx", "dense_row.mtx"};
    for (int k = 0; k < 3; ++k) {
        fb_mtx in, back;
        read_ok(names[k], &in);
        /* CSR of A is the CSC of A^T: hand CHOLMOD A^T, let it transpose */
        cholmod_sparse At = {.nrow = (size_t)in.csr.ncols,
                             .ncol = (size_t)in.csr.nrows,
                             .nzmax = (size_t)in.csr.nnz,
                             .p = in.csr.rowptr,
                             .i = in.csr.colidx,
                             .x = in.csr.values,
                             .stype = 0,
                             .itype = CHOLMOD_INT,
                             .xtype = CHOLMOD_REAL,
                             .dtype = CHOLMOD_DOUBLE,
                             .sorted = 1,
                             .packed = 1};
        cholmod_sparse *A = cholmod_transpose(&At, 1, &cc);
        assert_non_null(A);
        char path[512];
        temp_path(path, sizeof path, "-cholmod.mtx");
        FILE *f = fopen(path, "w");
        assert_true(cholmod_write_sparse(f, A, NULL, NULL, &cc) >= 0);
        fclose(f);
        assert_int_equal(fb_mtx_read(path, &back), FB_OK);
        assert_csr_identical(&in.csr, &back.csr);
        cholmod_free_sparse(&A, &cc);
        fb_mtx_free(&in);
        fb_mtx_free(&back);
        unlink(path);
    }
    cholmod_finish(&cc);
}

static unsigned lcg(unsigned *s) { return *s = *s * 1664525u + 1013904223u; }

static double parse_one(const char *tok, fb_num *r)
{
    double v = -12345.0;
    const char *p = tok;
    *r = fb_parse_double(&p, tok + strlen(tok), &v);
    return v;
}

/* The fast path must round exactly like strtod on every token it takes. */
static void test_parse_double(void **state)
{
    (void)state;
    static const char *const good[] = {"0.1",
                                       "1e-300",
                                       "4.9406564584124654e-324",
                                       "2.2250738585072014e-308",
                                       "1.7976931348623157e308",
                                       "123456789012345678901234567890",
                                       "9007199254740993",
                                       ".5",
                                       "5.",
                                       "-0",
                                       "+1E+2",
                                       "0.000000000000000000000000000001",
                                       "1e22",
                                       "1e23",
                                       "8.98846567431158e307",
                                       "0e9999",
                                       "3.0000000000000004",
                                       "0x1p-2"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; ++k) {
        fb_num r;
        double v = parse_one(good[k], &r);
        assert_int_equal(r, FB_NUM_OK);
        if (v != strtod(good[k], NULL) || signbit(v) != signbit(strtod(good[k], NULL))) fail_msg("%s", good[k]);
    }
    unsigned s = 42;
    char tok[64];
    for (int k = 0; k < 200000; ++k) {
        double x = ((double)lcg(&s) / 4294967296.0 + (double)lcg(&s)) * pow(10.0, (int)(lcg(&s) % 40) - 20);
        snprintf(tok, sizeof tok, k % 3 == 0 ? "%.17g" : k % 3 == 1 ? "%.15g" : "%.6e", (k & 8) ? -x : x);
        fb_num r;
        if (parse_one(tok, &r) != strtod(tok, NULL) || r != FB_NUM_OK) fail_msg("%s", tok);
    }
    /* 17 to 19 digits with exponents around the extended-precision path's range */
    for (int k = 0; k < 300000; ++k) {
        int nd = 17 + (int)(lcg(&s) % 3), e = (int)(lcg(&s) % 70) - 35, w = 0;
        tok[w++] = (char)('1' + lcg(&s) % 9);
        for (int d = 1; d < nd; ++d)
            tok[w++] = (char)('0' + lcg(&s) % 10);
        snprintf(tok + w, sizeof tok - (size_t)w, "e%d", e);
        fb_num r;
        if (parse_one(tok, &r) != strtod(tok, NULL) || r != FB_NUM_OK) fail_msg("%s", tok);
    }
    for (int k = 0; k < 100000; ++k) { /* 19 digits next to a midpoint between two doubles */
        double x = ldexp((double)(lcg(&s) | 1u) * 4294967296.0 + lcg(&s), (int)(lcg(&s) % 60) - 40);
        long double mid = (long double)x + 0.5L * ((long double)nextafter(x, INFINITY) - (long double)x);
        snprintf(tok, sizeof tok, "%.18Le", mid);
        fb_num r;
        if (parse_one(tok, &r) != strtod(tok, NULL)) fail_msg("%s", tok);
    }
    static const char *const bad[] = {"1e", "e5", "--1", "1.2.3", "abc", ".", "-", "1,5", "1e+", "2d0"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        fb_num r;
        parse_one(bad[k], &r);
        if (r != FB_NUM_BAD) fail_msg("'%s' accepted", bad[k]);
    }
    static const char *const range[] = {"1e999", "-1e400", "inf", "nan"};
    for (size_t k = 0; k < sizeof range / sizeof range[0]; ++k) {
        fb_num r;
        parse_one(range[k], &r);
        if (r != FB_NUM_RANGE) fail_msg("'%s' accepted", range[k]);
    }
}

static fb_status read_text(const char *text, fb_mtx *m) { return fb_mtx_read_memory("mem.mtx", text, strlen(text), m); }

/* Comments and blank lines anywhere, CRLF, tabs, leading blanks. */
static void test_lenient_layout(void **state)
{
    (void)state;
    static const double want[4] = {1.5, 0, 0, -2};
    fb_mtx m;
    assert_int_equal(read_text("%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n 2\t2 2\r\n"
                               "1 1 1.5\r\n% between\r\n\r\n  2 2   -2 \r\n",
                               &m),
                     FB_OK);
    assert_csr_equals(&m.csr, 2, 2, 2, want);
    fb_mtx_free(&m);
    assert_int_equal(read_text("%%MatrixMarket MATRIX Coordinate REAL General\n2 2 0\n", &m), FB_OK);
    assert_int_equal(m.csr.nnz, 0);
    fb_mtx_free(&m);
}

/* Length given: the text may hold NUL bytes. */
static void expect_error_n(const char *text, size_t n, const char *needle)
{
    fb_mtx m;
    fb_status st = fb_mtx_read_memory("mem.mtx", text, n, &m);
    if (st != FB_ERR_INPUT) fail_msg("accepted: %s", text);
    if (!strstr(fb_error_message(), needle)) fail_msg("'%s' does not contain '%s'", fb_error_message(), needle);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
#define EXPECT_ERROR(text, needle) expect_error_n(text, sizeof(text) - 1, needle)
    EXPECT_ERROR("", "mem.mtx: empty file");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n\n% c\n3 1 1\n", "line 6: row index 3");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", "line 4: more entries");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 0x\n", "line 3: expected a real value");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", "line 3: unexpected '1'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n1\0 1 1\n",
                 "line 3: expected a row index, found '1\\x00'");
    EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\n3.0\n",
                 "line 5: file ends after 3 of the 4");
}

/* Big enough for several chunks: parallel parsing gives the CSR a serial
 * construction gives, and the earliest error wins whatever thread saw it. */
static void test_chunked_parse(void **state)
{
    (void)state;
    int n = 200000, nnz = 3 * n - 2;
    size_t cap = (size_t)nnz * 40 + 200, w = 0;
    char *text = malloc(cap);
    int *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    w += (size_t)snprintf(text + w, cap - w, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, nnz);
    int k = 0;
    for (int j = 0; j < n; ++j) /* column-major, as MATLAB writes */
        for (int i = j - 1; i <= j + 1; ++i) {
            if (i < 0 || i >= n) continue;
            ri[k] = i;
            ci[k] = j;
            v[k] = (i - j) * 0.25 + j;
            w += (size_t)snprintf(text + w, cap - w, "%d %d %.17g\n", i + 1, j + 1, v[k]);
            ++k;
        }
    fb_csr want;
    fb_mtx m;
    assert_int_equal(fb_csr_from_coo(n, n, nnz, ri, ci, v, &want), FB_OK);
    assert_int_equal(fb_mtx_read_memory("big.mtx", text, w, &m), FB_OK);
    assert_csr_identical(&want, &m.csr);
    fb_mtx_free(&m);
    /* two errors: at the 150000th and 500000th entry lines (lines 150002 and 500002) */
    char *e1 = text, *e2 = text;
    for (int line = 1; line < 150002; ++line)
        e1 = strchr(e1, '\n') + 1;
    for (int line = 1; line < 500002; ++line)
        e2 = strchr(e2, '\n') + 1;
    e1[0] = 'x';
    e2[0] = 'y';
    assert_int_equal(fb_mtx_read_memory("big.mtx", text, w, &m), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "line 150002: expected a row index, found 'x"));
    fb_csr_free(&want);
    free(text);
    free(ri);
    free(ci);
    free(v);
}

/* ---- gzip bounded by the header ---- */

/* gzip (not zlib) format of text + pad bytes of `fill`, malloc'd. */
static unsigned char *gzip_padded(const char *text, size_t pad, char fill, size_t *n)
{
    size_t len = strlen(text) + pad;
    char *plain = malloc(len);
    assert_non_null(plain);
    memcpy(plain, text, strlen(text));
    memset(plain + strlen(text), fill, pad);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&zs, len);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    zs.next_in = (unsigned char *)plain;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    *n = zs.total_out;
    deflateEnd(&zs);
    free(plain);
    return out;
}

static fb_status read_gzip(const char *text, size_t pad, char fill)
{
    size_t n = 0;
    unsigned char *gz = gzip_padded(text, pad, fill, &n);
    fb_mtx m;
    fb_status st = fb_mtx_read_memory("bomb.mtx.gz", gz, n, &m);
    if (st == FB_OK) fb_mtx_free(&m);
    free(gz);
    return st;
}

/* A few kilobytes of gzip can inflate to gigabytes; the text may only be
 * as long as the size line's entries allow (256 bytes each) plus 1 MiB. */
static void test_gzip_bounded_by_the_size_line(void **state)
{
    (void)state;
    const char *two = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 2 2.0\n";
    assert_int_equal(read_gzip(two, 512 << 10, '\n'), FB_OK); /* blank lines within the slack */
    assert_int_equal(read_gzip(two, 4 << 20, '\n'), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "bomb.mtx.gz: gzip data inflates beyond "));
    assert_non_null(strstr(fb_error_message(), "more than its size line allows for 2 entries (a gzip bomb?)"));
    /* array: rows x columns values */
    const char *six = "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n";
    assert_int_equal(read_gzip(six, 512 << 10, ' '), FB_OK);
    assert_int_equal(read_gzip(six, 2 << 20, ' '), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "allows for 6 entries"));
    /* no size line in the first 16 MiB */
    assert_int_equal(read_gzip("%%MatrixMarket matrix coordinate real general\n%", 17 << 20, '%'), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "more than a header may hold before its first count"));
    /* a refused header is said as such, however much follows it */
    assert_int_equal(read_gzip("%%MatrixMarket matrix coordinate real general\n3 x 2\n", 4 << 20, '\n'), FB_ERR_INPUT);
    assert_string_equal(fb_error_message(), "bomb.mtx.gz: line 2: expected columns, found 'x'");
    assert_int_equal(read_gzip("not a matrix\n", 4 << 20, '\n'), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "line 1: not a Matrix Market file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_general),
        cmocka_unit_test(test_symmetric_expanded),
        cmocka_unit_test(test_skew_expanded),
        cmocka_unit_test(test_integer),
        cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_complex_refused),
        cmocka_unit_test(test_cholmod_agrees),
        cmocka_unit_test(test_write_round_trip),
        cmocka_unit_test(test_read_what_cholmod_writes),
        cmocka_unit_test(test_parse_double),
        cmocka_unit_test(test_lenient_layout),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_chunked_parse),
        cmocka_unit_test(test_gzip_bounded_by_the_size_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
