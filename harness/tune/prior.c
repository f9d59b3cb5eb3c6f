/* prior.c - the tuning prior of prior.h: fitting it to recorded sweeps,
 * its file, and the start point it predicts.
 *
 * Why nearest neighbours and not a per-axis fit (log2 value ~ features):
 * the recorded landscapes are few (three mesh levels per kernel in the
 * study) and their optima are not smooth in the features (csr-merge's
 * best work-group size is 64, 128 and 512 on the three levels, all within
 * 1% of each other), so a fitted line mostly fits noise; a neighbour's
 * near-optimal set carries both where the optimum was and how flat the
 * landscape is around it, and says which matrices a start came from. */
#include "prior.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../backends/backend.h"
#include "../core/files.h"
#include "../core/hash.h"
#include "../core/json_index.h"
#include "../core/stats.h"
#include "../results/records/reader.h"
#include "cache.h"

#define PRIOR_VERSION 1
/* A recorded point is near-optimal within 25% of its matrix's best: wide
 * enough that the neighbours' sets overlap where their optima differ by a
 * step (so the vote finds the point good on all of them), narrow enough
 * that the file stays a few kilobytes per kernel. */
#define PRIOR_NEAR 0.25
/* Three neighbours: with one, a start copies one matrix's noise; the study
 * has three mesh levels per block kernel, two of them left when one is
 * held out. */
#define PRIOR_NEIGHBOURS 3
/* Weight 1 / (distance + 0.05): an identical matrix dominates without an
 * infinite weight; 0.05 is a 5% difference in rows or entries per row. */
#define PRIOR_WEIGHT_EPS 0.05

typedef struct prior_entry {
    const char *device, *kernel, *precision, *matrix, *hash;
    fb_prior_features features;
    const json_t *near; /* [{"params", "ratio"}], best first */
} prior_entry;

struct fb_prior {
    json_t *root;
    prior_entry *entries;
    int nentries;
};

/* ---- features ------------------------------------------------------------ */

static int number_at(const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_number(v)) return 0;
    *out = json_number_value(v);
    return 1;
}

fb_status fb_prior_features_from_json(const json_t *matrix, fb_prior_features *out)
{
    fb_status status = FB_OK;
    const json_t *per_row = json_object_get(matrix, "nnz_per_row"), *block = json_object_get(matrix, "block");
    double stddev = 0;
    if (!number_at(matrix, "rows", &out->rows) || !number_at(per_row, "mean", &out->row_mean) ||
        !number_at(per_row, "stddev", &stddev) || out->rows < 1 || out->row_mean < 0)
        FB_FAIL(FB_ERR_INPUT, "not a matrix: no \"rows\" and \"nnz_per_row\" {\"mean\", \"stddev\"}");
    out->row_cv = out->row_mean > 0 ? stddev / out->row_mean : 0;
    /* a cv no double holds (stddev 1e308 over mean 1e-300) cannot be a
     * feature: the file is wrong, not the memory short */
    if (!isfinite(out->rows) || !isfinite(out->row_mean) || !isfinite(out->row_cv) || out->row_cv < 0)
        FB_FAIL(FB_ERR_INPUT, "matrix: \"nnz_per_row\" {\"mean\": %g, \"stddev\": %g} gives no finite spread of rows",
                out->row_mean, stddev);
    out->block = out->block_fill = 1;
    if (block && (!number_at(block, "size", &out->block) || out->block < 1))
        FB_FAIL(FB_ERR_INPUT, "matrix: \"block\" has no positive \"size\"");
    if (block && !number_at(block, "fill", &out->block_fill)) out->block_fill = 1;
fail:
    return status;
}

fb_status fb_prior_features_of(const fb_signature *sig, fb_prior_features *out)
{
    const fb_matrix_signature *m = &sig->matrix;
    if (sig->kind != FB_SIGNATURE_MATRIX || m->rows < 1)
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "not a matrix: the prior knows only matrices");
    *out = (fb_prior_features){.rows = (double)m->rows,
                               .row_mean = m->row_mean,
                               .row_cv = m->row_mean > 0 ? m->row_stddev / m->row_mean : 0,
                               .block = m->block,
                               .block_fill = m->block_fill > 0 ? m->block_fill : 1};
    return FB_OK;
}

/* An empty row mean would be log 0: rows of under 0.01 entries count as 0.01. */
static double log_mean(double mean) { return log(mean > 0.01 ? mean : 0.01); }

/* Each term is finite for features features_read accepts, but two huge
 * ones (a hand-edited cv and fill near DBL_MAX) sum to infinity, whose
 * weight 0 made the start's score 0/0: the sum stops at DBL_MAX, as far
 * as a matrix can be. */
double fb_prior_distance(const fb_prior_features *a, const fb_prior_features *b)
{
    double d = fabs(log(a->rows) - log(b->rows)) + fabs(log_mean(a->row_mean) - log_mean(b->row_mean)) +
               fabs(a->row_cv - b->row_cv) + fabs(log(a->block) - log(b->block)) + fabs(a->block_fill - b->block_fill);
    return d < DBL_MAX ? d : DBL_MAX;
}

static json_t *features_json(const fb_prior_features *f)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "rows", f->rows, "nnz_per_row_mean", f->row_mean, "nnz_per_row_cv",
                     f->row_cv, "block", f->block, "block_fill", f->block_fill);
}

static int features_read(const json_t *j, fb_prior_features *f)
{
    return number_at(j, "rows", &f->rows) && number_at(j, "nnz_per_row_mean", &f->row_mean) &&
           number_at(j, "nnz_per_row_cv", &f->row_cv) && number_at(j, "block", &f->block) &&
           number_at(j, "block_fill", &f->block_fill) && f->rows >= 1 && f->row_mean >= 0 && f->row_cv >= 0 &&
           f->block >= 1 && f->block_fill >= 0;
}

/* ---- fitting ------------------------------------------------------------- */

/* FNV-1a of the file's bytes: which recording a prior was fit from. */
static fb_status file_hash(const char *path, char hex[17])
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    unsigned char buf[65536];
    uint64_t h = FB_HASH_SEED;
    size_t n;
    FB_CHECK(fb_file_fopen_read(path, "the sweep", &f));
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = fb_hash_bytes(h, buf, n);
    if (ferror(f)) FB_FAIL(FB_ERR_IO, "%s: read failed", path);
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
fail:
    if (f) fclose(f);
    return status;
}

/* The fingerprint (cache.h) of the device a record ran on, from its run's
 * header; the record's own backend and device name when it has none. */
static void record_device(const fb_record *r, char *buf, size_t len)
{
    fb_device_info d;
    const json_t *dev, *devices = json_object_get(r->header, "devices");
    size_t i;
    memset(&d, 0, sizeof d);
    snprintf(d.backend, sizeof d.backend, "%s", fb_json_str(r->json, "backend"));
    snprintf(d.name, sizeof d.name, "%s", fb_json_str(r->json, "device_name"));
    json_array_foreach(devices, i, dev)
    {
        if (strcmp(fb_json_str(dev, "id"), fb_json_str(r->json, "device"))) continue;
        snprintf(d.backend, sizeof d.backend, "%s", fb_json_str(dev, "backend"));
        snprintf(d.name, sizeof d.name, "%s", fb_json_str(dev, "name"));
        snprintf(d.vendor, sizeof d.vendor, "%s", fb_json_str(dev, "vendor"));
        snprintf(d.driver_version, sizeof d.driver_version, "%s", fb_json_str(dev, "driver_version"));
        d.compute_units = (int)json_integer_value(json_object_get(dev, "compute_units"));
        break;
    }
    fb_device_fingerprint(&d, buf, len);
}

static double cost_of(const json_t *c) { return json_real_value(json_array_get(c, 1)); }

/* The point's cost in costs (params text -> [params, cost, {run_id,
 * round} of its latest record, [the costs of that run's rounds]]): r's
 * replaces an earlier run's, and the rounds of one `sweep --repeat` run
 * count as their median, as in tune --replay (tune.c). */
static fb_status add_cost(json_t *costs, const char *point, const json_t *params, const fb_record *r)
{
    fb_status status = FB_OK;
    const json_t *old = json_object_get(costs, point), *round = json_object_get(r->json, "round");
    json_t *from = json_pack("{s:s}", "run_id", fb_json_str(r->json, "run_id")), *rounds = NULL;
    if (from && round) json_object_set(from, "round", (json_t *)round);
    if (old && fb_record_same_run_rounds(json_array_get(old, 2), from))
        rounds = json_incref(json_array_get(old, 3));
    else
        rounds = json_array();
    if (!from || !rounds || json_array_append_new(rounds, json_real(fb_record_median(r))))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting the prior");
    double v[FB_SWEEP_MAX_ROUNDS];
    size_t n = json_array_size(rounds) < FB_SWEEP_MAX_ROUNDS ? json_array_size(rounds) : FB_SWEEP_MAX_ROUNDS;
    for (size_t i = 0; i < n; ++i)
        v[i] = json_real_value(json_array_get(rounds, i));
    if (json_object_set_new(costs, point, json_pack("[O, f, O, O]", params, fb_median(v, n), from, rounds)))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting the prior");
fail:
    json_decref(from);
    json_decref(rounds);
    return status;
}

/* Adds one usable record's cost to its landscape (groups: device, kernel,
 * precision, matrix hash -> {"entry": the entry's head, "costs": params
 * text -> add_cost's}). Records that are no landscape point are skipped. */
static fb_status add_record(const char *path, json_t *groups, const fb_record *r, json_t *devices)
{
    fb_status status = FB_OK;
    const json_t *matrix = json_object_get(r->json, "matrix"), *params = json_object_get(r->json, "params");
    const char *kernel = fb_json_str(r->json, "kernel"), *precision = fb_json_str(r->json, "precision");
    const char *hash = fb_json_str(matrix, "hash");
    fb_prior_features f;
    char device[1024], point[1024];
    json_t *group;
    if (!fb_record_usable(r) || !json_is_object(params) || !*kernel || !*hash) return FB_OK;
    if (fb_prior_features_from_json(matrix, &f) != FB_OK) {
        /* a grid's record is no matrix: skipped; a matrix whose figures
         * are wrong is a damaged file, named with its record */
        if (!json_is_object(json_object_get(matrix, "nnz_per_row"))) return FB_OK;
        FB_FAIL(FB_ERR_INPUT, "%s: line %d: %s", path, r->line, fb_error_message());
    }
    record_device(r, device, sizeof device);
    const char *key[] = {device, kernel, precision, hash};
    if (!(group = fb_json_index_get(groups, key, 4))) {
        group = json_pack("{s:{s:s, s:s, s:s, s:s, s:s, s:o}, s:{}}", "entry", "device", device, "kernel", kernel,
                          "precision", precision, "matrix", fb_record_matrix(r), "matrix_hash", hash, "features",
                          features_json(&f), "costs");
        FB_CHECK(fb_json_index_set(groups, key, 4, group));
    }
    if (json_array_append_new(devices, json_string(device))) FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting");
    fb_params_text(params, point, sizeof point);
    FB_CHECK(add_cost(json_object_get(group, "costs"), point, params, r));
fail:
    return status;
}

/* The distinct strings of an array, sorted. */
static json_t *distinct(const json_t *strings)
{
    json_t *seen = json_object(), *out = json_array(), *v;
    const char *key;
    size_t i;
    json_array_foreach(strings, i, v) json_object_set(seen, json_string_value(v), json_true());
    json_object_foreach(seen, key, v) json_array_append_new(out, json_string(key));
    json_decref(seen);
    return out;
}

static fb_status read_sweep(const char *path, json_t *groups, json_t *from)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    json_t *devices = json_array();
    char hash[17];
    int used = 0;
    FB_CHECK(file_hash(path, hash));
    FB_CHECK(fb_results_load(path, &set));
    for (int i = 0; i < set->nrecords; ++i) {
        size_t before = json_array_size(devices);
        FB_CHECK(add_record(path, groups, &set->records[i], devices));
        used += json_array_size(devices) > before;
    }
    if (json_array_append_new(from, json_pack("{s:s, s:s, s:o, s:i}", "path", path, "hash", hash, "devices",
                                              distinct(devices), "records", used)))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting the prior");
fail:
    json_decref(devices);
    fb_results_set_free(set);
    return status;
}

/* A new array holding array's items (new references) in cmp's order. */
static json_t *sorted_copy(const json_t *array, int (*cmp)(const void *, const void *))
{
    json_t *sorted = json_array();
    size_t n = json_array_size(array);
    json_t **items = calloc(n ? n : 1, sizeof *items);
    for (size_t i = 0; items && i < n; ++i)
        items[i] = json_array_get(array, i);
    if (items) qsort(items, n, sizeof *items, cmp);
    for (size_t i = 0; items && i < n; ++i)
        json_array_append(sorted, items[i]);
    free(items);
    return sorted;
}

static int by_ratio(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    double rx = json_number_value(json_object_get(x, "ratio")), ry = json_number_value(json_object_get(y, "ratio"));
    return (rx > ry) - (rx < ry);
}

/* The points within PRIOR_NEAR of best_s, best first. */
static json_t *near_set(const json_t *costs, double best_s)
{
    const json_t *c;
    const char *key;
    json_t *near = json_array(), *sorted;
    json_object_foreach((json_t *)costs, key, c)
    {
        if (cost_of(c) <= (1 + PRIOR_NEAR) * best_s)
            json_array_append_new(
                near, json_pack("{s:O, s:f}", "params", json_array_get(c, 0), "ratio", cost_of(c) / best_s));
    }
    sorted = sorted_copy(near, by_ratio);
    json_decref(near);
    return sorted;
}

/* A landscape's entry: the head, the best point and the near-optimal set
 * (NULL when fewer than two points were measured: one point says nothing
 * about where the best one is). */
static json_t *landscape_entry(const json_t *group)
{
    const json_t *costs = json_object_get(group, "costs"), *c, *best = NULL;
    const char *key;
    json_t *entry;
    if (json_object_size(costs) < 2) return NULL;
    json_object_foreach((json_t *)costs, key, c)
    {
        if (!best || cost_of(c) < cost_of(best)) best = c;
    }
    entry = json_deep_copy(json_object_get(group, "entry"));
    json_object_set_new(entry, "points", json_integer((json_int_t)json_object_size(costs)));
    json_object_set_new(entry, "best",
                        json_pack("{s:O, s:f}", "params", json_array_get(best, 0), "median_s", cost_of(best)));
    json_object_set_new(entry, "near", near_set(costs, cost_of(best)));
    return entry;
}

/* Walks the index tree (json_index.h: one level per key) down to the
 * groups, adding each landscape's entry. */
static void collect(const json_t *node, int depth, json_t *entries)
{
    const char *key;
    json_t *child, *entry;
    if (depth == 4) {
        if ((entry = landscape_entry(node))) json_array_append_new(entries, entry);
        return;
    }
    json_object_foreach((json_t *)node, key, child) collect(child, depth + 1, entries);
}

static int entry_order(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    static const char *const keys[] = {"kernel", "device", "precision", "matrix", "matrix_hash"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        int c = strcmp(fb_json_str(x, keys[k]), fb_json_str(y, keys[k]));
        if (c) return c;
    }
    return 0;
}

/* The file lists entries in a fixed order, so two fits of the same sweeps
 * are the same file and a refit diffs by landscape. */
static json_t *sorted_entries(const json_t *groups)
{
    json_t *entries = json_array(), *sorted;
    collect(groups, 0, entries);
    sorted = sorted_copy(entries, entry_order);
    json_decref(entries);
    return sorted;
}

static json_t *model_json(void)
{
    return json_pack("{s:s, s:f, s:i, s:s, s:s}", "rule",
                     "start at the point with the smallest weighted mean ratio to the best over the nearest "
                     "recorded matrices of the kernel",
                     "near", PRIOR_NEAR, "neighbours", PRIOR_NEIGHBOURS, "weight", "1 / (distance + 0.05)", "distance",
                     "|d log rows| + |d log nnz_per_row_mean| + |d nnz_per_row_cv| + |d log block| + |d block_fill|");
}

fb_status fb_prior_fit(const char *const *sweeps, int nsweeps, json_t **out)
{
    fb_status status = FB_OK;
    json_t *groups = json_object(), *from = json_array(), *entries = NULL;
    *out = NULL;
    if (!groups || !from) FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting the prior");
    for (int i = 0; i < nsweeps; ++i)
        FB_CHECK(read_sweep(sweeps[i], groups, from));
    entries = sorted_entries(groups);
    if (json_array_size(entries) == 0)
        FB_FAIL(FB_ERR_INPUT,
                "%s%s: no landscape to fit a prior to (a kernel measured at two or more points "
                "of one matrix, status ok)",
                sweeps[0], nsweeps > 1 ? " and the other sweeps" : "");
    *out = json_pack("{s:i, s:o, s:O, s:O}", "flowbench_tuning_prior", PRIOR_VERSION, "model", model_json(), "fit_from",
                     from, "entries", entries);
    if (!*out) FB_FAIL(FB_ERR_NOMEM, "out of host memory fitting the prior");
fail:
    json_decref(groups);
    json_decref(from);
    json_decref(entries);
    return status;
}

/* ---- the file ------------------------------------------------------------ */

/* One line per entry, so a refit diffs by landscape. */
static void write_prior(FILE *f, const json_t *prior)
{
    const json_t *entries = json_object_get(prior, "entries"), *e;
    size_t i, flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6);
    fprintf(f, "{\"flowbench_tuning_prior\": %d,\n \"model\": ", PRIOR_VERSION);
    json_dumpf(json_object_get(prior, "model"), f, flags);
    fprintf(f, ",\n \"fit_from\": ");
    json_dumpf(json_object_get(prior, "fit_from"), f, flags);
    fprintf(f, ",\n \"entries\": [");
    json_array_foreach(entries, i, e)
    {
        fprintf(f, "%s\n  ", i ? "," : "");
        json_dumpf(e, f, flags);
    }
    fprintf(f, "\n]}\n");
}

fb_status fb_prior_check_replaceable(const char *path)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    json_t *root = NULL;
    struct stat st;
    FB_CHECK(fb_file_fopen_read_if_exists(path, "the tuning prior", &f));
    if (!f || (fstat(fileno(f), &st) == 0 && st.st_size == 0)) goto fail; /* nothing there to lose */
    root = json_loadf(f, 0, NULL);
    if (!json_is_object(root) || !json_object_get(root, "flowbench_tuning_prior"))
        FB_FAIL(FB_ERR_USAGE,
                "tune --fit-prior: %s exists and is not a tuning prior: refusing to overwrite it"
                " (name another --prior FILE)",
                path);
fail:
    json_decref(root);
    if (f) fclose(f);
    return status;
}

fb_status fb_prior_save(const json_t *prior, const char *path)
{
    fb_status status = FB_OK;
    fb_file_writer w = {.f = NULL};
    FB_CHECK(fb_prior_check_replaceable(path));
    FB_CHECK(fb_make_parent_dirs(path));
    FB_CHECK(fb_file_writer_open(path, &w));
    write_prior(w.f, prior);
    status = fb_file_writer_close(&w, 1);
    w.f = NULL;
fail:
    if (w.f) fb_file_writer_close(&w, 0);
    return status;
}

void fb_prior_path_beside(const char *cache_path, char *buf, size_t len)
{
    fb_path_beside(cache_path, FB_PRIOR_FILE_NAME, FB_PRIOR_FILE_NAME, buf, len);
}

static int value_ok(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= -FB_PARAM_VALUE_MAX &&
           json_integer_value(v) <= FB_PARAM_VALUE_MAX;
}

/* A ratio is of a point within PRIOR_NEAR of its best, as near_set keeps
 * them: a larger one is no near-optimal point, and one near DBL_MAX made
 * the start's score infinite, which was reported as out of host memory.
 * A value follows the one rule of core/params.h, as in the tuning cache:
 * one no int holds would start the search truncated. */
static int near_ok(const json_t *near)
{
    const json_t *n, *v;
    const char *name;
    size_t i;
    if (!json_is_array(near) || json_array_size(near) == 0) return 0;
    json_array_foreach(near, i, n)
    {
        const json_t *params = json_object_get(n, "params");
        double ratio = json_number_value(json_object_get(n, "ratio"));
        if (!json_is_object(params) || !json_is_number(json_object_get(n, "ratio")) || !(ratio >= 1) ||
            ratio > 1 + PRIOR_NEAR)
            return 0;
        json_object_foreach((json_t *)params, name, v) if (!value_ok(v)) return 0;
    }
    return 1;
}

static fb_status read_entry(const char *path, size_t i, const json_t *e, prior_entry *out)
{
    fb_status status = FB_OK;
    static const char *const strings[] = {"device", "kernel", "precision", "matrix", "matrix_hash"};
    const char **fields[] = {&out->device, &out->kernel, &out->precision, &out->matrix, &out->hash};
    for (size_t k = 0; k < sizeof strings / sizeof strings[0]; ++k) {
        const json_t *s = json_object_get(e, strings[k]);
        if (!json_is_string(s))
            FB_FAIL(FB_ERR_INPUT,
                    "%s: entry %zu: no string \"%s\" (not a tuning prior; refit it with flowbench tune "
                    "--fit-prior)",
                    path, i, strings[k]);
        *fields[k] = json_string_value(s);
    }
    if (!features_read(json_object_get(e, "features"), &out->features))
        FB_FAIL(FB_ERR_INPUT,
                "%s: entry %zu: \"features\" lacks a valid rows, nnz_per_row_mean, nnz_per_row_cv, "
                "block or block_fill",
                path, i);
    out->near = json_object_get(e, "near");
    if (!near_ok(out->near))
        FB_FAIL(FB_ERR_INPUT,
                "%s: entry %zu: \"near\" is not a non-empty list of {\"params\": {NAME: integer within +-%d}, "
                "\"ratio\": 1 to %g}",
                path, i, FB_PARAM_VALUE_MAX, 1 + PRIOR_NEAR);
fail:
    return status;
}

static fb_status check_root(const char *path, fb_prior *p)
{
    fb_status status = FB_OK;
    const json_t *entries = json_object_get(p->root, "entries"), *e;
    size_t i;
    if (json_integer_value(json_object_get(p->root, "flowbench_tuning_prior")) != PRIOR_VERSION)
        FB_FAIL(FB_ERR_INPUT, "%s: not a tuning prior (no \"flowbench_tuning_prior\": %d)", path, PRIOR_VERSION);
    if (!json_is_array(entries)) FB_FAIL(FB_ERR_INPUT, "%s: not a tuning prior (no \"entries\" list)", path);
    FB_ALLOC(p->entries, json_array_size(entries), "the tuning prior's entries");
    json_array_foreach(entries, i, e)
    {
        FB_CHECK(read_entry(path, i, e, &p->entries[i]));
        p->nentries++;
    }
fail:
    return status;
}

fb_status fb_prior_load(const char *path, int if_exists, fb_prior **out)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    fb_prior *p = NULL;
    json_error_t err;
    *out = NULL;
    if (if_exists)
        FB_CHECK(fb_file_fopen_read_if_exists(path, "the tuning prior", &f));
    else
        FB_CHECK(fb_file_fopen_read(path, "the tuning prior", &f));
    if (!f) return FB_OK;
    FB_ALLOC(p, 1, "the tuning prior");
    if (!(p->root = json_loadf(f, 0, &err)))
        FB_FAIL(FB_ERR_INPUT, "%s: line %d: not valid JSON (%s)", path, err.line, err.text);
    FB_CHECK(check_root(path, p));
    *out = p;
    p = NULL;
fail:
    if (f) fclose(f);
    fb_prior_free(p);
    return status;
}

void fb_prior_free(fb_prior *p)
{
    if (!p) return;
    json_decref(p->root);
    free(p->entries);
    free(p);
}

int fb_prior_size(const fb_prior *p) { return p ? p->nentries : 0; }

/* ---- predicting ---------------------------------------------------------- */

static int entry_fits(const prior_entry *e, const fb_prior_query *q, int same_device)
{
    return !strcmp(e->kernel, q->kernel) && !strcmp(e->precision, q->precision) &&
           !(q->exclude_hash && !strcmp(e->hash, q->exclude_hash)) && (!same_device || !strcmp(e->device, q->device));
}

/* The PRIOR_NEIGHBOURS fitting entries nearest the query, nearest first;
 * ties keep the file's order. */
static int nearest(const fb_prior *p, const fb_prior_query *q, int same_device, int *pick, double *dist)
{
    int n = 0;
    for (int i = 0; i < p->nentries; ++i) {
        if (!entry_fits(&p->entries[i], q, same_device)) continue;
        double d = fb_prior_distance(&q->features, &p->entries[i].features);
        if (n == PRIOR_NEIGHBOURS && !(d < dist[n - 1])) continue;
        int at = n < PRIOR_NEIGHBOURS ? n++ : n - 1;
        for (; at > 0 && dist[at - 1] > d; --at) {
            pick[at] = pick[at - 1];
            dist[at] = dist[at - 1];
        }
        pick[at] = i;
        dist[at] = d;
    }
    return n;
}

/* A stored point as a point of the query's axes; an axis it does not name
 * (a kernel changed since the sweep) takes its default. */
static fb_param_point to_point(const fb_prior_query *q, const json_t *params)
{
    fb_param_point pt = {{0}};
    for (int a = 0; a < q->naxes; ++a) {
        const json_t *v = json_object_get(params, q->axes[a].name);
        pt.values[a] = json_is_integer(v) ? (int)json_integer_value(v) : q->axes[a].def;
    }
    return pt;
}

/* The ratio entry e recorded at point pt, or 1 + PRIOR_NEAR when pt is
 * not near its best. */
static double ratio_at(const fb_prior_query *q, const prior_entry *e, const fb_param_point *pt)
{
    const json_t *n;
    size_t i;
    json_array_foreach(e->near, i, n)
    {
        fb_param_point other = to_point(q, json_object_get(n, "params"));
        if (!memcmp(&other, pt, sizeof other)) return json_number_value(json_object_get(n, "ratio"));
    }
    return 1 + PRIOR_NEAR;
}

static double score(const fb_prior *p, const fb_prior_query *q, const int *pick, const double *dist, int n,
                    const fb_param_point *pt)
{
    double sum = 0, weights = 0;
    for (int i = 0; i < n; ++i) {
        double w = 1 / (dist[i] + PRIOR_WEIGHT_EPS);
        sum += w * ratio_at(q, &p->entries[pick[i]], pt);
        weights += w;
    }
    return sum / weights;
}

void fb_prior_predict(const fb_prior *p, const fb_prior_query *q, fb_prior_prediction *out)
{
    int pick[PRIOR_NEIGHBOURS];
    double dist[PRIOR_NEIGHBOURS];
    memset(out, 0, sizeof *out);
    if (!p) return;
    int same = 1, n = nearest(p, q, 1, pick, dist);
    if (n == 0) n = nearest(p, q, same = 0, pick, dist);
    if (n == 0) return;
    out->found = 1;
    out->same_device = same;
    out->score = INFINITY;
    /* candidates: every neighbour's near-optimal points, nearest neighbour
     * and best first, so a tie goes to the nearest matrix's better point */
    for (int i = 0; i < n; ++i) {
        const json_t *near = p->entries[pick[i]].near, *c;
        size_t k;
        out->from[i] = p->entries[pick[i]].matrix;
        out->distance[i] = dist[i];
        out->entry[i] = pick[i];
        json_array_foreach(near, k, c)
        {
            fb_param_point pt = to_point(q, json_object_get(c, "params"));
            double s = score(p, q, pick, dist, n, &pt);
            if (s < out->score) {
                out->score = s;
                out->point = pt;
            }
        }
    }
    out->nfrom = n;
}

double fb_prior_score(const fb_prior *p, const fb_prior_query *q, const fb_prior_prediction *pr,
                      const fb_param_point *point)
{
    return pr->found ? score(p, q, pr->entry, pr->distance, pr->nfrom, point) : 0;
}

static void print_fit(FILE *say, const json_t *prior, const char *path)
{
    const json_t *entries = json_object_get(prior, "entries"), *e;
    json_t *kernels = json_object(), *matrices = json_object();
    size_t i;
    json_array_foreach(entries, i, e)
    {
        json_object_set(kernels, json_string_value(json_object_get(e, "kernel")), json_true());
        json_object_set(matrices, json_string_value(json_object_get(e, "matrix_hash")), json_true());
    }
    fprintf(say, "prior: %zu landscapes (%zu kernels, %zu matrices) from %zu sweep(s), written to %s\n",
            json_array_size(entries), json_object_size(kernels), json_object_size(matrices),
            json_array_size(json_object_get(prior, "fit_from")), path);
    json_decref(kernels);
    json_decref(matrices);
}

/* The prior is written over neither a sweep it is fitted to (core/files.h)
 * nor any file that is not a prior: said before the sweeps are read. */
static fb_status check_destination(const char *const *paths, int n, const char *path)
{
    fb_status status = FB_OK;
    fb_named_file *sweeps = NULL, prior = {"--prior", path};
    FB_ALLOC(sweeps, n, "the sweeps' names");
    for (int i = 0; i < n; ++i)
        sweeps[i] = (fb_named_file){"SWEEP.jsonl", paths[i]};
    FB_CHECK(fb_files_check_distinct("tune --fit-prior", sweeps, n, &prior, 1));
    FB_CHECK(fb_prior_check_replaceable(path));
fail:
    free(sweeps);
    return status;
}

fb_status fb_prior_fit_into(const char *const *sweeps, int nsweeps, const char *path, FILE *say)
{
    fb_status status = FB_OK;
    json_t *prior = NULL;
    FB_CHECK(check_destination(sweeps, nsweeps, path));
    FB_CHECK(fb_prior_fit(sweeps, nsweeps, &prior));
    FB_CHECK(fb_prior_save(prior, path));
    print_fit(say, prior, path);
fail:
    json_decref(prior);
    return status;
}
