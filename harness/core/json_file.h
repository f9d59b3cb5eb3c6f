/* json_file.h - the JSON files flowbench keeps per user (the tuning cache,
 * the stream reference, the noise floors, the prior): where each one is,
 * written whole, and read-changed-written under a lock so that two
 * processes updating one both keep their changes. */
#ifndef FB_CORE_JSON_FILE_H
#define FB_CORE_JSON_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "status.h"

/* Where a file flowbench keeps per user is: `given` (an
 * option's value) if not NULL, else $ENV, else $FLOWBENCH_CACHE_DIR/NAME,
 * else $XDG_CACHE_HOME/flowbench/NAME, else ~/.cache/flowbench/NAME, else
 * flowbench-NAME in the current directory. The files kept beside the
 * tuning cache (stream.json, tuning-prior.json, history.db) follow it. */
void fb_cache_file_path(const char *given, const char *env, const char *name, char *buf, size_t len);

/* Writes root to path whole: a temporary file beside it, fsync, rename
 * (the parent directories made as needed). */
fb_status fb_json_file_replace(const json_t *root, const char *path);

/* Read, change, write one JSON file while holding an exclusive lock on
 * PATH.lock, so two processes updating it at once both keep their
 * changes: update gets the file's current root (NULL when there is no
 * file) and sets *next to the root to write (a new reference). A file
 * that is not JSON is an error and is never replaced.
 *
 * A lock another process holds is waited for, polled every 50 ms: after
 * FB_LOCK_NOTE_S (stores that run at once wait milliseconds for each
 * other, which is worth no line) stderr says once that it waits and for
 * which lock file, a SIGINT or SIGTERM
 * ends the wait (FB_ERR_INTERRUPTED), and after FB_LOCK_WAIT_S seconds
 * ($FLOWBENCH_LOCK_WAIT overrides; 0: do not wait) it gives up with
 * FB_ERR_IO naming the lock file. The kernel drops a flock when its holder
 * exits, so a lock held that long is a live process that is stuck (or a
 * store far larger than any cache), never a stale file; a blocking flock
 * waited for it forever, silently, deaf to SIGTERM. */
#define FB_LOCK_WAIT_S 60
#define FB_LOCK_NOTE_S 1.0
#define FB_LOCK_WAIT_ENV "FLOWBENCH_LOCK_WAIT"
typedef fb_status (*fb_json_update_fn)(const json_t *current, void *ctx, json_t **next);
fb_status fb_json_file_update(const char *path, fb_json_update_fn update, void *ctx);

/* The cache file used when --cache is not given: $FLOWBENCH_TUNING_CACHE,
 * else $FLOWBENCH_CACHE_DIR/tuning.json, else
 * $XDG_CACHE_HOME/flowbench/tuning.json, else ~/.cache/flowbench/tuning.json. */
void fb_cache_default_path(char *buf, size_t len);

/* A file kept beside another: NAME in PATH's folder, or `bare` when PATH
 * names no folder (a file in the current one). The stream reference, the
 * history database and the prior sit beside the tuning cache so. */
void fb_path_beside(const char *path, const char *name, const char *bare, char *buf, size_t len);

/* $ENV when set, else NAME beside the default tuning cache (fb_path_beside):
 * where the stream reference and the history database live. */
void fb_cache_sibling_path(const char *env, const char *name, const char *bare, char *buf, size_t len);

/* `given` (a --cache value) if not NULL, else the default path. */
void fb_cache_path(const char *given, char *buf, size_t len);

#endif
