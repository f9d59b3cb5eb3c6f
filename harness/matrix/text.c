/* text.c - files into memory (with gunzip), exact number parsing, and the
 * line-aware cursor behind every matrix and mesh reader. */
#include "text.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/files.h"

/* ---- buffers ----------------------------------------------------------- */

void fb_text_bytes_free(fb_text_bytes *b)
{
    if (!b) return;
    if (b->mapped)
        munmap(b->data, b->size);
    else
        free(b->data);
    memset(b, 0, sizeof *b);
}

static int is_gzip(const unsigned char *d, size_t n) { return n >= 2 && d[0] == 0x1f && d[1] == 0x8b; }

/* ---- gzip, bounded by the header ---------------------------------------- */

#define INFLATE_STEP ((size_t)64 << 20) /* the most inflated between two checks of the limit */

void fb_text_limit_set(fb_text_limit *limit, int64_t from, int64_t counts, int64_t per_record)
{
    int64_t room = INT64_MAX - from - FB_TEXT_SLACK;
    limit->bytes = counts > room / per_record ? INT64_MAX : from + counts * per_record + FB_TEXT_SLACK;
}

int fb_text_line_ints(const char *p, const char *le, int64_t *v, int k)
{
    int n = 0;
    for (; n < k; ++n) {
        while (p < le && fb_is_delim(*p))
            ++p;
        if (p >= le) break;
        if (fb_parse_int64(&p, le, &v[n]) != FB_NUM_OK || v[n] < 0) return -1;
    }
    return n;
}

/* FB_ERR_INPUT as soon as the text inflated so far outgrows what its
 * header allows (each call reads only what the last one had not). */
static fb_status within_limit(const char *name, const char *text, size_t used, fb_text_limit_fn fn,
                              fb_text_limit *limit)
{
    fb_status status = FB_OK;
    if (!fn) return FB_OK;
    if (!limit->done && !limit->stop) fn(text, used, limit);
    if (!limit->stop && used > (uint64_t)limit->bytes)
        FB_FAIL(FB_ERR_INPUT, "%s: gzip data inflates beyond %lld bytes, more than %s (a gzip bomb?)", name,
                (long long)limit->bytes, limit->why);
fail:
    return status;
}

/* Inflates gzip members one after another. The output grows as data
 * actually decompresses: no size is taken from the gzip trailer, and the
 * growth stops where the header's counts say the text must end. */
static fb_status gunzip(const char *name, const unsigned char *in, size_t n, fb_text_limit_fn limit_fn,
                        fb_text_bytes *out)
{
    fb_status status = FB_OK;
    z_stream zs;
    size_t cap = n < ((size_t)1 << 20) ? ((size_t)1 << 20) : n * 4, used = 0;
    int rc = Z_OK, inited = 0;
    fb_text_limit limit = {.bytes = FB_TEXT_HEADER_MAX};
    snprintf(limit.why, sizeof limit.why, "a header may hold before its first count");
    memset(&zs, 0, sizeof zs);
    char *buf = malloc(cap + 1);
    if (!buf) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory decompressing", name);
    if (inflateInit2(&zs, 15 + 16) != Z_OK) FB_FAIL(FB_ERR_NOMEM, "%s: zlib could not start", name);
    inited = 1;
    size_t in_left = n;
    zs.next_in = (unsigned char *)in;
    for (;;) {
        if (zs.avail_in == 0 && in_left > 0) {
            zs.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
            in_left -= zs.avail_in;
        }
        if (used == cap) {
            char *bigger = cap > SIZE_MAX / 2 - 1 ? NULL : realloc(buf, cap * 2 + 1);
            if (!bigger) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory decompressing (%zu bytes so far)", name, used);
            buf = bigger;
            cap *= 2;
        }
        size_t room = cap - used > INFLATE_STEP ? INFLATE_STEP : cap - used;
        zs.next_out = (unsigned char *)buf + used;
        zs.avail_out = (uInt)room;
        rc = inflate(&zs, Z_NO_FLUSH);
        used += room - zs.avail_out;
        FB_CHECK(within_limit(name, buf, used, limit_fn, &limit));
        if (limit.stop) break; /* the parser refuses the header it has */
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0 && in_left == 0) break;
            /* another member follows (gzip -c a b > ab.gz), or junk */
            if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b)
                FB_FAIL(FB_ERR_INPUT, "%s: trailing garbage after the gzip data", name);
            inflateReset(&zs);
        } else if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
            FB_FAIL(FB_ERR_INPUT, "%s: truncated gzip data (%zu bytes decompressed)", name, used);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            FB_FAIL(FB_ERR_INPUT, "%s: corrupt gzip data (%s)", name, zs.msg ? zs.msg : "zlib error");
        }
    }
    buf[used] = '\0';
    out->data = buf;
    out->size = used;
    out->gzipped = 1;
    buf = NULL;
fail:
    if (inited) inflateEnd(&zs);
    free(buf);
    return status;
}

static fb_status text_from_memory(const char *name, const void *data, size_t n, fb_text_limit_fn limit,
                                  fb_text_bytes *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    if (is_gzip(data, n)) return gunzip(name, data, n, limit, out);
    out->data = malloc(n + 1);
    if (!out->data) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory (%zu bytes)", name, n + 1);
    if (n) memcpy(out->data, data, n);
    out->data[n] = '\0';
    out->size = n;
fail:
    return status;
}

static fb_status read_all(const char *path, int fd, size_t size, char *buf)
{
    fb_status status = FB_OK;
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got > (1u << 30) ? (1u << 30) : size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) FB_FAIL(FB_ERR_IO, "%s: read failed: %s", path, strerror(errno));
        if (r == 0) FB_FAIL(FB_ERR_IO, "%s: file shrank while being read", path);
        got += (size_t)r;
    }
fail:
    return status;
}

#define MAP_THRESHOLD ((off_t)64 << 20)

/* Maps a large plain (not gzip) file; *mapped = 0 when it is small,
 * compressed, or the mapping fails (then it is read instead). */
static void try_map(int fd, off_t size, fb_text_bytes *out)
{
    unsigned char magic[2] = {0, 0};
    if (size < MAP_THRESHOLD || pread(fd, magic, 2, 0) != 2 || is_gzip(magic, 2)) return;
    void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return;
    madvise(p, (size_t)size, MADV_WILLNEED);
    out->data = p;
    out->size = (size_t)size;
    out->mapped = 1;
}

/* Reads a file that is not mapped; gunzips it when it starts with the magic. */
static fb_status read_file(const char *path, int fd, size_t size, fb_text_limit_fn limit, fb_text_bytes *out)
{
    fb_status status = FB_OK;
    char *raw = malloc(size + 1);
    if (!raw) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory reading %zu bytes", path, size);
    FB_CHECK(read_all(path, fd, size, raw));
    raw[size] = '\0';
    if (is_gzip((unsigned char *)raw, size)) {
        FB_CHECK(gunzip(path, (unsigned char *)raw, size, limit, out));
    } else {
        out->data = raw;
        out->size = size;
        raw = NULL;
    }
fail:
    free(raw);
    return status;
}

static fb_status text_load(const char *path, fb_text_limit_fn limit, fb_text_bytes *out)
{
    fb_status status = FB_OK;
    struct stat st;
    int fd = -1;
    memset(out, 0, sizeof *out);
    /* a file that is missing or not a file is the user's input, not an
     * i/o failure: exit status 2 like any other bad input */
    FB_CHECK(fb_file_open_read(path, NULL, &fd));
    if (fstat(fd, &st) != 0) FB_FAIL(FB_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    try_map(fd, st.st_size, out);
    if (!out->mapped) FB_CHECK(read_file(path, fd, (size_t)st.st_size, limit, out));
fail:
    if (fd >= 0) close(fd);
    return status;
}

fb_status fb_text_read(const char *name, const void *data, size_t n, fb_text_limit_fn limit, fb_text_parse_fn parse,
                       void *out, size_t out_size)
{
    fb_status status = FB_OK;
    fb_text_bytes text = {0};
    memset(out, 0, out_size);
    if (data)
        FB_CHECK(text_from_memory(name, data, n, limit, &text));
    else
        FB_CHECK(text_load(name, limit, &text));
    status = parse(name, &text, out);
fail:
    fb_text_bytes_free(&text);
    return status;
}

/* ---- numbers ------------------------------------------------------------ */

static const char *token_end(const char *p, const char *end)
{
    while (p < end && !fb_is_delim(*p))
        ++p;
    return p;
}

fb_num fb_parse_int64(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    int neg = 0;
    uint64_t v = 0, limit;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (p == end || *p < '0' || *p > '9') return FB_NUM_BAD;
    int overflow = 0;
    for (; p < end && *p >= '0' && *p <= '9'; ++p) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (limit - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (p < end && !fb_is_delim(*p)) return FB_NUM_BAD;
    if (overflow) return FB_NUM_RANGE;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *pp = p;
    return FB_NUM_OK;
}

/* strtod on a NUL-terminated copy of the token: for what the fast path
 * does not take (more than 19 digits, large exponents, inf, hex). */
static fb_num slow_double(const char **pp, const char *end, double *out)
{
    const char *e = token_end(*pp, end);
    char tmp[512], *stop = NULL;
    size_t len = (size_t)(e - *pp);
    if (len == 0 || len >= sizeof tmp) return FB_NUM_BAD;
    memcpy(tmp, *pp, len);
    tmp[len] = '\0';
    errno = 0;
    double v = strtod(tmp, &stop);
    if (stop != tmp + len) return FB_NUM_BAD;
    if (!isfinite(v)) return FB_NUM_RANGE; /* overflow, inf, nan: not a matrix value */
    *out = v;
    *pp = e;
    return FB_NUM_OK;
}

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Digits into a 64-bit mantissa: up to 19 significant digits, the decimal
 * exponent adjusted for those after the point. *ndig counts all significant
 * digits seen (more than 19 means the fast path cannot be exact). */
static const char *mantissa(const char *p, const char *end, uint64_t *m, int *e10, int *ndig, int *any)
{
    while (p < end && *p == '0')
        ++p, *any = 1;
    for (; p < end && *p >= '0' && *p <= '9'; ++p, *any = 1) {
        if (*ndig < 19)
            *m = *m * 10 + (uint64_t)(*p - '0');
        else
            ++*e10;
        ++*ndig;
    }
    if (p < end && *p == '.') {
        ++p;
        if (*ndig == 0)
            while (p < end && *p == '0')
                ++p, --*e10, *any = 1;
        for (; p < end && *p >= '0' && *p <= '9'; ++p, *any = 1) {
            if (*ndig < 19) *m = *m * 10 + (uint64_t)(*p - '0'), --*e10;
            ++*ndig;
        }
    }
    return p;
}

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/* 17 to 19 digits (what %.17g writes) with |e| <= 27: m and 10^|e| are exact
 * in x87 extended precision, so r = m * 10^e (or m / 10^|e|) is rounded
 * once, to 64 bits. Rounding r again to 53 bits can differ from rounding
 * the exact value only if r lies exactly on a midpoint between two
 * doubles, i.e. its low 11 mantissa bits are 10000000000b: then strtod
 * decides. Returns 0 when it cannot decide. */
static int extended_double(uint64_t m, int e10, double *out)
{
    static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                        1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                        1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (e10 < -27 || e10 > 27) return 0;
    long double r = e10 >= 0 ? (long double)m * p10[e10] : (long double)m / p10[-e10];
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits); /* the explicit 64-bit significand */
    if ((bits & 0x7ff) == 0x400) return 0;
    *out = (double)r;
    return 1;
}
#else
static int extended_double(uint64_t m, int e10, double *out)
{
    (void)m, (void)e10, (void)out;
    return 0;
}
#endif

fb_num fb_parse_double(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    uint64_t m = 0;
    int neg = 0, e10 = 0, ndig = 0, any = 0;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    p = mantissa(p, end, &m, &e10, &ndig, &any);
    if (!any) return slow_double(pp, end, out);
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, ev = 0, edig = 0;
        ++p;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; p < end && *p >= '0' && *p <= '9'; ++p, ++edig)
            if (ev < 100000) ev = ev * 10 + (*p - '0');
        if (!edig) return FB_NUM_BAD;
        e10 += eneg ? -ev : ev;
    }
    if (p < end && !fb_is_delim(*p)) return slow_double(pp, end, out);
    double v = 0.0;
    if (ndig > 19) return slow_double(pp, end, out);
    if (m == 0)
        v = 0.0;
    else if (m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22)
        /* Clinger: m and 10^|e| are exact doubles, so one IEEE operation
         * rounds correctly */
        v = e10 >= 0 ? (double)m * exact_pow10[e10] : (double)m / exact_pow10[-e10];
    else if (!extended_double(m, e10, &v))
        return slow_double(pp, end, out);
    *out = neg ? -v : v;
    *pp = p;
    return FB_NUM_OK;
}

void fb_token_show(const char *p, const char *end, char *buf, size_t len)
{
    size_t w = 0;
    const char *e = token_end(p, end);
    int cut = 0;
    if (e - p > 24) e = p + 24, cut = 1;
    for (; p < e && w + 5 < len; ++p) {
        unsigned char ch = (unsigned char)*p;
        if (ch >= 0x20 && ch < 0x7f && ch != '\'')
            buf[w++] = (char)ch;
        else
            w += (size_t)snprintf(buf + w, len - w, "\\x%02x", ch);
    }
    if (cut && w + 4 < len) memcpy(buf + w, "...", 3), w += 3;
    buf[w < len ? w : len - 1] = '\0';
}

/* ---- cursor ------------------------------------------------------------- */

void fb_cursor_init(fb_cursor *c, const char *name, const char *data, size_t n)
{
    c->name = name;
    c->begin = data;
    c->p = data;
    c->end = data + n;
    c->line = 1;
}

int fb_cursor_eof(const fb_cursor *c) { return c->p >= c->end; }

void fb_cursor_blanks(fb_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\v' || *c->p == '\f'))
        ++c->p;
}

int fb_cursor_at_eol(fb_cursor *c)
{
    fb_cursor_blanks(c);
    return c->p >= c->end || *c->p == '\n';
}

void fb_cursor_next_line(fb_cursor *c)
{
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    c->p = nl ? nl + 1 : c->end;
    if (nl) ++c->line;
}

void fb_cursor_skip_empty(fb_cursor *c, char comment)
{
    while (c->p < c->end) {
        const char *save = c->p;
        fb_cursor_blanks(c);
        if (c->p < c->end && *c->p != '\n' && !(comment && *c->p == comment)) {
            c->p = save;
            return;
        }
        fb_cursor_next_line(c);
    }
}

static fb_status expected(fb_cursor *c, const char *what)
{
    char tok[128];
    if (c->p >= c->end)
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %lld: expected %s, found end of file", c->name,
                            (long long)c->line, what);
    if (*c->p == '\n')
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %lld: expected %s, found end of line", c->name,
                            (long long)c->line, what);
    fb_token_show(c->p, c->end, tok, sizeof tok);
    return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %lld: expected %s, found '%s'", c->name,
                        (long long)c->line, what, tok);
}

fb_status fb_cursor_int(fb_cursor *c, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    fb_status status = FB_OK;
    char tok[128];
    fb_cursor_blanks(c);
    const char *start = c->p;
    fb_num r = fb_parse_int64(&c->p, c->end, out);
    if (r == FB_NUM_BAD) return expected(c, what);
    fb_token_show(start, c->end, tok, sizeof tok);
    if (r == FB_NUM_RANGE || *out < lo || *out > hi)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %s %s out of range %lld..%lld", c->name, (long long)c->line, what, tok,
                (long long)lo, (long long)hi);
fail:
    return status;
}

fb_status fb_cursor_real(fb_cursor *c, const char *what, double *out)
{
    fb_status status = FB_OK;
    char tok[128];
    fb_cursor_blanks(c);
    const char *start = c->p;
    fb_num r = fb_parse_double(&c->p, c->end, out);
    if (r == FB_NUM_BAD) return expected(c, what);
    if (r == FB_NUM_RANGE) {
        fb_token_show(start, c->end, tok, sizeof tok);
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %s '%s' is not a finite double", c->name, (long long)c->line, what, tok);
    }
fail:
    return status;
}

fb_status fb_cursor_word(fb_cursor *c, const char *what, char *buf, size_t len)
{
    fb_cursor_blanks(c);
    const char *e = token_end(c->p, c->end);
    if (e == c->p) return expected(c, what);
    size_t n = (size_t)(e - c->p) < len - 1 ? (size_t)(e - c->p) : len - 1;
    memcpy(buf, c->p, n);
    buf[n] = '\0';
    c->p = e;
    return FB_OK;
}

fb_status fb_cursor_end_line(fb_cursor *c, const char *after)
{
    fb_status status = FB_OK;
    char tok[128];
    if (!fb_cursor_at_eol(c)) {
        fb_token_show(c->p, c->end, tok, sizeof tok);
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: unexpected '%s' after %s", c->name, (long long)c->line, tok, after);
    }
    fb_cursor_next_line(c);
fail:
    return status;
}

fb_status fb_cursor_check_room(const fb_cursor *c, int64_t count, int64_t min_bytes, const char *what)
{
    fb_status status = FB_OK;
    int64_t left = (int64_t)(c->end - c->p);
    /* the last record may lack its newline */
    if (count > 0 && (count > (left + 1) / min_bytes))
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %lld %s declared but only %lld bytes follow (truncated file?)", c->name,
                (long long)c->line, (long long)count, what, (long long)left);
fail:
    return status;
}
