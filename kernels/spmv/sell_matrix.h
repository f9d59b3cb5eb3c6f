/* sell_matrix.h - SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske and
 * Bishop, SIAM J. Sci. Comput. 36(5), 2014), built from a CSR view: the rows
 * are cut into slices of C rows, each slice padded to its longest row and
 * stored column-major, so entry j of the slice's row r is at
 * slice_ptr[s] + j * C + r and C neighbouring work-items read C neighbouring
 * values. Before slicing, the rows of each window of sigma rows are sorted
 * by length, longest first, so that a slice holds rows of about the same
 * length and pads little; sigma = 1 keeps the natural order. The sort is
 * recorded in perm (sorted position -> original row), through which the
 * kernels write y in the original order, so the CSR reference checks them.
 *
 * The SELL kernels (spmv/sell.cl) convert inside their run (sell_run.c),
 * timed apart from the product: a solver converts once and multiplies
 * many times, so the conversion is reported (record "sell.conversion_s"),
 * not added to the samples. */
#ifndef FB_SELL_MATRIX_H
#define FB_SELL_MATRIX_H

#include <stdint.h>

#include "csr16_matrix.h"
#include "spmv.h"

typedef struct fb_sell {
    int nrows, ncols;
    int C, sigma;
    int nslices;    /* ceil(nrows / C) */
    int64_t nnz;    /* entries of the CSR it came from */
    int64_t stored; /* slice_ptr[nslices]: entries with the padding */
    int *slice_ptr; /* nslices + 1, offsets in entries */
    int *colidx;    /* stored; a padding entry repeats its row's last column (an empty row: the slice's first one) */
    double *values; /* stored; padding entries are 0 */
    int *perm;      /* nslices * C: the original row at each sorted position, -1 past nrows */
    int permuted;   /* perm is not the identity (sigma > 1 moved a row) */
    double seconds; /* wall time of the conversion */
    /* sell16's columns (fb_sell_narrow_columns): the csr16 encoding of the
     * slices, one base per slice (base_rows 1: a slice is a block) */
    fb_csr16 narrow;
} fb_sell;

/* Converts the CSR view A (fb_spmv_csr) to SELL-C-sigma. C >= 1;
 * sigma >= 1. FB_ERR_INPUT when the padded matrix would need more than
 * 32-bit offsets. */
fb_status fb_sell_from_csr(const fb_spmv_matrix *A, int C, int sigma, fb_sell *out);

/* sell16: each slice's columns as 16-bit offsets from its least column
 * (32-bit where they span FB_CSR16_SPAN or more), S->narrow; its time
 * added to S->seconds. */
fb_status fb_sell_narrow_columns(fb_sell *S);

/* Padding as a fraction of the nonzeros: (stored - nnz) / nnz (0 when nnz is 0). */
double fb_sell_padding(const fb_sell *S);

void fb_sell_free(fb_sell *S);

/* fb_spmv_run for a SELL kernel (sell_run.c): converts A (a CSR view)
 * with the point's SLICE_HEIGHT and SIGMA (and for sell16 its columns to
 * offsets), then uploads, builds, measures
 * and checks as fb_spmv_run does; out->conversion says what the conversion
 * cost and padded. */
fb_status fb_spmv_run_sell(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out);

#endif
