/* status.c - per-thread last-error record behind FB_FAIL / FB_CHECK. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];
static _Thread_local char last_origin[128];

fb_status fb_error_set(fb_status status, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char message[sizeof last_message];
    /* formatted aside first: an argument may be fb_error_message() itself
     * (a message that wraps the last one), which vsnprintf into
     * last_message would overwrite as it reads it */
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    memcpy(last_message, message, sizeof message);
    /* Messages are printed as one line: fold any newline a runtime gave us. */
    for (char *p = last_message; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
    snprintf(last_origin, sizeof last_origin, "%s:%d", file, line);
    return status;
}

const char *fb_error_message(void) { return last_message; }

const char *fb_error_origin(void) { return last_origin; }

int fb_status_exit_code(fb_status status)
{
    switch (status) {
    case FB_OK: return 0;
    case FB_ERR_CHECK: return 1;
    case FB_ERR_USAGE:
    case FB_ERR_INPUT: return 2;
    default: return 3;
    }
}
