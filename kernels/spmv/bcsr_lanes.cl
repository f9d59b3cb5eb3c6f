/* bcsr_lanes.cl - block-CSR y = A x with coalesced value loads: a team of
 * BLOCK_SIZE^2 * BLOCKS_PER_ITER work-items per block row, lane l reading
 * value l of the row's contiguous value range on every step. A block row's
 * blocks are stored one after the other, so the team's loads are one
 * contiguous run of BLOCKS_PER_ITER blocks (a warp of 32 reads 256 bytes in
 * double for 4x4 blocks), where bcsr.cl's one item per block row makes
 * neighbouring items read 128 bytes apart. Each lane keeps a fixed entry
 * (r, c) of the blocks it visits, so it accumulates for row r alone; the
 * BLOCK_SIZE * BLOCKS_PER_ITER partial sums of each row are added in local
 * memory by lane r after one barrier (the mapping cuSPARSE's bsrmv uses for
 * row-major blocks, written for OpenCL so PoCL runs it too).
 *
 * Parameters: REAL; BLOCK_SIZE (1..8); BLOCKS_PER_ITER (1, 2, 4, 8): blocks
 *   a team reads per step; BROWS_PER_GROUP (1..32): teams per work-group.
 *   Work-group size BLOCK_SIZE^2 * BLOCKS_PER_ITER * BROWS_PER_GROUP (need
 *   not be a power of two); local memory that many REALs.
 * Geometry: global = ceil(nbrows / BROWS_PER_GROUP) * work-group size.
 * Model: as bcsr.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 4
#endif
#ifndef BLOCKS_PER_ITER
#define BLOCKS_PER_ITER 2
#endif
#ifndef BROWS_PER_GROUP
#define BROWS_PER_GROUP 8
#endif

#define BLOCK_ENTRIES (BLOCK_SIZE * BLOCK_SIZE)
#define TEAM (BLOCK_ENTRIES * BLOCKS_PER_ITER)
#define GROUP_ITEMS (TEAM * BROWS_PER_GROUP)

__kernel void spmv_bcsr_lanes(const int nbrows, __global const int *restrict browptr,
                              __global const int *restrict bcolidx, __global const REAL *restrict values,
                              __global const REAL *restrict x, __global REAL *restrict y)
{
    __local REAL partial[GROUP_ITEMS];
    const int lid = (int)get_local_id(0);
    const int team = lid / TEAM, lane = lid % TEAM;
    const int brow = (int)get_group_id(0) * BROWS_PER_GROUP + team;
    const int entry = lane % BLOCK_ENTRIES, col = entry % BLOCK_SIZE;

    REAL acc = 0;
    if (brow < nbrows) {
        const int end = browptr[brow + 1];
        for (int b = browptr[brow] + lane / BLOCK_ENTRIES; b < end; b += BLOCKS_PER_ITER)
            acc += values[(size_t)b * BLOCK_ENTRIES + entry] * x[(size_t)bcolidx[b] * BLOCK_SIZE + col];
    }
    partial[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lane < BLOCK_SIZE && brow < nbrows) {
        const int first = team * TEAM + lane * BLOCK_SIZE; /* row `lane` of the team's first block */
        REAL sum = 0;
        for (int k = 0; k < BLOCKS_PER_ITER; ++k)
            for (int c = 0; c < BLOCK_SIZE; ++c) sum += partial[first + k * BLOCK_ENTRIES + c];
        y[brow * BLOCK_SIZE + lane] = sum;
    }
}
