/* mtx_write.c - Matrix Market output, so any result can be checked with
 * another tool (MATLAB mmread, scipy.io.mmread, CHOLMOD).
 *
 * Values are printed with %.15g, %.16g or %.17g, the first that reads back
 * to the same double: exact, and short for values that are short. Lines
 * are formatted in parallel into per-thread buffers and written in order,
 * so a 100-million-entry export is not bound by one core's snprintf.
 * The text goes to a temporary file beside the destination, renamed over
 * it when complete (core/files.h): a failed export leaves what was there.
 */
#include "mtx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/files.h"

#define LINE_MAX_BYTES 64 /* "2147483647 2147483647 -2.2250738585072014e-308\n" is 47 */

typedef struct sink {
    const char *path;
    fb_file_replace replace; /* the temporary file beside path, renamed over it when complete */
    FILE *f;
    gzFile gz;
} sink;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static fb_status sink_open(sink *s, const char *path)
{
    fb_status status = FB_OK;
    int fd = -1;
    memset(s, 0, sizeof *s);
    s->path = path;
    FB_CHECK(fb_file_replace_begin(path, &s->replace, &fd));
    if (ends_with(path, ".gz"))
        s->gz = gzdopen(fd, "wb6");
    else
        s->f = fdopen(fd, "w");
    if (!s->gz && !s->f) {
        close(fd);
        fb_file_replace_abort(&s->replace);
        FB_FAIL(FB_ERR_NOMEM, "%s: cannot write: out of host memory for the stream", path);
    }
fail:
    return status;
}

static fb_status sink_write(sink *s, const char *data, size_t n)
{
    fb_status status = FB_OK;
    while (n > 0) {
        size_t part = n > (1u << 30) ? (1u << 30) : n;
        if (s->gz ? gzwrite(s->gz, data, (unsigned)part) != (int)part : fwrite(data, 1, part, s->f) != part)
            FB_FAIL(FB_ERR_IO, "%s: write failed: %s", s->path, strerror(errno));
        data += part;
        n -= part;
    }
fail:
    return status;
}

/* Closes; when complete, the file replaces the destination. On failure
 * (or when `failed`) only the temporary file is removed: whatever was at
 * the destination stays as it was. */
static fb_status sink_close(sink *s, int failed)
{
    fb_status status = FB_OK;
    int bad = s->gz ? gzclose(s->gz) != Z_OK : s->f ? fclose(s->f) != 0 : 0;
    if (bad && !failed)
        status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "%s: write failed: %s", s->path, strerror(errno));
    if (bad || failed)
        fb_file_replace_abort(&s->replace);
    else
        status = fb_file_replace_commit(&s->replace);
    return status;
}

static fb_status write_header(sink *s, const char *kind, const char *comment, const char *size)
{
    fb_status status = FB_OK;
    char line[128];
    snprintf(line, sizeof line, "%%%%MatrixMarket matrix %s real general\n", kind);
    FB_CHECK(sink_write(s, line, strlen(line)));
    for (const char *p = comment; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        FB_CHECK(sink_write(s, "%", 1));
        FB_CHECK(sink_write(s, p, n));
        FB_CHECK(sink_write(s, "\n", 1));
        p += n + (nl != NULL);
    }
    FB_CHECK(sink_write(s, size, strlen(size)));
fail:
    return status;
}

static int format_value(double v, char *out)
{
    int n = 0;
    for (int prec = 15; prec <= 17; ++prec) {
        n = snprintf(out, 32, "%.*g", prec, v);
        if (strtod(out, NULL) == v) break;
    }
    return n;
}

static int format_index(int64_t v, char *out)
{
    char tmp[24];
    int n = 0, w = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n)
        out[w++] = tmp[--n];
    return w;
}

/* Formats rows [r0, r1) of A into buf; returns bytes written. */
static size_t format_rows(const fb_csr *A, int r0, int r1, char *buf)
{
    size_t w = 0;
    for (int i = r0; i < r1; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            w += (size_t)format_index((int64_t)i + 1, buf + w);
            buf[w++] = ' ';
            w += (size_t)format_index((int64_t)A->colidx[p] + 1, buf + w);
            buf[w++] = ' ';
            w += (size_t)format_value(A->values[p], buf + w);
            buf[w++] = '\n';
        }
    return w;
}

/* Row where the cumulative count reaches `target` entries. */
static int row_at(const fb_csr *A, int64_t target)
{
    int lo = 0, hi = A->nrows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->rowptr[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#define BATCH_PER_THREAD (INT64_C(1) << 18)
#define VALUES_BUFFER (4096 * 32) /* 4096 values of at most 25 bytes and a newline */

/* Entries in batches: each thread formats a slice, the slices are written
 * in order. A row longer than a slice is formatted whole by one thread. */
static fb_status write_entries(sink *s, const fb_csr *A)
{
    fb_status status = FB_OK;
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    char **bufs = NULL;
    size_t *lens = NULL;
    int64_t maxrow = 0;
    for (int i = 0; i < A->nrows; ++i)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxrow) maxrow = A->rowptr[i + 1] - A->rowptr[i];
    FB_ALLOC(bufs, nt, "output buffers");
    FB_ALLOC(lens, nt, "output lengths");
    int64_t bytes = (BATCH_PER_THREAD + maxrow) * LINE_MAX_BYTES;
    for (int t = 0; t < nt; ++t)
        FB_ALLOC(bufs[t], bytes, "output buffer");
    for (int r = 0; r < A->nrows;) {
        int bounds[257];
        int parts = nt < 256 ? nt : 256;
        bounds[0] = r;
        /* row_at is monotone and bounds[1] > r: every batch makes progress */
        for (int t = 1; t <= parts; ++t)
            bounds[t] = row_at(A, A->rowptr[r] + BATCH_PER_THREAD * t);
#pragma omp parallel for schedule(static, 1)
        for (int t = 0; t < parts; ++t)
            lens[t] = format_rows(A, bounds[t], bounds[t + 1], bufs[t]);
        for (int t = 0; t < parts; ++t)
            FB_CHECK(sink_write(s, bufs[t], lens[t]));
        r = bounds[parts];
    }
fail:
    for (int t = 0; bufs && t < nt; ++t)
        free(bufs[t]);
    free(bufs);
    free(lens);
    return status;
}

static fb_status write_values(sink *s, const double *v, int64_t n)
{
    fb_status status = FB_OK;
    char *buf = NULL;
    FB_ALLOC(buf, VALUES_BUFFER, "output buffer");
    for (int64_t k = 0; k < n;) {
        size_t w = 0;
        for (int m = 0; m < 4096 && k < n; ++m, ++k) {
            w += (size_t)format_value(v[k], buf + w);
            buf[w++] = '\n';
        }
        FB_CHECK(sink_write(s, buf, w));
    }
fail:
    free(buf);
    return status;
}

/* The whole file: the header, then A's entries, or X's values without A. */
static fb_status write_file(const char *path, const char *comment, const fb_csr *A, const fb_dense *X)
{
    fb_status status = FB_OK;
    sink s;
    char size[96];
    FB_CHECK(sink_open(&s, path));
    if (A)
        snprintf(size, sizeof size, "%d %d %lld\n", A->nrows, A->ncols, (long long)A->nnz);
    else
        snprintf(size, sizeof size, "%d %d\n", X->nrows, X->ncols);
    status = write_header(&s, A ? "coordinate" : "array", comment, size);
    if (status == FB_OK) status = A ? write_entries(&s, A) : write_values(&s, X->values, (int64_t)X->nrows * X->ncols);
    if (status != FB_OK) {
        sink_close(&s, 1);
        goto fail;
    }
    FB_CHECK(sink_close(&s, 0));
fail:
    return status;
}

fb_status fb_mtx_write(const char *path, const fb_csr *A, const char *comment)
{
    return write_file(path, comment, A, NULL);
}

fb_status fb_mtx_write_dense(const char *path, const fb_dense *X, const char *comment)
{
    return write_file(path, comment, NULL, X);
}

fb_status fb_mtx_write_vector(const char *path, const double *x, int n, const char *comment)
{
    fb_dense X = {.nrows = n, .ncols = 1, .values = (double *)x};
    return fb_mtx_write_dense(path, &X, comment);
}
