/* mtx_cholmod.c - Matrix Market through SuiteSparse CHOLMOD's reader
 * (`SRC:reader=cholmod`, and the cross-check in the tests).
 *
 * CHOLMOD reads from a FILE*, line by line, and reports an error as a
 * status plus a message without a line number; by default it also prints.
 * So before handing it the text we check what flowbench's own reader
 * checks in the header (banner, complex, sizes against the bytes that
 * follow: CHOLMOD allocates from the declared count) and that no line is
 * longer than CHOLMOD's 1024-character line buffer, and we replace its
 * error printing with a handler that records the message.
 *
 * CHOLMOD's own rules then apply to the body: it infers pattern / real from
 * the number of numbers on the first entry line, accepts 0-based files
 * (an index 0 anywhere switches the whole file to 0-based), and keeps
 * nonzero diagonal entries of skew-symmetric files. flowbench's reader
 * refuses the last two.
 */
#include "mtx.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHOLMOD_MAX_LINE 1024

static _Thread_local char cholmod_message[256];

static void record_error(int status, const char *file, int line, const char *message)
{
    (void)file;
    (void)line;
    if (status < 0 && !cholmod_message[0]) snprintf(cholmod_message, sizeof cholmod_message, "%s", message);
}

static fb_status check_line_lengths(const char *name, const fb_text_bytes *buf)
{
    fb_status status = FB_OK;
    int64_t line = 1;
    for (const char *p = buf->data, *end = buf->data + buf->size; p < end; ++line) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        if (le - p > CHOLMOD_MAX_LINE)
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: longer than %d characters (the limit of CHOLMOD's reader)", name,
                    (long long)line, CHOLMOD_MAX_LINE);
        p = le + 1;
    }
fail:
    return status;
}

/* CHOLMOD reads "nan", "inf" and 1e999 as values, and sums duplicates
 * that may overflow; no kernel can check a result against them, so they
 * are refused after the fact, naming the (1-based) entry. */
static fb_status not_finite(const char *name, int64_t i, int64_t j)
{
    return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__,
                        "%s: CHOLMOD read a value that is not a finite double: entry (%lld, %lld)", name,
                        (long long)i + 1, (long long)j + 1);
}

/* Column-major nrows x ncols. */
static fb_status check_finite_dense(const char *name, const double *v, int64_t nrows, int64_t ncols)
{
    for (int64_t k = 0; k < nrows * ncols; ++k)
        if (!isfinite(v[k])) return not_finite(name, k % nrows, k / nrows);
    return FB_OK;
}

static fb_status check_finite_csr(const char *name, const fb_csr *A)
{
    int row = 0;
    int64_t p = fb_csr_first_nonfinite(A, 0, A->nrows, &row);
    return p < 0 ? FB_OK : not_finite(name, row, A->colidx[p]);
}

/* A line CHOLMOD reads as data: not '%' in column 1, and something other
 * than white space before the end of the line or a NUL (it sees C strings). */
static int cholmod_data_line(const char *p, const char *le)
{
    if (p < le && *p == '%') return 0;
    for (; p < le && *p; ++p)
        if (!(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')) return 1;
    return 0;
}

/* CHOLMOD leaks what it allocated when the file ends early (it returns on
 * "premature EOF" without freeing), so a short file is refused here, with
 * the same message as flowbench's reader, counting lines as CHOLMOD does. */
static fb_status check_entry_count(fb_cursor *c, const fb_mtx_info *info)
{
    fb_status status = FB_OK;
    int64_t found = 0, last = info->size_line;
    for (; found < info->entries && !fb_cursor_eof(c); fb_cursor_next_line(c)) {
        const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
        last = c->line;
        found += cholmod_data_line(c->p, nl ? nl : c->end);
    }
    if (found < info->entries)
        FB_FAIL(FB_ERR_INPUT,
                "%s: line %lld: file ends after %lld of the %lld entries declared on line %lld (truncated?)", c->name,
                (long long)last, (long long)found, (long long)info->entries, (long long)info->size_line);
fail:
    return status;
}

static fb_status from_dense(const char *name, cholmod_dense *X, fb_dense *out)
{
    fb_status status = FB_OK;
    if (X->xtype != CHOLMOD_REAL) FB_FAIL(FB_ERR_INPUT, "%s: complex matrices are not supported", name);
    out->nrows = (int)X->nrow;
    out->ncols = (int)X->ncol;
    int64_t nvalues = (int64_t)X->nrow * (int64_t)X->ncol;
    FB_ALLOC(out->values, nvalues, "dense matrix");
    for (size_t j = 0; j < X->ncol; ++j)
        for (size_t i = 0; i < X->nrow; ++i)
            out->values[j * X->nrow + i] = ((double *)X->x)[j * X->d + i];
    FB_CHECK(check_finite_dense(name, out->values, out->nrows, out->ncols));
fail:
    return status;
}

/* CHOLMOD stores columns (CSC); the CSC of A^T is the CSR of A. */
static fb_status from_sparse(const char *name, cholmod_sparse *A, cholmod_common *cc, fb_csr *out)
{
    fb_status status = FB_OK;
    cholmod_sparse *T = NULL;
    if (A->xtype != CHOLMOD_REAL) FB_FAIL(FB_ERR_INPUT, "%s: complex matrices are not supported", name);
    T = cholmod_transpose(A, 1, cc);
    if (!T) FB_FAIL(FB_ERR_NOMEM, "%s: CHOLMOD: %s", name, cholmod_message[0] ? cholmod_message : "transpose failed");
    const int *p = T->p, *i = T->i;
    const double *x = T->x;
    FB_CHECK(fb_csr_alloc(out, (int64_t)A->nrow, (int64_t)A->ncol, p[T->ncol]));
    memcpy(out->rowptr, p, (T->ncol + 1) * sizeof *p);
    memcpy(out->colidx, i, (size_t)out->nnz * sizeof *i);
    memcpy(out->values, x, (size_t)out->nnz * sizeof *x);
    FB_CHECK(fb_csr_validate(out, name));
    FB_CHECK(check_finite_csr(name, out));
fail:
    if (T) cholmod_free_sparse(&T, cc);
    return status;
}

static fb_status read_with_cholmod(const char *name, fb_text_bytes *buf, fb_mtx *out)
{
    fb_status status = FB_OK;
    cholmod_common cc;
    int mtype = 0, started = 0;
    void *M = NULL;
    FILE *f = NULL;
    cholmod_start(&cc);
    started = 1;
    cc.print = 0; /* no printing: errors come back as one line */
    cc.error_handler = record_error;
    cc.prefer_binary = 1; /* pattern entries read as 1, as in our reader */
    cholmod_message[0] = '\0';
    f = fmemopen(buf->data, buf->size, "r");
    if (!f) FB_FAIL(FB_ERR_NOMEM, "%s: cannot open the text as a stream", name);
    M = cholmod_read_matrix(f, 1, &mtype, &cc);
    if (!M)
        FB_FAIL(FB_ERR_INPUT, "%s: CHOLMOD: %s", name, cholmod_message[0] ? cholmod_message : "cannot read the matrix");
    if (mtype == CHOLMOD_DENSE)
        FB_CHECK(from_dense(name, M, &out->dense));
    else if (mtype == CHOLMOD_SPARSE)
        FB_CHECK(from_sparse(name, M, &cc, &out->csr));
    else
        FB_FAIL(FB_ERR_INPUT, "%s: CHOLMOD returned an unexpected matrix type %d", name, mtype);
fail:
    if (M && mtype == CHOLMOD_DENSE) cholmod_free_dense((cholmod_dense **)&M, &cc);
    if (M && mtype == CHOLMOD_SPARSE) cholmod_free_sparse((cholmod_sparse **)&M, &cc);
    if (M && mtype == CHOLMOD_TRIPLET) cholmod_free_triplet((cholmod_triplet **)&M, &cc);
    if (f) fclose(f);
    if (started) cholmod_finish(&cc);
    return status;
}

static fb_status read_buffer(const char *name, fb_text_bytes *buf, void *result)
{
    fb_mtx *out = result;
    fb_status status = FB_OK;
    fb_cursor c;
    fb_cursor_init(&c, name, buf->data, buf->size);
    FB_CHECK(fb_mtx_read_header(&c, &out->info));
    FB_CHECK(check_entry_count(&c, &out->info));
    FB_CHECK(check_line_lengths(name, buf));
    FB_CHECK(read_with_cholmod(name, buf, out));
    return FB_OK;
fail:
    fb_mtx_free(out);
    return status;
}

fb_status fb_mtx_read_cholmod(const char *path, fb_mtx *out)
{
    return fb_text_read(path, NULL, 0, fb_mtx_text_limit, read_buffer, out, sizeof *out);
}

fb_status fb_mtx_read_cholmod_memory(const char *name, const void *data, size_t n, fb_mtx *out)
{
    return fb_text_read(name, data, n, fb_mtx_text_limit, read_buffer, out, sizeof *out);
}
