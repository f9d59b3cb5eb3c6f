/* bcsr_warp.cl - block-CSR y = A x with a team of TEAM work-items (a warp
 * at 32) per block row, one item per block row *row*: the team takes
 * BLOCKS_PER_STEP = TEAM / BLOCK_SIZE consecutive blocks per step, and item
 * (slot, r) reads row r of block slot, i.e. BLOCK_SIZE contiguous values.
 * The team's loads on a step are one contiguous run of BLOCKS_PER_STEP
 * blocks (a warp reads 8 blocks of 4x4, 1 KiB in double, per step), each
 * block's column index is read by its BLOCK_SIZE items together and its
 * x segment (BLOCK_SIZE values) is shared by them through the L1 cache.
 * Each item accumulates its row alone, so the only reduction is over the
 * BLOCKS_PER_STEP slots of a row at the end: warp shuffles under CUDA (a
 * pairwise tree over the slots), local memory elsewhere. Compared with
 * bcsr-lanes (one value per item and a K^2-way reduction) an item does
 * BLOCK_SIZE multiply-adds per index it reads, and with bcsr (one item per
 * block row) neighbouring items read neighbouring rows of a block instead
 * of values 128 bytes apart. TEAM - BLOCKS_PER_STEP * BLOCK_SIZE items
 * idle (2 of 32 for 5x5 and 3x3 blocks).
 *
 * Parameters: REAL; BLOCK_SIZE (1..8); TEAM (8, 16, 32; at least
 *   BLOCK_SIZE): items per block row. WG_SIZE (32..256, a multiple of TEAM)
 *   is launch only: the local array is sized for the largest group,
 *   GROUP_MAX.
 * Geometry: global = ceil(nbrows / (WG_SIZE / TEAM)) * WG_SIZE.
 * Model: as bcsr.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 4
#endif
#ifndef TEAM
#define TEAM 32
#endif

#define BLOCK_ENTRIES (BLOCK_SIZE * BLOCK_SIZE)
#define BLOCKS_PER_STEP (TEAM / BLOCK_SIZE)
#define GROUP_MAX 256

__kernel void spmv_bcsr_warp(const int nbrows, __global const int *restrict browptr,
                             __global const int *restrict bcolidx, __global const REAL *restrict values,
                             __global const REAL *restrict x, __global REAL *restrict y)
{
    const int lid = (int)get_local_id(0);
    const int lane = lid % TEAM;
    const int brow = (int)get_group_id(0) * ((int)get_local_size(0) / TEAM) + lid / TEAM;
    const int slot = lane / BLOCK_SIZE, r = lane % BLOCK_SIZE;

    REAL acc = 0;
    if (brow < nbrows && slot < BLOCKS_PER_STEP) {
        const int end = browptr[brow + 1];
        for (int b = browptr[brow] + slot; b < end; b += BLOCKS_PER_STEP) {
            __global const REAL *row = values + (size_t)b * BLOCK_ENTRIES + r * BLOCK_SIZE;
            __global const REAL *xb = x + (size_t)bcolidx[b] * BLOCK_SIZE;
            for (int c = 0; c < BLOCK_SIZE; ++c) acc += row[c] * xb[c];
        }
    }

#if defined(__CUDACC__) && TEAM <= 32
    /* Slot s takes slot s + offset's sum while s is a multiple of 2 offset:
     * a pairwise tree that needs no power-of-two slot count. */
    for (int offset = 1; offset < BLOCKS_PER_STEP; offset *= 2) {
        const REAL other = __shfl_down_sync(0xffffffffu, acc, offset * BLOCK_SIZE, TEAM);
        if (slot % (2 * offset) == 0 && slot + offset < BLOCKS_PER_STEP) acc += other;
    }
#else
    __local REAL partial[GROUP_MAX];
    partial[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane < BLOCK_SIZE)
        for (int s = 1; s < BLOCKS_PER_STEP; ++s) acc += partial[lid + s * BLOCK_SIZE];
#endif

    if (lane < BLOCK_SIZE && brow < nbrows) y[brow * BLOCK_SIZE + lane] = acc;
}
