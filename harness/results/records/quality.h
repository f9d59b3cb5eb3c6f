/* quality.h - whether a record's time can be trusted, as the readers of
 * results files see it (docs/results.md): its samples' verdict
 * stats.quality ("stable", "unstable", "contended"; core/contention.h)
 * with stats.quality_why, and environment.contended. Files written before
 * the verdict existed have neither: stable. */
#ifndef FB_RESULTS_QUALITY_H
#define FB_RESULTS_QUALITY_H

#include <jansson.h>

#include "../../core/contention.h"

/* The record's quality, with its reason in *why ("" when stable; may be
 * NULL). A record whose stats say stable while its environment says
 * contended is contended: the window's verdict is the machine's. */
fb_quality fb_json_quality(const json_t *rec, const char **why);

/* "unstable" / "contended" marks are for these: not stable. */
static inline int fb_quality_flagged(fb_quality q) { return q != FB_QUALITY_STABLE; }

/* One configuration measured in n fresh processes (`--processes`), a
 * record and a median each: their verdict (two modes, fb_processes_judge,
 * or one mode with the medians' span) into verdict, and into every record
 * as "processes": {"index", "count", "medians_s", "verdict"}; two modes
 * make each stable record unstable, since no single process can tell which
 * mode it ran in. */
void fb_json_judge_processes(json_t *const *records, const double *medians, int n, char *verdict, size_t len);

#endif
