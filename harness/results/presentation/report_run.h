/* report_run.h - the sections of `flowbench report` that read a whole run
 * (every results file of it): its files, each device's one stream triad
 * (triads.h) with the stream kernels of that measurement, the solver's
 * tables in the paper's layout (Tables 4-7), grid studies, sweeps and
 * tuning results. report.c writes them in its order; the markdown helpers
 * here are shared by both. */
#ifndef FB_REPORT_RUN_H
#define FB_REPORT_RUN_H

#include <stdio.h>

#include "../records/reader.h"
#include "../records/triads.h"

/* "| TEXT " with '|' escaped and newlines flattened: one markdown cell. */
void fb_md_cell(FILE *out, const char *text);
/* Cells in a row, then "|\n". */
void fb_md_row(FILE *out, const char *const *cells, int n);
/* x with fmt, "-" for NAN (a missing figure, never "nan"). */
void fb_md_number(double x, const char *fmt, char *buf, size_t len);

/* Each file: its records, runs and the commands that wrote them. */
void fb_report_files(const fb_results_set *set, FILE *out);
/* Each device's triad, where it comes from, the other triads it differs
 * from, and the stream kernels of its measurement. */
void fb_report_triads(const fb_results_set *set, const fb_triads *triads, FILE *out);
/* The solver: time and speedup over OpenMP per backend (Tables 4 and 7,
 * results/presentation/speedup.h), and the split per step with shares, CG iterations,
 * GB/s and fraction of the device's triad (Tables 5 and 6). */
fb_status fb_report_solver(const fb_results_set *set, FILE *out);
/* The structured-grid families: the best record per grid, kernel and
 * device, with time per cell. */
void fb_report_grids(const fb_results_set *set, FILE *out);
/* Each sweep (suite, case): configurations measured, expected to end,
 * failed, and its fastest per device. */
fb_status fb_report_sweeps(const fb_results_set *set, FILE *out);
/* Records of tuned runs (their "tuning") and of tune's searches (best). */
void fb_report_tuning(const fb_results_set *set, FILE *out);
/* How the run's measurements stood: their verdicts counted, OpenMP
 * settings, governors, energy meters and why one was unavailable, and
 * throttling. */
void fb_report_environment(const fb_results_set *set, FILE *out);

#endif
