/* interrupt.c - the SIGINT/SIGTERM handler and its two modes (interrupt.h). */
#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t fb_interrupted = 0;

/* 1 inside an fb_interrupt_at_once_begin/end stretch. */
static volatile sig_atomic_t exit_at_once = 0;

/* What fb_comm_report says for FB_ERR_INTERRUPTED, written with write(2)
 * because stdio is not safe in a handler. */
static void exit_interrupted(void)
{
    static const char message[] = "flowbench: interrupted\n";
    ssize_t written = write(STDERR_FILENO, message, sizeof message - 1);
    (void)written; /* nothing left to do about a failed write */
    _exit(130);
}

/* fb_interrupt_note_on_signal's file ("" none); set before the signals
 * it is for can come, read by the handler. */
static char note_path[4096];

static void note_signal(void)
{
    static const char line[] = "signalled\n";
    int saved = errno; /* the code the signal interrupted may be about to read it */
    int fd = note_path[0] ? open(note_path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1; /* never creates it */
    if (fd >= 0) {
        ssize_t written = write(fd, line, sizeof line - 1);
        (void)written; /* a note that cannot be written leaves the marker saying "crashed": the old rule */
        close(fd);
    }
    errno = saved;
}

void fb_interrupt_note_on_signal(const char *path) { snprintf(note_path, sizeof note_path, "%s", path ? path : ""); }

/* The first signal asks long loops to stop between steps; a second one
 * (a kernel that never returns) ends the process at once. */
static void on_signal(int sig)
{
    if (!fb_interrupted) note_signal();
    if (exit_at_once) exit_interrupted();
    if (fb_interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    fb_interrupted = 1;
}

void fb_install_interrupt_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

fb_status fb_interrupt_at_once_begin(void)
{
    exit_at_once = 1; /* first: a signal from here on exits; one before it set the flag */
    if (!fb_interrupted) return FB_OK;
    exit_at_once = 0;
    return fb_error_set(FB_ERR_INTERRUPTED, __FILE__, __LINE__, "interrupted");
}

void fb_interrupt_at_once_end(void) { exit_at_once = 0; }
