/* csr_vector.cl - CSR y = A x, VECTOR_SIZE work-items per row (Bell and
 * Garland's CSR-vector; a warp per row when VECTOR_SIZE = 32). The items of
 * a row stride its nonzeros, so a row's values and indices are read
 * contiguously, then their partial sums are reduced.
 *
 * The reduction uses local memory and barriers: PoCL has no sub-groups, and
 * barrier-free "warp-synchronous" reductions are unsafe on NVIDIA Volta and
 * later. Under NVRTC with VECTOR_SIZE <= 32 it uses warp shuffles instead
 * (__shfl_down_sync); that path is compiled in CI but only run on a GPU.
 *
 * Parameters: REAL; WG_SIZE (work-group size, power of two, 32..1024);
 *   VECTOR_SIZE (items per row, power of two, 1..WG_SIZE).
 * Geometry: global = ceil(nrows / (WG_SIZE / VECTOR_SIZE)) * WG_SIZE.
 * Model: as csr_scalar.
 */
#ifndef WG_SIZE
#define WG_SIZE 128
#endif
#ifndef VECTOR_SIZE
#define VECTOR_SIZE 8
#endif

#define ROWS_PER_GROUP (WG_SIZE / VECTOR_SIZE)

#if defined(__CUDACC__) && VECTOR_SIZE <= 32
#define FB_WARP_REDUCE 1
#endif

__kernel void spmv_csr_vector(const int nrows, __global const int *restrict rowptr,
                              __global const int *restrict colidx, __global const REAL *restrict values,
                              __global const REAL *restrict x, __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0);
    const int lane = lid % VECTOR_SIZE;
    const int row = (int)get_group_id(0) * ROWS_PER_GROUP + lid / VECTOR_SIZE;

    REAL sum = 0;
    if (row < nrows) {
        const int end = rowptr[row + 1];
        for (int j = rowptr[row] + lane; j < end; j += VECTOR_SIZE) sum += values[j] * x[colidx[j]];
    }

#ifdef FB_WARP_REDUCE
    for (int offset = VECTOR_SIZE / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, VECTOR_SIZE);
    if (lane == 0 && row < nrows) y[row] = sum;
#else
    __local REAL partial[WG_SIZE];
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = VECTOR_SIZE / 2; offset > 0; offset /= 2) {
        if (lane < offset) partial[lid] += partial[lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && row < nrows) y[row] = partial[lid];
#endif
}
