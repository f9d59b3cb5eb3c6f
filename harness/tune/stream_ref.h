/* stream_ref.h - the stream triad every roofline fraction divides by, one
 * per device, precision and array size, measured once and kept in a small
 * JSON file so the commands of one run (spmv, grid, solve, each a process)
 * divide by the same figure instead of a fresh, noisy one each: the
 * default suite once printed denominators from 26.9 to 49.8 GB/s for one
 * device. A stored reference is reused while younger than a maximum age;
 * every record names the reference it used (fb_stream_ref_json). */
#ifndef FB_TUNE_STREAM_REF_H
#define FB_TUNE_STREAM_REF_H

#include <jansson.h>

#include "backends/target.h"
#include "stream/stream.h"

/* FLOWBENCH_STREAM_MAX_AGE unset: references younger than this are reused. */
#define FB_STREAM_REF_MAX_AGE_S 3600.0

typedef struct fb_stream_ref {
    fb_stream_triad triad;
    double measured_at;  /* seconds since the epoch */
    double age_s;        /* when looked up */
    int stored;          /* 1: taken from the file, 0: measured now */
    fb_stream_size size; /* its length against the device's cache: is it a DRAM triad? */
} fb_stream_ref;

/* The reference for t's device: the stored one when younger than max_age_s
 * (0: always measure), else measured now (fb_stream_triad_measure) and
 * written to path, replacing any entry for the same key. A file that does
 * not parse is replaced, with a warning, not an error: it is a cache. */
fb_status fb_stream_ref_get(fb_target *t, size_t n, int is_double, const char *path, double max_age_s,
                            fb_stream_ref *out);

/* {"gbs", "gbs_min", "gbs_max", "samples", "n", "measured_at", "age_s",
 * "source": "measured"|"stored", "file", "working_set_bytes",
 * "cache_resident", "cache_reuse"}: the record's stream_reference. */
json_t *fb_stream_ref_json(const fb_stream_ref *r, const char *path);

/* $FLOWBENCH_STREAM_CACHE, else the tuning cache's folder's stream.json. */
void fb_stream_ref_default_path(char *buf, size_t len);

#endif
