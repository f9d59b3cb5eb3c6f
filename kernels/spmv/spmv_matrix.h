/* spmv_matrix.h - views of the matrix layer's CSR and BCSR (harness/matrix)
 * as the SpMV layer's fb_spmv_matrix. Arrays are borrowed, not copied. */
#ifndef FB_SPMV_MATRIX_H
#define FB_SPMV_MATRIX_H

#include "matrix/csr.h"
#include "spmv.h"

fb_status fb_spmv_view_csr(const fb_csr *A, fb_spmv_matrix *out);

/* Square blocks only (r == c): the block kernels take one BLOCK_SIZE. The
 * layout (AoS or SoA) decides the format; the shape is the padded one. */
fb_status fb_spmv_view_bcsr(const fb_bcsr *B, fb_spmv_matrix *out);

#endif
