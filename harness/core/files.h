/* files.h - how flowbench opens the user's files.
 *
 * Reading: only regular files. A FIFO would block open() forever, a
 * character device could stream without end, a directory reads as garbage
 * or EISDIR; each is refused at once with one line naming the path. The
 * file is opened with O_NONBLOCK first, so the check itself cannot block.
 *
 * Writing a file whole (matrix export, --y-out, the tuning cache): the
 * text goes to a temporary file beside the destination and is renamed
 * over it only when complete, so a failed write leaves whatever the user
 * had there untouched; only the temporary file, which flowbench created,
 * is ever removed. A destination that exists and is not a regular file is
 * refused before anything is written.
 *
 * A command's outputs: none may be one of its inputs or another of its
 * outputs (fb_files_check_distinct), checked before the command does any
 * work, so `report R --out R` cannot replace R.
 */
#ifndef FB_CORE_FILES_H
#define FB_CORE_FILES_H

#include <limits.h>
#include <stdio.h>

#include "status.h"

/* Opens path for reading: FB_ERR_INPUT "PATH: cannot open WHAT: reason"
 * (what may be NULL: "PATH: cannot open: reason"), "PATH: is a
 * directory", or "PATH: not a regular file". *fd is blocking again. */
fb_status fb_file_open_read(const char *path, const char *what, int *fd);

/* The same as a stdio stream ("r"). */
fb_status fb_file_fopen_read(const char *path, const char *what, FILE **f);

/* As fb_file_fopen_read, but a gzip file (by its magic bytes, whatever its
 * name) is read inflated: what `results.jsonl.gz` holds reads as the
 * results file itself. A corrupt or cut stream is a read error on f. */
fb_status fb_file_fopen_read_gz(const char *path, const char *what, FILE **f);

/* As fb_file_fopen_read, but a missing file is no error: FB_OK, *f NULL. */
fb_status fb_file_fopen_read_if_exists(const char *path, const char *what, FILE **f);

typedef struct fb_file_replace {
    char path[PATH_MAX]; /* the destination: the path given, or where its symbolic links lead */
    char tmp[PATH_MAX];  /* the temporary file beside it ("" when none) */
} fb_file_replace;

/* Where path's symbolic links lead (up to 16 hops; a relative link is
 * taken from the link's folder), or path itself when it is no link. The
 * destination of a file written whole and the lock beside a shared store
 * are the target's: writing through a link keeps the link. */
void fb_file_link_target(const char *path, char *out, size_t len);

/* Creates the temporary file (mode 0666 less the umask, or the mode of the
 * file it will replace) and returns its descriptor; FB_ERR_INPUT when path
 * exists and is not a regular file, FB_ERR_IO naming the reason otherwise. */
fb_status fb_file_replace_begin(const char *path, fb_file_replace *r, int *fd);

/* After the caller wrote and closed the descriptor: flushes the temporary
 * file to disk and renames it over the destination. Removes the temporary
 * file when that fails. */
fb_status fb_file_replace_commit(fb_file_replace *r);

/* Removes the temporary file (and nothing else); a no-op after commit. */
void fb_file_replace_abort(fb_file_replace *r);

/* A file written whole through stdio ("w"). */
typedef struct fb_file_writer {
    fb_file_replace replace;
    FILE *f;
} fb_file_writer;

fb_status fb_file_writer_open(const char *path, fb_file_writer *w);

/* Closes: with `keep` and every write done, the file replaces the
 * destination; otherwise only the temporary file is removed. FB_ERR_IO
 * "PATH: write failed: reason" when a write or the close failed. */
fb_status fb_file_writer_close(fb_file_writer *w, int keep);

/* Flushes f: FB_ERR_IO "NAME: write failed: reason" when a write to it
 * failed (for streams flowbench did not open, such as stdout). */
fb_status fb_file_check_written(FILE *f, const char *name);

/* A file a command names: the option or argument that names it ("--out",
 * "RESULTS") and its path (NULL: not given, skipped). */
typedef struct fb_named_file {
    const char *name;
    const char *path;
} fb_named_file;

/* Called by a command before it does any work: refuses an output that is
 * one of its inputs or another of its outputs, which would silently
 * replace what the user owns. FB_ERR_USAGE "COMMAND: --out R is the input
 * RESULTS: refusing to overwrite it" or "COMMAND: --vtk F is also --out:
 * give each output its own file" (the other path in parentheses when it is
 * spelled differently). The same file is the same device and inode
 * (stat), not the same name: ./R and R, a symbolic link and a hard link
 * are all caught; an output that does not exist yet is compared by its
 * folder's device and inode and its own name. An output that is a
 * directory is refused here too (FB_ERR_INPUT "PATH: is a directory", as
 * its writer would say after the work). An input that cannot be stat'ed is
 * left to its reader to refuse. */
fb_status fb_files_check_distinct(const char *command, const fb_named_file *inputs, int ninputs,
                                  const fb_named_file *outputs, int noutputs);

/* As fb_files_check_distinct, for a command's stores: files flowbench
 * makes at their first write and reads where they are (the tuning cache
 * that --tuned reads, the A/A noise store). A store is an input whether or
 * not it is there yet: an output named like a store not made yet would be
 * made in its place and refused as a bad store by the next command that
 * reads it. The same messages ("COMMAND: --out F is the input tuning
 * cache: refusing to overwrite it"). */
fb_status fb_files_check_stores(const char *command, const fb_named_file *stores, int nstores,
                                const fb_named_file *outputs, int noutputs);

/* mkdir -p: dir and every missing folder above it; one that exists is
 * fine. FB_ERR_IO naming the folder that could not be made. */
fb_status fb_make_dirs(const char *dir);

/* fb_make_dirs of path's folder ("a/b/c.json" -> a/b); nothing for a file
 * in "." or "/". */
fb_status fb_make_parent_dirs(const char *path);

#endif
