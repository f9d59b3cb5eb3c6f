/* guard.c - the guard process (guard.h): the command line run again as a
 * child, a pipe of small frames from it, and a wait loop that kills a
 * child whose work passes its limit and restarts one that left a recipe. */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "comm.h"
#include "interrupt.h"

#define FD_VAR "FLOWBENCH_GUARD_FD"
#define PID_VAR "FLOWBENCH_GUARD_PID"
#define RESTART_VAR "FLOWBENCH_GUARD_RESTART"

/* Frames: one type byte, a 4-byte length, the payload. A begin frame's
 * payload: the limit (a double), the work's length (4 bytes), the work,
 * the note file's path. */
enum { FRAME_BEGIN = 'B', FRAME_DONE = 'D', FRAME_RESTART = 'R', FRAME_FATAL = 'F' };
#define FATAL_EXIT 70 /* EX_SOFTWARE: the child ended itself after FRAME_FATAL */
#define FRAME_HEADER 5

static const double stop_notice_s = 1.0; /* a Ctrl-C reached the child too: its own stop first */
static const double stop_grace_s = 5.0;  /* after SIGTERM, before SIGKILL */

/* ---- the child's side ---- */

static int child_fd = -1, child_working;
static char *restart_recipe;

/* The guard starts this program again through /proc/self/exe: where it
 * cannot be read (a container that hides /proc), the command runs
 * unguarded and says so, rather than failing without a word. */
static int can_reexec(void)
{
    if (access("/proc/self/exe", X_OK) == 0) return 1;
    fprintf(stderr,
            "flowbench: /proc/self/exe cannot be run (%s; is /proc mounted?): running without the guard, so "
            "a kernel that crashes or hangs ends the command\n",
            strerror(errno));
    return 0;
}

int fb_guard_wanted(void)
{
    const char *off = getenv("FLOWBENCH_GUARD");
    return child_fd < 0 && !getenv(FD_VAR) && !fb_comm_launched() && !(off && !strcmp(off, "0")) && can_reexec();
}

int fb_guard_in_child(void) { return child_fd >= 0; }

const char *fb_guard_restart(void) { return restart_recipe; }

void fb_guard_child_init(void)
{
    const char *fd = getenv(FD_VAR), *pid = getenv(PID_VAR), *recipe = getenv(RESTART_VAR);
    if (!fd || !pid) return;
    child_fd = atoi(fd);
    if (recipe) restart_recipe = strdup(recipe);
    fcntl(child_fd, F_SETFD, FD_CLOEXEC); /* a compiler this process starts must not hold the pipe open */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)atol(pid)) _exit(3); /* the guard died before the line above */
    unsetenv(FD_VAR), unsetenv(PID_VAR), unsetenv(RESTART_VAR);
}

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(child_fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* the guard is gone: PR_SET_PDEATHSIG ends this process */
        p += w, n -= (size_t)w;
    }
}

static void send_frame(char type, const char *payload, uint32_t len)
{
    char header[FRAME_HEADER];
    if (child_fd < 0) return;
    header[0] = type;
    memcpy(header + 1, &len, sizeof len);
    write_all(header, sizeof header);
    write_all(payload, len);
}

void fb_guard_begin(const char *work, double limit_s, const char *note_path)
{
    uint32_t wlen = (uint32_t)strlen(work), nlen = note_path ? (uint32_t)strlen(note_path) : 0;
    uint32_t len = (uint32_t)sizeof limit_s + (uint32_t)sizeof wlen + wlen + nlen;
    char *payload = malloc(len);
    if (child_fd < 0 || !payload) {
        free(payload);
        return;
    }
    memcpy(payload, &limit_s, sizeof limit_s);
    memcpy(payload + sizeof limit_s, &wlen, sizeof wlen);
    memcpy(payload + sizeof limit_s + sizeof wlen, work, wlen);
    if (nlen) memcpy(payload + sizeof limit_s + sizeof wlen + wlen, note_path, nlen);
    send_frame(FRAME_BEGIN, payload, len);
    free(payload);
    child_working = 1;
}

void fb_guard_done(void)
{
    send_frame(FRAME_DONE, "", 0);
    child_working = 0;
}

void fb_guard_fatal(const char *why)
{
    if (child_fd < 0 || !child_working) return;
    send_frame(FRAME_FATAL, why, (uint32_t)strlen(why));
    fprintf(stderr, "flowbench: %s: this process cannot go on\n", why);
    fflush(NULL);
    _exit(FATAL_EXIT);
}

void fb_guard_set_restart(const char *recipe) { send_frame(FRAME_RESTART, recipe, (uint32_t)strlen(recipe)); }

/* ---- the guard's side ---- */

typedef struct child {
    pid_t pid;
    int fd; /* -1 once the child's end is closed */
    char *buf;
    size_t len, cap;
    /* what it said */
    int working;
    double limit_s, began;
    char work[2048], note[1200];
    char fatal[600]; /* why it ended itself (FRAME_FATAL), else empty */
    char *recipe;
    /* how it ended */
    int code, signal, hung, stopped;
    double stop_seen, term_sent;
} child;

static void copy_text(char *to, size_t cap, const char *from, size_t n)
{
    n = n < cap - 1 ? n : cap - 1;
    memcpy(to, from, n);
    to[n] = '\0';
}

static void take_begin(child *c, const char *p, uint32_t len)
{
    uint32_t wlen;
    if (len < sizeof(double) + sizeof wlen) return;
    memcpy(&c->limit_s, p, sizeof(double));
    memcpy(&wlen, p + sizeof(double), sizeof wlen);
    p += sizeof(double) + sizeof wlen, len -= (uint32_t)(sizeof(double) + sizeof wlen);
    if (wlen > len) return;
    copy_text(c->work, sizeof c->work, p, wlen);
    copy_text(c->note, sizeof c->note, p + wlen, len - wlen);
    c->working = 1, c->began = fb_now();
}

static void take_frame(child *c, char type, const char *p, uint32_t len)
{
    if (type == FRAME_BEGIN) take_begin(c, p, len);
    if (type == FRAME_DONE) c->working = 0;
    if (type == FRAME_FATAL) copy_text(c->fatal, sizeof c->fatal, p, len);
    if (type == FRAME_RESTART) {
        char *copy = malloc((size_t)len + 1);
        if (!copy) return; /* the previous recipe stays */
        copy_text(copy, (size_t)len + 1, p, len);
        free(c->recipe);
        c->recipe = copy;
    }
}

/* The complete frames in the buffer; a partial one waits for the rest. */
static void take_frames(child *c)
{
    size_t at = 0;
    while (c->len - at >= FRAME_HEADER) {
        uint32_t len;
        memcpy(&len, c->buf + at + 1, sizeof len);
        if (c->len - at - FRAME_HEADER < len) break;
        take_frame(c, c->buf[at], c->buf + at + FRAME_HEADER, len);
        at += FRAME_HEADER + len;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
}

static void read_pipe(child *c)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, 100) <= 0) return;
    if (c->cap - c->len < 4096) {
        char *grown = realloc(c->buf, c->cap + 65536);
        if (!grown) return; /* read later */
        c->buf = grown, c->cap += 65536;
    }
    ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        close(c->fd);
        c->fd = -1;
        return;
    }
    if (n > 0) c->len += (size_t)n, take_frames(c);
}

/* The limits: work that hangs, and a stop the user asked for. */
static void enforce(child *c)
{
    double t = fb_now();
    if (c->working && !c->hung && t - c->began > c->limit_s) {
        c->hung = 1;
        kill(c->pid, SIGKILL);
    }
    if (fb_interrupted && !c->stop_seen) c->stopped = 1, c->stop_seen = t;
    if (c->stop_seen && !c->term_sent && t - c->stop_seen > stop_notice_s) {
        kill(c->pid, SIGTERM);
        c->term_sent = t;
    }
    if (c->term_sent && t - c->term_sent > stop_grace_s) kill(c->pid, SIGKILL);
}

static void wait_child(child *c)
{
    int wstatus = 0;
    for (;;) {
        pid_t got;
        if (c->fd >= 0) {
            read_pipe(c);
            got = waitpid(c->pid, &wstatus, WNOHANG);
        } else {
            got = waitpid(c->pid, &wstatus, 0); /* its end closed: it is exiting (a signal interrupts the wait) */
        }
        if (got == c->pid || (got < 0 && errno != EINTR)) break;
        enforce(c);
    }
    /* what it wrote before it ended; a process it started that kept the
     * pipe (one forked, not yet exec'd) is not waited for beyond 1 s */
    for (double until = fb_now() + 1.0; c->fd >= 0 && fb_now() < until;)
        read_pipe(c);
    if (c->fd >= 0) close(c->fd), c->fd = -1;
    if (WIFSIGNALED(wstatus)) c->signal = WTERMSIG(wstatus);
    if (WIFEXITED(wstatus)) c->code = WEXITSTATUS(wstatus);
}

static int start_child(child *c, char **argv, const char *recipe)
{
    int fds[2];
    char fd[16], pid[24];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    snprintf(fd, sizeof fd, "%d", fds[1]);
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    fflush(NULL);
    c->pid = fork();
    if (c->pid == 0) {
        fcntl(fds[1], F_SETFD, 0); /* the write end survives the exec */
        setenv(FD_VAR, fd, 1), setenv(PID_VAR, pid, 1);
        if (recipe) setenv(RESTART_VAR, recipe, 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "flowbench: cannot start the guarded process (/proc/self/exe): %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    if (c->pid < 0) {
        close(fds[0]);
        return -1;
    }
    c->fd = fds[0];
    return 0;
}

/* "died of SIGSEGV (Segmentation fault)", "stopped on an error ...", ... */
static void describe(const child *c, char *buf, size_t len)
{
    if (c->hung)
        snprintf(buf, len, "did not finish within %.0f s and was killed (a kernel that never returns?)", c->limit_s);
    else if (c->fatal[0] && c->code == FATAL_EXIT)
        snprintf(buf, len, "stopped on an error it cannot recover from: %s", c->fatal);
    else if (c->signal)
        snprintf(buf, len, "died of SIG%s (%s)", sigabbrev_np(c->signal) ? sigabbrev_np(c->signal) : "?",
                 sigdescr_np(c->signal) ? sigdescr_np(c->signal) : "unknown signal");
    else
        snprintf(buf, len, "exited with status %d", c->code);
}

/* Appends to the note file (never creates it: without it, the work's
 * result was written). */
static void note(const child *c, const char *how)
{
    FILE *f = c->note[0] ? fopen(c->note, "r+") : NULL;
    if (!f) return;
    fseek(f, 0, SEEK_END);
    if (c->stopped)
        fprintf(f, "signalled\n");
    else
        fprintf(f, "ended %s %s\n", c->hung ? "timeout" : "crashed", how);
    fclose(f);
}

/* How one child ended: -1 when a successor goes on (*recipe is its), else
 * the command's exit code. */
static int ended(const char *command, child *c, char **recipe, char *last_work)
{
    char how[900];
    describe(c, how, sizeof how);
    if (c->stopped) {
        if (c->working) note(c, how);
        if (c->signal) fprintf(stderr, "flowbench: interrupted\n");
        return c->signal ? 130 : c->code;
    }
    int fatal = c->fatal[0] && c->code == FATAL_EXIT;
    if (!c->signal && !c->hung && !fatal) return c->code;
    if (!c->working) {
        fprintf(stderr, "flowbench: %s: its process %s\n", command, how);
        return 3;
    }
    note(c, how);
    if (!c->recipe || !strcmp(c->work, last_work)) { /* the same work twice: its note did not take */
        fprintf(stderr, "flowbench: %s: the process running it %s\n", c->work, how);
        return 3;
    }
    fprintf(stderr, "%s: %s: the process running it %s; recorded as %s, a new process goes on\n", command, c->work, how,
            c->hung ? "timeout" : "crashed");
    snprintf(last_work, sizeof c->work, "%s", c->work);
    free(*recipe);
    *recipe = c->recipe, c->recipe = NULL;
    return -1;
}

int fb_guard_command(const char *command, char **argv)
{
    char *recipe = NULL, last_work[2048] = "";
    int rc = -1;
    while (rc < 0) {
        child c;
        memset(&c, 0, sizeof c);
        if (start_child(&c, argv, recipe) != 0) {
            fprintf(stderr, "flowbench: %s: cannot start its process: %s\n", command, strerror(errno));
            rc = 3;
            break;
        }
        wait_child(&c);
        rc = ended(command, &c, &recipe, last_work);
        free(c.buf);
        free(c.recipe);
    }
    free(recipe);
    return rc;
}
