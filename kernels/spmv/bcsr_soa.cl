/* bcsr_soa.cl - block-CSR y = A x with the block values as a structure of
 * arrays: one index structure and BLOCK_SIZE^2 value arrays of nblocks
 * entries, entry (r, c) of block b at values[(r * BLOCK_SIZE + c) * nblocks + b].
 * One work-item per block row, as bcsr.cl, so the two layouts compare on
 * the same mapping (the AoS vs SoA study of the Cartesian FV code, here for
 * the SU2 block product).
 *
 * Parameters: REAL; BLOCK_SIZE (1..8); WG_SIZE (launch only).
 * Geometry: global = nbrows rounded up to WG_SIZE.
 * Model: as bcsr.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 4
#endif

__kernel void spmv_bcsr_soa(const int nbrows, const int nblocks, __global const int *restrict browptr,
                            __global const int *restrict bcolidx, __global const REAL *restrict values,
                            __global const REAL *restrict x, __global REAL *restrict y)
{
    const int brow = (int)get_global_id(0);
    if (brow >= nbrows) return;
    REAL acc[BLOCK_SIZE];
    for (int r = 0; r < BLOCK_SIZE; ++r) acc[r] = 0;
    const int end = browptr[brow + 1];
    for (int b = browptr[brow]; b < end; ++b) {
        __global const REAL *xb = x + (size_t)bcolidx[b] * BLOCK_SIZE;
        for (int r = 0; r < BLOCK_SIZE; ++r)
            for (int c = 0; c < BLOCK_SIZE; ++c) acc[r] += values[(size_t)(r * BLOCK_SIZE + c) * nblocks + b] * xb[c];
    }
    for (int r = 0; r < BLOCK_SIZE; ++r) y[brow * BLOCK_SIZE + r] = acc[r];
}
