/* spmv_omp_template.h - OpenMP twins of the SpMV device kernels, one
 * precision per inclusion (REAL, SUFFIX and ARG_REAL set by spmv_omp.c).
 *
 * On the host the CSR mappings (scalar, vector, multirow) are the same loop:
 * a CPU thread owns a contiguous range of rows chosen so that every thread
 * gets the same number of nonzeros (binary search on rowptr), and the
 * compiler vectorises each row's dot product. Merge path keeps its own
 * algorithm with one merge segment per OpenMP thread. BCSR loops are
 * specialised for each block size so the block loops unroll.
 */

#define FB_CAT_(a, b) a##b
#define FB_CAT(a, b) FB_CAT_(a, b)
#define FB_NAME(base) FB_CAT(base, SUFFIX)

static inline REAL FB_NAME(csr_row_dot_)(int row, const int *restrict rowptr, const int *restrict colidx,
                                         const REAL *restrict values, const REAL *restrict x)
{
    REAL sum = 0;
    const int end = rowptr[row + 1];
#pragma omp simd reduction(+ : sum)
    for (int j = rowptr[row]; j < end; ++j)
        sum += values[j] * x[colidx[j]];
    return sum;
}

static void FB_NAME(spmv_csr_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int nrows = args[0].i32;
    const int *restrict rowptr = args[1].ptr;
    const int *restrict colidx = args[2].ptr;
    const REAL *restrict values = args[3].ptr;
    const REAL *restrict x = args[4].ptr;
    REAL *restrict y = args[5].ptr;
#pragma omp parallel
    {
        int r0, r1;
        fb_omp_balanced_rows(rowptr, nrows, &r0, &r1);
        for (int row = r0; row < r1; ++row)
            y[row] = FB_NAME(csr_row_dot_)(row, rowptr, colidx, values, x);
    }
}

/* Consumes merge steps [d0, d1) starting at row `row`; returns the partial
 * sum of the row it stops in, and that row in *row_out. */
static REAL FB_NAME(merge_segment_)(int d0, int d1, int nrows, const int *restrict rowptr, const int *restrict colidx,
                                    const REAL *restrict values, const REAL *restrict x, REAL *restrict y, int *row_out)
{
    int row = merge_path_rows(d0, nrows, rowptr[nrows], rowptr);
    int j = d0 - row;
    REAL sum = 0;
    for (int step = d0; step < d1; ++step) {
        if (row < nrows && j < rowptr[row + 1]) {
            sum += values[j] * x[colidx[j]];
            ++j;
        } else {
            y[row] = sum;
            sum = 0;
            ++row;
        }
    }
    *row_out = row;
    return sum;
}

static void FB_NAME(spmv_csr_merge_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int nrows = args[0].i32, nnz = args[1].i32;
    const int *restrict rowptr = args[3].ptr;
    const int *restrict colidx = args[4].ptr;
    const REAL *restrict values = args[5].ptr;
    const REAL *restrict x = args[6].ptr;
    REAL *restrict y = args[7].ptr;
    const int total = nrows + nnz;
    int carry_row[FB_OMP_MAX_THREADS];
    REAL carry_value[FB_OMP_MAX_THREADS];
    int nseg = 1;
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
        nseg = nt;
        const int per = (total + nt - 1) / nt;
        const int d0 = t * per < total ? t * per : total;
        const int d1 = d0 + per < total ? d0 + per : total;
        if (t < FB_OMP_MAX_THREADS)
            carry_value[t] = FB_NAME(merge_segment_)(d0, d1, nrows, rowptr, colidx, values, x, y, &carry_row[t]);
    }
    /* Carries in segment order: a row spanning segments gets its pieces
     * added in the same order every run. */
    for (int t = 0; t < nseg && t < FB_OMP_MAX_THREADS; ++t)
        if (carry_row[t] < nrows) y[carry_row[t]] += carry_value[t];
}

/* The host merge twin applies its own carries, so the fix-up kernel has
 * nothing left to do on the host. */
static void FB_NAME(spmv_csr_merge_fixup_omp_)(const fb_host_arg *args, const fb_launch *launch,
                                               const fb_host_defines *defs)
{
    (void)args;
    (void)launch;
    (void)defs;
}

/* One block row of a K x K BCSR product; K is a constant at every call
 * site below, so the loops unroll. `stride` is 1 for AoS blocks (entries of
 * a block contiguous) and nblocks for SoA (one array per entry). */
static inline void FB_NAME(bcsr_row_)(int brow, int K, size_t entry_stride, size_t block_stride,
                                      const int *restrict browptr, const int *restrict bcolidx,
                                      const REAL *restrict values, const REAL *restrict x, REAL *restrict y)
{
    REAL acc[8] = {0};
    for (int b = browptr[brow]; b < browptr[brow + 1]; ++b) {
        const REAL *xb = x + (size_t)bcolidx[b] * K;
        const REAL *block = values + (size_t)b * block_stride;
        for (int r = 0; r < K; ++r)
            for (int c = 0; c < K; ++c)
                acc[r] += block[(size_t)(r * K + c) * entry_stride] * xb[c];
    }
    for (int r = 0; r < K; ++r)
        y[(size_t)brow * K + r] = acc[r];
}

#define FB_BCSR_CASE(K)                                                                                                \
    case K:                                                                                                            \
        _Pragma("omp parallel for schedule(static)") for (int brow = 0; brow < nbrows; ++brow)                         \
            FB_NAME(bcsr_row_)(brow, K, entry_stride, soa ? 1 : (size_t)(K * K), browptr, bcolidx, values, x, y);      \
        break

static void FB_NAME(bcsr_dispatch_)(int K, int soa, int nbrows, size_t nblocks, const int *restrict browptr,
                                    const int *restrict bcolidx, const REAL *restrict values, const REAL *restrict x,
                                    REAL *restrict y)
{
    const size_t entry_stride = soa ? nblocks : 1;
    switch (K) {
        FB_BCSR_CASE(1);
        FB_BCSR_CASE(2);
        FB_BCSR_CASE(3);
        FB_BCSR_CASE(4);
        FB_BCSR_CASE(5);
        FB_BCSR_CASE(6);
        FB_BCSR_CASE(7);
        FB_BCSR_CASE(8);
    default: break; /* block sizes are validated before launch */
    }
}
#undef FB_BCSR_CASE

static void FB_NAME(spmv_bcsr_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    FB_NAME(bcsr_dispatch_)
    (fb_host_define_int(defs, "BLOCK_SIZE", 4), 0, args[0].i32, 0, args[1].ptr, args[2].ptr, args[3].ptr, args[4].ptr,
     args[5].ptr);
}

static void FB_NAME(spmv_bcsr_soa_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    FB_NAME(bcsr_dispatch_)
    (fb_host_define_int(defs, "BLOCK_SIZE", 4), 1, args[0].i32, (size_t)args[1].i32, args[2].ptr, args[3].ptr,
     args[4].ptr, args[5].ptr, args[6].ptr);
}

/* One SELL slice of C rows (C a constant at every call site below, so the
 * row loop vectorises): entry j of row r at begin + j * C + r, its column
 * COLUMN(k) of stored entry k; y written through perm when the rows were
 * sorted. */
#define FB_SELL_SLICE(s, C, COLUMN)                                                                                    \
    do {                                                                                                               \
        REAL acc[32];                                                                                                  \
        const int begin = slice_ptr[s], width = (slice_ptr[(s) + 1] - begin) / (C);                                    \
        for (int r = 0; r < (C); ++r)                                                                                  \
            acc[r] = 0;                                                                                                \
        for (int j = 0; j < width; ++j) {                                                                              \
            const int k0 = begin + j * (C);                                                                            \
            _Pragma("omp simd") for (int r = 0; r < (C); ++r) acc[r] += values[k0 + r] * x[COLUMN(k0 + r)];            \
        }                                                                                                              \
        for (int r = 0; r < (C) && (s) * (C) + r < nrows; ++r)                                                         \
            y[permuted ? perm[(s) * (C) + r] : (s) * (C) + r] = acc[r];                                                \
    } while (0)

static inline void FB_NAME(sell_slice_)(int s, int C, int nrows, int permuted, const int *restrict slice_ptr,
                                        const int *restrict colidx, const REAL *restrict values,
                                        const int *restrict perm, const REAL *restrict x, REAL *restrict y)
{
#define FB_SELL_COLUMN(k) colidx[k]
    FB_SELL_SLICE(s, C, FB_SELL_COLUMN);
#undef FB_SELL_COLUMN
}

/* sell16 (spmv/sell.cl): the slice's base plus a 16-bit offset, or its
 * 32-bit columns in wide where base < 0. */
static inline void FB_NAME(sell16_slice_)(int s, int C, int nrows, int permuted, const int *restrict slice_ptr,
                                          const int *restrict bases, const uint16_t *restrict offsets,
                                          const int *restrict wide, const REAL *restrict values,
                                          const int *restrict perm, const REAL *restrict x, REAL *restrict y)
{
    const int base = bases[s];
#define FB_SELL_NARROW(k) (base + (int)offsets[k])
#define FB_SELL_WIDE(k) wide[(k) + base + 1]
    if (base >= 0)
        FB_SELL_SLICE(s, C, FB_SELL_NARROW);
    else
        FB_SELL_SLICE(s, C, FB_SELL_WIDE);
#undef FB_SELL_NARROW
#undef FB_SELL_WIDE
}
#undef FB_SELL_SLICE

#define FB_SELL_CASE(CC, CALL)                                                                                         \
    case CC:                                                                                                           \
        for (int s = s0; s < s1; ++s)                                                                                  \
            CALL;                                                                                                      \
        break

/* Threads take contiguous slices with equal stored entries (slice_ptr is a
 * row pointer over slices); THREADS_PER_ROW is a device notion and only
 * reassociates the device's sums, so the host ignores it. */
#define FB_SELL_SLICES(CALL)                                                                                           \
    do {                                                                                                               \
        const int C = fb_host_define_int(defs, "SLICE_HEIGHT", 32);                                                    \
        _Pragma("omp parallel")                                                                                        \
        {                                                                                                              \
            int s0, s1;                                                                                                \
            fb_omp_balanced_rows(slice_ptr, nslices, &s0, &s1);                                                        \
            switch (C) {                                                                                               \
                FB_SELL_CASE(4, CALL(4));                                                                              \
                FB_SELL_CASE(8, CALL(8));                                                                              \
                FB_SELL_CASE(16, CALL(16));                                                                            \
                FB_SELL_CASE(32, CALL(32));                                                                            \
            default: break; /* SLICE_HEIGHT is validated before launch */                                              \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static void FB_NAME(spmv_sell_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const int nslices = args[0].i32, nrows = args[1].i32, permuted = args[2].i32;
    const int *restrict slice_ptr = args[3].ptr;
    const int *restrict colidx = args[4].ptr;
    const REAL *restrict values = args[5].ptr;
    const int *restrict perm = args[6].ptr;
    const REAL *restrict x = args[7].ptr;
    REAL *restrict y = args[8].ptr;
#define FB_SELL_CALL(CC) FB_NAME(sell_slice_)(s, CC, nrows, permuted, slice_ptr, colidx, values, perm, x, y)
    FB_SELL_SLICES(FB_SELL_CALL);
#undef FB_SELL_CALL
}

static void FB_NAME(spmv_sell16_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const int nslices = args[0].i32, nrows = args[1].i32, permuted = args[2].i32;
    const int *restrict slice_ptr = args[3].ptr, *restrict bases = args[4].ptr;
    const uint16_t *restrict offsets = args[5].ptr;
    const int *restrict wide = args[6].ptr;
    const REAL *restrict values = args[7].ptr;
    const int *restrict perm = args[8].ptr;
    const REAL *restrict x = args[9].ptr;
    REAL *restrict y = args[10].ptr;
#define FB_SELL_CALL(CC)                                                                                               \
    FB_NAME(sell16_slice_)(s, CC, nrows, permuted, slice_ptr, bases, offsets, wide, values, perm, x, y)
    FB_SELL_SLICES(FB_SELL_CALL);
#undef FB_SELL_CALL
}
#undef FB_SELL_SLICES
#undef FB_SELL_CASE

/* csr16 (spmv/csr16.cl) over the same balanced rows as CSR: a row's
 * block is narrow (base + 16-bit offset) or wide (its 32-bit columns), so
 * each row's loop has one form. VALUE is the stored values' type: REAL,
 * or float for the mixed kernel. BASE_ROWS is a power of two: a division
 * per row cost more than the 2 bytes per entry saved.
 *
 * A row's sum is kept in two running sums (even and odd entries): its
 * additions are a chain, and the second sum halves it. That, not the
 * bytes, is what made csr16 1.26x the plain loop on the gmsh-order Ahmed
 * matrix, where every block is wide; the CSR loop given the same two sums
 * ran as fast there, and on the cube neither form gained
 * (results/reference/spmv-bytes-vm-2026-11-28/NOTES.md). COLUMN(j)
 * decodes entry j's column. */
#define FB_CSR16_ROW(sum, begin, end, COLUMN)                                                                          \
    do {                                                                                                               \
        REAL even_ = 0, odd_ = 0;                                                                                      \
        int j = begin;                                                                                                 \
        for (; j + 1 < end; j += 2) {                                                                                  \
            even_ += (REAL)values[j] * x[COLUMN(j)];                                                                   \
            odd_ += (REAL)values[j + 1] * x[COLUMN(j + 1)];                                                            \
        }                                                                                                              \
        if (j < end) even_ += (REAL)values[j] * x[COLUMN(j)];                                                          \
        sum = even_ + odd_;                                                                                            \
    } while (0)
#define FB_CSR16_NARROW(j) (base + offsets[j])
#define FB_CSR16_WIDE(j) (wide[(j) + base + 1])

#define FB_CSR16_TWIN(fname, VALUE)                                                                                    \
    static void fname(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)                   \
    {                                                                                                                  \
        (void)launch;                                                                                                  \
        const int nrows = args[0].i32, shift = fb_log2_int(fb_host_define_int(defs, "BASE_ROWS", 64));                 \
        const int *restrict rowptr = args[1].ptr, *restrict bases = args[2].ptr, *restrict wide = args[4].ptr;         \
        const uint16_t *restrict offsets = args[3].ptr;                                                                \
        const VALUE *restrict values = args[5].ptr;                                                                    \
        const REAL *restrict x = args[6].ptr;                                                                          \
        REAL *restrict y = args[7].ptr;                                                                                \
        _Pragma("omp parallel")                                                                                        \
        {                                                                                                              \
            int r0, r1;                                                                                                \
            fb_omp_balanced_rows(rowptr, nrows, &r0, &r1);                                                             \
            for (int row = r0; row < r1; ++row) {                                                                      \
                const int base = bases[row >> shift], begin = rowptr[row], end = rowptr[row + 1];                      \
                REAL sum;                                                                                              \
                if (base >= 0)                                                                                         \
                    FB_CSR16_ROW(sum, begin, end, FB_CSR16_NARROW);                                                    \
                else                                                                                                   \
                    FB_CSR16_ROW(sum, begin, end, FB_CSR16_WIDE);                                                      \
                y[row] = sum;                                                                                          \
            }                                                                                                          \
        }                                                                                                              \
    }
FB_CSR16_TWIN(FB_NAME(spmv_csr16_omp_), REAL)
FB_CSR16_TWIN(FB_NAME(spmv_csr16_mixed_omp_), float)
#undef FB_CSR16_TWIN
#undef FB_CSR16_ROW
#undef FB_CSR16_NARROW
#undef FB_CSR16_WIDE

/* sss (spmv/sss.cl): the same chunks, each walked by sss_chunk.h's code in
 * row order by one thread, then the fix-up of the rows other chunks sent
 * products to. */
#define SSS_CHUNK FB_NAME(spmv_sss_chunk_)
#include "sss_chunk.h"
#undef SSS_CHUNK

static void FB_NAME(spmv_sss_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch, (void)defs;
    const int nchunks = args[0].i32;
    const int *chunk_start = args[1].ptr, *chunk_slot = args[2].ptr, *slot_place = args[3].ptr;
    const int *lptr = args[4].ptr, *lcol = args[5].ptr;
    const REAL *lval = args[6].ptr, *diag = args[7].ptr, *x = args[8].ptr;
    REAL *y = args[9].ptr, *conflict = args[10].ptr;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nchunks; ++k) {
        FB_NAME(spmv_sss_chunk_)(k, chunk_start, chunk_slot, slot_place, lptr, lcol, lval, diag, x, y, conflict);
    }
}

static void FB_NAME(spmv_sss_fixup_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch, (void)defs;
    const int nfix = args[0].i32;
    const int *restrict fix_rows = args[1].ptr, *restrict fix_ptr = args[2].ptr;
    const REAL *restrict conflict = args[3].ptr;
    REAL *restrict y = args[4].ptr;
#pragma omp parallel for schedule(static)
    for (int m = 0; m < nfix; ++m) {
        REAL sum = 0;
        for (int p = fix_ptr[m]; p < fix_ptr[m + 1]; ++p)
            sum += conflict[p];
        y[fix_rows[m]] += sum;
    }
}

/* sss-atomic (spmv/sss.cl): y cleared, then every row's own sum and
 * transposed products added atomically, one row per iteration. */
static void FB_NAME(spmv_sss_zero_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch, (void)defs;
    const int nrows = args[0].i32;
    REAL *restrict y = args[1].ptr;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < nrows; ++r)
        y[r] = 0;
}

static void FB_NAME(spmv_sss_atomic_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch, (void)defs;
    const int nrows = args[0].i32;
    const int *lptr = args[1].ptr, *lcol = args[2].ptr;
    const REAL *lval = args[3].ptr, *diag = args[4].ptr, *x = args[5].ptr;
    REAL *y = args[6].ptr;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < nrows; ++r) {
        REAL sum = diag[r] * x[r];
        for (int j = lptr[r]; j < lptr[r + 1]; ++j) {
            const REAL add = lval[j] * x[r];
            sum += lval[j] * x[lcol[j]];
#pragma omp atomic
            y[lcol[j]] += add;
        }
#pragma omp atomic
        y[r] += sum;
    }
}

#undef FB_NAME
#undef FB_CAT
#undef FB_CAT_
