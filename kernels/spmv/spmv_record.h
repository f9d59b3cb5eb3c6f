/* spmv_record.h - the JSON record of one SpMV measurement (docs/results.md),
 * shared by `flowbench spmv` and the sweep runner so both write the same
 * fields: matrix identity, parameters as -D names, launch geometry, model
 * flops and bytes, samples, check, roofline fraction. */
#ifndef FB_SPMV_RECORD_H
#define FB_SPMV_RECORD_H

#include <jansson.h>

#include "bench/signature.h"
#include "matrix/source.h"
#include "spmv.h"

/* The matrix object of a record: name, source, origin, hash, shape, row
 * statistics, block and reordering. Computes the statistics (one pass). */
fb_status fb_spmv_matrix_json(const fb_matrix *m, json_t **out);

/* The same, and (sig not NULL) the matrix's signature from the same
 * statistics (bench/signature.h): what --tuned and the prior look up. */
fb_status fb_spmv_matrix_describe(const fb_matrix *m, json_t **out, fb_signature *sig);

/* One measurement record. `matrix` is borrowed (copied into the record);
 * stream_gbs <= 0 means not measured. */
json_t *fb_spmv_record(const fb_device_info *d, const json_t *matrix, const fb_spmv_matrix *A,
                       const fb_spmv_config *cfg, const fb_spmv_result *r, double stream_gbs);

/* "csr", "bcsr", "bcsr-soa", "sell": the record's "format". */

#endif
