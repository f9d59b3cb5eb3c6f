/* interrupt.h - Ctrl-C and SIGTERM for every command.
 *
 * The handler sets fb_interrupted; every loop that can run long over a
 * user's input (samples, sweep configurations, solver steps, results
 * records, suite cases, cache entries) polls it and fails with
 * FB_ERR_INTERRUPTED, which the CLI turns into exit status 130. A second
 * signal ends the process at once (a kernel that never returns).
 *
 * Work that cannot poll (a library call that parses a whole file, code of
 * another module that loops without looking) runs between
 * fb_interrupt_at_once_begin and fb_interrupt_at_once_end: there a signal
 * ends the process at once, with "flowbench: interrupted" and exit status
 * 130, so that a signal is never held for minutes. Only work that leaves
 * nothing half-done on disk belongs in such a stretch.
 */
#ifndef FB_INTERRUPT_H
#define FB_INTERRUPT_H

#include <signal.h>

#include "status.h"

/* Set by the handler (fb_install_interrupt_handler); long loops poll it. */
extern volatile sig_atomic_t fb_interrupted;

/* Catches SIGINT and SIGTERM; main() calls it once for every command. */
void fb_install_interrupt_handler(void);

/* A file the first signal appends the line "signalled" to, when it
 * exists (path copied; NULL forgets it). The sweep names its in-flight
 * marker here when it runs on several MPI ranks: a launcher stops every
 * rank when one dies, and the marker then tells a rank that was stopped
 * in a configuration (run it again) from the one that died in it
 * (crashed). Only async-signal-safe calls run in the handler. */
void fb_interrupt_note_on_signal(const char *path);

/* Starts a stretch in which a signal ends the process at once. Fails with
 * FB_ERR_INTERRUPTED (and the stretch not started) when a signal already
 * came, so none is lost between the last poll and the stretch. */
fb_status fb_interrupt_at_once_begin(void);

/* Ends it: signals set fb_interrupted again. */
void fb_interrupt_at_once_end(void);

#endif
