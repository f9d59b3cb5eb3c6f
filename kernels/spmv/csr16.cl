/* csr16.cl - CSR y = A x reading 16-bit column offsets instead of 32-bit
 * column indices: 2 bytes fewer per nonzero, and with single-precision
 * values (spmv_csr16_mixed) 6 fewer in a double product.
 *
 * The rows are cut into blocks of BASE_ROWS rows; a block whose columns
 * span fewer than 65536 keeps base = its least column and, per entry,
 * offsets[j] = column - base. A block that spans more (a long-range
 * coupling) keeps its 32-bit columns in `wide`, in entry order, and
 * base = delta - 1 < 0, where delta = (its first entry's place in wide) -
 * (its first entry's place in the matrix): entry j's column is then
 * wide[j + base + 1]. Every row of a block takes one branch, so items of
 * one row never diverge (csr16_matrix.h builds the arrays).
 *
 * Mapping: VECTOR_SIZE work-items per row, striding its entries and adding
 * their partial sums (local memory, or warp shuffles under CUDA when
 * VECTOR_SIZE <= 32), as csr_vector.cl; VECTOR_SIZE = 1 is csr_scalar's
 * one item per row.
 *
 * spmv_csr16_mixed stores the values as float and accumulates in REAL: a
 * declared loss of precision (the record gives its error against the
 * double values' reference), never picked silently.
 *
 * Parameters: REAL; WG_SIZE (32..1024); VECTOR_SIZE (1..32, at most
 *   WG_SIZE); BASE_ROWS (rows per base, 16..1024: the host's conversion and
 *   this code's block index).
 * Geometry: global = ceil(nrows / (WG_SIZE / VECTOR_SIZE)) * WG_SIZE.
 * Model (spmv_formats.c): flops 2 nnz; bytes nnz sizeof VALUE + narrow
 *   entries 2 + wide entries 4 + bases 4 + (nrows + 1) 4 + (ncols + nrows)
 *   sizeof REAL.
 */
#ifndef WG_SIZE
#define WG_SIZE 128
#endif
#ifndef VECTOR_SIZE
#define VECTOR_SIZE 1
#endif
#ifndef BASE_ROWS
#define BASE_ROWS 64
#endif

#define ROWS_PER_GROUP (WG_SIZE / VECTOR_SIZE)

#if defined(__CUDACC__) && VECTOR_SIZE <= 32
#define FB_WARP_REDUCE 1
#endif

/* One row's share of the product, for either value type. */
#define FB_CSR16_ROW_SUM(sum, row, lane)                                                                               \
    do {                                                                                                               \
        const int base_ = bases[(row) / BASE_ROWS], end_ = rowptr[(row) + 1];                                          \
        if (base_ >= 0)                                                                                                \
            for (int j = rowptr[row] + (lane); j < end_; j += VECTOR_SIZE)                                             \
                sum += (REAL)values[j] * x[base_ + (int)offsets[j]];                                                   \
        else                                                                                                           \
            for (int j = rowptr[row] + (lane); j < end_; j += VECTOR_SIZE)                                             \
                sum += (REAL)values[j] * x[wide[j + base_ + 1]];                                                       \
    } while (0)

#if VECTOR_SIZE == 1
#define FB_CSR16_STORE(sum, row, lane, lid)                                                                            \
    if ((row) < nrows) y[row] = sum
#elif defined(FB_WARP_REDUCE)
#define FB_CSR16_STORE(sum, row, lane, lid)                                                                            \
    for (int offset = VECTOR_SIZE / 2; offset > 0; offset /= 2)                                                        \
        sum += __shfl_down_sync(0xffffffffu, sum, offset, VECTOR_SIZE);                                                \
    if ((lane) == 0 && (row) < nrows) y[row] = sum
#else
#define FB_CSR16_STORE(sum, row, lane, lid)                                                                            \
    __local REAL partial[WG_SIZE];                                                                                     \
    partial[lid] = sum;                                                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                                      \
    for (int offset = VECTOR_SIZE / 2; offset > 0; offset /= 2) {                                                      \
        if ((lane) < offset) partial[lid] += partial[(lid) + offset];                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
    }                                                                                                                  \
    if ((lane) == 0 && (row) < nrows) y[row] = partial[lid]
#endif

__kernel void spmv_csr16(const int nrows, __global const int *restrict rowptr, __global const int *restrict bases,
                         __global const ushort *restrict offsets, __global const int *restrict wide,
                         __global const REAL *restrict values, __global const REAL *restrict x,
                         __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0), lane = lid % VECTOR_SIZE;
    const int row = (int)get_group_id(0) * ROWS_PER_GROUP + lid / VECTOR_SIZE;
    REAL sum = 0;
    if (row < nrows) FB_CSR16_ROW_SUM(sum, row, lane);
    FB_CSR16_STORE(sum, row, lane, lid);
}

__kernel void spmv_csr16_mixed(const int nrows, __global const int *restrict rowptr, __global const int *restrict bases,
                               __global const ushort *restrict offsets, __global const int *restrict wide,
                               __global const float *restrict values, __global const REAL *restrict x,
                               __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0), lane = lid % VECTOR_SIZE;
    const int row = (int)get_group_id(0) * ROWS_PER_GROUP + lid / VECTOR_SIZE;
    REAL sum = 0;
    if (row < nrows) FB_CSR16_ROW_SUM(sum, row, lane);
    FB_CSR16_STORE(sum, row, lane, lid);
}
