/* fresh.c - a command run again in a fresh process (fresh.h): both of its
 * output streams read through pipes while it runs (a child that fills a
 * pipe nobody reads would never end), standard output kept, standard
 * error's last line kept for the message when it fails. */
#include "fresh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"

typedef struct reading {
    int out_fd, err_fd;
    char *out;
    size_t len, cap;
    char err_tail[512]; /* the last bytes of standard error, for its last line */
    size_t err_len;
} reading;

static int append_out(reading *rd, const char *buf, size_t n)
{
    if (rd->len + n + 1 > rd->cap) {
        size_t cap = rd->cap ? rd->cap : 4096;
        while (cap < rd->len + n + 1)
            cap *= 2;
        char *grown = realloc(rd->out, cap);
        if (!grown) return -1;
        rd->out = grown, rd->cap = cap;
    }
    memcpy(rd->out + rd->len, buf, n);
    rd->len += n;
    rd->out[rd->len] = '\0';
    return 0;
}

/* Keeps the tail of standard error: its last line is all a message needs. */
static void append_err(reading *rd, const char *buf, size_t n)
{
    const size_t cap = sizeof rd->err_tail - 1;
    if (n >= cap) buf += n - cap, n = cap;
    if (rd->err_len + n > cap) {
        size_t drop = rd->err_len + n - cap;
        memmove(rd->err_tail, rd->err_tail + drop, rd->err_len - drop);
        rd->err_len -= drop;
    }
    memcpy(rd->err_tail + rd->err_len, buf, n);
    rd->err_len += n;
    rd->err_tail[rd->err_len] = '\0';
}

/* One read from whichever stream has data; a stream at its end is closed. */
static int read_some(reading *rd, int *fd, int is_out)
{
    char buf[8192];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return 0;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return 0;
    }
    if (is_out) return append_out(rd, buf, (size_t)n);
    append_err(rd, buf, (size_t)n);
    return 0;
}

static void last_line(const char *tail, char *out, size_t len)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", tail);
    size_t n = strlen(copy);
    while (n > 0 && copy[n - 1] == '\n')
        copy[--n] = '\0';
    const char *nl = strrchr(copy, '\n');
    snprintf(out, len, "%s", nl ? nl + 1 : copy);
}

static pid_t start(char *const *argv, int out_pipe[2], int err_pipe[2])
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) return pid;
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]), close(err_pipe[0]), close(out_pipe[1]), close(err_pipe[1]);
    setenv("FLOWBENCH_GUARD", "0", 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "cannot run this program again: %s\n", strerror(errno));
    _exit(127);
}

/* Reads until both streams end; a signal to this process is passed on. */
static void drain(reading *rd, pid_t pid, int *signalled)
{
    while (rd->out_fd >= 0 || rd->err_fd >= 0) {
        struct pollfd p[2] = {{.fd = rd->out_fd, .events = POLLIN}, {.fd = rd->err_fd, .events = POLLIN}};
        if (fb_interrupted && !*signalled) kill(pid, SIGTERM), *signalled = 1;
        if (poll(p, 2, 100) <= 0) continue;
        if (rd->out_fd >= 0 && (p[0].revents & (POLLIN | POLLHUP)) && read_some(rd, &rd->out_fd, 1) != 0) {
            kill(pid, SIGKILL); /* out of memory for its output: it cannot be read */
            close(rd->out_fd), rd->out_fd = -1;
        }
        if (rd->err_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP))) read_some(rd, &rd->err_fd, 0);
    }
}

fb_status fb_fresh_run(char *const *argv, fb_fresh_result *r)
{
    fb_status status = FB_OK;
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, wstatus = 0, signalled = 0;
    reading rd;
    memset(r, 0, sizeof *r);
    memset(&rd, 0, sizeof rd);
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        FB_FAIL(FB_ERR_IO, "%s: cannot make a pipe to a new process: %s", argv[0], strerror(errno));
    pid_t pid = start(argv, out_pipe, err_pipe);
    if (pid < 0) FB_FAIL(FB_ERR_IO, "%s: cannot start a new process: %s", argv[0], strerror(errno));
    close(out_pipe[1]), close(err_pipe[1]);
    out_pipe[1] = err_pipe[1] = -1;
    rd.out_fd = out_pipe[0], rd.err_fd = err_pipe[0];
    out_pipe[0] = err_pipe[0] = -1;
    drain(&rd, pid, &signalled);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    r->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    r->out = rd.out ? rd.out : strdup("");
    rd.out = NULL;
    last_line(rd.err_tail, r->last, sizeof r->last);
    if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
fail:
    free(rd.out);
    for (int i = 0; i < 2; ++i) {
        if (out_pipe[i] >= 0) close(out_pipe[i]);
        if (err_pipe[i] >= 0) close(err_pipe[i]);
    }
    return status;
}

void fb_fresh_result_free(fb_fresh_result *r)
{
    free(r->out);
    r->out = NULL;
}
