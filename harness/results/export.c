/* export.c - the CSV export. Columns come from one table so that the
 * documentation (docs/results.md) and the plot scripts have a single list to
 * follow; parameters get one column each because sweeps vary them. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/interrupt.h"

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
    {"max_rel_error", COL_SPECIAL, NULL},
    {"status", COL_STR, "status"},
    {"reason", COL_STR, "reason"},
    {"line", COL_SPECIAL, NULL},
    {"latest", COL_SPECIAL, NULL},
    {"git_revision", COL_HEADER, "build.git_revision"},
    {"compiler", COL_HEADER, "build.compiler"},
    {"driver", COL_SPECIAL, NULL},
    {"command_line", COL_HEADER, "command_line"},
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
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(r->header, "devices"), i, d)
    {
        if (!strcmp(fb_json_str(d, "id"), fb_json_str(r->json, "device"))) return fb_json_str(d, "driver_version");
    }
    return "";
}

/* stddev / mean of the record's samples; NaN without both. */
static double coefficient_of_variation(const json_t *rec)
{
    const json_t *stats = json_object_get(rec, "stats");
    const json_t *sd = json_object_get(stats, "stddev_s"), *mean = json_object_get(stats, "mean_s");
    if (!json_is_number(sd) || !json_is_number(mean) || !(json_number_value(mean) > 0)) return NAN;
    return json_number_value(sd) / json_number_value(mean);
}

static void write_special(FILE *out, const fb_results_set *set, const fb_record *r, const char *name)
{
    char params[1024];
    if (strcmp(name, "max_rel_error") == 0)
        fb_csv_number(out, max_rel_error(r->json));
    else if (strcmp(name, "cv") == 0) /* the coefficient of variation of the samples */
        fb_csv_number(out, coefficient_of_variation(r->json));
    else if (strcmp(name, "driver") == 0)
        fb_csv_field(out, driver(r));
    else if (strcmp(name, "host") == 0)
        fb_csv_field(out, fb_record_host(r));
    else if (strcmp(name, "matrix") == 0)
        fb_csv_field(out, fb_record_matrix(r));
    else if (strcmp(name, "matrix_hash") == 0) /* the matrix's or the grid's */
        fb_csv_field(out, fb_json_str(fb_record_problem(r->json), "hash"));
    else if (strcmp(name, "samples") == 0)
        fprintf(out, "%d", r->nsamples);
    else if (strcmp(name, "fraction_of_stream") == 0)
        fb_csv_number(out, fb_record_fraction(set, r));
    else if (strcmp(name, "line") == 0)
        fprintf(out, "%d", r->line);
    else if (strcmp(name, "latest") == 0)
        fprintf(out, "%d", !r->superseded);
    else if (strcmp(name, "params") == 0) {
        fb_params_text(json_object_get(r->json, "params"), params, sizeof params);
        fb_csv_field(out, params);
    }
}

static void write_param(FILE *out, const json_t *v)
{
    if (json_is_integer(v))
        fprintf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        fb_csv_number(out, json_number_value(v));
    else if (json_is_string(v))
        fb_csv_field(out, json_string_value(v));
    else if (json_is_boolean(v))
        fprintf(out, "%d", json_is_true(v));
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
            if (*n == cap) {
                const char **grown = realloc(*names, (size_t)(cap = 2 * cap + 8) * sizeof *grown);
                if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing parameter names");
                *names = grown;
            }
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

static void write_row(FILE *out, const fb_results_set *set, const fb_record *r, const key_columns *keys, int nkeys)
{
    for (int c = 0; c < NCOLUMNS; ++c) {
        if (c) fputc(',', out);
        if (columns[c].kind == COL_STR)
            fb_csv_field(out, fb_json_str(r->json, columns[c].path));
        else if (columns[c].kind == COL_NUM)
            fb_csv_number(out, fb_json_num(r->json, columns[c].path));
        else if (columns[c].kind == COL_BOOL)
            fprintf(out, "%d", json_is_true(json_object_get(r->json, columns[c].path)));
        else if (columns[c].kind == COL_HEADER)
            fb_csv_field(out, r->header ? fb_json_str(r->header, columns[c].path) : "");
        else
            write_special(out, set, r, columns[c].name);
    }
    for (int k = 0; k < nkeys; ++k)
        for (int p = 0; p < keys[k].n; ++p) {
            fputc(',', out);
            write_param(out, json_object_get(json_object_get(r->json, keys[k].field), keys[k].names[p]));
        }
    fputc('\n', out);
}

fb_status fb_export_csv(const fb_results_set *set, FILE *out, int latest_only)
{
    fb_status status = FB_OK;
    key_columns keys[] = {{"params", NULL, 0}, {"validation", NULL, 0}};
    const char *prefix[] = {"param_", "validation_"};
    for (int k = 0; k < 2; ++k)
        FB_CHECK(field_names(set, keys[k].field, &keys[k].names, &keys[k].n));
    for (int c = 0; c < NCOLUMNS; ++c)
        fprintf(out, "%s%s", c ? "," : "", columns[c].name);
    for (int k = 0; k < 2; ++k)
        for (int p = 0; p < keys[k].n; ++p)
            fprintf(out, ",%s%s", prefix[k], keys[k].names[p]);
    fputc('\n', out);
    for (int i = 0; i < set->nrecords; ++i) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        if (!latest_only || !set->records[i].superseded) write_row(out, set, &set->records[i], keys, 2);
    }
fail:
    free(keys[0].names);
    free(keys[1].names);
    return status;
}
