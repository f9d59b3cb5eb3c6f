/* report.h - `flowbench report`: a markdown summary of a run (every
 * results file of it) for a human: the machine, each device's stream
 * triad, the best SpMV variant per matrix with its settings, speedups over
 * OpenMP, grid studies, the solver's tables, sweeps, tuning, energy, the
 * environment and the verdict on every number, failures, and the figures
 * `flowbench plot` drew. Tables reuse the plot tables (figures.h), so the report and
 * the figures never disagree. */
#ifndef FB_REPORT_H
#define FB_REPORT_H

#include <stdio.h>

#include "../records/reader.h"

typedef struct fb_report_options {
    const char *plots_dir;   /* where `flowbench plot` wrote; NULL: no figures section */
    const char *link_prefix; /* prefix of image links ("" when the report sits beside them) */
} fb_report_options;

/* The caller, which knows the file's name, checks the writes. Re-marks
 * which record of each configuration counts (the latest stable one by
 * time, results/presentation/choice.h: set's superseded flags and latest), then picks
 * each device's one stream triad into set->device_triad
 * (results/records/triads.h): every fraction of the report divides by it. */
fb_status fb_report_write(fb_results_set *set, const fb_report_options *opt, FILE *out);

#endif
