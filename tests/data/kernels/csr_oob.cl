/* csr_oob.cl - a user's kernel that writes far outside y (tests/e2e/kernel_guard.sh):
 * on PoCL the process dies of SIGSEGV. csr-scalar's argument list. */
__kernel void csr_oob(const int nrows, __global const int *restrict rowptr, __global const int *restrict colidx,
                      __global const REAL *restrict values, __global const REAL *restrict x, __global REAL *restrict y)
{
    const int row = (int)get_global_id(0);
    if (row >= nrows) return;
    y[row + 400000000] = 1;
    y[row] = 0;
}
