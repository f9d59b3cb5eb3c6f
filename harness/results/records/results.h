/* results.h - JSON Lines results files.
 *
 * A results file is a sequence of runs. Each run starts with one header
 * record ("type": "header") describing the machine and the build, followed
 * by one record per measurement ("type": "measurement"), each carrying the
 * run id of its header. Records are appended and flushed (and fsync'ed) one
 * at a time, each in one write() of a whole line, so an interrupted run
 * loses nothing already measured. A writer holds an exclusive lock on the
 * file while it is open: a second writer is refused, naming the first.
 * The schema is documented in docs/results.md.
 */
#ifndef FB_RESULTS_H
#define FB_RESULTS_H

#include <jansson.h>

#include "../../backends/backend.h"
#include "../../core/measure.h"

#define FB_RESULTS_SCHEMA 1

typedef struct fb_results fb_results;

/* Opens path for appending (creating it; a path that is not a regular
 * file is refused), takes the writer's lock (FB_ERR_USAGE naming the pid
 * and command that hold it) and repairs a last line cut by a kill: kept
 * with a newline added when it parses, dropped when not (said on stderr).
 * No header yet: a caller that reads the file first (sweep --resume) does
 * so under the lock. */
fb_status fb_results_begin(const char *path, fb_results **out);

/* The header record built from the devices taking part in this run, with
 * the fields of extra (an object, or NULL) added. */
fb_status fb_results_write_header(fb_results *r, const char *command, const fb_device_info *devices, int ndevices,
                                  const json_t *extra);

/* fb_results_begin, then the header. */
fb_status fb_results_open(const char *path, const char *command, const fb_device_info *devices, int ndevices,
                          fb_results **out);

/* Appends word to the string in buf (after a space unless buf is empty),
 * single-quoted when the shell would read it otherwise. */
void fb_shell_append(char *buf, size_t len, const char *word);

/* Remembers the command line (argv[0] first) for the "command_line" field
 * of the headers this process writes. */
void fb_results_set_command_line(int argc, char *const *argv);

/* Adds "type", "schema" and "run_id" to record, writes it as one line,
 * flushes it to disk. Does not take ownership of record. */
fb_status fb_results_append(fb_results *r, json_t *record);

void fb_results_close(fb_results *r);

/* The run id the records appended get ("DATE-PID" of this process), and
 * another one: the ranks of an MPI sweep write under rank 0's, so their
 * records are one run with one header. */
const char *fb_results_run_id(const fb_results *r);
void fb_results_set_run_id(fb_results *r, const char *run_id);

/* Appends one line of another results file as it is (its own run_id,
 * schema and type; line without its newline), in one write(); not
 * fsync'ed, so that joining files costs one fb_results_sync, not one per
 * record. */
fb_status fb_results_copy_line(fb_results *r, const char *line);
fb_status fb_results_sync(fb_results *r);

/* FB_ERR_USAGE naming the pid and command when a writer holds path's lock
 * (a sweep still running): a file is not read as complete while it grows.
 * A missing file is FB_OK. */
fb_status fb_results_check_idle(const char *path);

/* The header record alone (also used by `devices --json`). */
json_t *fb_json_header(const char *command, const fb_device_info *devices, int ndevices);
json_t *fb_json_device(const fb_device_info *info);
#endif
