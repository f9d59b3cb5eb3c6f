/* csr_merge.cl - load-balanced CSR y = A x by merge path (Merrill and
 * Garland, SC'16). The rows' end offsets and the nonzero indices form two
 * sorted lists; every work-item takes ITEMS_PER_THREAD consecutive steps of
 * their merge, whatever the row lengths, so one dense row or a power-law
 * distribution cannot leave most items idle.
 *
 * Two kernels, launched back to back and timed together:
 * 1. spmv_csr_merge: each item finds its start on the merge path by binary
 *    search on its diagonal, consumes its steps (a nonzero: accumulate; a row
 *    end: write y[row] and reset), and writes the unfinished row it ends in
 *    and its partial sum as a carry (row = nrows when it ended on a boundary
 *    past the last row).
 * 2. spmv_csr_merge_fixup: the first item of each run of equal carry rows
 *    adds the run's partial sums to y[row], in item order (deterministic).
 *
 * Parameters: REAL; WG_SIZE (launch only); ITEMS_PER_THREAD (1..64).
 * Geometry: nthreads = ceil((nrows + nnz) / ITEMS_PER_THREAD); both kernels
 *   run nthreads items padded to WG_SIZE; carries are 2 arrays of nthreads.
 * Model: as csr_scalar (carries are nthreads (4 + sizeof REAL) bytes more
 *   each way, not counted in the minimal model).
 */
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 8
#endif

/* merge_path_rows(d, nrows, nnz, rowptr): where diagonal d cuts the
 * merge path, the search the OpenMP twin runs too (spmv_omp.c). */
#include "spmv/merge_path.h"

__kernel void spmv_csr_merge(const int nrows, const int nnz, const int nthreads, __global const int *restrict rowptr,
                             __global const int *restrict colidx, __global const REAL *restrict values,
                             __global const REAL *restrict x, __global REAL *restrict y,
                             __global int *restrict carry_row, __global REAL *restrict carry_value)
{
    const int t = (int)get_global_id(0);
    if (t >= nthreads) return;
    const int total = nrows + nnz;
    const int d0 = min(t * ITEMS_PER_THREAD, total);
    const int d1 = min(d0 + ITEMS_PER_THREAD, total);
    int row = merge_path_rows(d0, nrows, nnz, rowptr);
    int j = d0 - row;
    REAL sum = 0;
    for (int step = d0; step < d1; ++step) {
        if (row < nrows && j < rowptr[row + 1]) {
            sum += values[j] * x[colidx[j]];
            ++j;
        } else {
            y[row] = sum;
            sum = 0;
            ++row;
        }
    }
    carry_row[t] = row;
    carry_value[t] = sum;
}

__kernel void spmv_csr_merge_fixup(const int nrows, const int nthreads, __global const int *restrict carry_row,
                                   __global const REAL *restrict carry_value, __global REAL *restrict y)
{
    const int t = (int)get_global_id(0);
    if (t >= nthreads) return;
    const int row = carry_row[t];
    if (row >= nrows || (t > 0 && carry_row[t - 1] == row)) return;
    REAL sum = 0;
    for (int k = t; k < nthreads && carry_row[k] == row; ++k) sum += carry_value[k];
    y[row] += sum;
}
