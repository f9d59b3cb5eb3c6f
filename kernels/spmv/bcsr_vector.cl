/* bcsr_vector.cl - block-CSR y = A x with VECTOR_SIZE work-items per block
 * row: the items stride the row's blocks, each keeps BLOCK_SIZE partial sums,
 * and the partial sums are reduced in local memory with barriers (PoCL has no
 * sub-groups). Helps when block rows hold many blocks; costs a reduction when
 * they hold few. Same value layout as bcsr.cl.
 *
 * Parameters: REAL; BLOCK_SIZE (1..8); WG_SIZE (power of two, 32..1024);
 *   VECTOR_SIZE (power of two, 1..WG_SIZE). Local memory: WG_SIZE *
 *   BLOCK_SIZE * sizeof REAL bytes.
 * Geometry: global = ceil(nbrows / (WG_SIZE / VECTOR_SIZE)) * WG_SIZE.
 * Model: as bcsr.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 4
#endif
#ifndef WG_SIZE
#define WG_SIZE 128
#endif
#ifndef VECTOR_SIZE
#define VECTOR_SIZE 4
#endif

#define BROWS_PER_GROUP (WG_SIZE / VECTOR_SIZE)

__kernel void spmv_bcsr_vector(const int nbrows, __global const int *restrict browptr,
                               __global const int *restrict bcolidx, __global const REAL *restrict values,
                               __global const REAL *restrict x, __global REAL *restrict y)
{
    __local REAL partial[WG_SIZE * BLOCK_SIZE];
    const int lid = (int)get_local_id(0);
    const int lane = lid % VECTOR_SIZE;
    const int brow = (int)get_group_id(0) * BROWS_PER_GROUP + lid / VECTOR_SIZE;

    REAL acc[BLOCK_SIZE];
    for (int r = 0; r < BLOCK_SIZE; ++r) acc[r] = 0;
    if (brow < nbrows) {
        const int end = browptr[brow + 1];
        for (int b = browptr[brow] + lane; b < end; b += VECTOR_SIZE) {
            __global const REAL *block = values + (size_t)b * (BLOCK_SIZE * BLOCK_SIZE);
            __global const REAL *xb = x + (size_t)bcolidx[b] * BLOCK_SIZE;
            for (int r = 0; r < BLOCK_SIZE; ++r)
                for (int c = 0; c < BLOCK_SIZE; ++c) acc[r] += block[r * BLOCK_SIZE + c] * xb[c];
        }
    }
    for (int r = 0; r < BLOCK_SIZE; ++r) partial[r * WG_SIZE + lid] = acc[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = VECTOR_SIZE / 2; offset > 0; offset /= 2) {
        if (lane < offset)
            for (int r = 0; r < BLOCK_SIZE; ++r) partial[r * WG_SIZE + lid] += partial[r * WG_SIZE + lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && brow < nbrows)
        for (int r = 0; r < BLOCK_SIZE; ++r) y[brow * BLOCK_SIZE + r] = partial[r * WG_SIZE + lid];
}
