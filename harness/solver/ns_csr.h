/* ns_csr.h - the pressure matrix of the edge-based solver as explicit CSR
 * (for CG_SPMV, kernels/ns/ns_kernels.h): the solver keeps A per edge and
 * applies it as sum_e A[e] (u_j - u_i), a matrix whose off-diagonals are
 * A[e] and whose diagonal is -sum_e A[e]. This is its pattern: each edge
 * row with the diagonal inserted in column order, and where every edge's
 * value and every row's diagonal go, so a device kernel (ns_csr_values in
 * ns.cl) fills the values from A each step and a kernel of the SpMV family
 * multiplies. Host-only; the device driver uploads it (ns_device.c). */
#ifndef FB_SOLVER_NS_CSR_H
#define FB_SOLVER_NS_CSR_H

#include <jansson.h>

#include "bench/signature.h"
#include "core/status.h"

typedef struct fb_ns_csr {
    int n;
    long long nnz; /* edges + n */
    int *rowptr;   /* n + 1: rowptr[i] = edge rowptr[i] + i */
    int *col;      /* nnz, ascending in each row */
    int *epos;     /* per edge: its position in col / values */
    int *diagpos;  /* per row: the position of its diagonal */
} fb_ns_csr;

/* The pattern of the edge rows (rowptr, col: n rows, each sorted by
 * column, no diagonal entries; FB_ERR_INPUT otherwise) with the diagonal
 * inserted. */
fb_status fb_ns_csr_build(int n, const int *rowptr, const int *col, fb_ns_csr *out);

/* A matrix record object of the pattern (the fields of spmv_record.h that
 * the tuning cache's signature reads: rows, cols, nnz, nnz_per_row
 * {min, mean, max, stddev}, and bandwidth, symmetry, hash of the pattern
 * with unit values), named name; and (sig not NULL) its signature from
 * the same statistics (bench/signature.h: a matrix, block 1), what the
 * tuning cache looks an SpMV kernel's point up by. */
fb_status fb_ns_csr_record(const fb_ns_csr *c, const char *name, json_t **out, fb_signature *sig);

void fb_ns_csr_free(fb_ns_csr *c);

#endif
