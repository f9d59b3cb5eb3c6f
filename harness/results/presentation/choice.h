/* choice.h - which of a configuration's records `flowbench report` takes,
 * and when its records were measured.
 *
 * The loader (reader.h) marks a configuration's records superseded in
 * load order: the last one read stands. A file appended by hand, merged,
 * or a folder read in name order is not in time order, and a later run on
 * a busy machine replaced a stable measurement with a contended one (a
 * solver pair 0.43x stable, reported as 0.38x contended). The report
 * re-marks them by this rule instead:
 *
 *   - a record's time is its run's start, the date its run_id begins with
 *     (records carry no time of their own); the header's date where the
 *     run_id holds none; a record with neither counts as older than any
 *     dated one; equal times go by load order;
 *   - when the latest record by time is no usable measurement (a failure,
 *     a sweep's expected outcome), it stands: an older pass does not hide
 *     that the configuration fails now;
 *   - otherwise, among the measurements since the last failure, the
 *     latest stable one (stats.quality and environment.contended, as
 *     quality.h reads them); when none is stable, the latest.
 *
 * Plot, export --latest and compare --history keep the loader's marks
 * (docs/plots-and-compare.md says where they differ). */
#ifndef FB_RESULTS_CHOICE_H
#define FB_RESULTS_CHOICE_H

#include <stddef.h>

#include "../records/reader.h"

/* Re-marks every record's superseded flag (and set->latest) by the rule
 * above. Idempotent. */
void fb_results_choose_by_time(fb_results_set *set);

/* Why the report took record `chosen` of its configuration, when that
 * was a choice the loader would have made otherwise (a later record by
 * time passed over, or one later in the file but older): "2 records; took
 * the stable one of TIME (line 3) over a later contended one (TIME, line
 * 6)". Returns 0 (buf "") when there was nothing to choose. */
int fb_results_choice_why(const fb_results_set *set, const fb_record *chosen, char *buf, size_t len);

/* The earliest and latest time of every record read, headers included
 * ("" each when none has a time). */
void fb_results_time_range(const fb_results_set *set, char *first, char *last, size_t len);

/* The header of the latest run by time (ties: the one read last); NULL
 * without headers. */
const json_t *fb_results_latest_header(const fb_results_set *set);

#endif
