/* spmv_matrix.c - CSR/BCSR to fb_spmv_matrix views. */
#include "spmv_matrix.h"

#include <string.h>

fb_status fb_spmv_view_csr(const fb_csr *A, fb_spmv_matrix *out)
{
    fb_status status = FB_OK;
    int longest = 0;
    memset(out, 0, sizeof *out);
    if (A->nnz > INT32_MAX)
        FB_FAIL(FB_ERR_INPUT, "matrix has %lld nonzeros: over the 32-bit index limit", (long long)A->nnz);
    for (int r = 0; r < A->nrows; ++r)
        if (A->rowptr[r + 1] - A->rowptr[r] > longest) longest = A->rowptr[r + 1] - A->rowptr[r];
    out->format = FB_FORMAT_CSR;
    out->shape = (fb_spmv_shape){
        .nrows = A->nrows, .ncols = A->ncols, .nnz = A->nnz, .block = 1, .nbrows = A->nrows, .nblocks = A->nnz};
    out->ptr = A->rowptr;
    out->idx = A->colidx;
    out->values = A->values;
    out->max_row_entries = longest;
fail:
    return status;
}

fb_status fb_spmv_view_bcsr(const fb_bcsr *B, fb_spmv_matrix *out)
{
    fb_status status = FB_OK;
    int longest = 0;
    memset(out, 0, sizeof *out);
    if (B->r != B->c)
        FB_FAIL(FB_ERR_USAGE, "BCSR kernels take square blocks; this matrix has %d x %d blocks", B->r, B->c);
    for (int br = 0; br < B->nbrows; ++br)
        if (B->browptr[br + 1] - B->browptr[br] > longest) longest = B->browptr[br + 1] - B->browptr[br];
    out->format = B->layout == FB_BLOCK_AOS ? FB_FORMAT_BCSR : FB_FORMAT_BCSR_SOA;
    out->shape = (fb_spmv_shape){.nrows = B->nbrows * B->r,
                                 .ncols = B->nbcols * B->c,
                                 .nnz = B->nblocks * B->r * B->c,
                                 .block = B->r,
                                 .nbrows = B->nbrows,
                                 .nblocks = B->nblocks};
    out->ptr = B->browptr;
    out->idx = B->bcolidx;
    out->values = B->values;
    out->max_row_entries = longest * B->c;
fail:
    return status;
}
