/* csr_multirow.cl - the tunable CSR kernel of the edge-based OpenCL
 * Navier-Stokes solver paper: a work-group of 2^WORKGROUP_SIZE_BITS items
 * handles 2^ROWS_PER_WORKGROUP_BITS consecutive rows, so each row gets
 * 2^(WORKGROUP_SIZE_BITS - ROWS_PER_WORKGROUP_BITS) items that stride its
 * nonzeros. The group first stages its rows' pointers in local memory (one
 * global read per pointer instead of two per row), then each row's items
 * reduce their partial sums in local memory.
 *
 * The paper's kernel reduced without barriers, relying on warp-synchronous
 * execution; that is unsafe on Volta and later and on PoCL, so every
 * reduction step here is followed by a barrier.
 *
 * Parameters: REAL; WORKGROUP_SIZE_BITS (5..10); ROWS_PER_WORKGROUP_BITS
 *   (0..WORKGROUP_SIZE_BITS). Both must be -D defines: they size local arrays.
 * Geometry: global = ceil(nrows / 2^R) * 2^W, local = 2^W.
 * Model: as csr_scalar.
 */
#ifndef WORKGROUP_SIZE_BITS
#define WORKGROUP_SIZE_BITS 7
#endif
#ifndef ROWS_PER_WORKGROUP_BITS
#define ROWS_PER_WORKGROUP_BITS 4
#endif

#define GROUP_SIZE (1 << WORKGROUP_SIZE_BITS)
#define ROWS_PER_GROUP (1 << ROWS_PER_WORKGROUP_BITS)
#define ITEMS_PER_ROW (1 << (WORKGROUP_SIZE_BITS - ROWS_PER_WORKGROUP_BITS))

__kernel void spmv_csr_multirow(const int nrows, __global const int *restrict rowptr,
                                __global const int *restrict colidx, __global const REAL *restrict values,
                                __global const REAL *restrict x, __global REAL *restrict y)
{
    __local int bounds[ROWS_PER_GROUP + 1];
    __local REAL partial[GROUP_SIZE];
    const int lid = (int)get_local_id(0);
    const int first_row = (int)get_group_id(0) * ROWS_PER_GROUP;

    for (int k = lid; k <= ROWS_PER_GROUP; k += GROUP_SIZE) {
        const int r = min(first_row + k, nrows);
        bounds[k] = rowptr[r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int local_row = lid >> (WORKGROUP_SIZE_BITS - ROWS_PER_WORKGROUP_BITS);
    const int lane = lid & (ITEMS_PER_ROW - 1);
    const int end = bounds[local_row + 1];
    REAL sum = 0;
    for (int j = bounds[local_row] + lane; j < end; j += ITEMS_PER_ROW) sum += values[j] * x[colidx[j]];
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int offset = ITEMS_PER_ROW / 2; offset > 0; offset /= 2) {
        if (lane < offset) partial[lid] += partial[lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int row = first_row + local_row;
    if (lane == 0 && row < nrows) y[row] = partial[lid];
}
