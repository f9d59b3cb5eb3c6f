/* report.h - `flowbench report`: a markdown summary of a results file for a
 * human: the machine, stream bandwidth, the best variant per matrix with its
 * settings, speedups over OpenMP, failures, and the figures `flowbench
 * plot` drew. Tables reuse the plot tables (figures.h), so the report and
 * the figures never disagree. */
#ifndef FB_REPORT_H
#define FB_REPORT_H

#include <stdio.h>

#include "reader.h"

typedef struct fb_report_options {
    const char *plots_dir;   /* where `flowbench plot` wrote; NULL: no figures section */
    const char *link_prefix; /* prefix of image links ("" when the report sits beside them) */
} fb_report_options;

/* The caller, which knows the file's name, checks the writes. */
fb_status fb_report_write(const fb_results_set *set, const fb_report_options *opt, FILE *out);

#endif
