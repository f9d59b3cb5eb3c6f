/* csr_skip7.cl - a wrong user kernel for the tests (tests/e2e/user_kernel.sh):
 * csr-scalar's argument list, but rows 3, 10, 17, ... are never written.
 * The check must see it (y starts as NaN) and record wrong-result. */
__kernel void csr_skip7(const int nrows, __global const int *restrict rowptr, __global const int *restrict colidx,
                        __global const REAL *restrict values, __global const REAL *restrict x,
                        __global REAL *restrict y)
{
    const int row = (int)get_global_id(0);
    if (row >= nrows || row % 7 == 3) return;
    REAL sum = 0;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += values[j] * x[colidx[j]];
    y[row] = sum;
}
