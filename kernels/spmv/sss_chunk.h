/* sss_chunk.h - one chunk of sss's product (sss.cl), written once for the
 * device kernel (spmv/sss.cl: #include "spmv/sss_chunk.h", expanded by the
 * build path) and its OpenMP twin (spmv_omp_template.h, once per
 * precision), so both walk a chunk the same way: row r's sum is stored
 * when the row is done, a later row of the chunk adds its transposed
 * products to it, and a product for an earlier chunk's row goes to the
 * chunk's next slot, kept at that slot's place (grouped by row). In the C
 * subset of kernels/common_host.h. No include guard: the host includes it
 * once per precision, naming the function by SSS_CHUNK (sss_chunk on the
 * device).
 */
#ifndef SSS_CHUNK
#define SSS_CHUNK sss_chunk
#endif

FB_INLINE void SSS_CHUNK(const int k, FB_GLOBAL const int *restrict chunk_start,
                         FB_GLOBAL const int *restrict chunk_slot, FB_GLOBAL const int *restrict slot_place,
                         FB_GLOBAL const int *restrict lptr, FB_GLOBAL const int *restrict lcol,
                         FB_GLOBAL const REAL *restrict lval, FB_GLOBAL const REAL *restrict diag,
                         FB_GLOBAL const REAL *restrict x, FB_GLOBAL REAL *restrict y,
                         FB_GLOBAL REAL *restrict conflict)
{
    const int r0 = chunk_start[k], r1 = chunk_start[k + 1];
    int slot = chunk_slot[k];
    for (int r = r0; r < r1; ++r) {
        const REAL xr = x[r];
        REAL sum = diag[r] * xr;
        int j = lptr[r];
        const int end = lptr[r + 1];
        for (; j < end && lcol[j] < r0; ++j) { /* columns ascend: the slots are a prefix */
            const REAL a = lval[j];
            sum += a * x[lcol[j]];
            conflict[slot_place[slot++]] = a * xr;
        }
        for (; j < end; ++j) {
            const int c = lcol[j];
            const REAL a = lval[j];
            sum += a * x[c];
            y[c] += a * xr;
        }
        y[r] = sum;
    }
}
