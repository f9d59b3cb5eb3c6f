/* spmv_ref.c - the serial reference every SpMV run is checked against
 * (spmv_run.c's fb_spmv_finish): y = A x and |A| |x| row by row, in
 * double, straight from the stored format. */
#include <math.h>

#include "spmv.h"

void fb_spmv_reference(const fb_spmv_matrix *A, const double *x, double *y, double *s)
{
    const int K = A->shape.block;
    for (int br = 0; br < A->shape.nbrows; ++br) {
        for (int r = 0; r < K; ++r) {
            double sum = 0, abs_sum = 0;
            for (int b = A->ptr[br]; b < A->ptr[br + 1]; ++b) {
                for (int c = 0; c < K; ++c) {
                    double a = A->values[A->format->value_at(&A->shape, (size_t)b, r, c)],
                           xv = x[(size_t)A->idx[b] * K + c];
                    sum += a * xv;
                    abs_sum += fabs(a * xv);
                }
            }
            y[(size_t)br * K + r] = sum;
            s[(size_t)br * K + r] = abs_sum;
        }
    }
}
