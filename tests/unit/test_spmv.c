/* test_spmv.c BACKEND - every SpMV variant x precision on the backend named
 * on the command line (openmp, opencl or cuda; test_family_backend.h), on
 * matrices built here with the shapes that break SpMV kernels: empty rows
 * (first, inner, last), one dense row, a rectangular shape, power-law row
 * lengths, and K x K blocks for K = 1..5 in AoS and SoA form (1..6 for
 * bcsr-warp); the kernels that came with SELL-C-sigma (sell, bcsr-warp) also
 * on the shipped matrices and cavity level 0, scalar and in 4x4 and 5x5
 * blocks. Each run is checked by fb_spmv_run against the serial reference.
 * The openmp instance also checks the reference itself on a matrix small
 * enough to do by hand, the SELL layout, the models, the constraints and the
 * GraphBLAS peer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/source.h"
#include "spmv/csr16_matrix.h"
#include "spmv/peers.h"
#include "spmv/sell_matrix.h"
#include "spmv/sss_matrix.h"
#include "spmv/spmv.h"
#include "spmv/spmv_auto.h"
#include "spmv/spmv_matrix.h"
#include "spmv/spmv_record.h"
#include "test_family_backend.h"

typedef struct test_matrix {
    fb_spmv_matrix view;
    int *ptr, *idx;
    double *values;
} test_matrix;

static unsigned lcg(unsigned *state) { return *state = *state * 1664525u + 1013904223u; }

static double value_at(unsigned *st) { return ((double)(lcg(st) >> 8) / 16777216.0) - 0.3; }

/* Rows with `len(row)` entries at distinct sorted columns. */
static void build_csr(test_matrix *m, int nrows, int ncols, int (*len)(int row, int ncols, unsigned *st))
{
    unsigned st = 12345u;
    m->ptr = calloc((size_t)nrows + 1, sizeof(int));
    int cap = 0;
    for (int r = 0; r < nrows; ++r) {
        int n = len(r, ncols, &st);
        m->ptr[r + 1] = m->ptr[r] + n;
        cap += n;
    }
    m->idx = malloc(((size_t)cap + 1) * sizeof(int));
    m->values = malloc(((size_t)cap + 1) * sizeof(double));
    int maxlen = 0;
    for (int r = 0; r < nrows; ++r) {
        int n = m->ptr[r + 1] - m->ptr[r], stride = n ? ncols / n : 1;
        if (n > maxlen) maxlen = n;
        for (int k = 0; k < n; ++k) {
            m->idx[m->ptr[r] + k] = (k * stride + (int)(lcg(&st) % (unsigned)(stride ? stride : 1))) % ncols;
            m->values[m->ptr[r] + k] = value_at(&st);
        }
    }
    m->view = (fb_spmv_matrix){
        .format = &fb_spmv_csr,
        .shape = {.nrows = nrows, .ncols = ncols, .nnz = cap, .block = 1, .nbrows = nrows, .nblocks = cap},
        .ptr = m->ptr,
        .idx = m->idx,
        .values = m->values,
        .max_row_entries = maxlen};
}

static int irregular_len(int row, int ncols, unsigned *st)
{
    if (row == 0 || row == 7 || row == 39) return 0; /* empty first, inner, last */
    if (row == 13) return ncols;                     /* one dense row */
    return 1 + (int)(lcg(st) % 6u);
}

static int powerlaw_len(int row, int ncols, unsigned *st)
{
    (void)st;
    int n = 2000 / (row + 1) + (row % 5 == 0 ? 0 : 1); /* every 5th row of the tail is empty */
    return n > ncols ? ncols : n;
}

/* K x K blocks: block row br holds (br % 4) blocks, block row 5 is dense. */
static void build_bcsr(test_matrix *m, int nbrows, int nbcols, int K, int soa)
{
    unsigned st = 777u;
    m->ptr = calloc((size_t)nbrows + 1, sizeof(int));
    for (int br = 0; br < nbrows; ++br)
        m->ptr[br + 1] = m->ptr[br] + (br == 5 ? nbcols : br % 4);
    int nb = m->ptr[nbrows];
    m->idx = malloc((size_t)nb * sizeof(int));
    m->values = malloc((size_t)nb * K * K * sizeof(double));
    for (int br = 0; br < nbrows; ++br) {
        int n = m->ptr[br + 1] - m->ptr[br];
        for (int k = 0; k < n; ++k)
            m->idx[m->ptr[br] + k] = br == 5 ? k : (br * 7 + k * 5) % nbcols;
    }
    for (int b = 0; b < nb; ++b)
        for (int e = 0; e < K * K; ++e) {
            double v = value_at(&st);
            m->values[soa ? (size_t)e * nb + b : (size_t)b * K * K + e] = v;
        }
    m->view = (fb_spmv_matrix){.format = soa ? &fb_spmv_bcsr_soa : &fb_spmv_bcsr,
                               .shape = {.nrows = nbrows * K,
                                         .ncols = nbcols * K,
                                         .nnz = (long long)nb * K * K,
                                         .block = K,
                                         .nbrows = nbrows,
                                         .nblocks = nb},
                               .ptr = m->ptr,
                               .idx = m->idx,
                               .values = m->values,
                               .max_row_entries = nbcols * K};
}

static void free_matrix(test_matrix *m)
{
    free(m->ptr);
    free(m->idx);
    free(m->values);
}

static fb_measure_config quick(void)
{
    fb_measure_config c = fb_measure_defaults();
    c.warmups = 1;
    c.min_samples = 2;
    c.max_samples = 2;
    return c;
}

/* Runs kernel at point on the backend under test in the precisions from
 * double down to `lowest` (0: single too); asserts it ran and
 * fb_spmv_run's check passed. */
static void run_checked_down_to(int lowest, const char *kernel, const fb_spmv_matrix *A, const int *point, int npoint)
{
    const fb_spmv_kernel_def *k = fb_spmv_kernel_find(kernel);
    assert_non_null(k);
    for (int is_double = 1; is_double >= lowest; --is_double) {
        fb_spmv_config cfg = {
            .kernel = k, .point = fb_spmv_default_point(k), .is_double = is_double, .measure = quick()};
        for (int i = 0; i < npoint; ++i)
            cfg.point.values[i] = point[i];
        fb_spmv_result r;
        fb_status st = fb_spmv_run(test_target, A, &cfg, &r);
        if (st != FB_OK)
            print_error("%s on %s (%s): %s\n", kernel, fb_target_info(test_target)->id, is_double ? "double" : "single",
                        fb_error_message());
        assert_int_equal(st, FB_OK);
        assert_true(r.checked_ok);
        assert_true(r.gbs > 0);
        fb_spmv_result_free(&r);
    }
}

/* Both precisions. */
static void run_checked(const char *kernel, const fb_spmv_matrix *A, const int *point, int npoint)
{
    run_checked_down_to(0, kernel, A, point, npoint);
}

/* 4096 x 70000 with blocks of 64 rows in turn narrow and wide: rows of a
 * narrow block couple columns near 16 r (mod 60000), rows of a wide one
 * (every third block) couple column r % 100 and column 69999 - r % 100,
 * and row 100 is empty. */
static void build_spans(test_matrix *m)
{
    const int nrows = 4096, ncols = 70000;
    unsigned st = 99u;
    m->ptr = calloc((size_t)nrows + 1, sizeof(int));
    m->idx = malloc((size_t)nrows * 4 * sizeof(int));
    m->values = malloc((size_t)nrows * 4 * sizeof(double));
    for (int r = 0, k = 0; r < nrows; ++r) {
        if ((r / 64) % 3 == 0) {
            m->idx[k++] = r % 100, m->idx[k++] = 69999 - r % 100;
        } else if (r != 100) {
            for (int e = 0; e < 3; ++e)
                m->idx[k++] = (16 * r) % 60000 + 5 * e;
        }
        m->ptr[r + 1] = k;
    }
    for (int k = 0; k < m->ptr[nrows]; ++k)
        m->values[k] = value_at(&st);
    m->view = (fb_spmv_matrix){.format = &fb_spmv_csr,
                               .shape = {.nrows = nrows,
                                         .ncols = ncols,
                                         .nnz = m->ptr[nrows],
                                         .block = 1,
                                         .nbrows = nrows,
                                         .nblocks = m->ptr[nrows]},
                               .ptr = m->ptr,
                               .idx = m->idx,
                               .values = m->values,
                               .max_row_entries = 3};
}

static void test_reference_by_hand(void **state)
{
    (void)state;
    /* [1 2 0; 0 0 0; 0 -3 4] x [1 1 2] = [3 0 5]; |A||x| = [3 0 11] */
    int ptr[] = {0, 2, 2, 4}, idx[] = {0, 1, 1, 2};
    double val[] = {1, 2, -3, 4}, x[] = {1, 1, 2}, y[3], s[3];
    fb_spmv_matrix A = {.format = &fb_spmv_csr,
                        .shape = {.nrows = 3, .ncols = 3, .nnz = 4, .block = 1, .nbrows = 3, .nblocks = 4},
                        .ptr = ptr,
                        .idx = idx,
                        .values = val,
                        .max_row_entries = 2};
    fb_spmv_reference(&A, x, y, s);
    assert_float_equal(y[0], 3, 0);
    assert_float_equal(y[1], 0, 0);
    assert_float_equal(y[2], 5, 0);
    assert_float_equal(s[2], 11, 0);
    /* One 2x2 block [1 2; 3 4] at block column 0 of a 1x1 block matrix, x = [1 10]. */
    int bptr[] = {0, 1}, bidx[] = {0};
    double aos[] = {1, 2, 3, 4}, soa[] = {1, 2, 3, 4}, bx[] = {1, 10};
    fb_spmv_matrix B = {.format = &fb_spmv_bcsr,
                        .shape = {.nrows = 2, .ncols = 2, .nnz = 4, .block = 2, .nbrows = 1, .nblocks = 1},
                        .ptr = bptr,
                        .idx = bidx,
                        .values = aos,
                        .max_row_entries = 2};
    fb_spmv_reference(&B, bx, y, s);
    assert_float_equal(y[0], 21, 0);
    assert_float_equal(y[1], 43, 0);
    B.format = &fb_spmv_bcsr_soa; /* with one block, SoA and AoS coincide */
    B.values = soa;
    fb_spmv_reference(&B, bx, y, s);
    assert_float_equal(y[1], 43, 0);
}

static void test_model_counts_bytes(void **state)
{
    (void)state;
    fb_spmv_shape s = {.nrows = 10, .ncols = 20, .nnz = 100, .block = 1, .nbrows = 10, .nblocks = 100, .real_bytes = 8};
    fb_spmv_model m = fb_spmv_csr.model(&s, NULL);
    assert_float_equal(m.flops, 200, 0);
    assert_float_equal(m.min_bytes, 100 * 12 + 11 * 4 + 30 * 8, 0);
    fb_spmv_shape b = {.nrows = 8, .ncols = 8, .nnz = 48, .block = 4, .nbrows = 2, .nblocks = 3, .real_bytes = 4};
    m = fb_spmv_bcsr.model(&b, NULL);
    assert_float_equal(m.flops, 96, 0);
    assert_float_equal(m.min_bytes, 3 * (16 * 4 + 4) + 3 * 4 + 16 * 4, 0);
}

/* Rows of length 1, 3, 0, 2, 4 with C = 2: by hand. */
static void test_sell_layout_by_hand(void **state)
{
    (void)state;
    int ptr[] = {0, 1, 4, 4, 6, 10}, idx[] = {0, 0, 1, 2, 1, 3, 0, 1, 2, 3};
    double val[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    fb_spmv_matrix A = {.format = &fb_spmv_csr,
                        .shape = {.nrows = 5, .ncols = 4, .nnz = 10, .block = 1, .nbrows = 5, .nblocks = 10},
                        .ptr = ptr,
                        .idx = idx,
                        .values = val,
                        .max_row_entries = 4};
    fb_sell S;
    /* sigma = 1: natural order; slices {0, 1} width 3, {2, 3} width 2, {4, pad} width 4 */
    assert_int_equal(fb_sell_from_csr(&A, 2, 1, &S), FB_OK);
    assert_int_equal(S.nslices, 3);
    assert_int_equal(S.permuted, 0);
    int want_ptr[] = {0, 6, 10, 18};
    for (int s = 0; s <= 3; ++s)
        assert_int_equal(S.slice_ptr[s], want_ptr[s]);
    /* slice 0 column-major: (row 0 entry 0, row 1 entry 0), (pad, row 1 entry 1), (pad, row 1 entry 2) */
    double want_val[] = {1, 2, 0, 3, 0, 4};
    int want_col[] = {0, 0, 0, 1, 0, 2}; /* row 0's padding repeats its last column, 0 */
    for (int k = 0; k < 6; ++k) {
        assert_float_equal(S.values[k], want_val[k], 0);
        assert_int_equal(S.colidx[k], want_col[k]);
    }
    assert_int_equal(S.colidx[10 + 2 * 0 + 1], 0); /* the padding row past nrows: the slice's first column, 0 */
    assert_int_equal(S.colidx[6 + 2 * 0 + 0], 1);  /* empty row 2 pads with its slice's first column, row 3's 1 */
    assert_float_equal(S.values[10 + 2 * 3 + 0], 10, 0);
    assert_int_equal(S.perm[5], -1);
    assert_int_equal((int)S.stored, 18);
    assert_float_equal(fb_sell_padding(&S), 0.8, 1e-12);
    fb_sell_free(&S);
    /* sigma = 4: rows 0..3 (lengths 1, 3, 0, 2) longest first: 1, 3, 0, 2; row 4 alone */
    assert_int_equal(fb_sell_from_csr(&A, 2, 4, &S), FB_OK);
    assert_int_equal(S.permuted, 1);
    int want_perm[] = {1, 3, 0, 2, 4, -1};
    for (int i = 0; i < 6; ++i)
        assert_int_equal(S.perm[i], want_perm[i]);
    assert_int_equal((int)S.stored, 6 + 2 + 8); /* widths 3, 1, 4 */
    fb_sell_free(&S);
}

static void test_sell_model_counts_padding(void **state)
{
    (void)state;
    fb_spmv_shape s = {.nrows = 10, .ncols = 20, .nnz = 100, .block = 1, .nbrows = 10, .nblocks = 100, .real_bytes = 8};
    fb_spmv_conversion c = {.done = 1, .stored = 120, .nslices = 3, .permuted = 0};
    fb_spmv_model m = fb_spmv_sell.model(&s, &c);
    assert_float_equal(m.flops, 240, 0);
    assert_float_equal(m.min_bytes, 120 * 12 + 4 * 4 + 30 * 8, 0);
    c.permuted = 1; /* the permutation is read once per row */
    assert_float_equal(fb_spmv_sell.model(&s, &c).min_bytes, 120 * 12 + 4 * 4 + 10 * 4 + 30 * 8, 0);
}

/* Whether the columns of entries [begin, end) span FB_CSR16_SPAN or more:
 * a csr16 block, or a sell16 slice, that must keep 32-bit columns. */
static int spans_wide(const int *idx, int begin, int end)
{
    int lo = INT_MAX, hi = -1;
    for (int j = begin; j < end; ++j)
        lo = idx[j] < lo ? idx[j] : lo, hi = idx[j] > hi ? idx[j] : hi;
    return hi >= 0 && hi - lo >= FB_CSR16_SPAN;
}

/* sell16's columns: every stored entry's, decoded as the kernels decode
 * it (a slice is a block of csr16), is the SELL one, padding included;
 * only the slices that span 65536 columns are wide. */
static void test_sell16_columns(void **state)
{
    (void)state;
    test_matrix m;
    build_spans(&m);
    static const int heights[] = {4, 32};
    for (int h = 0; h < 2; ++h) {
        fb_sell S;
        assert_int_equal(fb_sell_from_csr(&m.view, heights[h], 1, &S), FB_OK);
        assert_int_equal(fb_sell_narrow_columns(&S), FB_OK);
        assert_int_equal(S.narrow.nbases, S.nslices);
        int wide = 0;
        for (int s = 0; s < S.nslices; ++s) {
            for (int k = S.slice_ptr[s]; k < S.slice_ptr[s + 1]; ++k)
                assert_int_equal(fb_csr16_column(&S.narrow, s, k), S.colidx[k]);
            const int is_wide = spans_wide(S.colidx, S.slice_ptr[s], S.slice_ptr[s + 1]);
            wide += is_wide;
            assert_int_equal(S.narrow.bases[s] < 0, is_wide);
        }
        assert_int_equal(S.narrow.wide_bases, wide);
        assert_int_equal(wide, 22 * 64 / heights[h]); /* the 22 spanning blocks of 64 rows */
        fb_sell_free(&S);
    }
    free_matrix(&m);
}

/* sell16's bytes: sell's, less 2 per stored entry of a narrow slice, plus
 * a base per slice. */
static void test_sell16_model(void **state)
{
    (void)state;
    fb_spmv_shape s = {.nrows = 10, .ncols = 20, .nnz = 100, .block = 1, .nbrows = 10, .nblocks = 100, .real_bytes = 8};
    fb_spmv_conversion c = {.done = 1, .stored = 120, .nslices = 3, .nbases = 3, .base_rows = 1, .wide_entries = 40};
    fb_spmv_model m = fb_spmv_sell16.model(&s, &c);
    assert_float_equal(m.flops, 240, 0);
    assert_float_equal(m.min_bytes, 120 * 8 + 80 * 2 + 40 * 4 + 3 * 4 + 4 * 4 + 30 * 8, 0);
}

/* The conversion keeps every column: decoded as the kernels decode it,
 * each entry's column is the CSR one, for every BASE_ROWS; the blocks
 * that span 65536 columns or more (and only they) are kept at 32 bits. */
static void test_csr16_conversion_keeps_columns(void **state)
{
    (void)state;
    test_matrix m;
    build_spans(&m);
    static const int base_rows[] = {16, 64, 256, 1024};
    for (size_t b = 0; b < sizeof base_rows / sizeof base_rows[0]; ++b) {
        fb_csr16 M;
        assert_int_equal(fb_csr16_from_csr(&m.view, base_rows[b], &M), FB_OK);
        assert_int_equal(M.nbases, (4096 + base_rows[b] - 1) / base_rows[b]);
        int64_t wide = 0;
        int wide_bases = 0;
        for (int blk = 0; blk < M.nbases; ++blk) {
            const int r0 = blk * base_rows[b], r1 = r0 + base_rows[b] < 4096 ? r0 + base_rows[b] : 4096;
            const int is_wide = spans_wide(m.idx, m.ptr[r0], m.ptr[r1]);
            assert_int_equal(M.bases[blk] < 0, is_wide);
            wide_bases += is_wide, wide += is_wide ? m.ptr[r1] - m.ptr[r0] : 0;
            for (int r = r0; r < r1; ++r)
                for (int j = m.ptr[r]; j < m.ptr[r + 1]; ++j)
                    assert_int_equal(fb_csr16_column(&M, r, j), m.idx[j]);
        }
        assert_true(wide_bases > 0);
        if (base_rows[b] <= 64) assert_true(wide_bases < M.nbases); /* both kinds, as built (1024: all wide) */
        assert_int_equal(M.wide_bases, wide_bases);
        assert_int_equal(M.wide_entries, wide);
        fb_csr16_free(&M);
    }
    free_matrix(&m);
}

/* csr16's bytes: 2 per narrow entry, 4 per wide one, a base per block;
 * csr16-sv's values are 4 bytes in a double run. */
static void test_csr16_model_counts_offsets(void **state)
{
    (void)state;
    fb_spmv_shape s = {.nrows = 10, .ncols = 20, .nnz = 100, .block = 1, .nbrows = 10, .nblocks = 100, .real_bytes = 8};
    fb_spmv_conversion c = {.done = 1, .stored = 100, .nbases = 3, .base_rows = 4, .wide_bases = 1, .wide_entries = 30};
    fb_spmv_model m = fb_spmv_csr16.model(&s, &c);
    assert_float_equal(m.flops, 200, 0);
    assert_float_equal(m.min_bytes, 100 * 8 + 70 * 2 + 30 * 4 + 3 * 4 + 11 * 4 + 30 * 8, 0);
    assert_float_equal(fb_spmv_csr16_sv.model(&s, &c).min_bytes, 100 * 4 + 70 * 2 + 30 * 4 + 3 * 4 + 11 * 4 + 30 * 8,
                       0);
    assert_true(fb_spmv_csr16_sv.single_values && !fb_spmv_csr16.single_values);
}

/* n x n symmetric: a band of half-width 3, couplings (i, j) where
 * (i * j) % 97 == 1 (long-range, across every chunk), row 13 coupled to
 * every row but the empty ones (0, 7 and n - 1), no diagonal on rows
 * divisible by 5; a_ij = a_ji from (min, max). */
static int sym_coupled(int i, int j, int n)
{
    const int empty_i = i == 0 || i == 7 || i == n - 1, empty_j = j == 0 || j == 7 || j == n - 1;
    if (empty_i || empty_j) return 0;
    if (i == j) return i % 5 != 0;
    return abs(i - j) <= 3 || i == 13 || j == 13 || (i * j) % 97 == 1;
}

static void build_symmetric(test_matrix *m, int n)
{
    m->ptr = calloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i < n; ++i) {
        m->ptr[i + 1] = m->ptr[i];
        for (int j = 0; j < n; ++j)
            m->ptr[i + 1] += sym_coupled(i, j, n);
    }
    m->idx = malloc(((size_t)m->ptr[n] + 1) * sizeof(int));
    m->values = malloc(((size_t)m->ptr[n] + 1) * sizeof(double));
    int longest = 0;
    for (int i = 0, k = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
            if (sym_coupled(i, j, n)) {
                const int lo = i < j ? i : j, hi = i < j ? j : i;
                m->idx[k] = j, m->values[k++] = i == j ? 4.0 + i % 3 : -0.25 - 0.001 * ((lo * 31 + hi * 7) % 101);
            }
        if (m->ptr[i + 1] - m->ptr[i] > longest) longest = m->ptr[i + 1] - m->ptr[i];
    }
    m->view = (fb_spmv_matrix){
        .format = &fb_spmv_csr,
        .shape =
            {.nrows = n, .ncols = n, .nnz = m->ptr[n], .block = 1, .nbrows = n, .nblocks = m->ptr[n], .symmetric = 1},
        .ptr = m->ptr,
        .idx = m->idx,
        .values = m->values,
        .max_row_entries = longest};
}

/* y = A x through the sss structure, serially, as the kernel and its
 * fix-up compute it (chunk by chunk, then the slots). */
static void sss_multiply(const fb_sss *S, const double *x, double *y)
{
    double *slot_value = calloc((size_t)S->conflicts + 1, sizeof(double));
    for (int k = 0; k < S->nchunks; ++k) {
        const int r0 = S->chunk_start[k];
        int slot = S->chunk_slot[k];
        for (int r = r0; r < S->chunk_start[k + 1]; ++r) {
            double sum = S->diag[r] * x[r];
            for (int j = S->lptr[r]; j < S->lptr[r + 1]; ++j) {
                sum += S->lval[j] * x[S->lcol[j]];
                if (S->lcol[j] >= r0)
                    y[S->lcol[j]] += S->lval[j] * x[r];
                else
                    slot_value[S->slot_place[slot++]] = S->lval[j] * x[r];
            }
            y[r] = sum;
        }
        assert_int_equal(slot, S->chunk_slot[k + 1]);
    }
    for (int m = 0; m < S->nfix; ++m)
        for (int p = S->fix_ptr[m]; p < S->fix_ptr[m + 1]; ++p)
            y[S->fix_rows[m]] += slot_value[p];
    free(slot_value);
}

/* The conversion keeps the product: the triangle holds each entry below
 * the diagonal once, the chunks cover the rows in order, every slot is
 * added once, and the structure multiplied as the kernels multiply gives
 * the CSR product, for 1 chunk, a few, and more chunks than rows. */
static void test_sss_conversion_keeps_product(void **state)
{
    (void)state;
    test_matrix m;
    build_symmetric(&m, 300);
    double x[300], want[300], got[300];
    for (int i = 0; i < 300; ++i)
        x[i] = 1.0 + (i % 11) * 0.125;
    fb_csr csr = {.nrows = 300, .ncols = 300, .nnz = m.ptr[300], .rowptr = m.ptr, .colidx = m.idx, .values = m.values};
    fb_csr_multiply(&csr, x, want);
    static const int chunks[] = {1, 3, 16, 1000};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; ++c) {
        fb_sss S;
        assert_int_equal(fb_sss_from_csr(&m.view, chunks[c], &S), FB_OK);
        assert_int_equal(S.lower * 2 + (300 - 300 / 5 - 3 + 1), m.ptr[300]); /* diagonal: not on 0, 7, n-1 or i % 5 */
        assert_int_equal(S.chunk_start[0], 0);
        assert_int_equal(S.chunk_start[chunks[c]], 300);
        for (int k = 0; k < chunks[c]; ++k)
            assert_true(S.chunk_start[k] <= S.chunk_start[k + 1]);
        if (chunks[c] == 1) assert_int_equal(S.conflicts, 0);
        if (chunks[c] >= 3) assert_true(S.conflicts > 0 && S.nfix > 0);
        int *seen = calloc((size_t)S.conflicts + 1, sizeof(int));
        for (int64_t p = 0; p < S.conflicts; ++p)
            seen[S.slot_place[p]]++;
        for (int64_t p = 0; p < S.conflicts; ++p)
            assert_int_equal(seen[p], 1);
        free(seen);
        for (int i = 0; i < 300; ++i)
            got[i] = NAN;
        sss_multiply(&S, x, got);
        for (int i = 0; i < 300; ++i)
            assert_float_equal(got[i], want[i], 1e-12);
        fb_sss_free(&S);
    }
    free_matrix(&m);
}

/* A matrix that is not its own transpose is refused naming the entry:
 * a value changed, a mirror missing, a rectangle. */
static void test_sss_refuses_unsymmetric(void **state)
{
    (void)state;
    test_matrix m;
    fb_sss S;
    build_symmetric(&m, 40);
    m.values[m.ptr[20] + 1] += 1e-9; /* (21, 18) no longer equals (18, 21) */
    assert_int_equal(fb_sss_from_csr(&m.view, 4, &S), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not symmetric"));
    free_matrix(&m);
    build_csr(&m, 40, 30, irregular_len);
    assert_int_equal(fb_sss_from_csr(&m.view, 4, &S), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not square"));
    free_matrix(&m);
    build_csr(&m, 40, 40, irregular_len);
    assert_int_equal(fb_sss_from_csr(&m.view, 4, &S), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not symmetric"));
    free_matrix(&m);
}

/* sss's bytes: the triangle's values and columns, the diagonal and a row
 * pointer a row, x and y, and the fix-up's slots and rows. */
static void test_sss_model_counts_triangle(void **state)
{
    (void)state;
    fb_spmv_shape s = {.nrows = 10, .ncols = 10, .nnz = 50, .block = 1, .nbrows = 10, .nblocks = 50, .real_bytes = 8};
    fb_spmv_conversion c = {.done = 1, .lower = 20, .nchunks = 4, .conflicts = 6, .nfix = 3};
    fb_spmv_model m = fb_spmv_sss.model(&s, &c);
    assert_float_equal(m.flops, 100, 0);
    assert_float_equal(m.min_bytes, 20 * 12 + 10 * 12 + 4 + 20 * 8 + 6 * 20 + 3 * 24 + 5 * 8, 0);
    assert_true(fb_spmv_sss.symmetric_only);
    /* sss-atomic: no slots; y cleared, then read and written */
    c = (fb_spmv_conversion){.done = 1, .triangle = 1, .lower = 20};
    assert_float_equal(fb_spmv_sss_atomic.model(&s, &c).min_bytes, 20 * 12 + 10 * 12 + 4 + 10 * 8 + 3 * 10 * 8, 0);
    assert_true(fb_spmv_sss_atomic.symmetric_only && fb_spmv_sss_atomic.atomic_adds);
}

/* A rule row's matrix as a source spec: gen: specs are their own name; a
 * shipped file is named by its base name (spmv_record.c's short name), so
 * it is matrices/BASE.mtx or .su2 with the options after the name. NULL
 * for what is not shipped or too large for a unit test. */
static const char *rule_source(const fb_spmv_auto_entry *e, char *buf, size_t len)
{
    static const char *const exts[] = {".mtx", ".su2"};
    if (e->rows > 30000) return NULL;
    if (!strncmp(e->matrix, "gen:", 4)) return e->matrix;
    const char *opts = strchr(e->matrix, ':');
    int base = opts ? (int)(opts - e->matrix) : (int)strlen(e->matrix);
    for (int i = 0; i < 2; ++i) {
        snprintf(buf, len, "%s/matrices/%.*s%s", FB_SOURCE_DIR, base, e->matrix, exts[i]);
        FILE *f = fopen(buf, "r");
        if (!f) continue;
        fclose(f);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s", opts ? opts : "");
        return buf;
    }
    return NULL;
}

/* The rule on the shipped matrices and the cavity levels it was learned
 * on: each one, loaded as every command loads it, is at distance 0 from
 * its own row and gets that row's kernel and parameters, for every device
 * class and precision recorded. So the statistics auto computes are the
 * ones the sweeps recorded, and the generated table is read as written. */
static void test_auto_rule_on_shipped_matrices(void **state)
{
    (void)state;
    enum { MAX_MATRICES = 64 };
    const char *names[MAX_MATRICES];
    json_t *objects[MAX_MATRICES]; /* each matrix's record object, loaded once */
    int nloaded = 0, checked = 0;
    assert_true(fb_spmv_auto_rule_count() > 0);
    for (int i = 0; i < fb_spmv_auto_rule_count(); ++i) {
        const fb_spmv_auto_entry *e = fb_spmv_auto_rule_at(i);
        char buf[1024];
        const char *src = rule_source(e, buf, sizeof buf);
        json_t *mj = NULL;
        if (!src) continue;
        for (int j = 0; j < nloaded && !mj; ++j)
            if (!strcmp(names[j], e->matrix)) mj = objects[j];
        if (!mj) {
            fb_matrix m;
            fb_matrix_options opt = {0};
            assert_true(nloaded < MAX_MATRICES);
            assert_int_equal(fb_matrix_load(src, &opt, &m), FB_OK);
            assert_int_equal(fb_spmv_matrix_json(&m, &mj), FB_OK);
            fb_matrix_free(&m);
            names[nloaded] = e->matrix;
            objects[nloaded++] = mj;
        }
        fb_spmv_auto_choice c;
        assert_int_equal(fb_spmv_auto_choose(mj, e->device_class, e->is_double, &c), FB_OK);
        assert_non_null(c.nearest);
        if (c.distance > 1e-9 || strcmp(c.nearest->matrix, e->matrix) || strcmp(c.kernel->name, e->kernel))
            fail_msg("%s (%s, %s): nearest %s at %g, kernel %s; the rule says %s", e->matrix, e->device_class,
                     e->is_double ? "double" : "single", c.nearest->matrix, c.distance, c.kernel->name, e->kernel);
        assert_non_null(strstr(c.why, e->matrix));
        json_t *aj = fb_spmv_auto_json(&c);
        assert_string_equal(json_string_value(json_object_get(aj, "kernel")), e->kernel);
        json_decref(aj);
        ++checked;
    }
    for (int j = 0; j < nloaded; ++j)
        json_decref(objects[j]);
    print_message("auto: %d of %d rule rows checked on their own matrices (%d matrices)\n", checked,
                  fb_spmv_auto_rule_count(), nloaded);
    assert_true(checked > 0);
}

/* A record's matrix name: the path and extension dropped, the options
 * kept, and a renumbered matrix's ending in ":reorder=rcm" once, whichever
 * way it was asked for; a path that holds the same text keeps it. */
static void test_matrix_name_says_order(void **state)
{
    (void)state;
    static const struct {
        const char *source;
        int reordered;
        const char *name;
    } cases[] = {
        {"gen:cube:4", 1, "gen:cube:4:reorder=rcm"},
        {"gen:cube:4:reorder=rcm", 1, "gen:cube:4:reorder=rcm"},
        {"gen:cube:4:reorder=none", 0, "gen:cube:4"},
        {"m/mesh.msh:reorder=rcm:block=2", 1, "mesh:block=2:reorder=rcm"},
        {"/d/a:reorder=1:b.mtx:reorder=rcm", 1, "a:reorder=1:b:reorder=rcm"},
        {"/d/a:reorder=1:b.mtx", 0, "a:reorder=1:b"},
    };
    fb_matrix m;
    fb_matrix_options opt = {0};
    assert_int_equal(fb_matrix_load("gen:cube:4", &opt, &m), FB_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        json_t *mj = NULL;
        snprintf(m.source, sizeof m.source, "%s", cases[i].source);
        m.reordered = cases[i].reordered;
        assert_int_equal(fb_spmv_matrix_json(&m, &mj), FB_OK);
        assert_string_equal(json_string_value(json_object_get(mj, "name")), cases[i].name);
        json_decref(mj);
    }
    fb_matrix_free(&m);
}

/* The order decides: the rule has a real matrix in gmsh's node order and
 * after RCM (spmv-auto-mesh.suite, in
 * results/reference/spmv-auto-sell16-vm-2026-11-29/) whose fastest kernels
 * differ, and the same statistics with each order's bandwidth go to that
 * order's row. Built from the rows' statistics: the meshes are not
 * shipped. */
static void test_auto_order_decides(void **state)
{
    (void)state;
    int pairs = 0;
    for (int i = 0; i < fb_spmv_auto_rule_count(); ++i) {
        const fb_spmv_auto_entry *rcm = fb_spmv_auto_rule_at(i), *natural = NULL;
        const char *suffix = strstr(rcm->matrix, ":reorder=rcm");
        if (!suffix || suffix[strlen(":reorder=rcm")]) continue;
        for (int j = 0; j < fb_spmv_auto_rule_count() && !natural; ++j) {
            const fb_spmv_auto_entry *e = fb_spmv_auto_rule_at(j);
            if (!strcmp(e->device_class, rcm->device_class) && e->is_double == rcm->is_double &&
                strlen(e->matrix) == (size_t)(suffix - rcm->matrix) &&
                !strncmp(e->matrix, rcm->matrix, strlen(e->matrix)))
                natural = e;
        }
        if (!natural || !strcmp(natural->kernel, rcm->kernel)) continue;
        assert_true(natural->band > 0.9 && rcm->band < 0.2); /* gmsh's order reaches across, RCM's is banded */
        const fb_spmv_auto_entry *rows[2] = {natural, rcm};
        for (int k = 0; k < 2; ++k) {
            /* the renumbered matrix's statistics, each order's bandwidth */
            json_t *mj = json_pack("{s:I, s:I, s:{s:f, s:f}, s:s}", "rows", (json_int_t)rcm->rows, "bandwidth",
                                   (json_int_t)llround(rows[k]->band * rcm->rows), "nnz_per_row", "mean", rcm->mean,
                                   "stddev", rcm->cv * rcm->mean, "symmetry", "symmetric");
            fb_spmv_auto_choice ch;
            assert_int_equal(fb_spmv_auto_choose(mj, rcm->device_class, rcm->is_double, &ch), FB_OK);
            assert_non_null(ch.nearest);
            if (strcmp(ch.kernel->name, rows[k]->kernel))
                fail_msg("%s (%s): auto picks %s (nearest %s), its row says %s", rows[k]->matrix, rcm->device_class,
                         ch.kernel->name, ch.nearest->matrix, rows[k]->kernel);
            json_decref(mj);
        }
        ++pairs;
    }
    print_message("auto: %d (class, precision, matrix) pairs where the node order changes the kernel\n", pairs);
    assert_true(pairs > 0);
}

/* Nearest by the distance of spmv_auto.h; no row of a class: a default that says so. */
static void test_auto_nearest_and_default(void **state)
{
    (void)state;
    const fb_spmv_auto_features a = {.rows = 1000, .mean = 15, .cv = 0.1, .band = 0.02, .fill = 1};
    fb_spmv_auto_features b = a, c = a, far = a, k4 = a, k5 = a;
    b.rows = 100000, c.mean = 3, far.band = 0.97;
    assert_float_equal(fb_spmv_auto_distance(&a, &b), 2.0, 1e-12);    /* two decades of rows */
    assert_float_equal(fb_spmv_auto_distance(&a, &c), 2.0, 1e-12);    /* 16 vs 4: two octaves of 1 + mean */
    assert_float_equal(fb_spmv_auto_distance(&a, &far), 0.95, 1e-12); /* banded against columns across it all */
    k4.block = 4, k5.block = 5, k5.fill = 1.5;
    assert_float_equal(fb_spmv_auto_distance(&k4, &k5), 1.5, 1e-12);
    json_t *mj = json_pack("{s:i, s:i, s:{s:f, s:f}}", "rows", 1000, "bandwidth", 20, "nnz_per_row", "mean", 15.0,
                           "stddev", 1.5);
    fb_spmv_auto_choice ch;
    assert_int_equal(fb_spmv_auto_choose(mj, "no-such-class", 1, &ch), FB_OK);
    assert_null(ch.nearest);
    assert_string_equal(ch.kernel->name, "csr-scalar");
    assert_non_null(strstr(ch.why, "no recorded sweep"));
    json_object_set_new(mj, "block", json_pack("{s:i, s:i, s:f}", "size", 4, "blocks", 10, "fill", 1.0));
    assert_int_equal(fb_spmv_auto_choose(mj, "no-such-class", 1, &ch), FB_OK);
    assert_string_equal(ch.kernel->name, "bcsr");
    json_object_del(mj, "rows");
    assert_int_equal(fb_spmv_auto_choose(mj, "gpu", 1, &ch), FB_ERR_INPUT);
    json_decref(mj);
    /* a row won by sss applies to a symmetric matrix only: the cavity level
     * 1 statistics pick sss on PoCL in double, and the same statistics of a
     * matrix that is not symmetric go by another row */
    const fb_spmv_auto_entry *sss_row = NULL;
    for (int i = 0; i < fb_spmv_auto_rule_count() && !sss_row; ++i)
        if (!strcmp(fb_spmv_auto_rule_at(i)->kernel, "sss")) sss_row = fb_spmv_auto_rule_at(i);
    assert_non_null(sss_row);
    json_t *sym = json_pack("{s:I, s:I, s:{s:f, s:f}, s:s}", "rows", (json_int_t)sss_row->rows, "bandwidth",
                            (json_int_t)llround(sss_row->band * sss_row->rows), "nnz_per_row", "mean", sss_row->mean,
                            "stddev", sss_row->cv * sss_row->mean, "symmetry", "symmetric");
    assert_int_equal(fb_spmv_auto_choose(sym, sss_row->device_class, sss_row->is_double, &ch), FB_OK);
    assert_string_equal(ch.kernel->name, "sss");
    json_object_set_new(sym, "symmetry", json_string("unsymmetric"));
    assert_int_equal(fb_spmv_auto_choose(sym, sss_row->device_class, sss_row->is_double, &ch), FB_OK);
    assert_string_not_equal(ch.kernel->name, "sss");
    assert_false(ch.nearest && !strcmp(ch.nearest->kernel, "sss"));
    json_decref(sym);
    /* the class is the device's capabilities, whatever its name says */
    fb_device_info d = {.backend = "opencl", .name = "Intel(R) Xeon(R) Platinum", .host_cpu = 1};
    assert_string_equal(fb_spmv_auto_device_class(&d), "opencl-cpu");
    d = (fb_device_info){.backend = "opencl", .name = "cpu-named GPU"};
    assert_string_equal(fb_spmv_auto_device_class(&d), "gpu");
    d = (fb_device_info){.backend = "openmp", .host_cpu = 1, .in_process = 1};
    assert_string_equal(fb_spmv_auto_device_class(&d), "openmp");
}

static void test_csr_kernels_irregular(void **state)
{
    (void)state;
    test_matrix m;
    build_csr(&m, 40, 30, irregular_len);
    run_checked("csr-scalar", &m.view, (int[]){64}, 1);
    run_checked("csr-vector", &m.view, NULL, 0);
    run_checked("csr-vector", &m.view, (int[]){64, 1}, 2);
    run_checked("csr-vector", &m.view, (int[]){256, 64}, 2);
    run_checked("csr-multirow", &m.view, NULL, 0);
    run_checked("csr-multirow", &m.view, (int[]){5, 5}, 2); /* one item per row */
    run_checked("csr-multirow", &m.view, (int[]){8, 0}, 2); /* 256 items on one row */
    run_checked("csr-merge", &m.view, NULL, 0);
    run_checked("csr-merge", &m.view, (int[]){32, 1}, 2);
    run_checked("csr-merge", &m.view, (int[]){64, 64}, 2);
    free_matrix(&m);
}

static void test_csr_kernels_powerlaw(void **state)
{
    (void)state;
    test_matrix m;
    build_csr(&m, 3000, 2500, powerlaw_len);
    run_checked("csr-scalar", &m.view, NULL, 0);
    run_checked("csr-vector", &m.view, NULL, 0);
    run_checked("csr-multirow", &m.view, NULL, 0);
    run_checked("csr-merge", &m.view, NULL, 0);
    free_matrix(&m);
}

/* WG_SIZE, VECTOR_SIZE, BASE_ROWS */
static const int csr16_points[][3] = {{32, 1, 16}, {64, 4, 64}, {128, 32, 1024}, {256, 8, 256}};

/* csr16 on narrow and wide blocks, empty rows, a dense row and power-law
 * rows; csr16-mixed in double (in single it is csr16), whose record states
 * its error against the double values: above 0 and within one float
 * rounding of each value (2^-24 of sum |a| |x|). */
static void test_csr16_kernels(void **state)
{
    (void)state;
    test_matrix spans, irregular, powerlaw;
    build_spans(&spans);
    build_csr(&irregular, 40, 30, irregular_len);
    build_csr(&powerlaw, 3000, 2500, powerlaw_len);
    const fb_spmv_matrix *all[] = {&spans.view, &irregular.view, &powerlaw.view};
    for (size_t a = 0; a < 3; ++a) {
        run_checked("csr16", all[a], NULL, 0);
        run_checked_down_to(1, "csr16-mixed", all[a], NULL, 0);
        for (size_t i = 0; i < sizeof csr16_points / sizeof csr16_points[0]; ++i) {
            run_checked("csr16", all[a], csr16_points[i], 3);
            run_checked_down_to(1, "csr16-mixed", all[a], csr16_points[i], 3);
        }
    }
    fb_spmv_config cfg = {.kernel = fb_spmv_kernel_find("csr16-mixed"), .is_double = 1, .measure = quick()};
    cfg.point = fb_spmv_default_point(cfg.kernel);
    fb_spmv_result r;
    assert_int_equal(fb_spmv_run(test_target, &powerlaw.view, &cfg, &r), FB_OK);
    print_message("csr16-mixed on %s: error against the double values %.3g (arithmetic %.3g)\n",
                  fb_target_info(test_target)->id, r.error_vs_double_values, r.rel_error);
    assert_true(r.error_vs_double_values > 0 && r.error_vs_double_values <= 0x1p-24 + 1e-13);
    fb_spmv_result_free(&r);
    cfg.is_double = 0; /* refused, naming why */
    assert_int_equal(fb_spmv_run(test_target, &powerlaw.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "single precision already"));
    free_matrix(&spans);
    free_matrix(&irregular);
    free_matrix(&powerlaw);
}

/* CHUNKS, WG_SIZE */
static const int sss_points[][2] = {{4, 1}, {16, 8}, {64, 32}, {1024, 128}, {65536, 128}};

/* sss on the symmetric matrix (empty rows, rows without a diagonal, a
 * dense row, long-range couplings) at the default and five points, and on
 * the cube Laplacian, sss-atomic on both; a matrix not known to be
 * symmetric is refused by both. */
static void test_sss_kernels(void **state)
{
    (void)state;
    test_matrix sym;
    build_symmetric(&sym, 600);
    run_checked("sss", &sym.view, NULL, 0);
    for (size_t i = 0; i < sizeof sss_points / sizeof sss_points[0]; ++i)
        run_checked("sss", &sym.view, sss_points[i], 2);
    run_checked("sss-atomic", &sym.view, NULL, 0);
    run_checked("sss-atomic", &sym.view, (int[]){32}, 1);
    void *problem = NULL; /* the spmv problem marks its matrix symmetric */
    fb_spmv_matrix view;
    assert_int_equal(fb_spmv_problem_open("gen:cube:9", 0, &problem), FB_OK);
    const fb_matrix *cube = fb_spmv_problem_matrix(problem);
    assert_true(cube->symmetric);
    assert_int_equal(fb_spmv_view_shape(cube, fb_spmv_kernel_find("sss"), &view), FB_OK);
    assert_true(view.shape.symmetric);
    run_checked("sss", &view, (int[]){64, 8}, 2);
    run_checked("sss-atomic", &view, NULL, 0);
    fb_family_spmv.problem_close(problem);
    sym.view.shape.symmetric = 0;
    fb_spmv_config cfg = {.kernel = fb_spmv_kernel_find("sss"), .is_double = 1, .measure = quick()};
    cfg.point = fb_spmv_default_point(cfg.kernel);
    fb_spmv_result r;
    assert_int_equal(fb_spmv_run(test_target, &sym.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "not symmetric"));
    fb_spmv_result_free(&r);
    cfg.kernel = fb_spmv_kernel_find("sss-atomic");
    cfg.point = fb_spmv_default_point(cfg.kernel);
    assert_int_equal(fb_spmv_run(test_target, &sym.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "not symmetric"));
    fb_spmv_result_free(&r);
    free_matrix(&sym);
}

static void test_bcsr_kernels_all_blocks(void **state)
{
    (void)state;
    for (int K = 1; K <= 5; ++K) {
        test_matrix aos, soa;
        build_bcsr(&aos, 23, 17, K, 0);
        build_bcsr(&soa, 23, 17, K, 1);
        run_checked("bcsr", &aos.view, NULL, 0);
        run_checked("bcsr-vector", &aos.view, NULL, 0);
        run_checked("bcsr-vector", &aos.view, (int[]){32, 32}, 2);
        run_checked("bcsr-lanes", &aos.view, NULL, 0);
        run_checked("bcsr-lanes", &aos.view, (int[]){8, 1}, 2);
        run_checked("bcsr-soa", &soa.view, NULL, 0);
        free_matrix(&aos);
        free_matrix(&soa);
    }
}

/* SLICE_HEIGHT, THREADS_PER_ROW, SIGMA, WG_SIZE */
static const int sell_points[][4] = {
    {4, 1, 1, 32}, {8, 4, 32, 64}, {16, 2, 4096, 128}, {32, 4, 256, 256}, {32, 2, 32, 64},
};

/* sell and sell16 at the default and five points; sell16 also on the
 * matrix whose spanning slices keep 32-bit columns. */
static void test_sell_kernels(void **state)
{
    (void)state;
    test_matrix irregular, powerlaw, spans;
    build_csr(&irregular, 40, 30, irregular_len);
    build_csr(&powerlaw, 3000, 2500, powerlaw_len);
    build_spans(&spans);
    static const char *const kernels[] = {"sell", "sell16"};
    for (int k = 0; k < 2; ++k) {
        run_checked(kernels[k], &irregular.view, NULL, 0);
        run_checked(kernels[k], &powerlaw.view, NULL, 0);
        for (size_t i = 0; i < sizeof sell_points / sizeof sell_points[0]; ++i) {
            run_checked(kernels[k], &irregular.view, sell_points[i], 4);
            run_checked(kernels[k], &powerlaw.view, sell_points[i], 4);
        }
    }
    run_checked("sell16", &spans.view, NULL, 0);
    run_checked("sell16", &spans.view, sell_points[0], 4);
    free_matrix(&irregular);
    free_matrix(&powerlaw);
    free_matrix(&spans);
}

/* A view without 32-bit columns (sell16's slices: its kernel reads the
 * offsets) uploads everything else and no column array. */
static void test_upload_without_columns(void **state)
{
    (void)state;
    test_matrix m;
    build_csr(&m, 40, 30, irregular_len);
    fb_spmv_matrix view = m.view;
    view.idx = NULL;
    double *x = calloc((size_t)view.shape.ncols, sizeof *x);
    fb_spmv_buffers d;
    assert_int_equal(fb_spmv_upload(test_target, &view, 1, x, &d), FB_OK);
    assert_null(d.idx);
    assert_non_null(d.ptr);
    assert_non_null(d.val);
    assert_non_null(d.y);
    fb_spmv_buffers_release(test_target, &d);
    free(x);
    free_matrix(&m);
}

static void test_bcsr_warp_blocks_1_to_6(void **state)
{
    (void)state;
    for (int K = 1; K <= 6; ++K) {
        test_matrix m;
        build_bcsr(&m, 23, 17, K, 0);
        run_checked("bcsr-warp", &m.view, NULL, 0); /* 32 items: 32 / K blocks a step, 32 % K idle */
        /* teams of 8 and 16: 2 slots (K 3), 1 (K 6: nothing to reduce), 8 (K 2), 3 (K 5: an odd count
         * for the shuffle tree), and a group of 256 items */
        if (K == 3 || K == 6) run_checked("bcsr-warp", &m.view, (int[]){8, 32}, 2);
        if (K == 2 || K == 5) run_checked("bcsr-warp", &m.view, (int[]){16, 256}, 2);
        free_matrix(&m);
    }
}

/* The shipped matrices and cavity level 0 as loaded by every command
 * (matrix/source.h), scalar for sell and in 4x4 and 5x5 blocks for
 * bcsr-warp (and bcsr-lanes, measured on no GPU before these tests). */
static void test_new_kernels_shipped_matrices(void **state)
{
    (void)state;
    static const char *const scalar[] = {
        FB_SOURCE_DIR "/matrices/general.mtx",
        FB_SOURCE_DIR "/matrices/symmetric.mtx",
        FB_SOURCE_DIR "/matrices/dense_row.mtx",
        FB_SOURCE_DIR "/matrices/empty_rows.mtx",
        FB_SOURCE_DIR "/matrices/rectangular.mtx",
        FB_SOURCE_DIR "/matrices/skew.mtx",
        FB_SOURCE_DIR "/matrices/pattern.mtx",
        FB_SOURCE_DIR "/matrices/tiny_cube.su2",
        "gen:cube:level=0",
    };
    static const char *const blocked[] = {"gen:cube:level=0:block=4", "gen:cube:level=0:block=5",
                                          FB_SOURCE_DIR "/matrices/tiny_cube.su2:block=4"};
    fb_matrix_options opt = {0};
    for (size_t i = 0; i < sizeof scalar / sizeof scalar[0]; ++i) {
        fb_matrix m;
        fb_spmv_matrix A;
        assert_int_equal(fb_matrix_load(scalar[i], &opt, &m), FB_OK);
        assert_int_equal(fb_spmv_view_csr(&m.A, &A), FB_OK);
        run_checked("sell", &A, NULL, 0);
        run_checked("sell", &A, (int[]){8, 2, 256, 128}, 4);
        fb_matrix_free(&m);
    }
    for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; ++i) {
        fb_matrix m;
        fb_spmv_matrix A;
        assert_int_equal(fb_matrix_load(blocked[i], &opt, &m), FB_OK);
        assert_int_equal(fb_spmv_view_bcsr(&m.B, &A), FB_OK);
        run_checked("bcsr-warp", &A, NULL, 0);
        run_checked("bcsr-lanes", &A, NULL, 0);
        fb_matrix_free(&m);
    }
}

/* The family's "auto" kernel (what `sweep` and a --kernel auto plan run):
 * a matrix no sweep recorded runs the kernel the rule picks on this
 * backend, checked, and its record says what was picked and why. */
static void test_auto_kernel_runs_and_records(void **state)
{
    (void)state;
    static const char *const specs[] = {"gen:cube:9", "gen:cube:7:block=4"};
    const fb_family *f = &fb_family_spmv;
    int k = fb_family_kernel_find(f, "auto");
    assert_true(k >= 0);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i) {
        void *problem = NULL;
        json_t *rec = NULL;
        fb_family_run run = {.kernel = k, .is_double = 1, .measure = quick()};
        assert_int_equal(f->problem_open(specs[i], &problem), FB_OK);
        assert_int_equal(f->check(problem, &run, fb_target_info(test_target)), FB_OK);
        assert_int_equal(f->run(test_target, problem, &run, &rec), FB_OK);
        const json_t *a = json_object_get(rec, "auto");
        assert_non_null(a);
        assert_string_equal(json_string_value(json_object_get(a, "kernel")),
                            json_string_value(json_object_get(rec, "kernel")));
        assert_string_equal(json_string_value(json_object_get(a, "choice")),
                            json_string_value(json_object_get(rec, "format")));
        assert_true(json_is_object(json_object_get(a, "params")));
        assert_true(strlen(json_string_value(json_object_get(a, "why"))) > 20);
        assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
        print_message("auto on %s (%s): %s: %s\n", specs[i], fb_target_info(test_target)->id,
                      json_string_value(json_object_get(a, "kernel")), json_string_value(json_object_get(a, "why")));
        json_decref(rec);
        f->problem_close(problem);
    }
}

static void test_constraints_refuse(void **state)
{
    (void)state;
    test_matrix m;
    fb_target *t = NULL;
    fb_spmv_result r;
    build_csr(&m, 40, 30, irregular_len);
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    const fb_spmv_kernel_def *k = fb_spmv_kernel_find("csr-multirow");
    fb_spmv_config cfg = {.kernel = k, .point = {{5, 6}}, .is_double = 1, .measure = quick()};
    assert_int_equal(fb_spmv_run(t, &m.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "ROWS_PER_WORKGROUP_BITS 6 exceeds WORKGROUP_SIZE_BITS 5"));
    fb_spmv_result_free(&r);
    cfg.point = (fb_param_point){{7, 3}};
    cfg.point.values[0] = 11; /* not in the space */
    assert_int_equal(fb_spmv_run(t, &m.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "WORKGROUP_SIZE_BITS=11 is not in its space"));
    fb_spmv_result_free(&r);
    cfg.kernel = fb_spmv_kernel_find("bcsr");
    cfg.point = fb_spmv_default_point(cfg.kernel);
    assert_int_equal(fb_spmv_run(t, &m.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "needs a BCSR matrix"));
    fb_spmv_result_free(&r);
    /* sell: a team wider than the group; a sort window that splits slices */
    const fb_spmv_kernel_def *sell = fb_spmv_kernel_find("sell");
    fb_spmv_shape shape = m.view.shape;
    char why[256];
    shape.real_bytes = 8;
    assert_false(sell->allowed(&(fb_param_point){{32, 4, 1, 64}}, fb_target_info(t), &shape, why, sizeof why));
    assert_non_null(strstr(why, "SLICE_HEIGHT x THREADS_PER_ROW 128 exceeds WG_SIZE 64"));
    assert_false(sell->allowed(&(fb_param_point){{32, 1, 48, 128}}, fb_target_info(t), &shape, why, sizeof why));
    assert_non_null(strstr(why, "SIGMA 48 is not a multiple of SLICE_HEIGHT 32"));
    assert_true(sell->allowed(&(fb_param_point){{16, 2, 256, 32}}, fb_target_info(t), &shape, why, sizeof why));
    cfg.kernel = sell; /* SELL reads a CSR view, not a block one */
    cfg.point = fb_spmv_default_point(sell);
    test_matrix b;
    build_bcsr(&b, 4, 4, 2, 0);
    assert_int_equal(fb_spmv_run(t, &b.view, &cfg, &r), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "sell needs a CSR matrix"));
    fb_spmv_result_free(&r);
    free_matrix(&b);
    fb_target_close(t);
    free_matrix(&m);
}

static void test_graphblas_peer(void **state)
{
    (void)state;
    const fb_peer *p = fb_peer_find("peer:graphblas");
    char why[256];
    assert_non_null(p);
    if (!p->available(why, sizeof why)) {
        printf("skipped: %s\n", why);
        skip();
    }
    test_matrix m;
    fb_target *t = NULL;
    build_csr(&m, 40, 30, irregular_len);
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    for (int is_double = 1; is_double >= 0; --is_double) {
        fb_spmv_config cfg = {.kernel = &p->def, .is_double = is_double, .measure = quick()};
        fb_spmv_result r;
        assert_int_equal(fb_peer_run(p, t, &m.view, &cfg, &r), FB_OK);
        assert_true(r.checked_ok);
        fb_spmv_result_free(&r);
    }
    fb_target_close(t);
    /* A peer refuses a backend it does not run on. */
    if (fb_target_open("opencl", &t) == FB_OK) {
        fb_spmv_config cfg = {.kernel = &p->def, .is_double = 1, .measure = quick()};
        fb_spmv_result r;
        assert_int_equal(fb_peer_run(p, t, &m.view, &cfg, &r), FB_ERR_USAGE);
        fb_spmv_result_free(&r);
        fb_target_close(t);
    }
    free_matrix(&m);
}

int main(int argc, char **argv)
{
    int code = test_backend_open(argc, argv);
    if (code != TEST_GO_ON) return code;
    /* FB_TEST_ONLY=GLOB runs the matching tests only (timing one of them) */
    const char *only = getenv("FB_TEST_ONLY");
    if (only && *only) cmocka_set_test_filter(only);
    /* one test a line (a comment ends each, so clang-format keeps them apart) */
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_reference_by_hand),              //
        cmocka_unit_test(test_model_counts_bytes),             //
        cmocka_unit_test(test_sell_layout_by_hand),            //
        cmocka_unit_test(test_sell_model_counts_padding),      //
        cmocka_unit_test(test_sell16_columns),                 //
        cmocka_unit_test(test_sell16_model),                   //
        cmocka_unit_test(test_csr16_conversion_keeps_columns), //
        cmocka_unit_test(test_csr16_model_counts_offsets),     //
        cmocka_unit_test(test_sss_conversion_keeps_product),   //
        cmocka_unit_test(test_sss_refuses_unsymmetric),        //
        cmocka_unit_test(test_sss_model_counts_triangle),      //
        cmocka_unit_test(test_auto_rule_on_shipped_matrices),  //
        cmocka_unit_test(test_matrix_name_says_order),         //
        cmocka_unit_test(test_auto_order_decides),             //
        cmocka_unit_test(test_auto_nearest_and_default),       //
        cmocka_unit_test(test_constraints_refuse),             //
        cmocka_unit_test(test_graphblas_peer),                 //
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_csr_kernels_irregular),        //
        cmocka_unit_test(test_csr_kernels_powerlaw),         //
        cmocka_unit_test(test_bcsr_kernels_all_blocks),      //
        cmocka_unit_test(test_upload_without_columns),       //
        cmocka_unit_test(test_sell_kernels),                 //
        cmocka_unit_test(test_csr16_kernels),                //
        cmocka_unit_test(test_sss_kernels),                  //
        cmocka_unit_test(test_bcsr_warp_blocks_1_to_6),      //
        cmocka_unit_test(test_new_kernels_shipped_matrices), //
        cmocka_unit_test(test_auto_kernel_runs_and_records), //
    };
    int failed = test_on_host() ? cmocka_run_group_tests_name("host", host, NULL, NULL) : 0;
    failed += cmocka_run_group_tests_name(test_backend, device, NULL, NULL);
    return test_backend_close(failed);
}
