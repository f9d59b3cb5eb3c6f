/* bcsr.cl - block-CSR y = A x with BLOCK_SIZE x BLOCK_SIZE dense blocks, one
 * work-item per block row: the SU2 port. Block values are stored block after
 * block, each block row-major (array of structures):
 *   values[(b * BLOCK_SIZE + r) * BLOCK_SIZE + c].
 * One column index per block is loaded per BLOCK_SIZE^2 values, which is
 * where BCSR saves bandwidth over CSR on matrices with natural blocks.
 *
 * Parameters: REAL; BLOCK_SIZE (1..8, a -D define: it sizes the
 *   accumulator); WG_SIZE (launch only).
 * Geometry: global = nbrows rounded up to WG_SIZE.
 * Model: flops 2 nblocks BLOCK_SIZE^2; minimal bytes nblocks (BLOCK_SIZE^2
 *   sizeof REAL + 4) + (nbrows + 1) 4 + (ncols + nrows) sizeof REAL.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 4
#endif

__kernel void spmv_bcsr(const int nbrows, __global const int *restrict browptr, __global const int *restrict bcolidx,
                        __global const REAL *restrict values, __global const REAL *restrict x,
                        __global REAL *restrict y)
{
    const int brow = (int)get_global_id(0);
    if (brow >= nbrows) return;
    REAL acc[BLOCK_SIZE];
    for (int r = 0; r < BLOCK_SIZE; ++r) acc[r] = 0;
    const int end = browptr[brow + 1];
    for (int b = browptr[brow]; b < end; ++b) {
        __global const REAL *block = values + (size_t)b * (BLOCK_SIZE * BLOCK_SIZE);
        __global const REAL *xb = x + (size_t)bcolidx[b] * BLOCK_SIZE;
        for (int r = 0; r < BLOCK_SIZE; ++r)
            for (int c = 0; c < BLOCK_SIZE; ++c) acc[r] += block[r * BLOCK_SIZE + c] * xb[c];
    }
    for (int r = 0; r < BLOCK_SIZE; ++r) y[brow * BLOCK_SIZE + r] = acc[r];
}
