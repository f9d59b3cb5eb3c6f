/* spmv_formats.h - the SpMV storage formats as a table of operations.
 *
 * A format says what a kernel of it reads (the view of the matrix: scalar
 * CSR, or the :block=K BCSR in AoS or SoA layout), where a stored value
 * sits (what the serial reference reads), the byte and flop model, and how
 * one configuration runs (upload, build, measure, check; SELL converts its
 * CSR view first). A kernel row (spmv_kernels.h), a peer library and a
 * matrix view each point at one row of this table; nothing else asks which
 * format it holds. Adding a format is one row here, its run, and its
 * kernels' rows. */
#ifndef FB_SPMV_FORMATS_H
#define FB_SPMV_FORMATS_H

#include <stddef.h>

#include "core/status.h"
#include "matrix/csr.h"

struct fb_target;
struct fb_spmv_matrix;
struct fb_spmv_config;
struct fb_spmv_result;

/* Problem facts the geometry and constraints depend on. */
typedef struct fb_spmv_shape {
    int nrows, ncols;
    long long nnz;     /* stored scalar entries (BCSR: nblocks * block^2) */
    int block;         /* 1 for CSR */
    int nbrows;        /* block rows (CSR: nrows) */
    long long nblocks; /* BCSR blocks (CSR: nnz) */
    int real_bytes;    /* 8 double, 4 single */
    int symmetric;     /* square and equal to its transpose, value for value (the matrix's load says) */
} fb_spmv_shape;

typedef struct fb_spmv_model {
    double flops;     /* 2 per stored entry */
    double min_bytes; /* values + indices + row pointers + x once + y once */
} fb_spmv_model;

/* A run that converted its CSR input (SELL): what the conversion cost and
 * stored, for the model and the record. */
typedef struct fb_spmv_conversion {
    int done;                          /* 1 when the run converted the matrix */
    double seconds;                    /* wall time of the conversion, not in the samples */
    long long stored;                  /* entries stored, padding included */
    int nslices;                       /* SELL */
    int permuted;                      /* SELL: rows were reordered (y written through perm) */
    double padding;                    /* SELL: (stored - nnz) / nnz */
    int nbases, base_rows, wide_bases; /* csr16, sell16 (a slice a block): blocks, and those at 32 bits */
    long long wide_entries;            /* csr16, sell16: entries of the wide blocks */
    int triangle;                      /* sss, sss-atomic: one triangle of a symmetric matrix kept */
    int nchunks, nfix;                 /* sss: chunks of rows (0: sss-atomic's none), rows the fix-up adds slots to */
    long long lower, conflicts;        /* sss: entries of the lower triangle, and products through slots */
} fb_spmv_conversion;

typedef struct fb_spmv_format_ops fb_spmv_format_ops;
struct fb_spmv_format_ops {
    const char *name; /* the record's "format": csr, bcsr, bcsr-soa, sell, sell16, csr16, csr16-sv, sss, sss-atomic */
    const fb_spmv_format_ops *input; /* the view a kernel of this format reads (SELL: CSR) */
    const char *input_name;          /* "CSR" or "BCSR", for messages */
    int blocked;                     /* reads the :block=K BCSR: BLOCK_SIZE is a define and a param */
    fb_block_layout layout;          /* of a blocked view */
    int passes_nblocks;              /* the kernels take the block count after the row count (SoA) */
    int single_values;               /* values stored as float whatever the run's precision (a declared loss) */
    int symmetric_only;              /* stores one triangle: runs on a symmetric matrix only */
    int atomic_adds;                 /* adds into y with atomics (sss-atomic): y is cleared first */
    /* Where value (r, c) of stored entry (or block) b lies in the values. */
    size_t (*value_at)(const fb_spmv_shape *s, size_t b, int r, int c);
    /* Flops and minimal bytes of one product; c is the run's conversion (SELL). */
    fb_spmv_model (*model)(const fb_spmv_shape *s, const fb_spmv_conversion *c);
    /* Uploads, builds, measures and checks one configuration (spmv.h's fb_spmv_run). */
    fb_status (*run)(struct fb_target *t, const struct fb_spmv_matrix *A, const struct fb_spmv_config *cfg,
                     struct fb_spmv_result *out);
};

extern const fb_spmv_format_ops fb_spmv_csr, fb_spmv_bcsr, fb_spmv_bcsr_soa, fb_spmv_sell, fb_spmv_sell16,
    fb_spmv_csr16, fb_spmv_csr16_sv, fb_spmv_sss, fb_spmv_sss_atomic;

#endif
