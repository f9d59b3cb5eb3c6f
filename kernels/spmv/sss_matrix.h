/* sss_matrix.h - symmetric sparse skyline (spmv/sss.cl): a symmetric
 * matrix kept as its diagonal and its strictly lower triangle, so that an
 * SpMV reads each off-diagonal value and column once for two products,
 * a_rc x_c into y_r and a_rc x_r into y_c: about half the bytes of CSR.
 *
 * The rows are cut into CHUNKS contiguous chunks of about equal lower
 * entries, each one work-item's (one thread's) to walk in row order. A
 * transposed product a_rc x_r whose row c lies in the same chunk is added
 * to y_c there (row c is done, and no other item writes it); one whose row
 * lies in an earlier chunk is a conflict: it is written to its own slot,
 * and a second pass adds each row's slots to it. Slots are numbered in
 * chunk and entry order (the order a walk meets them) but kept grouped by
 * the row they add to (slot_place: each slot's place), so that the writer
 * scatters into its own cache and the fix-up reads each row's run of
 * places in order (fix_rows, fix_ptr): reading the slots in walk order
 * instead, at random by row, made the fix-up of a matrix with many slots
 * 3.7x slower in many processes on a VM whose two cores seemed not always
 * to share a last-level cache (results/reference/spmv-auto-mesh-vm-2026-11-29).
 * Built from the CSR view, timed apart from the product (as SELL's and csr16's
 * conversions). */
#ifndef FB_SSS_MATRIX_H
#define FB_SSS_MATRIX_H

#include <stdint.h>

#include "spmv.h"

typedef struct fb_sss {
    int nrows, nchunks;
    int64_t lower;     /* entries of the strictly lower triangle */
    int *lptr;         /* nrows + 1: row r's lower entries are [lptr[r], lptr[r + 1]) */
    int *lcol;         /* lower: their columns, ascending in a row */
    double *lval;      /* lower: their values */
    double *diag;      /* nrows: a_rr (0 where not stored) */
    int *chunk_start;  /* nchunks + 1: chunk k's rows are [chunk_start[k], chunk_start[k + 1]) */
    int *chunk_slot;   /* nchunks + 1: chunk k's first conflict slot */
    int64_t conflicts; /* slots: lower entries whose column lies before their chunk */
    int nfix;          /* rows with at least one slot */
    int *fix_rows;     /* nfix: those rows, ascending */
    int *fix_ptr;      /* nfix + 1: fix row m's slots are kept at places [fix_ptr[m], fix_ptr[m + 1]) */
    int *slot_place;   /* conflicts: where slot s (walk order) is kept: grouped by row, ascending in one */
    double seconds;    /* wall time of the conversion */
} fb_sss;

/* Converts the CSR view A (square, values symmetric bit for bit: else
 * FB_ERR_INPUT naming the first entry whose mirror differs) into nchunks
 * chunks (>= 1). */
fb_status fb_sss_from_csr(const fb_spmv_matrix *A, int nchunks, fb_sss *out);

void fb_sss_free(fb_sss *S);

/* The chunks a point's CHUNKS asks for: itself, or for 0 one per compute
 * unit of dev (OpenMP threads, CPU cores, GPU multiprocessors), at least 1. */
int fb_sss_chunks(int point_chunks, const fb_device_info *dev);

/* fb_spmv_run for the sss kernel: converts A with the point's CHUNKS,
 * uploads, builds the product and its fix-up pass, measures both as one
 * sample and checks y against the CSR reference; out->conversion says what
 * the conversion cost and how many products went through slots. */
fb_status fb_spmv_run_sss(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out);

#endif
