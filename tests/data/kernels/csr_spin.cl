/* csr_spin.cl - a user's kernel that never returns (tests/e2e/kernel_guard.sh).
 * csr-scalar's argument list. */
__kernel void csr_spin(const int nrows, __global const int *restrict rowptr, __global const int *restrict colidx,
                       __global const REAL *restrict values, __global const REAL *restrict x, __global REAL *restrict y)
{
    const int row = (int)get_global_id(0);
    if (row >= nrows) return;
    volatile int go = 1;
    while (go) {
    }
    y[row] = 0;
}
