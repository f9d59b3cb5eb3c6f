/* export.c - the export as CSV, JSON or markdown. Columns come from one table so that the
 * documentation (docs/results.md) and the plot scripts have a single list to
 * follow; parameters get one column each because sweeps vary them. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quality.h"
#include "../../core/grow.h"
#include "../../core/interrupt.h"

typedef enum col_kind { COL_STR, COL_NUM, COL_BOOL, COL_HEADER, COL_SPECIAL } col_kind;

typedef struct column {
    const char *name;
    col_kind kind;
    const char *path; /* JSON path for STR, NUM, BOOL; in the run's header for HEADER */
} column;

static const column columns[] = {
    {"run_id", COL_STR, "run_id"},
    {"host", COL_SPECIAL, NULL},
    {"benchmark", COL_STR, "benchmark"},
    {"suite", COL_STR, "suite"},
    {"case", COL_STR, "case"},
    {"kernel", COL_STR, "kernel"},
    {"backend", COL_STR, "backend"},
    {"device", COL_STR, "device"},
    {"device_name", COL_STR, "device_name"},
    {"precision", COL_STR, "precision"},
    {"matrix", COL_SPECIAL, NULL},
    {"matrix_hash", COL_SPECIAL, NULL},
    {"matrix_rows", COL_NUM, "matrix.rows"},
    {"matrix_cols", COL_NUM, "matrix.cols"},
    {"matrix_nnz", COL_NUM, "matrix.nnz"},
    {"params", COL_SPECIAL, NULL},
    {"cold", COL_BOOL, "cold"},
    {"samples", COL_SPECIAL, NULL},
    {"median_s", COL_NUM, "stats.median_s"},
    {"min_s", COL_NUM, "stats.min_s"},
    {"mean_s", COL_NUM, "stats.mean_s"},
    {"stddev_s", COL_NUM, "stats.stddev_s"},
    {"max_s", COL_NUM, "stats.max_s"},
    {"cv", COL_SPECIAL, NULL},
    {"median_spread", COL_NUM, "stats.median_spread"},
    {"gflops", COL_NUM, "gflops"},
    {"gbs", COL_NUM, "gbs"},
    {"ns_per_cell", COL_NUM, "ns_per_cell"},
    {"fraction_of_stream", COL_SPECIAL, NULL},
    {"fraction_of_read", COL_NUM, "fraction_of_read"},
    {"max_rel_error", COL_SPECIAL, NULL},
    {"status", COL_STR, "status"},
    {"reason", COL_STR, "reason"},
    {"line", COL_SPECIAL, NULL},
    {"latest", COL_SPECIAL, NULL},
    {"git_revision", COL_HEADER, "build.git_revision"},
    {"compiler", COL_HEADER, "build.compiler"},
    {"driver", COL_SPECIAL, NULL},
    {"command_line", COL_HEADER, "command_line"},
    {"energy_source", COL_STR, "energy.source"},
    {"energy_j_per_run", COL_NUM, "energy.joules_per_run"},
    {"gflop_per_j", COL_NUM, "energy.gflop_per_j"},
    {"avg_power_w", COL_NUM, "energy.avg_power_w"},
    {"energy_window_s", COL_NUM, "energy.window_s"},
    {"energy_j_per_step", COL_NUM, "energy.joules_per_step"},
    {"energy_j_to_solution", COL_NUM, "energy.joules_to_solution"},
    {"throttled", COL_SPECIAL, NULL},
    {"quality", COL_SPECIAL, NULL},
    {"quality_why", COL_SPECIAL, NULL},
    {"contended", COL_SPECIAL, NULL},
};

#define NCOLUMNS ((int)(sizeof columns / sizeof columns[0]))

void fb_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n\r")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; ++p) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void fb_csv_number(FILE *out, double x)
{
    if (!isnan(x)) fprintf(out, "%.10g", x);
}

/* Records written before the field had one name say check.rel_error
 * (SpMV and the grid families until 2026-11); they are read the same. */
static double max_rel_error(const json_t *rec)
{
    double e = fb_json_num(rec, "check.max_rel_error");
    return isnan(e) ? fb_json_num(rec, "check.rel_error") : e;
}

/* The driver of the device the record ran on, from its run's header. */
static const char *driver(const fb_record *r)
{
    const json_t *d = fb_record_device(r);
    return d ? fb_json_str(d, "driver_version") : "";
}

/* stddev / mean of the record's samples; NaN without both. */
static double coefficient_of_variation(const json_t *rec)
{
    const json_t *stats = json_object_get(rec, "stats");
    const json_t *sd = json_object_get(stats, "stddev_s"), *mean = json_object_get(stats, "mean_s");
    if (!json_is_number(sd) || !json_is_number(mean) || !(json_number_value(mean) > 0)) return NAN;
    return json_number_value(sd) / json_number_value(mean);
}

/* One field of a row, whatever the format: nothing, text, a number (NaN:
 * nothing) or an integer. */
typedef struct cell {
    enum { CELL_EMPTY, CELL_TEXT, CELL_NUMBER, CELL_INTEGER } kind;
    const char *text;
    double number;
    long long integer;
} cell;

static cell text_cell(const char *text) { return (cell){.kind = CELL_TEXT, .text = text}; }
static cell number_cell(double x)
{
    return isnan(x) ? (cell){.kind = CELL_EMPTY} : (cell){.kind = CELL_NUMBER, .number = x};
}
static cell integer_cell(long long x) { return (cell){.kind = CELL_INTEGER, .integer = x}; }
/* 1 or 0 where the record says (it was checked, the machine watched), empty
 * where it does not. */
static cell boolean_cell(const json_t *b)
{
    return json_is_boolean(b) ? integer_cell(json_is_true(b)) : (cell){.kind = CELL_EMPTY};
}

/* The verdict on a record's samples and its reason (results/records/quality.h):
 * empty for a record without statistics, "stable" for one judged stable
 * or written before the verdict existed. */
static cell quality_cell(const fb_record *r, const char *name)
{
    const char *why;
    if (!json_is_object(json_object_get(r->json, "stats"))) return (cell){.kind = CELL_EMPTY};
    const fb_quality q = fb_json_quality(r->json, &why);
    if (strcmp(name, "quality") == 0) return text_cell(fb_quality_name(q));
    return *why ? text_cell(why) : (cell){.kind = CELL_EMPTY};
}

/* buf holds the text of the params column (valid until the next call). */
static cell special_cell(const fb_results_set *set, const fb_record *r, const char *name, char *buf, size_t len)
{
    if (strcmp(name, "max_rel_error") == 0) return number_cell(max_rel_error(r->json));
    if (strcmp(name, "cv") == 0) return number_cell(coefficient_of_variation(r->json));
    if (strcmp(name, "driver") == 0) return text_cell(driver(r));
    if (strcmp(name, "host") == 0) return text_cell(fb_record_host(r));
    if (strcmp(name, "matrix") == 0) return text_cell(fb_record_matrix(r));
    if (strcmp(name, "matrix_hash") == 0) /* the matrix's or the grid's */
        return text_cell(fb_json_str(fb_record_problem(r->json), "hash"));
    if (strcmp(name, "samples") == 0) return integer_cell(r->nsamples);
    if (strcmp(name, "fraction_of_stream") == 0) return number_cell(fb_record_fraction(set, r));
    if (strcmp(name, "throttled") == 0) return boolean_cell(fb_json_get(r->json, "energy.throttled"));
    if (strcmp(name, "quality") == 0 || strcmp(name, "quality_why") == 0) return quality_cell(r, name);
    if (strcmp(name, "contended") == 0) return boolean_cell(fb_json_get(r->json, "environment.contended"));
    if (strcmp(name, "line") == 0) return integer_cell(r->line);
    if (strcmp(name, "latest") == 0) return integer_cell(!r->superseded);
    if (strcmp(name, "params") == 0) {
        fb_params_text(json_object_get(r->json, "params"), buf, len);
        return text_cell(buf);
    }
    return (cell){.kind = CELL_EMPTY};
}

static cell param_cell(const json_t *v)
{
    if (json_is_integer(v)) return integer_cell((long long)json_integer_value(v));
    if (json_is_number(v)) return number_cell(json_number_value(v));
    if (json_is_string(v)) return text_cell(json_string_value(v));
    if (json_is_boolean(v)) return integer_cell(json_is_true(v));
    return (cell){.kind = CELL_EMPTY};
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Every key of the records' object field (params, validation) in the
 * file, sorted. The names point into the records' own objects, which live
 * as long as the set. */
static fb_status field_names(const fb_results_set *set, const char *field, const char ***names, int *n)
{
    fb_status status = FB_OK;
    json_t *seen = json_object();
    const char *k;
    json_t *v;
    int cap = 0;
    *n = 0;
    for (int i = 0; i < set->nrecords; ++i)
        json_object_foreach(json_object_get(set->records[i].json, field), k, v)
        {
            if (json_object_get(seen, k)) continue;
            const char **grown = fb_grow(*names, &cap, *n + 1, sizeof *grown);
            if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing parameter names");
            *names = grown;
            json_object_set_new(seen, k, json_true());
            (*names)[(*n)++] = k;
        }
    if (*n > 1) qsort(*names, (size_t)*n, sizeof **names, cmp_str);
fail:
    json_decref(seen);
    return status;
}

/* One column per key of an object field: param_NAME, validation_NAME. */
typedef struct key_columns {
    const char *field;
    const char **names;
    int n;
} key_columns;

/* ---- the three formats ---- */

typedef struct sink {
    FILE *out;
    fb_export_format format;
    int column;     /* of the row being written */
    json_t *row;    /* json: the row's object */
    int rows;       /* json: rows written */
    char name[256]; /* json: the column's name */
} sink;

void fb_md_text(FILE *out, const char *text)
{
    for (const char *p = text; *p; ++p) {
        if (*p == '|') fputc('\\', out);
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
    }
}

static void put(sink *k, cell c)
{
    if (k->format == FB_EXPORT_JSON) {
        json_t *v = c.kind == CELL_TEXT      ? json_string(c.text)
                    : c.kind == CELL_NUMBER  ? json_real(c.number)
                    : c.kind == CELL_INTEGER ? json_integer(c.integer)
                                             : json_null();
        json_object_set_new(k->row, k->name, v ? v : json_null()); /* invalid UTF-8 text: null */
        return;
    }
    const int csv = k->format == FB_EXPORT_CSV;
    fputs(csv ? (k->column ? "," : "") : (k->column ? " | " : "| "), k->out);
    if (c.kind == CELL_TEXT) csv ? fb_csv_field(k->out, c.text) : fb_md_text(k->out, c.text);
    if (c.kind == CELL_NUMBER) fprintf(k->out, csv ? "%.10g" : "%.6g", c.number);
    if (c.kind == CELL_INTEGER) fprintf(k->out, "%lld", c.integer);
}

/* The column named (prefix)(name) gets c. */
static void put_named(sink *k, const char *prefix, const char *name, cell c)
{
    snprintf(k->name, sizeof k->name, "%s%s", prefix, name);
    put(k, c);
    k->column++;
}

static void begin_row(sink *k)
{
    k->column = 0;
    if (k->format == FB_EXPORT_JSON) k->row = json_object();
}

static void end_row(sink *k)
{
    if (k->format == FB_EXPORT_JSON) {
        fputs(k->rows++ ? ",\n" : "[\n", k->out);
        json_dumpf(k->row, k->out, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(k->row);
        k->row = NULL;
        return;
    }
    fputs(k->format == FB_EXPORT_MARKDOWN ? " |\n" : "\n", k->out);
}

static const char *const key_prefix[] = {"param_", "validation_"};

/* CSV and markdown: the names; markdown then the rule under them. */
static void write_header(sink *k, const key_columns *keys, int nkeys)
{
    if (k->format == FB_EXPORT_JSON) return;
    begin_row(k);
    for (int c = 0; c < NCOLUMNS; ++c)
        put_named(k, "", columns[c].name, text_cell(columns[c].name));
    for (int f = 0; f < nkeys; ++f)
        for (int p = 0; p < keys[f].n; ++p) {
            char name[160];
            snprintf(name, sizeof name, "%s%s", key_prefix[f], keys[f].names[p]);
            put_named(k, "", name, text_cell(name));
        }
    end_row(k);
    if (k->format != FB_EXPORT_MARKDOWN) return;
    for (int c = 0; c < k->column; ++c)
        fputs("|---", k->out);
    fputs("|\n", k->out);
}

static void write_row(sink *k, const fb_results_set *set, const fb_record *r, const key_columns *keys, int nkeys)
{
    char params[1024];
    begin_row(k);
    for (int c = 0; c < NCOLUMNS; ++c) {
        const column *col = &columns[c];
        cell v = col->kind == COL_STR      ? text_cell(fb_json_str(r->json, col->path))
                 : col->kind == COL_NUM    ? number_cell(fb_json_num(r->json, col->path))
                 : col->kind == COL_BOOL   ? integer_cell(json_is_true(json_object_get(r->json, col->path)))
                 : col->kind == COL_HEADER ? text_cell(r->header ? fb_json_str(r->header, col->path) : "")
                                           : special_cell(set, r, col->name, params, sizeof params);
        put_named(k, "", col->name, v);
    }
    for (int f = 0; f < nkeys; ++f)
        for (int p = 0; p < keys[f].n; ++p)
            put_named(k, key_prefix[f], keys[f].names[p],
                      param_cell(json_object_get(json_object_get(r->json, keys[f].field), keys[f].names[p])));
    end_row(k);
}

fb_status fb_export(const fb_results_set *set, FILE *out, fb_export_format format, int latest_only)
{
    fb_status status = FB_OK;
    key_columns keys[] = {{"params", NULL, 0}, {"validation", NULL, 0}};
    sink k = {.out = out, .format = format};
    for (int f = 0; f < 2; ++f)
        FB_CHECK(field_names(set, keys[f].field, &keys[f].names, &keys[f].n));
    write_header(&k, keys, 2);
    for (int i = 0; i < set->nrecords; ++i) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        if (!latest_only || !set->records[i].superseded) write_row(&k, set, &set->records[i], keys, 2);
    }
    if (format == FB_EXPORT_JSON) fputs(k.rows ? "\n]\n" : "[]\n", out);
fail:
    free(keys[0].names);
    free(keys[1].names);
    return status;
}

fb_status fb_export_csv(const fb_results_set *set, FILE *out, int latest_only)
{
    return fb_export(set, out, FB_EXPORT_CSV, latest_only);
}
