/* json_file.c - see json_file.h. */
#include "json_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "files.h"
#include "interrupt.h"

/* Writes root to fd and closes it. */
static fb_status write_json_fd(const json_t *root, int fd, const char *path)
{
    fb_status status = FB_OK;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    }
    if (json_dumpf(root, f, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
        FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    int rc = fclose(f);
    f = NULL;
    if (rc != 0) FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
fail:
    if (f) fclose(f);
    return status;
}

/* Through a temporary file beside path (core/files.h): two flowbench
 * processes saving at once never see each other's half-written file; the
 * last rename wins, whole. */
fb_status fb_json_file_replace(const json_t *root, const char *path)
{
    fb_status status = FB_OK;
    fb_file_replace replace;
    int fd = -1;
    FB_CHECK(fb_make_parent_dirs(path));
    FB_CHECK(fb_file_replace_begin(path, &replace, &fd));
    status = write_json_fd(root, fd, path);
    if (status != FB_OK) {
        fb_file_replace_abort(&replace);
        goto fail;
    }
    FB_CHECK(fb_file_replace_commit(&replace));
fail:
    return status;
}

static fb_status lock_wait_limit(double *limit_s)
{
    fb_status status = FB_OK;
    const char *text = getenv(FB_LOCK_WAIT_ENV);
    char *end = NULL;
    *limit_s = FB_LOCK_WAIT_S;
    if (!text || !*text) return FB_OK;
    errno = 0;
    *limit_s = strtod(text, &end);
    if (end == text || *end || errno || !(*limit_s >= 0) || !isfinite(*limit_s))
        FB_FAIL(FB_ERR_USAGE, "%s: '%s' is not a number of seconds >= 0", FB_LOCK_WAIT_ENV, text);
fail:
    return status;
}

/* Polls for the lock (cache.h says why not a blocking flock: a signal
 * must end the wait, and a holder that never lets go must not hang us). */
static fb_status wait_for_lock(int fd, const char *lock)
{
    fb_status status = FB_OK;
    const struct timespec step = {0, 50000000}; /* 50 ms: a store holds the lock for milliseconds */
    double limit_s, start = fb_now();
    int said = 0;
    FB_CHECK(lock_wait_limit(&limit_s));
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        double waited = fb_now() - start;
        if (errno != EWOULDBLOCK && errno != EINTR) FB_FAIL(FB_ERR_IO, "%s: cannot lock (%s)", lock, strerror(errno));
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "%s: interrupted while waiting for this lock", lock);
        if (waited >= limit_s)
            FB_FAIL(FB_ERR_IO, "%s: another process held this lock for %g s; gave up (%s sets the wait)", lock, limit_s,
                    FB_LOCK_WAIT_ENV);
        if (waited >= FB_LOCK_NOTE_S && !said++)
            fprintf(stderr, "waiting for the lock %s: another process holds it (up to %g s; Ctrl-C stops)\n", lock,
                    limit_s);
        nanosleep(&step, NULL);
    }
fail:
    return status;
}

/* An exclusive flock on PATH.lock, created beside the file (the file
 * itself is replaced by rename, so a lock on it would lock the old inode). */
static fb_status lock_beside(const char *path, int *fd)
{
    fb_status status = FB_OK;
    char lock[PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock) FB_FAIL(FB_ERR_IO, "%s: path too long", path);
    FB_CHECK(fb_make_parent_dirs(path));
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (*fd < 0) FB_FAIL(FB_ERR_IO, "%s: cannot open the lock file (%s)", lock, strerror(errno));
    FB_CHECK(wait_for_lock(*fd, lock));
fail:
    return status;
}

static fb_status read_current(const char *path, json_t **root)
{
    fb_status status = FB_OK;
    json_error_t err;
    FILE *f = NULL;
    *root = NULL;
    FB_CHECK(fb_file_fopen_read_if_exists(path, NULL, &f));
    if (!f) return FB_OK;
    *root = json_loadf(f, 0, &err);
    fclose(f);
    if (!*root) FB_FAIL(FB_ERR_INPUT, "%s:%d: not JSON (%s); not replaced", path, err.line, err.text);
fail:
    return status;
}

fb_status fb_json_file_update(const char *given, fb_json_update_fn update, void *ctx)
{
    fb_status status = FB_OK;
    json_t *current = NULL, *next = NULL;
    char path[PATH_MAX];
    int fd = -1;
    fb_file_link_target(given, path, sizeof path); /* a shared store's lock is beside its target */
    FB_CHECK(lock_beside(path, &fd));
    FB_CHECK(read_current(path, &current));
    FB_CHECK(update(current, ctx, &next));
    FB_CHECK(fb_json_file_replace(next, path));
fail:
    json_decref(current);
    json_decref(next);
    if (fd >= 0) close(fd); /* releases the lock */
    return status;
}

static int is_set(const char *s) { return s && *s; }

/* FLOWBENCH_CACHE_DIR moves all of flowbench's caches at once (the test
 * suite gives each test its own), where a file's own variable moves one:
 * the narrower setting wins, so it comes after that variable and before
 * XDG_CACHE_HOME, which moves every program's caches. */
void fb_cache_file_path(const char *given, const char *env, const char *name, char *buf, size_t len)
{
    const char *explicit_path = getenv(env), *dir = getenv("FLOWBENCH_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (given)
        snprintf(buf, len, "%s", given);
    else if (is_set(explicit_path))
        snprintf(buf, len, "%s", explicit_path);
    else if (is_set(dir))
        snprintf(buf, len, "%s/%s", dir, name);
    else if (is_set(xdg) && xdg[0] == '/') /* the XDG spec says to ignore relative values */
        snprintf(buf, len, "%s/flowbench/%s", xdg, name);
    else if (is_set(home))
        snprintf(buf, len, "%s/.cache/flowbench/%s", home, name);
    else
        snprintf(buf, len, "flowbench-%s", name);
}

void fb_cache_default_path(char *buf, size_t len) { fb_cache_path(NULL, buf, len); }

void fb_path_beside(const char *path, const char *name, const char *bare, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(buf, len, "%.*s/%s", (int)(slash - path), path, name);
    else
        snprintf(buf, len, "%s", bare);
}

void fb_cache_sibling_path(const char *env, const char *name, const char *bare, char *buf, size_t len)
{
    const char *given = getenv(env);
    char cache[4096];
    if (is_set(given)) {
        snprintf(buf, len, "%s", given);
        return;
    }
    fb_cache_default_path(cache, sizeof cache);
    fb_path_beside(cache, name, bare, buf, len);
}

void fb_cache_path(const char *given, char *buf, size_t len)
{
    fb_cache_file_path(given, "FLOWBENCH_TUNING_CACHE", "tuning.json", buf, len);
}
