/* kernel_sources.c - lookup of embedded kernel sources, with an on-disk
 * override for kernel development (FLOWBENCH_KERNEL_DIR), and the program
 * text the device compilers read: preludes, #line directives, includes. */
#include "kernel_sources.h"
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES 64
#define COMMON_PRELUDE "common.cl"
#define MAX_INCLUDE_DEPTH 8

static struct {
    char *path;
    char *text;
} overrides[MAX_OVERRIDES];
static int noverrides;

/* Kept by the file's full path: a process that moves to another override
 * folder (a test of two mutants) reads the other folder's file. */
static const char *from_override_dir(const char *dir, const char *path)
{
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", dir, path);
    for (int i = 0; i < noverrides; ++i)
        if (strcmp(overrides[i].path, full) == 0) return overrides[i].text;
    if (noverrides == MAX_OVERRIDES) return NULL;
    char *text = NULL;
    size_t len = 0;
    if (fb_kernel_file_read(full, &text, &len) != FB_OK) return NULL; /* never a FIFO that blocks */
    overrides[noverrides].path = strdup(full);
    overrides[noverrides].text = text;
    return overrides[noverrides++].text;
}

const char *fb_kernel_source(const char *path)
{
    const char *dir = getenv("FLOWBENCH_KERNEL_DIR");
    if (dir && *dir) return from_override_dir(dir, path);
    for (int i = 0; i < fb_embedded_source_count; ++i)
        if (strcmp(fb_embedded_sources[i].path, path) == 0) return fb_embedded_sources[i].text;
    return NULL;
}

/* A growing, NUL-terminated text. */
typedef struct program_text {
    char *data;
    size_t len, cap;
} program_text;

static fb_status append(program_text *p, const char *s, size_t n)
{
    fb_status status = FB_OK;
    if (p->len + n + 1 > p->cap) {
        size_t cap = 2 * (p->len + n + 1);
        char *grown = realloc(p->data, cap);
        if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory assembling a kernel program (%zu bytes)", cap);
        p->data = grown;
        p->cap = cap;
    }
    memcpy(p->data + p->len, s, n);
    p->len += n;
    p->data[p->len] = '\0';
fail:
    return status;
}

/* name as the inside of a string literal: a '"' or '\\' escaped and a
 * control character (a newline) in octal, so that a user's file name
 * cannot end the directive and start a line of code of its own. -1 when it
 * does not fit. */
static int quote_name(const char *name, char *out, size_t len)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c) {
        if (n + 5 >= len) return -1; /* room for an escape and the NUL */
        if (*c == '"' || *c == '\\') out[n++] = '\\';
        if (*c < 0x20 || *c == 0x7f)
            n += (size_t)snprintf(out + n, len - n, "\\%03o", *c);
        else
            out[n++] = (char)*c;
    }
    out[n] = '\0';
    return 0;
}

/* What follows is line `line` of file `name`, for the compiler's messages. */
static fb_status append_line_directive(program_text *p, int line, const char *name)
{
    fb_status status = FB_OK;
    char directive[4128], quoted[4100]; /* a 1023-byte path escaped whole */
    int n = quote_name(name, quoted, sizeof quoted);
    if (n == 0) n = snprintf(directive, sizeof directive, "#line %d \"%s\"\n", line, quoted);
    if (n < 0 || (size_t)n >= sizeof directive) FB_FAIL(FB_ERR_INPUT, "kernel source name too long: %.80s...", name);
    FB_CHECK(append(p, directive, (size_t)n));
fail:
    return status;
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        ++s;
    return s;
}

/* 1 and the path in `path` if the line (len bytes, no newline) is
 * `#include "path"` (blanks allowed around the '#'), else 0. The <path>
 * form is left to the compiler, which has no files to find it in. */
static int include_path(const char *line, size_t len, char *path, size_t path_len)
{
    const char *end = line + len, *s = skip_blanks(line, end);
    if (s == end || *s != '#') return 0;
    s = skip_blanks(s + 1, end);
    if ((size_t)(end - s) < 7 || strncmp(s, "include", 7) != 0) return 0;
    s = skip_blanks(s + 7, end);
    if (s == end || *s != '"') return 0;
    const char *close = memchr(s + 1, '"', (size_t)(end - s - 1));
    if (!close) return 0;
    snprintf(path, path_len, "%.*s", (int)(close - s - 1), s + 1); /* a longer one matches no source */
    return 1;
}

static void describe_origin(char *out, size_t out_len)
{
    const char *dir = getenv("FLOWBENCH_KERNEL_DIR");
    if (dir && *dir)
        snprintf(out, out_len, "none under FLOWBENCH_KERNEL_DIR=%s", dir);
    else
        snprintf(out, out_len, "none embedded; paths are relative to kernels/");
}

/* Copies text (file `name`) into p, replacing each #include line by the
 * file it names, expanded in turn, between #line directives. */
static fb_status expand(program_text *p, const char *name, const char *text, int depth)
{
    fb_status status = FB_OK;
    char path[512], origin[300];
    int line_no = 1;
    for (const char *line = text; *line; ++line_no) {
        size_t len = strcspn(line, "\n");
        const char *next = line + len + (line[len] == '\n');
        if (!include_path(line, len, path, sizeof path)) {
            FB_CHECK(append(p, line, (size_t)(next - line)));
        } else {
            const char *included = fb_kernel_source(path);
            if (!included) {
                describe_origin(origin, sizeof origin);
                FB_FAIL(FB_ERR_BUILD, "%s:%d: #include \"%s\": no such kernel source (%s)", name, line_no, path,
                        origin);
            }
            if (depth == MAX_INCLUDE_DEPTH)
                FB_FAIL(FB_ERR_BUILD, "%s:%d: #include \"%s\": includes nested deeper than %d (a cycle?)", name,
                        line_no, path, MAX_INCLUDE_DEPTH);
            FB_CHECK(append_line_directive(p, 1, path));
            FB_CHECK(expand(p, path, included, depth + 1));
            FB_CHECK(append_line_directive(p, line_no + 1, name));
        }
        line = next;
    }
    if (p->len > 0 && p->data[p->len - 1] != '\n') FB_CHECK(append(p, "\n", 1)); /* a directive may follow */
fail:
    return status;
}

/* A prelude by its path, under its own name. */
static fb_status expand_prelude(program_text *p, const char *path)
{
    fb_status status = FB_OK;
    char origin[300];
    const char *text = fb_kernel_source(path);
    if (!text) {
        describe_origin(origin, sizeof origin);
        FB_FAIL(FB_ERR_INPUT, "kernel prelude %s is missing (%s)", path, origin);
    }
    FB_CHECK(append_line_directive(p, 1, path));
    FB_CHECK(expand(p, path, text, 0));
fail:
    return status;
}

fb_status fb_kernel_program_text(const char *backend_prelude, const char *source_name, const char *source_text,
                                 char **out)
{
    fb_status status = FB_OK;
    program_text p = {NULL, 0, 0};
    const char *name = source_name ? source_name : "(unnamed source)";
    *out = NULL;
    if (!source_text) FB_FAIL(FB_ERR_INPUT, "%s: no source text", name);
    if (backend_prelude) FB_CHECK(expand_prelude(&p, backend_prelude));
    FB_CHECK(expand_prelude(&p, COMMON_PRELUDE));
    FB_CHECK(append_line_directive(&p, 1, name));
    FB_CHECK(expand(&p, name, source_text, 0));
    *out = p.data;
    return FB_OK;
fail:
    free(p.data);
    return status;
}

fb_status fb_kernel_file_read(const char *path, char **text, size_t *len)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    char *buf = NULL;
    size_t got;
    *text = NULL;
    *len = 0;
    FB_CHECK(fb_file_fopen_read(path, "kernel file", &f));
    FB_ALLOC(buf, FB_KERNEL_FILE_MAX + 1, "a kernel file");
    got = fread(buf, 1, FB_KERNEL_FILE_MAX + 1, f);
    if (ferror(f)) FB_FAIL(FB_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    if (got > FB_KERNEL_FILE_MAX)
        FB_FAIL(FB_ERR_INPUT, "%s: larger than %d bytes: not a kernel file", path, FB_KERNEL_FILE_MAX);
    if (memchr(buf, '\0', got))
        FB_FAIL(FB_ERR_INPUT, "%s: holds a NUL byte at offset %zu: not OpenCL C text", path,
                (size_t)((const char *)memchr(buf, '\0', got) - buf));
    FB_ALLOC(*text, got + 1, "a kernel file"); /* the file's own size, not the read buffer's */
    memcpy(*text, buf, got);
    (*text)[got] = '\0';
    *len = got;
fail:
    free(buf);
    if (f) fclose(f);
    return status;
}
