/* cli.h - the command table and a small option parser shared by every
 * `flowbench COMMAND`. Each command declares its options once; the parser
 * and `--help` both read that declaration, so help cannot drift from what
 * is accepted.
 *
 * Exit codes (every command): 0 success; 1 a failed check or a detected
 * regression; 2 usage or input error; 3 a runtime failure (backend, kernel
 * build or launch, memory, i/o); 130 interrupted.
 */
#ifndef FB_CLI_H
#define FB_CLI_H

#include <jansson.h>

#include "../backends/target.h"
#include "../core/files.h"
#include "../core/comm.h"
#include "../core/params.h"
#include "../core/measure.h"
#include "../core/status.h"
#include "../core/cmdline.h"

void fb_cli_print_help(const fb_command *cmd);

/* Before any work: refuses a file an output option names that is one a
 * file option reads, or another output's (fb_files_check_distinct, by
 * device and inode). inputs and outputs: option names, NULL-terminated;
 * every value of a repeated option counts, options the command's table
 * lacks or the line does not give are skipped; extra_in, extra_out: files
 * it reads or writes that no option names here (a suite, the default
 * tuning cache). */
fb_status fb_cli_check_files(const fb_parsed *args, const char *command, const char *const *inputs,
                             const char *const *outputs, const fb_named_file *extra_in, int nextra_in,
                             const fb_named_file *extra_out, int nextra_out);

/* --precision double (the default) or single. */
fb_status fb_cli_precision(const fb_parsed *p, int *is_double);

/* The measurement options, declared once for every measuring command (spmv,
 * grid, stream, tune): FB_CLI_MEASURE_OPTIONS(BUDGET_S, SPREAD_PCT) in its
 * option table, FB_CLI_OPTION_COLD and FB_CLI_OPTION_WARMUPS where the
 * command offers them, and fb_cli_measure to read them. The two defaults
 * that differ per command (tune samples each point shorter and looser) are
 * macro arguments, so the help text and the parser are given the same
 * number: FB_CLI_MEASURE_OPTIONS(FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT) and
 * fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &m). */
#define FB_CLI_STR_(x) #x
#define FB_CLI_STR(x) FB_CLI_STR_(x)
#define FB_CLI_BUDGET_S 2   /* fb_measure_defaults()'s budget_s */
#define FB_CLI_SPREAD_PCT 1 /* fb_measure_defaults()'s target_spread, in percent */
#define FB_CLI_MEASURE_OPTIONS(BUDGET_S, SPREAD_PCT)                                                                   \
    {"min-samples", "N", "at least this many samples (default 5)", 0},                                                 \
        {"max-samples", "N", "at most this many samples (default 200)", 0},                                            \
        {"spread", "PCT", "target 95% CI half-width of the median, percent (default " FB_CLI_STR(SPREAD_PCT) ")", 0},  \
    {                                                                                                                  \
        "budget", "S", "seconds of sampling per measurement (default " FB_CLI_STR(BUDGET_S) ")", 0                     \
    }
#define FB_CLI_OPTION_COLD                                                                                             \
    {                                                                                                                  \
        "cold", NULL, "flush the last-level cache before every sample", 0                                              \
    }
#define FB_CLI_OPTION_WARMUPS                                                                                          \
    {                                                                                                                  \
        "warmups", "N", "untimed runs before sampling (default 2)", 0                                                  \
    }

/* The stream reference's options of the commands that divide by it (spmv,
 * grid, solve): fb_cli_stream_size and fb_stream_ref_get read them. */
#define FB_CLI_STREAM_OPTIONS                                                                                          \
    {"no-stream", NULL, "skip the stream triad measurement (no roofline fraction)", 0},                                \
        {"stream-size", "N",                                                                                           \
         "elements per stream array, at least 1 (default 2^25, more where 3 arrays of it are under 4x the "            \
         "last-level cache)",                                                                                          \
         0},                                                                                                           \
    {                                                                                                                  \
        "stream-max-age", "S",                                                                                         \
            "reuse a stored stream triad of this device younger than S seconds (default 3600, "                        \
            "$FLOWBENCH_STREAM_MAX_AGE; 0 measures now)",                                                              \
            0                                                                                                          \
    }

/* Reads the measurement options into *m (fb_measure_defaults() with budget_s
 * and spread_pct as the defaults of --budget and --spread), --cold and
 * --warmups when the command declares them; FB_ERR_USAGE unless
 * 1 <= min <= max samples and spread and budget are positive. */
fb_status fb_cli_measure(const fb_parsed *args, double budget_s, double spread_pct, fb_measure_config *m);

/* --NAME's array length (--size, --stream-size), or 0 when not given: the
 * device's default, at least 2^25 and 4x its last-level cache in 3 arrays
 * where its memory allows (fb_stream_size_of). */
fb_status fb_cli_stream_size(const fb_parsed *args, const char *name, size_t *n);

/* The roofline reference of a measuring command: the stream triad on t, in
 * its precision, with --stream-size elements per array (default: the
 * device's, fb_cli_stream_size),
 * announced on stderr as measured "on `label`"; *gbs = 0 with --no-stream. */
fb_status fb_cli_stream_triad(const fb_parsed *args, fb_target *t, const char *label, int is_double, double *gbs);

/* A measuring command's record: appended (after a header naming `command`
 * and device d) to --out FILE when given, printed as JSON on stdout with
 * --json. */
fb_status fb_cli_emit_record(const fb_parsed *args, const char *command, const fb_device_info *d, json_t *rec);

/* The commands, defined in cmd_*.c. */
extern const fb_command fb_cmd_devices;
extern const fb_command fb_cmd_stream;
extern const fb_command fb_cmd_matrix;
extern const fb_command fb_cmd_spmv;
extern const fb_command fb_cmd_grid;
extern const fb_command fb_cmd_sweep;
extern const fb_command fb_cmd_tune;
extern const fb_command fb_cmd_export;
extern const fb_command fb_cmd_compare;
extern const fb_command fb_cmd_plot;
extern const fb_command fb_cmd_report;
extern const fb_command fb_cmd_solve;
extern const fb_command fb_cmd_merge;
extern const fb_command fb_cmd_history;

#endif
