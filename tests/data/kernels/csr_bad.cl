/* csr_bad.cl - a user kernel that does not compile (tests/e2e/user_kernel.sh):
 * the build error must name this file and line 8. */
__kernel void csr_bad(const int nrows, __global const int *restrict rowptr, __global const int *restrict colidx,
                      __global const REAL *restrict values, __global const REAL *restrict x, __global REAL *restrict y)
{
    const int row = (int)get_global_id(0);
    if (row >= nrows) return;
    y[row] = undeclared_variable;
}
