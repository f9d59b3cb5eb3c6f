/* reader.h - loads a JSON Lines results file for export, plot, compare and
 * report.
 *
 * Every line is parsed and checked against the required fields of
 * docs/results.md; the first bad line fails the load with its number
 * ("r.jsonl: line 7: not valid JSON (...)"), so a user can open the file at
 * the right place. Nothing here knows a benchmark family: records are
 * handled through their common fields (benchmark, kernel, backend,
 * device_name, precision, params, matrix, suite, case, stats, status), so
 * SpMV and sweep records work as stream records do.
 */
#ifndef FB_READER_H
#define FB_READER_H

#include <jansson.h>

#include "../../core/status.h"

typedef struct fb_record {
    json_t *json;         /* the measurement record (owned by the set) */
    const json_t *header; /* the header of its run; NULL if no header precedes it */
    int line;             /* 1-based line number in the file */
    int file;             /* which of the set's files (files[file]); 0 for a set of one */
    char *key;            /* configuration key (fb_record_key) */
    double *samples;      /* stats.samples_s, seconds; NULL if none */
    int nsamples;
    int superseded; /* another record of its key stands for it: one read later (the loader's rule), or
                     * the report's choice by time and quality (choice.h) */
} fb_record;

typedef struct fb_results_set {
    char path[1024];
    json_t **headers;
    int nheaders;
    fb_record *records;
    int nrecords;
    int *latest; /* indices of the records nothing supersedes, sorted by key */
    int nlatest;
    int *by_key; /* indices of all records, sorted by key, then file order */
    int damaged; /* lines that were not JSON at all (a cut or interleaved write): skipped */
    /* What loading keeps so that no lookup scans the file (json_index.h):
     * run id -> its latest header, and run id, device, precision -> the
     * index of the first usable stream triad (fb_record_fraction's reference). */
    json_t *header_of_run;
    json_t *stream_refs;
    /* The files of a set loaded from several (fb_results_load_run), in
     * load order; NULL, 0 for one file (path). */
    char **files;
    int nfiles;
    /* device id -> the GB/s of the one stream triad every fraction of that
     * device divides by (fb_run_triads_pick, results/records/triads.h); NULL: each
     * record's own reference (its run's triad, or its stored one). */
    json_t *device_triad;
    int headers_cap, records_cap; /* allocated lengths of headers and records */
} fb_results_set;

/* Loads and validates path. A line that is not JSON at all is a damaged
 * write (a kill, a full disk, an older writer without the lock): skipped
 * with a warning on stderr naming the line, so one bad line does not cost
 * the file. A JSON record that breaks the schema is FB_ERR_INPUT (naming
 * file and line), as is a file with nothing but damaged lines; FB_ERR_IO
 * if it cannot be read, FB_ERR_INTERRUPTED when fb_interrupted is set
 * (polled once per line). Time and memory grow as the file's length
 * (n log n for finding superseded records). */
fb_status fb_results_load(const char *path, fb_results_set **out);

/* The results of one run of several commands as one set: each of
 * paths[0 .. n-1] a results file or a folder, a folder standing for its
 * *.jsonl files in name order. Records keep their file (fb_record.file,
 * set->files) and line; superseding works across files as within one, in
 * load order. set->path is the only path, or "FIRST and N more". A folder
 * without a results file is FB_ERR_INPUT naming it. */
fb_status fb_results_load_run(const char *const *paths, int n, fb_results_set **out);

/* "FILE:LINE" of a record of a several-file set (the file's base name),
 * "LINE" of one file's. */
void fb_record_where(const fb_results_set *set, const fb_record *r, char *buf, size_t len);

/* Parses one line's text as a record; used by the loader and the tests.
 * On failure the message is "PATH: line N: WHY". */
fb_status fb_results_check_line(const char *text, const char *path, int line, json_t **out);

void fb_results_set_free(fb_results_set *set);

/* The latest record with this configuration key, or NULL. */
const fb_record *fb_results_find(const fb_results_set *set, const char *key);

/* Every record with this key (one per run that measured it), in file
 * order: returns how many, and the first one's position in set->by_key. */
int fb_results_find_all(const fb_results_set *set, const char *key, int *first);

/* The configuration key: benchmark, kernel, backend, device name,
 * precision, params (keys sorted), matrix hash (or source), suite, case and
 * the cold flag, joined by '|'. Two records with equal keys measured the
 * same thing. Returns a malloc'd string or NULL. */
char *fb_record_key(const json_t *rec);

/* A record that can be compared and plotted: status "ok" and samples. */
int fb_record_usable(const fb_record *r);

/* Whether a record that is not usable ended as a sweep expects some of
 * its configurations to end (pruned, abandoned, skipped, timeout,
 * unavailable), rather than failing (failed, crashed, wrong-result,
 * build-error, launch-error, or ok without samples). */
int fb_record_expected(const fb_record *r);

/* Why a record is not usable: its status, plus its "reason" if it has one. */
void fb_record_failure(const fb_record *r, char *buf, size_t len);

/* One-line human label: "stream triad openmp:0 double n=2000000 wg=256". */
void fb_record_label(const fb_record *r, char *buf, size_t len);

/* "name=value name=value" of the params object, keys sorted. */
void fb_params_text(const json_t *params, char *buf, size_t len);

/* What a record ran on: its "matrix" (spmv; the solver's records repeat
 * their mesh there) or "grid" (the grid families) object or string; NULL
 * if none. Configuration keys and figures identify problems through it. */
const json_t *fb_record_problem(const json_t *rec);

/* What a record measured, as one string (a malloc'd string, NULL when out
 * of memory): benchmark|kernel|backend|device name|precision|params|problem|
 * cold[|user kernel file hash]; not suite or case, which say who asked for
 * the measurement, not what it was. FB_KEY_PARAMS keeps the params (without
 * it: one key per kernel family), FB_KEY_FILE the kernel file's hash (an
 * edited kernel is another kernel). Compare pairs and the history stores on
 * FB_KEY_PARAMS | FB_KEY_FILE. */
enum { FB_KEY_PARAMS = 1, FB_KEY_FILE = 2 };
char *fb_measured_key(const json_t *rec, int parts);

/* The problem's display name: the matrix's (matrix.name, the source's base
 * name, or the spec string) or, for the grid families, the grid's; "" for
 * records with neither. */
const char *fb_record_matrix(const fb_record *r);

/* Dotted-path lookups ("stats.median_s", "host.cpu"): the value or NULL;
 * as a string or number, "" / NAN if absent or of another type. */
const json_t *fb_json_get(const json_t *obj, const char *path);
const char *fb_json_str(const json_t *obj, const char *path);
double fb_json_num(const json_t *obj, const char *path);

/* Median time in seconds of a usable record. */
double fb_record_median(const fb_record *r);

/* 1 when records a and b are two rounds of one `sweep --repeat` run (both
 * carry "round" and the same run_id): a point's rounds are one landscape
 * cost (their median, tune --replay and --fit-prior), where a later run's
 * record of the point replaces an earlier one. */
int fb_record_same_run_rounds(const json_t *a, const json_t *b);

/* The most rounds `sweep --repeat` runs, so the most a point's median is
 * taken over. */
#define FB_SWEEP_MAX_ROUNDS 1000

/* The record's fraction of the measured stream bandwidth: its GB/s over
 * the device's triad where set->device_triad names one (a report's one
 * triad per device); else its own "fraction_of_stream" if it has one, else
 * its GB/s over the stream triad GB/s measured in the same run on the same
 * device and precision; NAN when neither exists. */
double fb_record_fraction(const fb_results_set *set, const fb_record *r);

/* The triad the set divides r by once fb_triads_pick has run: its device's,
 * or its device's single-precision one for a single record where the
 * records carried one (triads.h); NAN when there is none. */
double fb_record_triad(const fb_results_set *set, const fb_record *r);

/* Host name of the record: its own "host" (a sweep's share), else its
 * run's ("" without a header). */
const char *fb_record_host(const fb_record *r);

/* The run header's entry for the record's device (the first of "devices"
 * with its id), or NULL. */
const json_t *fb_record_device(const fb_record *r);

/* 1 when a recorded backend is the in-process OpenMP baseline every
 * speedup is against. A record carries its backend's name only, not the
 * opened device's capabilities (backends/backend.h, in_process): readers
 * of records ask this one function instead of naming the backend. */
int fb_backend_is_baseline(const char *backend);

/* Whether a recorded device (a header's entry; backend its backend) is the
 * host's CPU: OpenMP, an entry with a vector ISA ("simd", written for host
 * CPUs only), or an OpenCL CPU device by PoCL's naming ("pthread" in its
 * version or name, "cpu" in its name). */
int fb_device_is_host_cpu(const char *backend, const json_t *dev);

#endif
