/* mtx.h - Matrix Market in and out.
 *
 * Two readers:
 * - fb_mtx_read: flowbench's own, the default. One pass counts the lines of
 *   each chunk of the file, a second parses the chunks in parallel into
 *   coordinate arrays, then CSR is built (rows sorted, duplicates summed).
 *   It gives the line number of every error and loads 100 million entries
 *   in seconds (docs/matrices.md has the measurement).
 * - fb_mtx_read_cholmod: SuiteSparse CHOLMOD's reader (cholmod_read_matrix,
 *   cholmod_read_dense), behind the same header checks. It reads line by
 *   line with sscanf and reports errors without line numbers, so it is
 *   the cross-check (`SRC:reader=cholmod`, and the tests compare both on
 *   every shipped file), not the default.
 *
 * Both accept: coordinate real / integer / pattern, general / symmetric /
 * skew-symmetric (expanded to full storage: a(j,i) = a(i,j) or -a(i,j)),
 * array real / integer (dense, column-major), gzip-compressed input
 * (detected by its magic bytes, so `.mtx.gz` needs no special name).
 * Complex matrices are refused with "complex ... not supported".
 * Pattern entries read as 1.0. Explicit zeros are kept; duplicate entries
 * are summed.
 *
 * Writing: coordinate real general for sparse matrices, array real general
 * for dense ones and vectors; every value printed with the fewest digits
 * that read back to the same double (at most 17). A path ending in `.gz`
 * is written gzip-compressed.
 */
#ifndef FB_MATRIX_MTX_H
#define FB_MATRIX_MTX_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"
#include "text.h"

typedef enum fb_mtx_field { FB_MTX_REAL, FB_MTX_INTEGER, FB_MTX_PATTERN } fb_mtx_field;
typedef enum fb_mtx_symmetry { FB_MTX_GENERAL, FB_MTX_SYMMETRIC, FB_MTX_SKEW } fb_mtx_symmetry;

typedef struct fb_mtx_info {
    int array; /* "array" (dense) rather than "coordinate" */
    fb_mtx_field field;
    fb_mtx_symmetry symmetry;
    int64_t nrows, ncols;
    int64_t entries;   /* entries stored in the file */
    int64_t size_line; /* line number of the size line */
} fb_mtx_info;

typedef struct fb_mtx {
    fb_mtx_info info;
    fb_csr csr;     /* coordinate files, full storage */
    fb_dense dense; /* array files */
} fb_mtx;

/* Reads a file (plain or gzip). Errors: FB_ERR_IO (reading failed),
 * FB_ERR_INPUT "PATH: line L: what is wrong", FB_ERR_NOMEM. */
fb_status fb_mtx_read(const char *path, fb_mtx *out);
/* The same from memory; `name` is used in messages. */
fb_status fb_mtx_read_memory(const char *name, const void *data, size_t n, fb_mtx *out);

/* Through CHOLMOD (see above). */
fb_status fb_mtx_read_cholmod(const char *path, fb_mtx *out);
fb_status fb_mtx_read_cholmod_memory(const char *name, const void *data, size_t n, fb_mtx *out);

void fb_mtx_free(fb_mtx *m);

/* The bound on gzip input (text.h): the size line's entries, at most 256
 * bytes each; inflating stops where a banner or size line is refused. */
void fb_mtx_text_limit(const char *data, size_t n, fb_text_limit *limit);

/* The banner and size line, checked (shared by both readers). On success
 * the cursor is at the first line after the size line. */
fb_status fb_mtx_read_header(fb_cursor *c, fb_mtx_info *info);

const char *fb_mtx_field_name(fb_mtx_field f);
const char *fb_mtx_symmetry_name(fb_mtx_symmetry s);

/* Writers. `comment` (may be NULL, may hold newlines) becomes % lines. */
fb_status fb_mtx_write(const char *path, const fb_csr *A, const char *comment);
fb_status fb_mtx_write_dense(const char *path, const fb_dense *X, const char *comment);
fb_status fb_mtx_write_vector(const char *path, const double *x, int n, const char *comment);

#endif
