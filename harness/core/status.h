/* status.h - the one error idiom of flowbench.
 *
 * Every fallible function returns fb_status. On failure it records one
 * human-readable line (what failed and why) plus the file:line where the
 * failure was detected; callers propagate the status unchanged, and the CLI
 * prints the line once. Functions keep a single cleanup label:
 *
 *     fb_status status = FB_OK;
 *     FB_CHECK(step_one());
 *     if (bad) FB_FAIL(FB_ERR_INPUT, "%s: line %d: bad token", path, line);
 *   fail:
 *     free(tmp);
 *     return status;
 */
#ifndef FB_STATUS_H
#define FB_STATUS_H

#include <stddef.h>

typedef enum fb_status {
    FB_OK = 0,
    FB_ERR_USAGE,       /* bad command line */
    FB_ERR_INPUT,       /* bad input file or spec */
    FB_ERR_UNAVAILABLE, /* backend/device/peer not built or not present */
    FB_ERR_BACKEND,     /* a runtime API call failed */
    FB_ERR_BUILD,       /* a kernel failed to compile */
    FB_ERR_LAUNCH,      /* a kernel failed to launch or run */
    FB_ERR_CHECK,       /* a result did not match its reference */
    FB_ERR_NOMEM,       /* host or device allocation failed */
    FB_ERR_IO,          /* reading or writing a file failed */
    FB_ERR_INTERRUPTED  /* the user pressed Ctrl-C */
} fb_status;

/* Records the message for the current thread and returns `status`. An
 * argument may be fb_error_message(): "%s; the files are kept" wraps the
 * last message. */
fb_status fb_error_set(fb_status status, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The last recorded message (empty string if none). */
const char *fb_error_message(void);

/* "file.c:123" of the last recorded failure. */
const char *fb_error_origin(void);

/* Process exit code for a status: 0 ok, 1 failed check, 2 usage or input, 3 other. */
int fb_status_exit_code(fb_status status);

#define FB_FAIL(st, ...)                                                                                               \
    do {                                                                                                               \
        status = fb_error_set((st), __FILE__, __LINE__, __VA_ARGS__);                                                  \
        goto fail;                                                                                                     \
    } while (0)

#define FB_CHECK(call)                                                                                                 \
    do {                                                                                                               \
        status = (call);                                                                                               \
        if (status != FB_OK) goto fail;                                                                                \
    } while (0)

/* Allocation that fails with FB_ERR_NOMEM naming what was being allocated. */
#define FB_ALLOC(ptr, count, what)                                                                                     \
    do {                                                                                                               \
        (ptr) = calloc(((count) != 0) ? (size_t)(count) : 1u, sizeof *(ptr));                                          \
        if (!(ptr))                                                                                                    \
            FB_FAIL(FB_ERR_NOMEM, "out of host memory allocating %s (%zu bytes)", (what),                              \
                    (size_t)(count) * sizeof *(ptr));                                                                  \
    } while (0)

#endif
