/* prefixed.c - a stderr stream whose every line starts with a prefix
 * (prefixed.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prefixed.h"

typedef struct prefixed {
    char prefix[320];
    char line[8192];
    size_t len;
} prefixed;

/* The prefix and the line in one write(): the launcher forwards each
 * rank's output in pieces, and a line written whole is not split by
 * another rank's. */
static void emit(prefixed *p)
{
    char out[sizeof p->prefix + sizeof p->line + 1];
    size_t n = (size_t)snprintf(out, sizeof out, "%s%.*s", p->prefix, (int)p->len, p->line);
    if (n >= sizeof out) n = sizeof out - 1;
    if (p->len && p->line[p->len - 1] != '\n') out[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t k = write(STDERR_FILENO, out + done, n - done);
        if (k <= 0) break; /* stderr gone: nothing to tell it */
        done += (size_t)k;
    }
    p->len = 0;
}

static ssize_t prefixed_write(void *cookie, const char *data, size_t size)
{
    prefixed *p = cookie;
    for (size_t i = 0; i < size; ++i) {
        p->line[p->len++] = data[i];
        if (data[i] == '\n' || p->len == sizeof p->line) emit(p);
    }
    return (ssize_t)size;
}

static int prefixed_close(void *cookie)
{
    prefixed *p = cookie;
    if (p->len) emit(p);
    free(p);
    return 0;
}

FILE *fb_prefixed_stderr(const char *prefix)
{
    prefixed *p = calloc(1, sizeof *p);
    cookie_io_functions_t io = {.write = prefixed_write, .close = prefixed_close};
    FILE *f;
    if (!p) return NULL;
    snprintf(p->prefix, sizeof p->prefix, "%s", prefix);
    if (!(f = fopencookie(p, "w", io))) {
        free(p);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    return f;
}
