/* spmv_ref.c - the serial reference every SpMV run is checked against
 * (spmv_run.c's fb_spmv_finish): y = A x and |A| |x| row by row, in
 * double, straight from the stored format. */
#include <math.h>

#include "spmv.h"

static int block_of(const fb_spmv_matrix *A) { return A->format == FB_FORMAT_CSR ? 1 : A->shape.block; }

void fb_spmv_reference(const fb_spmv_matrix *A, const double *x, double *y, double *s)
{
    const int K = block_of(A);
    const size_t nb = (size_t)A->shape.nblocks;
    for (int br = 0; br < A->shape.nbrows; ++br) {
        for (int r = 0; r < K; ++r) {
            double sum = 0, abs_sum = 0;
            for (int b = A->ptr[br]; b < A->ptr[br + 1]; ++b) {
                for (int c = 0; c < K; ++c) {
                    size_t at = A->format == FB_FORMAT_CSR    ? (size_t)b
                                : A->format == FB_FORMAT_BCSR ? (size_t)b * K * K + (size_t)(r * K + c)
                                                              : (size_t)(r * K + c) * nb + (size_t)b;
                    double a = A->values[at], xv = x[(size_t)A->idx[b] * K + c];
                    sum += a * xv;
                    abs_sum += fabs(a * xv);
                }
            }
            y[(size_t)br * K + r] = sum;
            s[(size_t)br * K + r] = abs_sum;
        }
    }
}
