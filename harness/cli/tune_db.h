/* tune_db.h - `flowbench tune merge OUT IN...` and `flowbench tune export
 * [--cache FILE] --header FILE.h | --json FILE`: the tuning cache merged
 * across nodes and shipped (tune/cache_tools.h). */
#ifndef FB_CLI_TUNE_DB_H
#define FB_CLI_TUNE_DB_H

#include "cli.h"

/* 1 when the command line is `tune merge ...` or `tune export ...`. */
int fb_tune_db_wanted(const fb_parsed *args);

/* Runs it; the exit status. */
int fb_tune_db_run(const fb_parsed *args);

#endif
