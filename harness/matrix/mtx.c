/* mtx.c - flowbench's Matrix Market reader (see mtx.h for why it exists
 * beside CHOLMOD's).
 *
 * The body is split into chunks at line boundaries. Pass 1 counts lines and
 * entry lines per chunk (so each chunk knows its first line number and
 * where its entries go); pass 2 parses the chunks in parallel. Each chunk
 * keeps its first error; the earliest line wins, so the message does not
 * depend on the thread count. Every count from the header is checked
 * against the bytes that follow it before anything is allocated.
 */
#include "mtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif

const char *fb_mtx_field_name(fb_mtx_field f)
{
    return f == FB_MTX_REAL ? "real" : f == FB_MTX_INTEGER ? "integer" : "pattern";
}

const char *fb_mtx_symmetry_name(fb_mtx_symmetry s)
{
    return s == FB_MTX_GENERAL ? "general" : s == FB_MTX_SYMMETRIC ? "symmetric" : "skew-symmetric";
}

void fb_mtx_free(fb_mtx *m)
{
    if (!m) return;
    fb_csr_free(&m->csr);
    fb_dense_free(&m->dense);
    memset(m, 0, sizeof *m);
}

/* ---- header ---------------------------------------------------------- */

static fb_status banner_words(fb_cursor *c, fb_mtx_info *info)
{
    fb_status status = FB_OK;
    char object[32], format[32], field[32], sym[32];
    FB_CHECK(fb_cursor_word(c, "'matrix' after %%MatrixMarket", object, sizeof object));
    if (strcasecmp(object, "matrix") != 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: object '%s' is not supported (expected 'matrix')", c->name, object);
    FB_CHECK(fb_cursor_word(c, "a format (coordinate or array)", format, sizeof format));
    FB_CHECK(fb_cursor_word(c, "a field (real, integer or pattern)", field, sizeof field));
    FB_CHECK(fb_cursor_word(c, "a symmetry (general, symmetric or skew-symmetric)", sym, sizeof sym));
    FB_CHECK(fb_cursor_end_line(c, "the banner"));
    if (strcasecmp(format, "coordinate") == 0)
        info->array = 0;
    else if (strcasecmp(format, "array") == 0)
        info->array = 1;
    else
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: unknown format '%s' (expected coordinate or array)", c->name, format);
    if (strcasecmp(field, "complex") == 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: complex matrices are not supported (flowbench benchmarks real matrices)",
                c->name);
    if (strcasecmp(field, "real") == 0 || strcasecmp(field, "double") == 0)
        info->field = FB_MTX_REAL;
    else if (strcasecmp(field, "integer") == 0)
        info->field = FB_MTX_INTEGER;
    else if (strcasecmp(field, "pattern") == 0)
        info->field = FB_MTX_PATTERN;
    else
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: unknown field '%s' (expected real, integer, pattern or complex)", c->name,
                field);
    if (strcasecmp(sym, "general") == 0)
        info->symmetry = FB_MTX_GENERAL;
    else if (strcasecmp(sym, "symmetric") == 0)
        info->symmetry = FB_MTX_SYMMETRIC;
    else if (strcasecmp(sym, "skew-symmetric") == 0)
        info->symmetry = FB_MTX_SKEW;
    else if (strcasecmp(sym, "hermitian") == 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: hermitian storage is only defined for complex matrices", c->name);
    else
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: unknown symmetry '%s' (expected general, symmetric or skew-symmetric)",
                c->name, sym);
    if (info->array && info->field == FB_MTX_PATTERN)
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: a pattern matrix cannot be in array format", c->name);
    if (info->symmetry == FB_MTX_SKEW && info->field == FB_MTX_PATTERN)
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: a skew-symmetric matrix cannot be a pattern", c->name);
fail:
    return status;
}

/* Most entries a rows x cols matrix of this symmetry can store. */
static int64_t max_entries(const fb_mtx_info *info)
{
    int64_t n = info->nrows;
    if (info->symmetry == FB_MTX_SYMMETRIC) return n * (n + 1) / 2;
    if (info->symmetry == FB_MTX_SKEW) return n * (n - 1) / 2;
    return info->nrows * info->ncols; /* both < 2^31: no overflow */
}

/* Rows and columns cost memory even when empty (CSR row pointers, x and y
 * vectors), so a file may declare at most 2^20 of each plus 16 per byte
 * it holds: no real matrix comes near that, and a 60-byte file cannot ask
 * for 6 GB. */
static int64_t max_dimension(const fb_cursor *c)
{
    int64_t bytes = (int64_t)(c->end - c->begin), most = (INT64_C(1) << 20) + 16 * bytes;
    return most < FB_CSR_MAX_DIM ? most : FB_CSR_MAX_DIM;
}

static fb_status dimension(fb_cursor *c, const char *what, int64_t *out)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_cursor_int(c, what, 0, INT64_MAX, out));
    if (*out > FB_CSR_MAX_DIM)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %lld %s is too large (flowbench keeps 32-bit indices: at most %d)",
                c->name, (long long)c->line, (long long)*out, what, FB_CSR_MAX_DIM);
    if (*out > max_dimension(c))
        FB_FAIL(FB_ERR_INPUT,
                "%s: line %lld: %lld %s declared in a %lld-byte file (at most 2^20 + 16 per byte: "
                "empty rows and columns still cost memory)",
                c->name, (long long)c->line, (long long)*out, what, (long long)(c->end - c->begin));
fail:
    return status;
}

static fb_status size_line(fb_cursor *c, fb_mtx_info *info)
{
    fb_status status = FB_OK;
    info->size_line = c->line;
    FB_CHECK(dimension(c, "rows", &info->nrows));
    FB_CHECK(dimension(c, "columns", &info->ncols));
    if (!info->array) FB_CHECK(fb_cursor_int(c, "the number of entries", 0, INT64_MAX, &info->entries));
    FB_CHECK(fb_cursor_end_line(c, "the size line"));
    if (info->symmetry != FB_MTX_GENERAL && info->nrows != info->ncols)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: a %s matrix must be square (%lld x %lld declared)", c->name,
                (long long)info->size_line, fb_mtx_symmetry_name(info->symmetry), (long long)info->nrows,
                (long long)info->ncols);
    if (info->array)
        info->entries = max_entries(info);
    else if (info->entries > max_entries(info))
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %lld entries declared but a %s %lld x %lld matrix holds at most %lld",
                c->name, (long long)info->size_line, (long long)info->entries, fb_mtx_symmetry_name(info->symmetry),
                (long long)info->nrows, (long long)info->ncols, (long long)max_entries(info));
    if (info->entries > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %lld entries is too many (flowbench keeps 32-bit indices: nnz < 2^31)",
                c->name, (long long)info->size_line, (long long)info->entries);
    /* shortest entry lines: "1\n" (array), "1 1\n" (pattern), "1 1 1\n" */
    FB_CHECK(fb_cursor_check_room(c, info->entries,
                                  info->array                     ? 2
                                  : info->field == FB_MTX_PATTERN ? 4
                                                                  : 6,
                                  "entries"));
fail:
    return status;
}

fb_status fb_mtx_read_header(fb_cursor *c, fb_mtx_info *info)
{
    fb_status status = FB_OK;
    static const char banner[] = "%%MatrixMarket";
    size_t blen = sizeof banner - 1;
    memset(info, 0, sizeof *info);
    if (c->p >= c->end) FB_FAIL(FB_ERR_INPUT, "%s: empty file", c->name);
    if ((size_t)(c->end - c->p) < blen || memcmp(c->p, banner, blen) != 0 ||
        (c->p + blen < c->end && !fb_is_delim(c->p[blen])))
        FB_FAIL(FB_ERR_INPUT, "%s: line 1: not a Matrix Market file (the first line must start with %s)", c->name,
                banner);
    c->p += blen;
    FB_CHECK(banner_words(c, info));
    fb_cursor_skip_empty(c, '%');
    if (fb_cursor_eof(c))
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: file ends before the size line", c->name, (long long)c->line);
    FB_CHECK(size_line(c, info));
fail:
    return status;
}

/* ---- body: chunks ------------------------------------------------------- */

typedef struct chunk {
    const char *begin, *end;
    int64_t lines, entries;          /* pass 1: newlines and entry lines */
    int64_t first_line, first_entry; /* prefix sums */
    int64_t offdiag;                 /* pass 2: entries off the diagonal */
    int64_t err_line;                /* pass 2: first error, 0 if none */
    char err[192];
} chunk;

typedef struct body {
    const char *name;
    fb_mtx_info info;
    chunk *chunks;
    int nchunks;
    int64_t lines, entries;
    int *row, *col; /* coordinate: capacity covers the symmetric mirror */
    double *val;    /* NULL for pattern */
} body;

static int is_blank_char(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* First non-blank of the line, or le: lines that are blank or start with
 * '%' hold no entry. */
static const char *entry_start(const char *p, const char *le)
{
    while (p < le && is_blank_char(*p))
        ++p;
    return p < le && *p != '%' ? p : NULL;
}

static void count_chunk(chunk *ch)
{
    for (const char *p = ch->begin; p < ch->end;) {
        const char *nl = memchr(p, '\n', (size_t)(ch->end - p)), *le = nl ? nl : ch->end;
        if (entry_start(p, le)) ch->entries++;
        if (nl) ch->lines++;
        p = le + 1;
    }
}

static fb_status split(body *b, const char *begin, const char *end)
{
    fb_status status = FB_OK;
    size_t size = (size_t)(end - begin);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    /* 4 chunks per thread balance uneven lines; small files are one chunk */
    b->nchunks = size < ((size_t)1 << 20) ? 1 : 4 * threads;
    FB_ALLOC(b->chunks, b->nchunks, "chunk table");
    const char *p = begin;
    for (int k = 0; k < b->nchunks; ++k) {
        const char *e = k == b->nchunks - 1 ? end : begin + size / (size_t)b->nchunks * (size_t)(k + 1);
        if (e < p) e = p;
        const char *nl = e < end ? memchr(e, '\n', (size_t)(end - e)) : NULL;
        e = k == b->nchunks - 1 ? end : nl ? nl + 1 : end;
        b->chunks[k].begin = p;
        b->chunks[k].end = e;
        p = e;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < b->nchunks; ++k)
        count_chunk(&b->chunks[k]);
fail:
    return status;
}

static void prefix_sums(body *b, int64_t first_line)
{
    int64_t line = first_line, entry = 0;
    for (int k = 0; k < b->nchunks; ++k) {
        b->chunks[k].first_line = line;
        b->chunks[k].first_entry = entry;
        line += b->chunks[k].lines;
        entry += b->chunks[k].entries;
    }
    b->lines = line - first_line;
    b->entries = entry;
}

/* ---- body: one entry ---------------------------------------------------- */

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), 1)

static int parse_index(const char **p, const char *le, int64_t max, const char *what, int *out, char *err,
                       size_t errlen)
{
    char tok[64];
    int64_t v = 0;
    while (*p < le && is_blank_char(**p))
        ++*p;
    if (*p >= le) return ERR("expected a %s index, found end of line", what);
    const char *start = *p;
    fb_num r = fb_parse_int64(p, le, &v);
    if (r == FB_NUM_OK && v >= 1 && v <= max) {
        *out = (int)(v - 1);
        return 0;
    }
    fb_token_show(start, le, tok, sizeof tok);
    if (r == FB_NUM_BAD) return ERR("expected a %s index, found '%s'", what, tok);
    return ERR("%s index %s out of range 1..%lld", what, tok, (long long)max);
}

/* Token shown only on the error path: this runs once per entry. */
static int parse_value(const char **p, const char *le, fb_mtx_field field, double *out, char *err, size_t errlen)
{
    char tok[64];
    while (*p < le && is_blank_char(**p))
        ++*p;
    if (*p >= le) return ERR("expected a value, found end of line");
    const char *start = *p;
    if (field == FB_MTX_INTEGER) {
        int64_t v = 0;
        fb_num r = fb_parse_int64(p, le, &v);
        if (r == FB_NUM_OK && v <= (INT64_C(1) << 53) && v >= -(INT64_C(1) << 53)) {
            *out = (double)v;
            return 0;
        }
        fb_token_show(start, le, tok, sizeof tok);
        if (r == FB_NUM_BAD) return ERR("expected an integer value, found '%s'", tok);
        return ERR("integer value '%s' is not exactly representable as a double (|v| > 2^53)", tok);
    }
    fb_num r = fb_parse_double(p, le, out);
    if (r == FB_NUM_OK) return 0;
    fb_token_show(start, le, tok, sizeof tok);
    if (r == FB_NUM_BAD) return ERR("expected a real value, found '%s'", tok);
    return ERR("value '%s' is not a finite double", tok);
}

static int line_end(const char *p, const char *le, const char *after, char *err, size_t errlen)
{
    char tok[64];
    while (p < le && is_blank_char(*p))
        ++p;
    if (p == le) return 0;
    fb_token_show(p, le, tok, sizeof tok);
    return ERR("unexpected '%s' after %s", tok, after);
}

/* One coordinate line "i j [v]" into slot k. */
static int coordinate_entry(body *b, const char *p, const char *le, int64_t k, char *err, size_t errlen)
{
    const fb_mtx_info *in = &b->info;
    int i = 0, j = 0;
    double v = 1.0;
    if (parse_index(&p, le, in->nrows, "row", &i, err, errlen)) return 1;
    if (parse_index(&p, le, in->ncols, "column", &j, err, errlen)) return 1;
    if (in->field != FB_MTX_PATTERN && parse_value(&p, le, in->field, &v, err, errlen)) return 1;
    if (line_end(p, le, "the entry", err, errlen)) return 1;
    if (in->symmetry == FB_MTX_SKEW && i == j && v != 0.0)
        return ERR("skew-symmetric matrix with a nonzero diagonal entry (%d, %d)", i + 1, j + 1);
    b->row[k] = i;
    b->col[k] = j;
    if (b->val) b->val[k] = v;
    return 0;
}

/* One array line "v" into slot k. */
static int array_entry(body *b, const char *p, const char *le, int64_t k, char *err, size_t errlen)
{
    if (parse_value(&p, le, b->info.field, &b->val[k], err, errlen)) return 1;
    return line_end(p, le, "the value", err, errlen);
}

static void parse_chunk(body *b, chunk *ch)
{
    int64_t line = ch->first_line, k = ch->first_entry;
    for (const char *p = ch->begin; p < ch->end && !ch->err_line; ++line) {
        const char *nl = memchr(p, '\n', (size_t)(ch->end - p)), *le = nl ? nl : ch->end;
        const char *s = entry_start(p, le);
        p = le + 1;
        if (!s) continue;
        if (k >= b->info.entries) {
            snprintf(ch->err, sizeof ch->err, "more entries than the %lld declared on line %lld",
                     (long long)b->info.entries, (long long)b->info.size_line);
            ch->err_line = line;
        } else if (b->info.array ? array_entry(b, s, le, k, ch->err, sizeof ch->err)
                                 : coordinate_entry(b, s, le, k, ch->err, sizeof ch->err)) {
            ch->err_line = line;
        } else if (!b->info.array && b->row[k] != b->col[k]) {
            ch->offdiag++;
        }
        ++k;
    }
}

/* The earliest error of any chunk, as one fb_error line. */
static fb_status first_error(const body *b)
{
    const chunk *best = NULL;
    for (int k = 0; k < b->nchunks; ++k)
        if (b->chunks[k].err_line && (!best || b->chunks[k].err_line < best->err_line)) best = &b->chunks[k];
    if (!best) return FB_OK;
    return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %lld: %s", b->name, (long long)best->err_line,
                        best->err);
}

static fb_status parse_all(body *b)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < b->nchunks; ++k)
        parse_chunk(b, &b->chunks[k]);
    return first_error(b);
}

/* ---- the bound on gzip input -------------------------------------------- */

#define ENTRY_LINE_MAX 256 /* generous: "%d %d %.17g" is at most 47 bytes */

/* Whether the banner line [p, le) says "array" (its second word, as
 * banner_words reads it). */
static int banner_is_array(const char *p, const char *le)
{
    for (int word = 0; p < le; ++word) {
        while (p < le && fb_is_delim(*p))
            ++p;
        const char *w = p;
        while (p < le && !fb_is_delim(*p))
            ++p;
        if (word == 2) return p - w == 5 && strncasecmp(w, "array", 5) == 0;
    }
    return 0;
}

static int64_t saturating_product(int64_t a, int64_t b) { return a != 0 && b > INT64_MAX / a ? INT64_MAX : a * b; }

void fb_mtx_text_limit(const char *d, size_t n, fb_text_limit *limit)
{
    static const char banner[] = "%%MatrixMarket";
    const char *end = d + n, *p = memchr(d, '\n', n);
    int64_t v[3];
    if (n < sizeof banner - 1) return;
    if (memcmp(d, banner, sizeof banner - 1) != 0) {
        limit->stop = 1; /* refused on line 1 */
        return;
    }
    if (!p) return;
    int array = banner_is_array(d, p), want = array ? 2 : 3;
    for (++p; p < end && p - d <= FB_TEXT_HEADER_MAX;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return; /* the line is not all here yet */
        const char *s = entry_start(p, nl);
        if (s) { /* the size line */
            if (fb_text_line_ints(s, nl, v, want) != want) {
                limit->stop = 1; /* refused on the size line */
                return;
            }
            int64_t entries = array ? saturating_product(v[0], v[1]) : v[2];
            fb_text_limit_set(limit, nl + 1 - d, entries, ENTRY_LINE_MAX);
            snprintf(limit->why, sizeof limit->why, "its size line allows for %lld entries", (long long)entries);
            limit->done = 1;
            return;
        }
        p = nl + 1;
    }
}

/* ---- body: assembling the result ---------------------------------------- */

/* a(j,i) = a(i,j) (symmetric) or -a(i,j) (skew), written after the n
 * stored entries, chunk by chunk in parallel. */
static fb_status mirror(body *b, int64_t *total)
{
    fb_status status = FB_OK;
    int64_t n = b->entries, extra = 0;
    for (int k = 0; k < b->nchunks; ++k)
        extra += b->chunks[k].offdiag;
    if (n + extra > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_INPUT,
                "%s: %lld entries become %lld after symmetric expansion: flowbench keeps 32-bit indices "
                "(nnz < 2^31)",
                b->name, (long long)n, (long long)(n + extra));
    double sign = b->info.symmetry == FB_MTX_SKEW ? -1.0 : 1.0;
    int64_t *offset = NULL;
    FB_ALLOC(offset, b->nchunks, "mirror offsets");
    for (int k = 1; k < b->nchunks; ++k)
        offset[k] = offset[k - 1] + b->chunks[k - 1].offdiag;
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < b->nchunks; ++k) {
        int64_t w = n + offset[k];
        for (int64_t e = b->chunks[k].first_entry; e < b->chunks[k].first_entry + b->chunks[k].entries; ++e) {
            if (b->row[e] == b->col[e]) continue;
            b->row[w] = b->col[e];
            b->col[w] = b->row[e];
            if (b->val) b->val[w] = sign * b->val[e];
            ++w;
        }
    }
    free(offset);
    *total = n + extra;
fail:
    return status;
}

static fb_status count_matches(const body *b)
{
    fb_status status = FB_OK;
    if (b->entries < b->info.entries) {
        int64_t last =
            b->info.size_line + b->lines +
            (b->chunks[b->nchunks - 1].end > b->chunks[0].begin && b->chunks[b->nchunks - 1].end[-1] != '\n');
        FB_FAIL(FB_ERR_INPUT,
                "%s: line %lld: file ends after %lld of the %lld entries declared on line %lld "
                "(truncated?)",
                b->name, (long long)(last > b->info.size_line ? last : b->info.size_line), (long long)b->entries,
                (long long)b->info.entries, (long long)b->info.size_line);
    }
fail:
    return status;
}

/* Column-major dense from the values in file order. */
static fb_status to_dense(const body *b, fb_dense *X)
{
    fb_status status = FB_OK;
    int64_t n = b->info.nrows, m = b->info.ncols, k = 0;
    X->nrows = (int)n;
    X->ncols = (int)m;
    int64_t nvalues = n * m;
    FB_ALLOC(X->values, nvalues, "dense matrix");
    for (int64_t j = 0; j < m; ++j) {
        int64_t i0 = b->info.symmetry == FB_MTX_GENERAL ? 0 : b->info.symmetry == FB_MTX_SYMMETRIC ? j : j + 1;
        for (int64_t i = i0; i < n; ++i, ++k) {
            X->values[j * n + i] = b->val[k];
            if (i != j && b->info.symmetry != FB_MTX_GENERAL)
                X->values[i * n + j] = b->info.symmetry == FB_MTX_SKEW ? -b->val[k] : b->val[k];
        }
    }
fail:
    return status;
}

/* Capacity: the entry lines present (at most the declared count), twice
 * that for symmetric storage so the mirror needs no second allocation. */
static fb_status alloc_body(body *b, int64_t n)
{
    fb_status status = FB_OK;
    int64_t cap = n;
    if (!b->info.array && b->info.symmetry != FB_MTX_GENERAL) cap = 2 * n < FB_CSR_MAX_NNZ ? 2 * n : FB_CSR_MAX_NNZ;
    if (cap < n) cap = n;
    if (!b->info.array) {
        FB_ALLOC(b->row, cap, "entry rows");
        FB_ALLOC(b->col, cap, "entry columns");
    }
    if (b->info.array || b->info.field != FB_MTX_PATTERN) FB_ALLOC(b->val, cap, "entry values");
fail:
    return status;
}

static void body_free(body *b)
{
    free(b->chunks);
    free(b->row);
    free(b->col);
    free(b->val);
}

/* Prefixes the message of a failure raised without the file's name. */
static fb_status in_file(const char *name, fb_status st)
{
    char msg[1024];
    if (st == FB_OK) return st;
    snprintf(msg, sizeof msg, "%s", fb_error_message());
    return fb_error_set(st, __FILE__, __LINE__, "%s: %s", name, msg);
}

static fb_status read_body(fb_cursor *c, fb_text_bytes *buf, const fb_mtx_info *info, fb_mtx *out)
{
    fb_status status = FB_OK;
    body b = {.name = c->name, .info = *info};
    int64_t total = 0;
    FB_CHECK(split(&b, c->p, c->end));
    prefix_sums(&b, c->line);
    /* sized by entry lines actually present, never more than declared */
    FB_CHECK(alloc_body(&b, b.entries < info->entries ? b.entries : info->entries));
    FB_CHECK(parse_all(&b));
    FB_CHECK(count_matches(&b));
    fb_text_bytes_free(buf); /* the text is no longer needed: give its memory to CSR */
    if (info->array) {
        FB_CHECK(to_dense(&b, &out->dense));
    } else {
        total = b.entries;
        if (info->symmetry != FB_MTX_GENERAL) FB_CHECK(mirror(&b, &total));
        FB_CHECK(in_file(c->name, fb_csr_from_coo(info->nrows, info->ncols, total, b.row, b.col, b.val, &out->csr)));
    }
fail:
    body_free(&b);
    return status;
}

static fb_status read_buffer(const char *name, fb_text_bytes *buf, void *result)
{
    fb_mtx *out = result;
    fb_status status = FB_OK;
    fb_cursor c;
    fb_cursor_init(&c, name, buf->data, buf->size);
    FB_CHECK(fb_mtx_read_header(&c, &out->info));
    FB_CHECK(read_body(&c, buf, &out->info, out));
    return FB_OK;
fail:
    fb_mtx_free(out);
    return status;
}

fb_status fb_mtx_read(const char *path, fb_mtx *out)
{
    return fb_text_read(path, NULL, 0, fb_mtx_text_limit, read_buffer, out, sizeof *out);
}

fb_status fb_mtx_read_memory(const char *name, const void *data, size_t n, fb_mtx *out)
{
    return fb_text_read(name, data, n, fb_mtx_text_limit, read_buffer, out, sizeof *out);
}
