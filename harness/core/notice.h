/* notice.h - a line about the machine said once per run, not per command.
 *
 * Some lines describe the machine, not the command: "energy unavailable on
 * openmp:0: RAPL: ..." is as true for the twentieth command of a suite as
 * for the first, and the record keeps the reason anyway. A process says
 * each such line once (its caller sees to that); a run of many commands
 * (scripts/default-suite.sh, a CI script) names one file in the
 * environment variable FLOWBENCH_NOTICES, and then a line already in that
 * file is not said again. The file is the run's list of them too. Without
 * the variable every process says its lines, as before.
 */
#ifndef FB_NOTICE_H
#define FB_NOTICE_H

/* Writes the formatted line (a newline is added) to stderr unless the
 * file named by FLOWBENCH_NOTICES already holds it; appends it there.
 * A file that cannot be read or written costs the saying, never the line. */
void fb_notice_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
