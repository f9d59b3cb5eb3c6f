/* tune_db.h - `tune merge OUT IN...` and `tune export [--cache FILE]
 * --header FILE.h | --json FILE`: the tuning cache merged across nodes
 * and shipped (tune/cache.h), on the command line. cmd_tune.c hands these
 * verbs here. docs/tuning.md, "Shipping your settings". */
#ifndef FB_CLI_TUNE_DB_H
#define FB_CLI_TUNE_DB_H

#include "cli.h"

/* 1 when the first argument is merge or export. */
int fb_tune_db_wanted(const fb_parsed *args);

/* The verb's run: the exit code. */
int fb_tune_db_run(const fb_parsed *args);

#endif
