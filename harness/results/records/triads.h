/* triads.h - the one stream triad per device a report or a set of figures
 * divides by.
 *
 * A run of several commands measures the triad several times: `stream`
 * itself, each `sweep` with stream: true, and each `spmv` (or it carries a
 * stored one). Dividing each record by its own made one kernel 118% of the
 * triad in one table and 2.00 in another of the same run. So a device gets
 * one: where every record of the device that has a fraction, outside a
 * sweep (which divides by its own stream study), divided by the same triad (the stored reference the commands of a run
 * share: stream_gbs, its stream_reference saying where it came from), that one, so that the terminal, the records and
 * the report divide alike; else the `stream` command's triad (a record without a suite) before a sweep's, double
 * precision before single, the larger array before the smaller, the later before the earlier; without any stream
 * record, the triad the device's latest record carries. The other triads measured are counted beside it, so a reader
 * sees how much they spread.
 */
#ifndef FB_RESULTS_TRIADS_H
#define FB_RESULTS_TRIADS_H

#include "reader.h"

typedef struct fb_device_triad {
    char device[64];       /* "openmp:0" */
    char device_name[128]; /* the record's device_name */
    double gbs;            /* the triad every fraction of the device divides by */
    const fb_record *rec;  /* the stream record it is; NULL: carried by carrier */
    const fb_record *carrier;
    char source[512]; /* where it comes from, for a reader: "stream, results.jsonl:5, n = 33554432" */
    int others;       /* other GB/s figures of the device's triad in the set (measured, or carried), distinct */
    double others_min, others_max;
    json_t *values;         /* every distinct figure seen, as "%.6g" keys (counting others) */
    json_t *carried;        /* the distinct figures the records (double precision) carried */
    json_t *carried_single; /* and those the single-precision records carried */
    int by_carried;         /* gbs is the one figure every record carried */
    double single_gbs;      /* > 0: the one triad every single-precision record carried, theirs */
} fb_device_triad;

typedef struct fb_triads {
    fb_device_triad *t;
    int n;
} fb_triads;

/* Picks each device's triad (above) and sets set->device_triad, so that
 * fb_record_fraction divides by it from then on. */
fb_status fb_triads_pick(fb_results_set *set, fb_triads *out);

/* The device's entry, or NULL. */
const fb_device_triad *fb_triads_find(const fb_triads *t, const char *device);

void fb_triads_free(fb_triads *t);

#endif
