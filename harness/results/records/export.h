/* export.h - results as CSV (or JSON, or a markdown table), one row per
 * measurement record, for spreadsheets, gnuplot, scripts and reports
 * (`flowbench export RESULTS --csv|--json|--markdown`). The columns
 * are documented in docs/results.md: a fixed set every record fills, then
 * one "param_NAME" column per parameter name found in the file. */
#ifndef FB_EXPORT_H
#define FB_EXPORT_H

#include <stdio.h>

#include "reader.h"

/* Writes the header row and one row per record (every record, in file
 * order; `latest_only` drops records a later run of the same configuration
 * replaced). The caller, which knows the file's name, checks the writes. */
fb_status fb_export_csv(const fb_results_set *set, FILE *out, int latest_only);

/* The same table in another format: CSV as above; JSON, an array of one
 * object per record, keyed by the column names, numbers as numbers and
 * empty fields null; markdown, a table (numbers to 6 digits, '|' escaped). */
typedef enum fb_export_format { FB_EXPORT_CSV, FB_EXPORT_JSON, FB_EXPORT_MARKDOWN } fb_export_format;
fb_status fb_export(const fb_results_set *set, FILE *out, fb_export_format format, int latest_only);

/* One CSV field (RFC 4180 quoting when it holds a comma, quote or newline). */
void fb_csv_field(FILE *out, const char *text);

/* A number as a CSV field; NAN is written as an empty field. */
void fb_csv_number(FILE *out, double x);

/* Text for one markdown table cell: a '|' would end the cell (escaped), a
 * newline the row (a space). */
void fb_md_text(FILE *out, const char *text);

#endif
