/* csr_unroll.cl - an example of your own SpMV kernel, to copy and change
 * (docs/kernels.md, "Your own kernel"). It takes csr-scalar's argument
 * list; a work-item computes ROWS_PER_ITEM rows, strided by the global
 * size (so neighbouring items still read neighbouring rows), and unrolls
 * each row's loop into UNROLL partial sums.
 *
 * One run (opencl or cuda: a kernel file has no OpenMP twin):
 *   flowbench spmv --matrix gen:cube:20 --backend opencl \
 *     --kernel-file cases/examples/csr_unroll.cl --kernel csr_unroll --like csr-scalar \
 *     --param UNROLL=4 --param ROWS_PER_ITEM=2 --global-divisor ROWS_PER_ITEM
 * A sweep and a search of its space:
 *   flowbench sweep cases/examples/user-kernel.suite --out u.jsonl
 *   flowbench tune --matrix gen:cube:20 --backend opencl --kernel-file cases/examples/csr_unroll.cl \
 *     --kernel csr_unroll --param UNROLL=1,2,4,8 --param ROWS_PER_ITEM=1,2,4 --global-divisor ROWS_PER_ITEM
 *
 * Parameters (-D): REAL (double|float); WG_SIZE (csr-scalar's: the
 *   work-group size, launch only); UNROLL (partial sums per row);
 *   ROWS_PER_ITEM (rows per work-item: declared the global divisor, so
 *   the launch has ceil(nrows / (WG_SIZE x ROWS_PER_ITEM)) groups).
 * Geometry: csr-scalar's, its work-groups divided by ROWS_PER_ITEM.
 * Model and check: csr-scalar's (flops 2 nnz; the serial reference).
 */
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef ROWS_PER_ITEM
#define ROWS_PER_ITEM 1
#endif

__kernel void csr_unroll(const int nrows, __global const int *restrict rowptr, __global const int *restrict colidx,
                         __global const REAL *restrict values, __global const REAL *restrict x,
                         __global REAL *restrict y)
{
    const int first = (int)get_global_id(0), stride = (int)get_global_size(0);
    for (int k = 0; k < ROWS_PER_ITEM; ++k) {
        const int row = first + k * stride;
        if (row >= nrows) return;
        const int end = rowptr[row + 1];
        REAL part[UNROLL];
        for (int u = 0; u < UNROLL; ++u) part[u] = 0;
        int j = rowptr[row];
        for (; j + UNROLL <= end; j += UNROLL)
            for (int u = 0; u < UNROLL; ++u) part[u] += values[j + u] * x[colidx[j + u]];
        REAL sum = 0;
        for (; j < end; ++j) sum += values[j] * x[colidx[j]];
        for (int u = 0; u < UNROLL; ++u) sum += part[u];
        y[row] = sum;
    }
}
