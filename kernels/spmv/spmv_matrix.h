/* spmv_matrix.h - views of the matrix layer's CSR and BCSR (harness/matrix)
 * as the SpMV layer's fb_spmv_matrix. Arrays are borrowed, not copied. */
#ifndef FB_SPMV_MATRIX_H
#define FB_SPMV_MATRIX_H

#include "matrix/csr.h"
#include "matrix/source.h"
#include "spmv.h"

fb_status fb_spmv_view_csr(const fb_csr *A, fb_spmv_matrix *out);

/* Square blocks only (r == c): the block kernels take one BLOCK_SIZE. The
 * layout (AoS or SoA) decides the format; the shape is the padded one. */
fb_status fb_spmv_view_bcsr(const fb_bcsr *B, fb_spmv_matrix *out);

/* The view kernel k reads of a loaded matrix: its CSR, or its :block=K
 * BCSR switched to the layout of k's format (a transpose of the values in
 * place, O(nnz), not timed). FB_ERR_USAGE naming k when it reads blocks
 * and the matrix has none. */
fb_status fb_spmv_view_for(fb_matrix *m, const fb_spmv_kernel_def *k, fb_spmv_matrix *out);

/* The same view's shape and format, without switching the layout: what
 * checks and choices read (the layout does not change the shape). */
fb_status fb_spmv_view_shape(const fb_matrix *m, const fb_spmv_kernel_def *k, fb_spmv_matrix *out);

#endif
