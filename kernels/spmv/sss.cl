/* sss.cl - y = A x for a symmetric A kept as its diagonal and strictly
 * lower triangle (symmetric sparse skyline, sss_matrix.h): each
 * off-diagonal value and column is read once and used twice, a_rc x_c for
 * y_r and a_rc x_r for y_c, so a product reads about half of CSR's bytes.
 *
 * Mapping: one work-item per chunk of rows (sss_matrix.h cuts CHUNKS
 * chunks of about equal lower entries), walking its rows in order: row r's
 * sum is stored when the row is done, and a later row of the chunk adds
 * its transposed products to it. A transposed product for a row of an
 * earlier chunk (another item's) goes to its own slot in `conflict`, kept
 * at the slot's place (slot_place: grouped by row), and spmv_sss_fixup,
 * one item per such row, adds the row's run of places to y after the main
 * pass, reading them in order. No atomics: every y element has one writer
 * per pass.
 * Suits a CPU, whose few threads each own a long chunk; a GPU needs
 * thousands of chunks, each short, and then most products become slots:
 * sss-atomic (spmv_sss_zero, spmv_sss_atomic, at the end of this file) is
 * the same triangle mapped for a GPU.
 *
 * Parameters: REAL; WG_SIZE (1..128, launch only); CHUNKS (the host's
 *   conversion and the launch's item count; 0: one per compute unit).
 * Geometry: main global = the chunks rounded up to WG_SIZE; fix-up: one
 *   item per row with slots, in groups of 128 (sss_run.c).
 * Model (spmv_formats.c): flops 2 nnz; bytes lower (sizeof REAL + 4) +
 *   nrows (sizeof REAL (diagonal) + 4 (row pointer)) + x and y once +
 *   conflicts (2 sizeof REAL + 4) + fix rows (8 + 2 sizeof REAL).
 */

#include "spmv/sss_chunk.h" /* sss_chunk: one chunk's walk, the OpenMP twin's too */

__kernel void spmv_sss(const int nchunks, __global const int *restrict chunk_start,
                       __global const int *restrict chunk_slot, __global const int *restrict slot_place,
                       __global const int *restrict lptr, __global const int *restrict lcol,
                       __global const REAL *restrict lval, __global const REAL *restrict diag,
                       __global const REAL *restrict x, __global REAL *restrict y, __global REAL *restrict conflict)
{
    const int k = (int)get_global_id(0);
    if (k < nchunks) sss_chunk(k, chunk_start, chunk_slot, slot_place, lptr, lcol, lval, diag, x, y, conflict);
}

__kernel void spmv_sss_fixup(const int nfix, __global const int *restrict fix_rows,
                             __global const int *restrict fix_ptr, __global const REAL *restrict conflict,
                             __global REAL *restrict y)
{
    const int m = (int)get_global_id(0);
    if (m >= nfix) return;
    REAL sum = 0;
    const int end = fix_ptr[m + 1];
    for (int p = fix_ptr[m]; p < end; ++p)
        sum += conflict[p];
    y[fix_rows[m]] += sum;
}

/* ---- sss-atomic: one item per row, atomic adds (a GPU's mapping) ----------
 *
 * spmv_sss_zero clears y; then spmv_sss_atomic's item r adds its row's own
 * sum, diag x_r + sum of a_rc x_c, to y_r and each transposed product a_rc x_r
 * to y_c, all with fb_atomic_add (atomic_add.h), so no chunks and no slots:
 * what it pays instead is an atomic update per stored entry, which a GPU's
 * L2 does near memory's pace and a CPU's compare-and-swap does not. The
 * order of the additions changes from run to run (the check's bound holds).
 * Geometry: both one item per row, global = nrows rounded up to WG_SIZE.
 * Model: lower (sizeof REAL + 4) + nrows (sizeof REAL + 4) + 4 + ncols
 *   sizeof REAL + 3 nrows sizeof REAL (y cleared, then read and written
 *   once by its sums). */
#include "atomic_add.h" /* fb_atomic_add */

__kernel void spmv_sss_zero(const int nrows, __global REAL *restrict y)
{
    const int r = (int)get_global_id(0);
    if (r < nrows) y[r] = 0;
}

__kernel void spmv_sss_atomic(const int nrows, __global const int *restrict lptr, __global const int *restrict lcol,
                              __global const REAL *restrict lval, __global const REAL *restrict diag,
                              __global const REAL *restrict x, __global REAL *restrict y)
{
    const int r = (int)get_global_id(0);
    if (r >= nrows) return;
    const REAL xr = x[r];
    REAL sum = diag[r] * xr;
    const int end = lptr[r + 1];
    for (int j = lptr[r]; j < end; ++j) {
        const int c = lcol[j];
        const REAL a = lval[j];
        sum += a * x[c];
        fb_atomic_add(&y[c], a * xr);
    }
    fb_atomic_add(&y[r], sum);
}
