/* stream_ref.h - the stream triad every roofline fraction divides by, one
 * per device, precision and array size, measured once and kept in a small
 * JSON file so the commands of one run (spmv, grid, solve, each a process)
 * divide by the same figure instead of a fresh, noisy one each: the
 * default suite once printed denominators from 26.9 to 49.8 GB/s for one
 * device. A stored reference is reused while younger than a maximum age;
 * every record names the reference it used (fb_stream_ref_json). */
#ifndef FB_RECORDS_STREAM_REF_H
#define FB_RECORDS_STREAM_REF_H

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
    /* measured now, but contended or unstable, and so passed over for the
     * stored stable one (which is past its age) */
    int has_passed_over;
    fb_stream_triad passed_over;
} fb_stream_ref;

/* The reference for t's device. The file keeps one triad per device,
 * precision and array size, and only a stable one (never contended or
 * unstable: docs/measurement.md), the best measured while the stored one
 * was younger than max_age_s. The stored one is used while younger than
 * max_age_s (0: always measure); else the triad is measured now
 * (fb_stream_triad_measure) and stored when stable and better or the
 * stored one is past its age. A contended or unstable measurement is used
 * only where nothing stable is stored (its quality then travels in the
 * reference); where something is, the stored one is used and the passed
 * over measurement said. A file that does not parse is replaced, with a
 * warning, not an error: it is a cache. */
fb_status fb_stream_ref_get(fb_target *t, size_t n, int is_double, const char *path, double max_age_s,
                            fb_stream_ref *out);

/* A triad measured elsewhere (`flowbench stream`) offered to the file by
 * the same rule: stored when stable and better than the stored one or that
 * one is past max_age_s. said gets what happened, for the terminal. */
fb_status fb_stream_ref_offer(fb_target *t, const fb_stream_triad *triad, int is_double, const char *path,
                              double max_age_s, char *said, size_t len);

/* {"gbs", "gbs_min", "gbs_max", "read_gbs", "samples", "n", "measured_at", "age_s",
 * "source": "measured"|"stored", "file", "quality", "quality_why",
 * "environment", "working_set_bytes", "cache_resident", "cache_reuse", and
 * "passed_over" where a measurement was}: the record's stream_reference:
 * which triad it divided by, where and when measured, and whether it is a
 * DRAM triad. */
json_t *fb_stream_ref_json(const fb_stream_ref *r, const char *path);

/* $FLOWBENCH_STREAM_MAX_AGE, else FB_STREAM_REF_MAX_AGE_S: how long a
 * stored reference is used as it is. */
double fb_stream_ref_max_age(void);

/* $FLOWBENCH_STREAM_CACHE, else the tuning cache's folder's stream.json. */
void fb_stream_ref_default_path(char *buf, size_t len);

#endif
