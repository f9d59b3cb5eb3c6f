/* csr16_matrix.c - the conversion to 16-bit column offsets (csr16_matrix.h). */
#include "csr16_matrix.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

/* The least and largest column of entries [begin, end); an empty block is
 * narrow with base 0. */
static void column_range(const int *colidx, int64_t begin, int64_t end, int *lo, int *hi)
{
    *lo = 0, *hi = 0;
    if (begin < end) *lo = *hi = colidx[begin];
    for (int64_t j = begin; j < end; ++j) {
        if (colidx[j] < *lo) *lo = colidx[j];
        if (colidx[j] > *hi) *hi = colidx[j];
    }
}

/* Block b's base and its entries' offsets, or its columns in wide. */
static void convert_block(const fb_spmv_matrix *A, int b, fb_csr16 *M)
{
    const int r0 = b * M->base_rows, r1 = r0 + M->base_rows < A->shape.nrows ? r0 + M->base_rows : A->shape.nrows;
    const int64_t begin = A->ptr[r0], end = A->ptr[r1];
    int lo, hi;
    column_range(A->idx, begin, end, &lo, &hi);
    if ((int64_t)hi - lo < FB_CSR16_SPAN) {
        M->bases[b] = lo;
        for (int64_t j = begin; j < end; ++j)
            M->offsets[j] = (uint16_t)(A->idx[j] - lo);
        return;
    }
    M->bases[b] = (int)(M->wide_entries - begin) - 1; /* j + base + 1 = j + delta: wide[j + base + 1] */
    memcpy(M->wide + M->wide_entries, A->idx + begin, (size_t)(end - begin) * sizeof(int));
    memset(M->offsets + begin, 0, (size_t)(end - begin) * sizeof(uint16_t));
    M->wide_entries += end - begin;
    M->wide_bases++;
}

fb_status fb_csr16_from_csr(const fb_spmv_matrix *A, int base_rows, fb_csr16 *out)
{
    fb_status status = FB_OK;
    const double t0 = fb_now();
    memset(out, 0, sizeof *out);
    if (base_rows < 1 || (base_rows & (base_rows - 1)))
        FB_FAIL(FB_ERR_USAGE, "csr16: BASE_ROWS %d must be a power of two (the kernels shift by it)", base_rows);
    out->nrows = A->shape.nrows, out->base_rows = base_rows, out->nnz = A->shape.nnz;
    out->nbases = (int)(((int64_t)A->shape.nrows + base_rows - 1) / base_rows);
    FB_ALLOC(out->bases, out->nbases > 0 ? (size_t)out->nbases : 1, "csr16 bases");
    FB_ALLOC(out->offsets, out->nnz > 0 ? (size_t)out->nnz : 1, "csr16 offsets");
    FB_ALLOC(out->wide, out->nnz > 0 ? (size_t)out->nnz : 1, "csr16 wide columns"); /* trimmed below */
    for (int b = 0; b < out->nbases; ++b)
        convert_block(A, b, out);
    int *trimmed = realloc(out->wide, (size_t)(out->wide_entries > 0 ? out->wide_entries : 1) * sizeof(int));
    if (trimmed) out->wide = trimmed;
    out->seconds = fb_now() - t0;
fail:
    if (status != FB_OK) fb_csr16_free(out);
    return status;
}

int fb_csr16_column(const fb_csr16 *M, int row, int64_t j)
{
    const int base = M->bases[row / M->base_rows];
    return base >= 0 ? base + (int)M->offsets[j] : M->wide[j + base + 1];
}

void fb_csr16_free(fb_csr16 *M)
{
    free(M->bases);
    free(M->offsets);
    free(M->wide);
    memset(M, 0, sizeof *M);
}
