/* record_text.h - one measurement record in the lines a single run of
 * `flowbench spmv`, `grid` or `stream` prints under its result: the
 * parameters, what the compiler made of the kernel, SELL's layout, the
 * median and why sampling stopped, the check, hardware counters and the
 * energy; and a decomposed heat2d run's table. Each takes the record (or
 * its part) and prints nothing for a part the record lacks. */
#ifndef FB_PRESENTATION_RECORD_TEXT_H
#define FB_PRESENTATION_RECORD_TEXT_H

#include <jansson.h>
#include <stdio.h>

/* "  params: NAME=V ..." ("(none)" without). */
void fb_record_print_params(FILE *f, const json_t *rec);

/* A kernel_resources object: registers and occupancy where the runtime
 * says (CUDA), private and local bytes, the largest group. */
void fb_record_print_resources(FILE *f, const json_t *k);

/* A sell object: slices, stored entries and padding, conversion time. */
void fb_record_print_sell(FILE *f, const json_t *sell);

/* "GB/s of B model bytes = P% of stream triad T GB/s, R% of the read
 * ceiling D GB/s", as much as the record knows, no newline. */
void fb_record_print_bandwidth(FILE *f, const json_t *rec);

/* A csr16 record's conversion (bases, those kept at 32 bits), an sss
 * record's (chunks, products through slots) and, for the single-values
 * format, its error against the double values' product. */
void fb_record_print_format_notes(FILE *f, const json_t *rec);

/* The median, its samples and confidence interval, and "converged" (the
 * rule that stopped sampling) or "unstable: why". */
void fb_record_print_median(FILE *f, const json_t *rec);

/* The check: ok or WRONG, with the error and tolerance or the reason. */
void fb_record_print_check(FILE *f, const json_t *rec);

/* A counters object: the events and derived values per run, or why
 * counting was unavailable. */
void fb_record_print_counters(FILE *f, const json_t *counters);

/* A record's energy (its "energy" object, core/energy.h) in a line or two
 * under its result: joules per run, GFLOP/J, power, window, clocks; and
 * "THROTTLED: why" when the measurement was. Nothing when energy was
 * unavailable and nothing throttled (the target said why once, on stderr).
 * label, when not NULL, names the kernel ("energy (triad): ..."). */
void fb_record_print_energy(FILE *f, const char *label, const json_t *energy);

/* A decomposed heat2d run's record (`grid --decomp`, several ranks): the
 * run, the split of an iteration, the load balance, the check against one
 * device bit for bit, and a line per rank. */
void fb_record_print_decomposed(FILE *f, const json_t *rec);

/* A single `spmv` run's result: the kernel, device and precision, the
 * matrix as the kernel read it (source, nrows x ncols, the entries it
 * stores: a block view's are padded; reordered: in RCM order), then the
 * parts above that the record has, GFLOP/s and bandwidth, the check, and
 * auto's choice. */
void fb_record_print_spmv(FILE *f, const json_t *rec, const char *source, int nrows, int ncols, long long stored,
                          int reordered);

/* A single `grid` run's result: the family's kernel, the grid (spec) and
 * its cells, the parameters, the median per cell and bandwidth, the
 * check, the energy. */
void fb_record_print_grid(FILE *f, const json_t *rec, const char *family, const char *spec);

/* One record as a row of a plan's table (`spmv`/`grid` with several
 * configurations): kernel, problem (the record's problem_key object's
 * name or source), parameters, status, then the median, GB/s and
 * fractions, or the reason it has none. The header names the columns. */
void fb_record_print_row_header(FILE *f, const char *problem_key);
void fb_record_print_row(FILE *f, const json_t *rec, const char *problem_key);

#endif
