/* guard.h - the guard process: a command that runs kernels (sweep, spmv,
 * grid, tune) runs in a child process, so that a kernel that takes its
 * process down (an out-of-bounds write, an abort inside the device
 * compiler) or never returns ends the child, not the command.
 *
 * The guard is the command's first process: it starts the same command
 * line again as its child (a fresh exec: no OpenMP, OpenCL or CUDA state
 * is carried through a fork) and waits. Through a pipe the child tells it
 * when a piece of work that may crash or hang begins (its name, the
 * seconds after which it counts as hung, and a note file) and ends, and
 * how a successor would go on after it died inside such work (a recipe:
 * the sweep's resume state). The guard kills the child (SIGKILL) when a
 * piece of work passes its limit. When the child dies inside a piece of
 * work, the guard appends how to the note file ("ended crashed|timeout
 * HOW"), and, given a recipe, starts a new child with it (the sweep
 * records that configuration from the note and goes on with the rest);
 * without one it says which work died and how, exit 3. A child that ends
 * itself on an error it cannot recover from (fb_guard_fatal) counts as
 * crashed, with its reason in place of a signal. A death outside
 * any piece of work is said the same way. SIGINT/SIGTERM to the command
 * stop the child as they would stop the command: the child has 1 s to
 * see the signal (Ctrl-C reaches both processes), then is sent SIGTERM,
 * then 5 s later SIGKILL (a kernel that never returns cannot stop
 * itself); the note file then gets "signalled" (run it again on resume).
 * The child dies with the guard (PR_SET_PDEATHSIG).
 *
 * Cost: one exec per command (and one per crash), and two small pipe
 * writes plus the recipe per piece of work (docs/tuning.md measures it).
 *
 * Off under MPI ranks (a launcher owns its processes) and with
 * FLOWBENCH_GUARD=0 (a debugger wants the kernel in its own process). */
#ifndef FB_CORE_GUARD_H
#define FB_CORE_GUARD_H

#include <stddef.h>

/* 1 when this process should become a guard: not a guarded child, not
 * under an MPI launcher, not turned off. Valid before fb_comm_init. */
int fb_guard_wanted(void);

/* The guard: runs argv again (this executable) as its child, restarting
 * it as its recipes say, until the command ends; returns the command's
 * exit code. command names it in messages. */
int fb_guard_command(const char *command, char **argv);

/* In main, before the command: a guarded child takes its pipe from the
 * environment (no-op otherwise). */
void fb_guard_child_init(void);
int fb_guard_in_child(void);

/* The recipe the guard gave this child (NULL: the command's first). */
const char *fb_guard_restart(void);

/* In a guarded child (no-ops elsewhere): a piece of work that may crash
 * or hang begins, named, to be killed after limit_s seconds; note_path
 * (or NULL) is the file the guard appends its note to; it ended. */
void fb_guard_begin(const char *work, double limit_s, const char *note_path);
void fb_guard_done(void);

/* In a guarded child inside a piece of work: this process cannot go on
 * (a lost CUDA context: only a new process recovers). Tells the guard
 * why and ends the process at once; the guard records the work as
 * crashed with that reason and goes on as after any crash. Elsewhere a
 * no-op: the caller returns its error as usual. */
void fb_guard_fatal(const char *why);

/* In a guarded child: what a successor gets (fb_guard_restart) should
 * this process die inside a piece of work; replaces the last. */
void fb_guard_set_restart(const char *recipe);

#endif
