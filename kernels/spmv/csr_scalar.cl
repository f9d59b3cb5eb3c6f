/* csr_scalar.cl - CSR y = A x, one work-item per row: the plain port of the
 * CPU loop. Adjacent work-items read different rows, so loads of values and
 * column indices are not coalesced; this is the baseline the other mappings
 * are measured against.
 *
 * Parameters: REAL (double|float); WG_SIZE (launch only).
 * Geometry: global = nrows rounded up to WG_SIZE, local = WG_SIZE.
 * Model (kernels/spmv/spmv_kernels.c): flops 2 nnz; minimal bytes
 *   nnz (sizeof REAL + 4) + (nrows + 1) 4 + ncols sizeof REAL + nrows sizeof REAL.
 */

__kernel void spmv_csr_scalar(const int nrows, __global const int *restrict rowptr,
                              __global const int *restrict colidx, __global const REAL *restrict values,
                              __global const REAL *restrict x, __global REAL *restrict y)
{
    const int row = (int)get_global_id(0);
    if (row >= nrows) return;
    REAL sum = 0;
    const int end = rowptr[row + 1];
    for (int j = rowptr[row]; j < end; ++j) sum += values[j] * x[colidx[j]];
    y[row] = sum;
}
