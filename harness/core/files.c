/* files.c - opening the user's files for reading without blocking,
 * replacing a file whole through a temporary file beside it, and telling a
 * command's outputs from its inputs (files.h). */
#include "files.h"

#include <zlib.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_ATTEMPTS 100

/* "PATH: is a directory" or "PATH: not a regular file"; FB_OK for a file. */
static fb_status require_regular(const char *path, const struct stat *st)
{
    fb_status status = FB_OK;
    if (S_ISDIR(st->st_mode)) FB_FAIL(FB_ERR_INPUT, "%s: is a directory", path);
    if (!S_ISREG(st->st_mode)) FB_FAIL(FB_ERR_INPUT, "%s: not a regular file", path);
fail:
    return status;
}

static fb_status cannot_open(const char *path, const char *what, int err)
{
    return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: cannot open%s%s: %s", path, what ? " " : "",
                        what ? what : "", strerror(err));
}

fb_status fb_file_open_read(const char *path, const char *what, int *fd)
{
    fb_status status = FB_OK;
    struct stat st;
    *fd = -1;
    /* stat first: a device is refused without being opened at all (opening
     * some has effects); then O_NONBLOCK, so that a FIFO put in the file's
     * place in between cannot block open(), and fstat what was opened. */
    if (stat(path, &st) != 0) return cannot_open(path, what, errno);
    FB_CHECK(require_regular(path, &st));
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) return cannot_open(path, what, errno);
    if (fstat(*fd, &st) != 0) FB_FAIL(FB_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    FB_CHECK(require_regular(path, &st));
    if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        FB_FAIL(FB_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    return FB_OK;
fail:
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return status;
}

fb_status fb_file_fopen_read(const char *path, const char *what, FILE **f)
{
    fb_status status = FB_OK;
    int fd = -1;
    *f = NULL;
    FB_CHECK(fb_file_open_read(path, what, &fd));
    *f = fdopen(fd, "r");
    if (!*f) {
        close(fd);
        FB_FAIL(FB_ERR_NOMEM, "%s: cannot open a stream: %s", path, strerror(errno));
    }
fail:
    return status;
}

/* stdio over a gzFile (fopencookie): the reader's loop stays one loop. */
static ssize_t gz_cookie_read(void *cookie, char *buf, size_t n)
{
    const unsigned chunk = n > (1u << 30) ? 1u << 30 : (unsigned)n;
    const int got = gzread(cookie, buf, chunk);
    int err = Z_OK;
    if (got == 0) gzerror(cookie, &err); /* a stream cut short ends without its trailer: Z_BUF_ERROR */
    if (got >= 0 && err == Z_OK) return got;
    errno = EIO;
    return -1;
}

static int gz_cookie_close(void *cookie) { return gzclose(cookie) == Z_OK ? 0 : EOF; }

static int is_gzip(int fd)
{
    unsigned char magic[2];
    return pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

fb_status fb_file_fopen_read_gz(const char *path, const char *what, FILE **f)
{
    fb_status status = FB_OK;
    int fd = -1;
    gzFile gz = NULL;
    *f = NULL;
    FB_CHECK(fb_file_open_read(path, what, &fd));
    if (!is_gzip(fd)) {
        close(fd);
        return fb_file_fopen_read(path, what, f);
    }
    if (!(gz = gzdopen(fd, "rb"))) {
        close(fd);
        FB_FAIL(FB_ERR_NOMEM, "%s: cannot open a gzip stream", path);
    }
    *f = fopencookie(gz, "r", (cookie_io_functions_t){.read = gz_cookie_read, .close = gz_cookie_close});
    if (!*f) {
        gzclose(gz);
        FB_FAIL(FB_ERR_NOMEM, "%s: cannot open a stream: %s", path, strerror(errno));
    }
fail:
    return status;
}

fb_status fb_file_fopen_read_if_exists(const char *path, const char *what, FILE **f)
{
    struct stat st;
    *f = NULL;
    if (stat(path, &st) != 0 && errno == ENOENT) return FB_OK;
    return fb_file_fopen_read(path, what, f);
}

/* ---- replacing a file whole --------------------------------------------- */

/* O_EXCL: the temporary name is flowbench's own, never a file (or a link)
 * someone left there; the PID and a counter keep two processes apart. */
static fb_status create_tmp(fb_file_replace *r, int *fd)
{
    fb_status status = FB_OK;
    for (int k = 0; k < TMP_ATTEMPTS; ++k) {
        if (snprintf(r->tmp, sizeof r->tmp, "%s.tmp.%ld.%d", r->path, (long)getpid(), k) >= (int)sizeof r->tmp)
            FB_FAIL(FB_ERR_IO, "%s: cannot write: path too long", r->path);
        *fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (*fd >= 0) return FB_OK;
        if (errno != EEXIST) FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", r->path, strerror(errno));
    }
    FB_FAIL(FB_ERR_IO, "%s: cannot write: %d temporary names beside it are taken", r->path, TMP_ATTEMPTS);
fail:
    r->tmp[0] = '\0';
    return status;
}

void fb_file_link_target(const char *path, char *out, size_t len)
{
    struct stat st;
    char target[PATH_MAX];
    snprintf(out, len, "%s", path);
    for (int hops = 0; hops < 16 && lstat(out, &st) == 0 && S_ISLNK(st.st_mode); ++hops) {
        ssize_t n = readlink(out, target, sizeof target - 1);
        if (n <= 0) return;
        target[n] = '\0';
        const char *slash = strrchr(out, '/');
        if (target[0] == '/' || !slash) /* absolute, or relative to a link in the current folder */
            snprintf(out, len, "%s", target);
        else
            snprintf(out + (slash - out) + 1, len - (size_t)(slash - out) - 1, "%s", target);
    }
}

fb_status fb_file_replace_begin(const char *path, fb_file_replace *r, int *fd)
{
    fb_status status = FB_OK;
    struct stat st;
    int exists = stat(path, &st) == 0;
    /* a link (a store shared between users or nodes) stays a link: its
     * target is what is replaced (a copy: the struct may be moved) */
    fb_file_link_target(path, r->path, sizeof r->path);
    r->tmp[0] = '\0';
    *fd = -1;
    if (exists) FB_CHECK(require_regular(path, &st)); /* named as given: "full.mtx: not a regular file" */
    FB_CHECK(create_tmp(r, fd));
    if (exists) (void)fchmod(*fd, st.st_mode & 07777); /* best effort: the replaced file's permissions */
fail:
    return status;
}

fb_status fb_file_replace_commit(fb_file_replace *r)
{
    fb_status status = FB_OK;
    /* fsync before rename: otherwise a crash can leave the renamed file empty */
    int fd = open(r->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", r->path, strerror(errno));
    if (rename(r->tmp, r->path) != 0) FB_FAIL(FB_ERR_IO, "%s: cannot replace: %s", r->path, strerror(errno));
    r->tmp[0] = '\0';
fail:
    if (fd >= 0) close(fd);
    fb_file_replace_abort(r);
    return status;
}

void fb_file_replace_abort(fb_file_replace *r)
{
    if (r->tmp[0]) unlink(r->tmp);
    r->tmp[0] = '\0';
}

/* ---- a file written whole through stdio ---------------------------------- */

fb_status fb_file_writer_open(const char *path, fb_file_writer *w)
{
    fb_status status = FB_OK;
    int fd = -1;
    w->f = NULL;
    FB_CHECK(fb_file_replace_begin(path, &w->replace, &fd));
    w->f = fdopen(fd, "w");
    if (!w->f) {
        close(fd);
        fb_file_replace_abort(&w->replace);
        FB_FAIL(FB_ERR_NOMEM, "%s: cannot write: %s", path, strerror(errno));
    }
fail:
    return status;
}

fb_status fb_file_check_written(FILE *f, const char *name)
{
    fb_status status = FB_OK;
    errno = 0;
    /* a failed write leaves its data in the buffer: fflush tries it again
     * and sets errno to why it fails; where the stream had dropped it (a
     * second failed flush), one byte written to the descriptor, whose
     * output is lost already, says why */
    if (fflush(f) != 0 || ferror(f)) {
        const char probe = 0;
        if (!errno && fileno(f) >= 0 && write(fileno(f), &probe, 1) >= 0) errno = 0;
        FB_FAIL(FB_ERR_IO, "%s: write failed: %s", name, errno ? strerror(errno) : "an earlier write failed");
    }
fail:
    return status;
}

fb_status fb_file_writer_close(fb_file_writer *w, int keep)
{
    fb_status status = FB_OK;
    if (!w->f) return FB_OK;
    if (keep) status = fb_file_check_written(w->f, w->replace.path);
    if (fclose(w->f) != 0 && keep && status == FB_OK)
        status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "%s: write failed: %s", w->replace.path, strerror(errno));
    w->f = NULL;
    if (keep && status == FB_OK) return fb_file_replace_commit(&w->replace);
    fb_file_replace_abort(&w->replace);
    return status;
}

/* ---- a command's inputs and outputs, told apart ---------------------------- */

/* What makes two paths one file: its device and inode; for a file that does
 * not exist yet, its folder's and its own name (name[0] != 0). */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1];
} file_id;

/* 0 when neither the file nor its folder can be stat'ed. */
static int identify(const char *path, int may_be_missing, file_id *id)
{
    struct stat st;
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->dev = st.st_dev, id->ino = st.st_ino;
        return 1;
    }
    if (!may_be_missing || !*base || strlen(base) > NAME_MAX) return 0;
    if (snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".") >= (int)sizeof dir)
        return 0;
    if (stat(dir, &st) != 0) return 0; /* the writer says why */
    id->dev = st.st_dev, id->ino = st.st_ino;
    snprintf(id->name, sizeof id->name, "%s", base);
    return 1;
}

static int same_id(const file_id *a, const file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && strcmp(a->name, b->name) == 0;
}

/* " (PATH)" when other spells the file differently from path, else "". */
static void spelled(const char *path, const char *other, char *buf, size_t len)
{
    if (strcmp(path, other) == 0)
        buf[0] = '\0';
    else
        snprintf(buf, len, " (%s)", other);
}

/* The index of the first of files that is the file out identifies, or -1. */
static int find_same(const file_id *out, const fb_named_file *files, int n, int may_be_missing)
{
    file_id id;
    for (int i = 0; i < n; ++i)
        if (files[i].path && identify(files[i].path, may_be_missing, &id) && same_id(out, &id)) return i;
    return -1;
}

/* Output f against the inputs (inputs_missing: named by their path even
 * where they are not there yet), then against the outputs named before it. */
static fb_status check_output(const char *command, const fb_named_file *f, const fb_named_file *inputs, int ninputs,
                              int inputs_missing, const fb_named_file *earlier, int nearlier)
{
    fb_status status = FB_OK;
    file_id out;
    char other[PATH_MAX + 4];
    struct stat st;
    int i, j;
    /* no writer can replace a directory: say so before the work, not after it */
    if (f->path && stat(f->path, &st) == 0 && S_ISDIR(st.st_mode)) FB_FAIL(FB_ERR_INPUT, "%s: is a directory", f->path);
    if (!f->path || !identify(f->path, 1, &out)) return FB_OK; /* the writer says what is wrong */
    if ((i = find_same(&out, inputs, ninputs, inputs_missing)) >= 0) {
        spelled(f->path, inputs[i].path, other, sizeof other);
        FB_FAIL(FB_ERR_USAGE, "%s: %s %s is the input %s%s: refusing to overwrite it", command, f->name, f->path,
                inputs[i].name, other);
    }
    if ((j = find_same(&out, earlier, nearlier, 1)) >= 0) {
        spelled(f->path, earlier[j].path, other, sizeof other);
        FB_FAIL(FB_ERR_USAGE, "%s: %s %s is also %s%s: give each output its own file", command, f->name, f->path,
                earlier[j].name, other);
    }
fail:
    return status;
}

fb_status fb_files_check_distinct(const char *command, const fb_named_file *inputs, int ninputs,
                                  const fb_named_file *outputs, int noutputs)
{
    fb_status status = FB_OK;
    for (int o = 0; o < noutputs; ++o)
        FB_CHECK(check_output(command, &outputs[o], inputs, ninputs, 0, outputs, o));
fail:
    return status;
}

fb_status fb_files_check_stores(const char *command, const fb_named_file *stores, int nstores,
                                const fb_named_file *outputs, int noutputs)
{
    fb_status status = FB_OK;
    for (int o = 0; o < noutputs; ++o)
        FB_CHECK(check_output(command, &outputs[o], stores, nstores, 1, NULL, 0));
fail:
    return status;
}

fb_status fb_make_dirs(const char *dir)
{
    fb_status status = FB_OK;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            FB_FAIL(FB_ERR_IO, "%s: cannot create (%s)", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) FB_FAIL(FB_ERR_IO, "%s: cannot create (%s)", path, strerror(errno));
fail:
    return status;
}

fb_status fb_make_parent_dirs(const char *path)
{
    fb_status status = FB_OK;
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) FB_FAIL(FB_ERR_IO, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        FB_CHECK(fb_make_dirs(dir));
    }
fail:
    return status;
}
