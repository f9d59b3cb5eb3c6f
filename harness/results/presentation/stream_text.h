/* stream_text.h - `flowbench stream`'s table (a header per device, a line
 * per kernel as it completes) and the stream reference a measuring command
 * divides by, said on its stderr: stored or measured, its spread and age,
 * and whether it is flagged. */
#ifndef FB_PRESENTATION_STREAM_TEXT_H
#define FB_PRESENTATION_STREAM_TEXT_H

#include <stdio.h>

#include "stream/stream.h"
#include "../records/stream_ref.h"

/* The device, precision, n and working set, the size note where the cache
 * is too large for n, and the column names. */
void fb_stream_print_header(FILE *f, const fb_device_info *d, const fb_stream_config *cfg);

/* One kernel's line: GB/s, best GB/s, median, samples, spread, why
 * sampling stopped, the check; and the quality's reason when unstable. */
void fb_stream_print_result(FILE *f, const fb_stream_result *r);

/* Which triad the fractions divide by (path: the stream cache) and why
 * that one: one passed over, the stored or measured figure, a flagged
 * one's note. */
void fb_stream_ref_print(FILE *f, const fb_stream_ref *ref, const char *path);

#endif
