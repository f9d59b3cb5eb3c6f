/* prefixed.h - a stream onto stderr whose every line starts with a prefix
 * ("[rank 1/4 node3] "), for the ranks of one launch writing to one
 * terminal or log: each line goes out in one write(), so the launcher,
 * which forwards each rank's output in pieces, never splits it with
 * another rank's. */
#ifndef FB_CORE_PREFIXED_H
#define FB_CORE_PREFIXED_H

#include <stdio.h>

/* The stream, line-buffered; NULL when it cannot be made. fclose it. */
FILE *fb_prefixed_stderr(const char *prefix);

#endif
