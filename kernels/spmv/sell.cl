/* sell.cl - SELL-C-sigma y = A x (Kreutzer et al. 2014; with
 * THREADS_PER_ROW > 1 the layout Ginkgo calls SELL-P). The rows are in
 * slices of SLICE_HEIGHT (C) rows, each slice padded to its longest row and
 * stored column-major (sell_matrix.h): entry j of the slice's row r is at
 * slice_ptr[s] + j * C + r. A team of C * THREADS_PER_ROW work-items takes
 * one slice; item (t, r), at lane t * C + r, starts at slice_ptr[s] + lane
 * and strides by the team size, i.e. takes entries j = t, t + T, t + 2T ...
 * of row r. So on every step the team reads one contiguous run of
 * C * THREADS_PER_ROW values and indices (a warp of 32 reads 256 bytes of
 * values in double), whatever the row lengths, and no row pointer is read:
 * the slice's two offsets bound the loop. With THREADS_PER_ROW > 1 the T
 * partial sums of a row are added by warp shuffles under CUDA when the team
 * fits a warp, else in local memory. Padding entries are 0 at a column their
 * row (a row without entries: its slice) reads anyway. y is written through perm (sorted position -> row)
 * when the rows were sorted (permuted != 0), in the original order.
 *
 * Parameters: REAL; SLICE_HEIGHT (C: 4, 8, 16, 32); THREADS_PER_ROW (1, 2,
 *   4). WG_SIZE (32..256, a multiple of the team) is launch only: the local
 *   array is sized for the largest group, GROUP_MAX. SIGMA (the sort
 *   window) is the host's: it changes the data, not this code.
 * Geometry: one team per slice; global = ceil(nslices / (WG_SIZE / team))
 *   * WG_SIZE.
 * Model: flops 2 per stored entry (padding included: the kernel computes
 *   it); bytes stored entries * (sizeof REAL + 4) + (nslices + 1) * 4
 *   (+ nrows * 4 for perm when permuted) + (ncols + nrows) sizeof REAL;
 *   sell16 (spmv_sell16, below) 2 bytes for each stored entry's column in
 *   a narrow slice instead of 4, and a base per slice.
 */
#ifndef SLICE_HEIGHT
#define SLICE_HEIGHT 32
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 1
#endif

#define TEAM (SLICE_HEIGHT * THREADS_PER_ROW)
#define GROUP_MAX 256

#if THREADS_PER_ROW > 1 && !(defined(__CUDACC__) && TEAM <= 32)
#define FB_SELL_LOCAL_REDUCE 1
#endif

/* A row's T partial sums added (THREADS_PER_ROW > 1) and y written: the
 * end of both kernels below. */
#if THREADS_PER_ROW == 1
#define FB_SELL_REDUCE(sum, lid, lane)
#elif defined(FB_SELL_LOCAL_REDUCE)
#define FB_SELL_REDUCE(sum, lid, lane)                                                                                 \
    __local REAL partial[GROUP_MAX];                                                                                   \
    partial[lid] = sum;                                                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                                      \
    for (int offset = TEAM / 2; offset >= SLICE_HEIGHT; offset /= 2) {                                                 \
        if ((lane) < offset) partial[lid] += partial[(lid) + offset];                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
    }                                                                                                                  \
    sum = partial[lid]
#else
#define FB_SELL_REDUCE(sum, lid, lane)                                                                                 \
    for (int offset = TEAM / 2; offset >= SLICE_HEIGHT; offset /= 2)                                                   \
    sum += __shfl_down_sync(0xffffffffu, sum, offset, TEAM)
#endif
#define FB_SELL_STORE(sum, slice, lane)                                                                                \
    const int pos = (slice)*SLICE_HEIGHT + (lane);                                                                     \
    if ((lane) < SLICE_HEIGHT && (slice) < nslices && pos < nrows) y[permuted ? perm[pos] : pos] = sum

__kernel void spmv_sell(const int nslices, const int nrows, const int permuted, __global const int *restrict slice_ptr,
                        __global const int *restrict colidx, __global const REAL *restrict values,
                        __global const int *restrict perm, __global const REAL *restrict x, __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0);
    const int lane = lid % TEAM;
    const int slice = (int)get_group_id(0) * ((int)get_local_size(0) / TEAM) + lid / TEAM;

    REAL sum = 0;
    if (slice < nslices) {
        const int end = slice_ptr[slice + 1];
        for (int k = slice_ptr[slice] + lane; k < end; k += TEAM)
            sum += values[k] * x[colidx[k]];
    }
    FB_SELL_REDUCE(sum, lid, lane);
    FB_SELL_STORE(sum, slice, lane);
}

/* sell16: the same slices, each column a 16-bit offset from the slice's
 * base (its least column), 10 bytes an entry in double instead of 12. A
 * slice whose columns span 65536 or more keeps 32-bit columns in wide,
 * base < 0 saying where: entry k's column is wide[k + base + 1] (the
 * encoding of csr16.cl with one slice a block; sell_matrix.h builds it). */
__kernel void spmv_sell16(const int nslices, const int nrows, const int permuted,
                          __global const int *restrict slice_ptr, __global const int *restrict bases,
                          __global const ushort *restrict offsets, __global const int *restrict wide,
                          __global const REAL *restrict values, __global const int *restrict perm,
                          __global const REAL *restrict x, __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0);
    const int lane = lid % TEAM;
    const int slice = (int)get_group_id(0) * ((int)get_local_size(0) / TEAM) + lid / TEAM;

    REAL sum = 0;
    if (slice < nslices) {
        const int end = slice_ptr[slice + 1], base = bases[slice];
        if (base >= 0)
            for (int k = slice_ptr[slice] + lane; k < end; k += TEAM)
                sum += values[k] * x[base + (int)offsets[k]];
        else
            for (int k = slice_ptr[slice] + lane; k < end; k += TEAM)
                sum += values[k] * x[wide[k + base + 1]];
    }
    FB_SELL_REDUCE(sum, lid, lane);
    FB_SELL_STORE(sum, slice, lane);
}
