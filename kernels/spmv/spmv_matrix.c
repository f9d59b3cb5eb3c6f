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
    out->format = &fb_spmv_csr;
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
    out->format = B->layout == FB_BLOCK_AOS ? &fb_spmv_bcsr : &fb_spmv_bcsr_soa;
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

static fb_status needs_blocks(const fb_matrix *m, const fb_spmv_kernel_def *k)
{
    fb_status status = FB_OK;
    if (k->format->input->blocked && !m->block)
        FB_FAIL(FB_ERR_USAGE, "%s reads block CSR: give the matrix as SRC:block=K (K = 1..5)", k->name);
fail:
    return status;
}

fb_status fb_spmv_view_for(fb_matrix *m, const fb_spmv_kernel_def *k, fb_spmv_matrix *out)
{
    fb_status status = FB_OK;
    const fb_spmv_format_ops *input = k->format->input;
    FB_CHECK(needs_blocks(m, k));
    if (!input->blocked) return fb_spmv_view_shape(m, k, out); /* the CSR view is the matrix as loaded */
    FB_CHECK(fb_bcsr_set_layout(&m->B, input->layout));
    FB_CHECK(fb_spmv_view_bcsr(&m->B, out));
fail:
    return status;
}

fb_status fb_spmv_view_shape(const fb_matrix *m, const fb_spmv_kernel_def *k, fb_spmv_matrix *out)
{
    fb_status status = FB_OK;
    const fb_spmv_format_ops *input = k->format->input;
    FB_CHECK(needs_blocks(m, k));
    FB_CHECK(input->blocked ? fb_spmv_view_bcsr(&m->B, out) : fb_spmv_view_csr(&m->A, out));
    out->shape.symmetric = !input->blocked && m->symmetric;
    out->format = input;
fail:
    return status;
}
