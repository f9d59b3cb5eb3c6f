/* fresh.h - one command of this program run again in a fresh process, its
 * standard output kept: how a configuration is measured across processes
 * (`--processes N`) and how tune confirms its best point before storing it
 * (docs/measurement.md, "Across processes"). One process's samples cannot
 * show what is decided once per process: where the scheduler put a
 * runtime's threads, which pages a buffer got, a JIT's choices. On this
 * 2-CPU VM one PoCL SpMV ran 0.26 ms in some processes and 0.50 ms in
 * others, each "converged" within 1%.
 *
 * The child is this executable (/proc/self/exe) with the given arguments,
 * without the guard (the parent is the one to say what a crash was) and
 * with the parent's environment otherwise: the OpenMP wait policy and the
 * runtimes' pinning decided at the parent's start carry over, so every
 * process measures under the same decision. */
#ifndef FB_CORE_FRESH_H
#define FB_CORE_FRESH_H

#include <stddef.h>

#include "status.h"

typedef struct fb_fresh_result {
    char *out;      /* the child's standard output, NUL-terminated (free it) */
    int exit_code;  /* its exit status; 128 + N when a signal N ended it */
    char last[512]; /* the last line it wrote on standard error */
} fb_fresh_result;

/* Runs argv (argv[0] is the command's name for messages, not a path) and
 * waits. FB_ERR_INTERRUPTED when Ctrl-C or SIGTERM came meanwhile (the
 * child got it too); FB_ERR_IO when it could not be started. A child that
 * fails is not an error here: *r says how it ended. */
fb_status fb_fresh_run(char *const *argv, fb_fresh_result *r);

void fb_fresh_result_free(fb_fresh_result *r);

#endif
