/* cache_tools.h - the tuning cache as something to ship: merge the caches
 * of many nodes into one, and export it for an application (a C header
 * with its own lookup, or a versioned JSON database with a schema,
 * docs/tuning-db.schema.json). docs/tuning.md, "Shipping your settings". */
#ifndef FB_TUNE_CACHE_TOOLS_H
#define FB_TUNE_CACHE_TOOLS_H

#include <stdio.h>

#include "cache.h"

typedef struct fb_cache_merge_counts {
    int added;    /* keys only an input had */
    int replaced; /* keys an input had faster than the output */
    int kept;     /* keys where the output's point stayed (faster, or as fast) */
} fb_cache_merge_counts;

/* Merges the caches at inputs into the cache file at out (created when
 * missing), under out's lock as fb_cache_store: for each key (device,
 * kernel, precision, signature) the point of smallest median_s stays,
 * with "from" naming the file it came from; each disagreement (another
 * point for the same key) is said on `say`. An input that is not a
 * tuning cache of this version is refused, naming it, before anything
 * is written. */
fb_status fb_cache_merge_files(const char *out, const char *const *inputs, int ninputs, FILE *say,
                               fb_cache_merge_counts *counts);

/* The cache as a C header (C11 and C++17, no dependency): static tables
 * and flowbench_tuned(device, arch, vendor, type, kernel, precision,
 * size), which returns the -D defines for the nearest device level and
 * problem size, or NULL for the kernel's defaults. */
fb_status fb_cache_export_header(const fb_tuning_cache *c, const char *path);

/* The cache as the versioned JSON database ({"flowbench_tuning_db": 1}). */
fb_status fb_cache_export_json(const fb_tuning_cache *c, const char *path);

#endif
