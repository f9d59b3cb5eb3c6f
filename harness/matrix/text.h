/* text.h - what the matrix and mesh readers share: a whole file in memory
 * (gunzipped when it starts with the gzip magic), a cursor that knows its
 * line number, and number parsers that take a token exactly or refuse it.
 *
 * Readers never trust a count from a header to size an allocation: they
 * compare it with what the remaining bytes could hold first
 * (fb_cursor_check_room), so a 20-byte file cannot ask for 80 GB.
 */
#ifndef FB_MATRIX_TEXT_H
#define FB_MATRIX_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

typedef struct fb_text_bytes {
    char *data; /* size bytes (no terminator: every parser stops at data + size) */
    size_t size;
    int gzipped; /* the input was gzip data */
    int mapped;  /* data is a read-only mmap of the file */
} fb_text_bytes;

/* How large gzip input may grow. A few megabytes of gzip can inflate to
 * gigabytes (a "gzip bomb"), and the trailer's size cannot be trusted, so
 * each format bounds the text from the counts its header declares: the
 * limit function reads the text inflated so far and sets `bytes`, and the
 * inflating stops with an error as soon as the text grows past it. Before
 * a header count is seen the text may hold FB_TEXT_HEADER_MAX bytes. */
#define FB_TEXT_HEADER_MAX ((int64_t)16 << 20)
/* Beyond what the counts allow: comments, blank lines, unknown sections. */
#define FB_TEXT_SLACK ((int64_t)1 << 20)

typedef struct fb_text_limit {
    int64_t bytes; /* the most the inflated text may hold, as far as its header says so far */
    int stop;      /* the header cannot be read: inflate no further, the parser refuses what is here */
    char why[160]; /* what allows `bytes`, for the message */
    /* the limit function's own state between calls */
    size_t scanned; /* bytes of text already read */
    int64_t counts; /* records declared so far */
    int done;       /* `bytes` is final */
} fb_text_limit;

/* Reads the n bytes inflated so far (more each call) and updates limit. */
typedef void (*fb_text_limit_fn)(const char *data, size_t n, fb_text_limit *limit);

/* Reads up to k non-negative integers from the line [p, le) into v: how
 * many there were before the line ended, or -1 at a token that is not one
 * (for limit functions, which read header lines the parser reads later). */
int fb_text_line_ints(const char *p, const char *le, int64_t *v, int k);

/* limit->bytes from `counts` records of at most per_record bytes after
 * offset `from`, saturating (shared by the formats' limit functions). */
void fb_text_limit_set(fb_text_limit *limit, int64_t from, int64_t counts, int64_t per_record);

void fb_text_bytes_free(fb_text_bytes *b);

/* A reader's parser: the text read whole, into the reader's result `out`. */
typedef fb_status (*fb_text_parse_fn)(const char *name, fb_text_bytes *text, void *out);

/* The one way a reader reads: out (out_size bytes) zeroed, the file at
 * `name` (data NULL) or a copy of n bytes at data read whole within
 * `limit`, parsed, and the text freed. A file that is missing or not a
 * regular file is FB_ERR_INPUT, a failed read FB_ERR_IO. Large plain files
 * are mapped rather than copied: reading 3 GB into fresh memory costs the
 * kernel as much time zeroing pages as the parse itself (see
 * docs/matrices.md). gzip input (either kind) is bounded by `limit` (NULL:
 * unbounded). */
fb_status fb_text_read(const char *name, const void *data, size_t n, fb_text_limit_fn limit, fb_text_parse_fn parse,
                       void *out, size_t out_size);

typedef enum fb_num { FB_NUM_OK, FB_NUM_BAD, FB_NUM_RANGE } fb_num;

/* A token ends at a space, tab, CR, LF, VT, FF or the end. */
static inline int fb_is_delim(char ch)
{
    return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Parse one token at *p and advance past it; FB_NUM_BAD if the token is not
 * wholly a number, FB_NUM_RANGE if it does not fit (int64) or is not a
 * finite double. Doubles are correctly rounded (Clinger's exact fast path,
 * strtod otherwise). */
fb_num fb_parse_int64(const char **p, const char *end, int64_t *out);
fb_num fb_parse_double(const char **p, const char *end, double *out);

/* Writes a printable, shortened copy of the token at p ("1.5e", "\x00\x13"). */
void fb_token_show(const char *p, const char *end, char *buf, size_t len);

typedef struct fb_cursor {
    const char *name; /* file name for messages */
    const char *begin, *p, *end;
    int64_t line; /* 1-based line of p */
} fb_cursor;

void fb_cursor_init(fb_cursor *c, const char *name, const char *data, size_t n);
int fb_cursor_eof(const fb_cursor *c);
/* Skips spaces and tabs (not newlines). */
void fb_cursor_blanks(fb_cursor *c);
/* True when only blanks remain on this line. */
int fb_cursor_at_eol(fb_cursor *c);
/* Moves to the start of the next line. */
void fb_cursor_next_line(fb_cursor *c);
/* Skips lines that are blank or start with `comment` (0: none). */
void fb_cursor_skip_empty(fb_cursor *c, char comment);

/* Token readers: FB_ERR_INPUT "NAME: line L: expected WHAT, found ...". */
fb_status fb_cursor_int(fb_cursor *c, const char *what, int64_t lo, int64_t hi, int64_t *out);
fb_status fb_cursor_real(fb_cursor *c, const char *what, double *out);
fb_status fb_cursor_word(fb_cursor *c, const char *what, char *buf, size_t len);
/* Requires the rest of the line to be blank, then moves to the next line. */
fb_status fb_cursor_end_line(fb_cursor *c, const char *after);

/* FB_ERR_INPUT unless `count` records of at least `min_bytes` each fit in
 * what is left of the input (the guard before any header-sized allocation). */
fb_status fb_cursor_check_room(const fb_cursor *c, int64_t count, int64_t min_bytes, const char *what);

#endif
