/* stream_used.h - the stream references this process divided by, one per
 * device (fb_stream_ref_json's object, kept by whoever looked it up), and
 * the judgement of a record against the one its device used: the record
 * names its reference, is judged for cache reuse (fb_json_judge_roofline)
 * and says when the reference itself was not stable. spmv, grid and solve
 * look a reference up once and emit many records against it. */
#ifndef FB_RECORDS_STREAM_USED_H
#define FB_RECORDS_STREAM_USED_H

#include <jansson.h>

#include "backends/target.h"

/* Keeps ref (owned from here on) as device_id's reference, replacing an
 * earlier one; past a handful of devices the newest is dropped. */
void fb_stream_used_keep(const char *device_id, json_t *ref);

/* The read ceiling (GB/s of stream's dot) of d's kept reference; 0 when
 * none is kept or it has no read figure. */
double fb_stream_used_read_gbs(const fb_device_info *d);

/* For a record with a fraction of the triad: its "stream_reference" (the
 * kept one), the cache judgement, and the reference's own quality in its
 * "roofline_note". Returns the note, NULL when the fraction is a plain
 * roofline fraction (the record owns the string). */
const char *fb_stream_used_judge(const fb_device_info *d, json_t *rec);

#endif
