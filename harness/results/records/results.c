/* results.c - the JSON Lines writer and the header and device objects. */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../core/files.h"
#include "../../core/sysinfo.h"
#include "../../core/version.h"

struct fb_results {
    int fd; /* O_APPEND, flock'ed exclusively while open */
    char path[1024];
    char run_id[64];
};

json_t *fb_json_device(const fb_device_info *d)
{
    char cc[16] = "";
    if (d->cc_major) snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_t *sizes = json_pack("[I,I,I]", (json_int_t)d->max_work_item_sizes[0], (json_int_t)d->max_work_item_sizes[1],
                              (json_int_t)d->max_work_item_sizes[2]);
    json_t *dev =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o, s:I, s:I, s:I, s:i, s:b, s:i, s:s}", "backend",
                  d->backend, "id", d->id, "name", d->name, "vendor", d->vendor, "device_version", d->device_version,
                  "driver_version", d->driver_version, "runtime_version", d->runtime_version, "compute_units",
                  d->compute_units, "max_work_group_size", (json_int_t)d->max_work_group_size, "max_work_item_sizes",
                  sizes, "local_mem_bytes", (json_int_t)d->local_mem_bytes, "global_mem_bytes",
                  (json_int_t)d->global_mem_bytes, "cache_bytes", (json_int_t)d->cache_bytes, "clock_mhz", d->clock_mhz,
                  "double_support", d->double_support, "subgroup_size", d->subgroup_size, "compute_capability", cc);
    /* a host CPU's vector ISA: the roofline's peak is assumed from it */
    if (dev && d->simd[0])
        json_object_set_new(
            dev, "simd",
            json_pack("{s:s, s:i, s:s}", "isa", d->simd, "vector_bits", d->simd_bits, "source", d->simd_source));
    return dev;
}

static json_t *host_json(void)
{
    fb_host_info h;
    fb_host_info_get(&h);
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:I, s:I, s:s}", "hostname", h.hostname, "cpu", h.cpu_model,
                     "cpu_vendor", h.cpu_vendor, "logical_cpus", h.logical_cpus, "omp_threads", h.omp_threads,
                     "cpu_mhz", h.cpu_mhz, "llc_bytes", (json_int_t)h.llc_bytes, "memory_bytes",
                     (json_int_t)h.memory_bytes, "os", h.os);
}

static json_t *build_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b}", "flowbench_version", FB_VERSION, "git_revision",
                     fb_git_revision(), "compiler", FB_C_COMPILER, "flags", FB_C_FLAGS, "build_type", FB_BUILD_TYPE,
#ifdef FB_HAVE_OPENCL
                     "opencl", 1,
#else
                     "opencl", 0,
#endif
#ifdef FB_HAVE_CUDA
                     "cuda", 1,
#else
                     "cuda", 0,
#endif
#ifdef FB_HAVE_PAPI
                     "papi", 1
#else
                     "papi", 0
#endif
    );
}

/* The Slurm job this process runs in, NULL outside one: a record of an
 * array share names its job and task, so a merged file says which task
 * measured each configuration (docs/scaling.md). Strings, as Slurm's
 * ids need not be numbers ("123+1" for a heterogeneous job). */
static json_t *slurm_json(void)
{
    static const char *const vars[][2] = {{"job_id", "SLURM_JOB_ID"},
                                          {"array_job_id", "SLURM_ARRAY_JOB_ID"},
                                          {"array_task_id", "SLURM_ARRAY_TASK_ID"},
                                          {"step_id", "SLURM_STEP_ID"},
                                          {"node", "SLURMD_NODENAME"},
                                          {"cluster", "SLURM_CLUSTER_NAME"}};
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job) return NULL;
    json_t *j = json_object();
    for (size_t i = 0; j && i < sizeof vars / sizeof *vars; ++i) {
        const char *v = getenv(vars[i][1]);
        if (v && *v) json_object_set_new(j, vars[i][0], json_string(v)); /* NULL (not UTF-8): left out */
    }
    return j;
}

/* The process's command line, shell-quoted: provenance for every header
 * this process writes (set once by main). */
static char command_line[4096];

void fb_shell_append(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);
    if (word[0] && !word[strcspn(word, " \t\n'\"\\$`*?[]{}()<>|&;!#~")]) {
        snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
        return;
    }
    snprintf(buf + n, len - n, "%s'", n ? " " : "");
    for (const char *p = word; *p; ++p) {
        n = strlen(buf);
        snprintf(buf + n, len - n, *p == '\'' ? "'\\''" : "%c", *p);
    }
    n = strlen(buf);
    snprintf(buf + n, len - n, "'");
}

void fb_results_set_command_line(int argc, char *const *argv)
{
    command_line[0] = '\0';
    for (int i = 0; i < argc; ++i)
        fb_shell_append(command_line, sizeof command_line, argv[i]);
}

json_t *fb_json_header(const char *command, const fb_device_info *devices, int ndevices)
{
    char date[32];
    fb_utc_now(date, sizeof date);
    json_t *devs = json_array();
    for (int i = 0; i < ndevices; ++i)
        json_array_append_new(devs, fb_json_device(&devices[i]));
    json_t *h = json_pack("{s:s, s:s, s:o, s:o, s:o}", "date", date, "command", command ? command : "", "host",
                          host_json(), "build", build_json(), "devices", devs);
    if (command_line[0]) json_object_set_new(h, "command_line", json_string(command_line));
    return h;
}

/* Writes all of buf at the end of the file in one write() (more only when
 * the kernel takes less); on failure the file is cut back to where it was,
 * so no partial record is left behind. With sync, fsync'ed. */
static fb_status write_whole(fb_results *r, const char *buf, size_t len, int sync)
{
    fb_status status = FB_OK;
    struct stat st;
    off_t before = fstat(r->fd, &st) == 0 ? st.st_size : -1;
    for (size_t done = 0; done < len;) {
        ssize_t n = write(r->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = n < 0 ? errno : ENOSPC, kept = done > 0 && (before < 0 || ftruncate(r->fd, before) != 0);
            FB_FAIL(FB_ERR_IO, "%s: cannot write a record (%s)%s", r->path, strerror(err),
                    kept ? "; its part written stays, and readers skip it as a damaged line" : "");
        }
        done += (size_t)n;
    }
    if (sync) fsync(r->fd); /* best effort: survive a crash, not only Ctrl-C */
fail:
    return status;
}

static fb_status write_line(fb_results *r, json_t *record, int sync)
{
    fb_status status = FB_OK;
    char *line = json_dumps(record, JSON_COMPACT | JSON_REAL_PRECISION(17));
    size_t len = line ? strlen(line) : 0;
    char *whole = line ? realloc(line, len + 2) : NULL;
    if (!whole) FB_FAIL(FB_ERR_NOMEM, "%s: could not serialise a record", r->path);
    line = whole;
    line[len] = '\n';
    line[len + 1] = '\0';
    FB_CHECK(write_whole(r, line, len + 1, sync));
fail:
    free(line);
    return status;
}

fb_status fb_results_append(fb_results *r, json_t *record)
{
    json_object_set_new(record, "schema", json_integer(FB_RESULTS_SCHEMA));
    json_object_set_new(record, "run_id", json_string(r->run_id));
    if (!json_object_get(record, "slurm")) {
        json_t *job = slurm_json();
        if (job) json_object_set_new(record, "slurm", job);
    }
    if (!json_object_get(record, "type")) json_object_set_new(record, "type", json_string("measurement"));
    return write_line(r, record, 1);
}

fb_status fb_results_copy_line(fb_results *r, const char *line)
{
    fb_status status = FB_OK;
    size_t len = strlen(line);
    char *whole = malloc(len + 1);
    if (!whole) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory copying a record", r->path);
    memcpy(whole, line, len);
    whole[len] = '\n';
    FB_CHECK(write_whole(r, whole, len + 1, 0));
fail:
    free(whole);
    return status;
}

fb_status fb_results_sync(fb_results *r)
{
    fb_status status = FB_OK;
    if (fsync(r->fd) != 0 && errno != EINVAL) FB_FAIL(FB_ERR_IO, "%s: cannot write (%s)", r->path, strerror(errno));
fail:
    return status;
}

const char *fb_results_run_id(const fb_results *r) { return r->run_id; }

void fb_results_set_run_id(fb_results *r, const char *run_id) { snprintf(r->run_id, sizeof r->run_id, "%s", run_id); }

/* The pid holding a flock on the file (from /proc/locks), or 0 when it
 * cannot be told. */
static long lock_holder(int fd)
{
    struct stat st;
    char line[256];
    long pid = 0;
    FILE *f = fopen("/proc/locks", "r");
    if (!f || fstat(fd, &st) != 0) {
        if (f) fclose(f);
        return 0;
    }
    while (!pid && fgets(line, sizeof line, f)) {
        long who;
        unsigned maj, min;
        unsigned long long ino;
        if (sscanf(line, "%*s FLOCK %*s %*s %ld %x:%x:%llu", &who, &maj, &min, &ino) == 4 &&
            ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev)
            pid = who;
    }
    fclose(f);
    return pid;
}

/* "pid 123: flowbench sweep ..." for the message that names the holder. */
static void describe_holder(long pid, char *buf, size_t len)
{
    char path[64];
    size_t n = 0;
    FILE *f;
    snprintf(buf, len, "pid %ld", pid);
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    if (!(f = fopen(path, "r"))) return;
    n = strlen(buf);
    snprintf(buf + n, len - n, ": ");
    n = strlen(buf);
    for (int c; (c = fgetc(f)) != EOF && n + 2 < len;) /* arguments are NUL-separated */
        buf[n++] = c ? (char)c : ' ';
    while (n > 0 && buf[n - 1] == ' ')
        --n;
    buf[n] = '\0';
    fclose(f);
}

/* One writer per results file: two sweeps appending to one file split each
 * other's records and duplicated work. */
static fb_status lock_exclusive(fb_results *r)
{
    fb_status status = FB_OK;
    char who[512] = "its pid is not known";
    long pid;
    if (flock(r->fd, LOCK_EX | LOCK_NB) == 0) return FB_OK;
    if (errno != EWOULDBLOCK) FB_FAIL(FB_ERR_IO, "%s: cannot lock (%s)", r->path, strerror(errno));
    if ((pid = lock_holder(r->fd)) != 0) describe_holder(pid, who, sizeof who);
    FB_FAIL(FB_ERR_USAGE, "%s: another flowbench is writing to it (%s); wait for it to end or use another --out",
            r->path, who);
fail:
    return status;
}

fb_status fb_results_check_idle(const char *path)
{
    fb_status status = FB_OK;
    char who[512] = "its pid is not known";
    long pid;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return FB_OK; /* missing: the reader that opens it says so */
    /* a file system without locks (EINVAL, ENOLCK) has nothing to tell */
    if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        if ((pid = lock_holder(fd)) != 0) describe_holder(pid, who, sizeof who);
        status = fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                              "%s: a flowbench is still writing to it (%s); wait for it to end", path, who);
    }
    close(fd); /* releases the shared lock */
    return status;
}

/* Where the last line of the file starts (it has no newline yet). */
static off_t last_line_start(int fd, off_t size)
{
    char buf[4096];
    off_t at = size;
    while (at > 0) {
        size_t n = at < (off_t)sizeof buf ? (size_t)at : sizeof buf;
        if (pread(fd, buf, n, at - (off_t)n) != (ssize_t)n) return -1;
        for (size_t i = n; i > 0; --i)
            if (buf[i - 1] == '\n') return at - (off_t)n + (off_t)i;
        at -= (off_t)n;
    }
    return 0;
}

/* A file that does not end in a newline lost the end of its last write
 * (a kill, a full disk). A last line that parses is a whole record that
 * lacks only its newline: kept. One that does not is dropped. */
static fb_status repair_last_line(fb_results *r)
{
    fb_status status = FB_OK;
    struct stat st;
    char last;
    char *text = NULL;
    json_t *rec = NULL;
    if (fstat(r->fd, &st) != 0 || st.st_size == 0) return FB_OK;
    if (pread(r->fd, &last, 1, st.st_size - 1) != 1)
        FB_FAIL(FB_ERR_IO, "%s: cannot read (%s)", r->path, strerror(errno));
    if (last == '\n') return FB_OK;
    off_t start = last_line_start(r->fd, st.st_size);
    size_t len = (size_t)(st.st_size - start);
    if (start < 0 || !(text = malloc(len + 1)) || pread(r->fd, text, len, start) != (ssize_t)len)
        FB_FAIL(FB_ERR_IO, "%s: cannot read its last line", r->path);
    text[len] = '\0';
    if ((rec = json_loads(text, 0, NULL)) != NULL) {
        FB_CHECK(write_whole(r, "\n", 1, 1));
        fprintf(stderr, "%s: the last record lacked its newline: kept, newline added\n", r->path);
    } else {
        if (ftruncate(r->fd, start) != 0)
            FB_FAIL(FB_ERR_IO, "%s: cannot drop the incomplete last line (%s)", r->path, strerror(errno));
        fprintf(stderr, "%s: dropped an incomplete last line (%zu bytes)\n", r->path, len);
    }
fail:
    json_decref(rec);
    free(text);
    return status;
}

fb_status fb_results_begin(const char *path, fb_results **out)
{
    fb_status status = FB_OK;
    fb_results *r = NULL;
    struct stat st;
    char date[32];
    FB_ALLOC(r, 1, "results writer");
    r->fd = -1;
    snprintf(r->path, sizeof r->path, "%s", path);
    /* --out into a folder not made yet: made, as the JSON files kept per user are
     * (a measurement finished, then lost for want of a folder, was exit 3) */
    FB_CHECK(fb_make_parent_dirs(path));
    r->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666); /* read: the last line */
    if (r->fd < 0) FB_FAIL(FB_ERR_IO, "%s: cannot open for appending (%s)", path, strerror(errno));
    if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode)) FB_FAIL(FB_ERR_INPUT, "%s: not a regular file", path);
    FB_CHECK(lock_exclusive(r));
    FB_CHECK(repair_last_line(r));
    fb_utc_now(date, sizeof date);
    snprintf(r->run_id, sizeof r->run_id, "%s-%ld", date, (long)getpid());
    *out = r;
    return FB_OK;
fail:
    fb_results_close(r);
    return status;
}

fb_status fb_results_write_header(fb_results *r, const char *command, const fb_device_info *devices, int ndevices,
                                  const json_t *extra)
{
    json_t *header = fb_json_header(command, devices, ndevices);
    fb_status status;
    if (extra) json_object_update(header, (json_t *)extra);
    json_object_set_new(header, "type", json_string("header"));
    status = fb_results_append(r, header);
    json_decref(header);
    return status;
}

fb_status fb_results_open(const char *path, const char *command, const fb_device_info *devices, int ndevices,
                          fb_results **out)
{
    fb_status status = FB_OK;
    fb_results *r = NULL;
    FB_CHECK(fb_results_begin(path, &r));
    FB_CHECK(fb_results_write_header(r, command, devices, ndevices, NULL));
    *out = r;
    return FB_OK;
fail:
    fb_results_close(r);
    return status;
}

void fb_results_close(fb_results *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd); /* releases the lock */
    free(r);
}
