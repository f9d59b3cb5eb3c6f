/* compare_history_cli.h - `compare --history DB NEW` (cmd_compare_history.c):
 * NEW judged against the history's last stable runs
 * (results/gate/compare_history.h), with compare's own option reader. */
#ifndef FB_COMPARE_HISTORY_CLI_H
#define FB_COMPARE_HISTORY_CLI_H

#include "cli.h"
#include "../results/gate/compare.h"

typedef fb_status (*fb_compare_read_options)(const fb_parsed *args, fb_compare_options *opt);

/* The exit code: compare's gate (fb_compare_gate), or fb_comm_report's. */
int fb_compare_history_command(const fb_parsed *args, fb_compare_read_options read_options);

#endif
