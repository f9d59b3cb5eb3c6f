/* dashboards.h - results in the formats of the two dashboards CI users
 * keep for custom harnesses (`flowbench export --bmf | --github-benchmark`,
 * docs/plots-and-compare.md):
 *
 * Bencher's BMF JSON: {"BENCHMARK": {"MEASURE": {"value", "lower_value",
 * "upper_value"}}}, one benchmark per configuration key, measures
 * "latency" (Bencher's own: the median in ns, bounds its 95% confidence
 * interval), "gb-per-s", "gflop-per-s", "fraction-of-triad" and, where
 * measured, "joules-per-run" (created by Bencher on first sight).
 *
 * github-action-benchmark's custom tools: an array of {"name", "unit",
 * "value", "range", "extra"}; time in ms for customSmallerIsBetter, or
 * GB/s for customBiggerIsBetter (one direction per file, as the action
 * reads one tool per step).
 *
 * Only the latest usable record of each configuration, and only stable
 * ones: a contended or unstable time would move a dashboard's baseline and
 * neither format has a flag for it; *left_out counts those left out. */
#ifndef FB_RESULTS_DASHBOARDS_H
#define FB_RESULTS_DASHBOARDS_H

#include <stdio.h>

#include "reader.h"

fb_status fb_export_bmf(const fb_results_set *set, FILE *out, int *left_out);

typedef enum fb_github_measure { FB_GITHUB_TIME, FB_GITHUB_GBS } fb_github_measure;
fb_status fb_export_github_benchmark(const fb_results_set *set, fb_github_measure measure, FILE *out, int *left_out);

#endif
