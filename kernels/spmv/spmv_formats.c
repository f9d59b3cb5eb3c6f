/* spmv_formats.c - the format table (spmv_formats.h): each format's value
 * layout and its byte and flop model, beside its run. */
#include "csr16_matrix.h"
#include "sell_matrix.h"
#include "sss_matrix.h"
#include "spmv.h"

static size_t scalar_at(const fb_spmv_shape *s, size_t b, int r, int c)
{
    (void)s, (void)r, (void)c;
    return b;
}

/* block b, entry (r, c): values[(b * K + r) * K + c] */
static size_t aos_at(const fb_spmv_shape *s, size_t b, int r, int c)
{
    size_t K = (size_t)s->block;
    return b * K * K + (size_t)r * K + (size_t)c;
}

/* entry (r, c) of block b: values[(r * K + c) * nblocks + b] */
static size_t soa_at(const fb_spmv_shape *s, size_t b, int r, int c)
{
    return ((size_t)r * (size_t)s->block + (size_t)c) * (size_t)s->nblocks + b;
}

/* Minimal bytes: every stored value and index read once, row pointers once,
 * x read once and y written once (perfect cache reuse of x), 32-bit indices.
 * Real traffic is higher when x is not reused from cache. */
static fb_spmv_model csr_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    double rb = s->real_bytes, vectors = ((double)s->ncols + (double)s->nrows) * rb;
    (void)c;
    return (fb_spmv_model){.flops = 2.0 * (double)s->nnz,
                           .min_bytes = (double)s->nnz * (rb + 4.0) + ((double)s->nrows + 1.0) * 4.0 + vectors};
}

/* The same per block: K^2 values, one block column index, one pointer per block row. */
static fb_spmv_model bcsr_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    double rb = s->real_bytes, vectors = ((double)s->ncols + (double)s->nrows) * rb;
    double k2 = (double)s->block * s->block;
    (void)c;
    return (fb_spmv_model){.flops = 2.0 * (double)s->nblocks * k2,
                           .min_bytes =
                               (double)s->nblocks * (k2 * rb + 4.0) + ((double)s->nbrows + 1.0) * 4.0 + vectors};
}

/* SELL-C-sigma: every stored entry (padding included), the slice
 * pointers, the permutation when the rows were sorted, x and y once. */
static fb_spmv_model sell_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    double rb = s->real_bytes, vectors = ((double)s->ncols + (double)s->nrows) * rb;
    double perm = c->permuted ? (double)s->nrows * 4.0 : 0.0;
    return (fb_spmv_model){.flops = 2.0 * (double)c->stored,
                           .min_bytes =
                               (double)c->stored * (rb + 4.0) + ((double)c->nslices + 1.0) * 4.0 + perm + vectors};
}

/* sell16: sell's, with 2 bytes for the column of a stored entry in a
 * narrow slice instead of 4, and a base per slice. */
static fb_spmv_model sell16_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    fb_spmv_model m = sell_model(s, c);
    m.min_bytes -= (double)(c->stored - c->wide_entries) * 2.0 - (double)c->nbases * 4.0;
    return m;
}

/* csr16: each value (a float for csr16-sv), a 16-bit offset per entry of
 * a narrow block and a 32-bit column per entry of a wide one, a base per
 * block of rows, the row pointers, x and y once. */
static fb_spmv_model csr16_model_of(const fb_spmv_shape *s, const fb_spmv_conversion *c, double value_bytes)
{
    double rb = s->real_bytes, vectors = ((double)s->ncols + (double)s->nrows) * rb;
    double narrow = (double)(s->nnz - c->wide_entries);
    return (fb_spmv_model){.flops = 2.0 * (double)s->nnz,
                           .min_bytes = (double)s->nnz * value_bytes + narrow * 2.0 + (double)c->wide_entries * 4.0 +
                                        (double)c->nbases * 4.0 + ((double)s->nrows + 1.0) * 4.0 + vectors};
}

static fb_spmv_model csr16_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    return csr16_model_of(s, c, s->real_bytes);
}

static fb_spmv_model csr16_sv_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    return csr16_model_of(s, c, 4.0);
}

/* sss: the lower triangle's values and columns, the diagonal and a row
 * pointer per row, x and y once, and what the slots move: each one written
 * at its place (read by the writer) and read back by the fix-up, each
 * fixed row's number and pointer and its y read and written again. */
static fb_spmv_model sss_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    double rb = s->real_bytes, vectors = ((double)s->ncols + (double)s->nrows) * rb;
    double triangle = (double)c->lower * (rb + 4.0) + (double)s->nrows * (rb + 4.0) + 4.0;
    double fixup = (double)c->conflicts * (2.0 * rb + 4.0) + (double)c->nfix * (8.0 + 2.0 * rb);
    return (fb_spmv_model){.flops = 2.0 * (double)s->nnz,
                           .min_bytes = triangle + vectors + fixup + ((double)c->nchunks + 1.0) * 8.0};
}

/* sss-atomic: the same triangle, diagonal, row pointers and x, no slots;
 * y cleared, then read and written once by its sums (the atomic updates
 * themselves are counted once, as cache traffic is not). */
static fb_spmv_model sss_atomic_model(const fb_spmv_shape *s, const fb_spmv_conversion *c)
{
    double rb = s->real_bytes;
    double triangle = (double)c->lower * (rb + 4.0) + (double)s->nrows * (rb + 4.0) + 4.0;
    return (fb_spmv_model){.flops = 2.0 * (double)s->nnz,
                           .min_bytes = triangle + (double)s->ncols * rb + 3.0 * (double)s->nrows * rb};
}

// clang-format off
const fb_spmv_format_ops fb_spmv_csr = {
    .name = "csr", .input = &fb_spmv_csr, .input_name = "CSR",
    .value_at = scalar_at, .model = csr_model, .run = fb_spmv_run_kernels};
const fb_spmv_format_ops fb_spmv_bcsr = {
    .name = "bcsr", .input = &fb_spmv_bcsr, .input_name = "BCSR", .blocked = 1, .layout = FB_BLOCK_AOS,
    .value_at = aos_at, .model = bcsr_model, .run = fb_spmv_run_kernels};
const fb_spmv_format_ops fb_spmv_bcsr_soa = {
    .name = "bcsr-soa", .input = &fb_spmv_bcsr_soa, .input_name = "BCSR", .blocked = 1, .layout = FB_BLOCK_SOA,
    .passes_nblocks = 1, .value_at = soa_at, .model = bcsr_model, .run = fb_spmv_run_kernels};
/* The SELL kernels read a CSR view; their run converts it (timed apart). */
const fb_spmv_format_ops fb_spmv_sell = {
    .name = "sell", .input = &fb_spmv_csr, .input_name = "CSR",
    .value_at = scalar_at, .model = sell_model, .run = fb_spmv_run_sell};
const fb_spmv_format_ops fb_spmv_sell16 = {
    .name = "sell16", .input = &fb_spmv_csr, .input_name = "CSR",
    .value_at = scalar_at, .model = sell16_model, .run = fb_spmv_run_sell};
/* The csr16 kernels read a CSR view; their run converts it (timed apart). */
const fb_spmv_format_ops fb_spmv_csr16 = {
    .name = "csr16", .input = &fb_spmv_csr, .input_name = "CSR",
    .value_at = scalar_at, .model = csr16_model, .run = fb_spmv_run_csr16};
const fb_spmv_format_ops fb_spmv_csr16_sv = {
    .name = "csr16-sv", .input = &fb_spmv_csr, .input_name = "CSR", .single_values = 1,
    .value_at = scalar_at, .model = csr16_sv_model, .run = fb_spmv_run_csr16};
/* The sss kernels read a CSR view of a symmetric matrix; their run keeps one triangle. */
const fb_spmv_format_ops fb_spmv_sss = {
    .name = "sss", .input = &fb_spmv_csr, .input_name = "CSR", .symmetric_only = 1,
    .value_at = scalar_at, .model = sss_model, .run = fb_spmv_run_sss};
const fb_spmv_format_ops fb_spmv_sss_atomic = {
    .name = "sss-atomic", .input = &fb_spmv_csr, .input_name = "CSR", .symmetric_only = 1, .atomic_adds = 1,
    .value_at = scalar_at, .model = sss_atomic_model, .run = fb_spmv_run_sss};
// clang-format on
