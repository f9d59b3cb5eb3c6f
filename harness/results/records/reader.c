/* reader.c - loading and validating results files, configuration keys and
 * the field accessors the other readers (export, plot, compare, report)
 * share. */
#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../core/files.h"
#include "../../core/grow.h"
#include "results.h"
#include "../../core/interrupt.h"
#include "../../core/json_index.h"

static const char *const header_strings[] = {"run_id", "date", NULL};
static const char *const measurement_strings[] = {"run_id",      "benchmark", "kernel", "backend", "device",
                                                  "device_name", "precision", "status", NULL};

const json_t *fb_json_get(const json_t *obj, const char *path)
{
    char part[64];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        snprintf(part, sizeof part, "%.*s", (int)n, path);
        obj = json_is_object(obj) ? json_object_get(obj, part) : NULL;
        path += n + (path[n] == '.');
    }
    return obj;
}

const char *fb_json_str(const json_t *obj, const char *path)
{
    const json_t *v = fb_json_get(obj, path);
    return json_is_string(v) ? json_string_value(v) : "";
}

double fb_json_num(const json_t *obj, const char *path)
{
    const json_t *v = fb_json_get(obj, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Fails naming the first of `names` that is not a string in rec. */
static fb_status require_strings(const json_t *rec, const char *const *names, const char *where)
{
    fb_status status = FB_OK;
    for (int i = 0; names[i]; ++i)
        if (!json_is_string(json_object_get(rec, names[i])))
            FB_FAIL(FB_ERR_INPUT, "%s: %s record lacks the string field \"%s\"", where, fb_json_str(rec, "type"),
                    names[i]);
fail:
    return status;
}

static fb_status check_samples(const json_t *rec, const char *where)
{
    fb_status status = FB_OK;
    const json_t *stats = json_object_get(rec, "stats"), *samples = fb_json_get(rec, "stats.samples_s"), *v;
    size_t i;
    if (!stats) return FB_OK; /* a failed configuration may have no statistics */
    if (!json_is_object(stats)) FB_FAIL(FB_ERR_INPUT, "%s: \"stats\" is not an object", where);
    if (samples && !json_is_array(samples)) FB_FAIL(FB_ERR_INPUT, "%s: \"stats.samples_s\" is not an array", where);
    json_array_foreach(samples, i, v)
    {
        if (!json_is_number(v) || !(json_number_value(v) >= 0))
            FB_FAIL(FB_ERR_INPUT, "%s: stats.samples_s[%zu] is not a non-negative number", where, i);
    }
fail:
    return status;
}

static fb_status check_record(const json_t *rec, const char *where)
{
    fb_status status = FB_OK;
    const char *type = fb_json_str(rec, "type");
    const json_t *schema = json_object_get(rec, "schema");
    if (!json_is_integer(schema) || json_integer_value(schema) < 1)
        FB_FAIL(FB_ERR_INPUT, "%s: no integer \"schema\" field (not a flowbench results record?)", where);
    if (json_integer_value(schema) > FB_RESULTS_SCHEMA)
        FB_FAIL(FB_ERR_INPUT, "%s: schema %lld is newer than this flowbench reads (%d)", where,
                (long long)json_integer_value(schema), FB_RESULTS_SCHEMA);
    if (strcmp(type, "header") == 0) {
        FB_CHECK(require_strings(rec, header_strings, where));
        if (!json_is_object(json_object_get(rec, "host")) || !json_is_array(json_object_get(rec, "devices")))
            FB_FAIL(FB_ERR_INPUT, "%s: header record lacks the \"host\" object or the \"devices\" array", where);
    } else if (strcmp(type, "measurement") == 0) {
        FB_CHECK(require_strings(rec, measurement_strings, where));
        if (!json_is_object(json_object_get(rec, "params")))
            FB_FAIL(FB_ERR_INPUT, "%s: measurement record lacks the \"params\" object", where);
        FB_CHECK(check_samples(rec, where));
    } else {
        FB_FAIL(FB_ERR_INPUT, "%s: \"type\" is '%s', not header or measurement", where, type);
    }
fail:
    return status;
}

fb_status fb_results_check_line(const char *text, const char *path, int line, json_t **out)
{
    fb_status status = FB_OK;
    json_error_t err;
    char where[1100];
    json_t *rec = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    snprintf(where, sizeof where, "%s: line %d", path, line);
    *out = NULL;
    if (!rec) FB_FAIL(FB_ERR_INPUT, "%s: not valid JSON (%s, column %d)", where, err.text, err.column);
    if (!json_is_object(rec)) FB_FAIL(FB_ERR_INPUT, "%s: not a JSON object", where);
    FB_CHECK(check_record(rec, where));
    *out = rec;
    return FB_OK;
fail:
    json_decref(rec);
    return status;
}

const json_t *fb_record_problem(const json_t *rec)
{
    static const char *const keys[] = {"matrix", "grid"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        const json_t *p = json_object_get(rec, keys[i]);
        if (p) return p;
    }
    return NULL;
}

char *fb_measured_key(const json_t *rec, int parts)
{
    const json_t *m = fb_record_problem(rec);
    const char *id = json_is_string(m) ? json_string_value(m) : fb_json_str(m, "hash");
    char *params =
        (parts & FB_KEY_PARAMS) ? json_dumps(json_object_get(rec, "params"), JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (!*id) id = fb_json_str(m, "source");
    size_t len = 1024 + strlen(id) + (params ? strlen(params) : 0);
    char *key = malloc(len);
    /* a user's kernel file that changed is another kernel: its content hash ends the key */
    const char *file_hash = (parts & FB_KEY_FILE) ? fb_json_str(rec, "kernel_file.hash") : "";
    if (key)
        snprintf(key, len, "%s|%s|%s|%s|%s|%s|%s|%s%s%s", fb_json_str(rec, "benchmark"), fb_json_str(rec, "kernel"),
                 fb_json_str(rec, "backend"), fb_json_str(rec, "device_name"), fb_json_str(rec, "precision"),
                 params ? params : "", id, json_is_true(json_object_get(rec, "cold")) ? "cold" : "",
                 *file_hash ? "|" : "", file_hash);
    free(params);
    return key;
}

static void append_matrix_id(const json_t *rec, char *buf, size_t len)
{
    const json_t *m = fb_record_problem(rec);
    const char *id = json_is_string(m) ? json_string_value(m) : fb_json_str(m, "hash");
    if (!*id) id = fb_json_str(m, "source");
    snprintf(buf + strlen(buf), len - strlen(buf), "|%s", id);
}

char *fb_record_key(const json_t *rec)
{
    char *params = json_dumps(json_object_get(rec, "params"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    size_t len = 1024 + (params ? strlen(params) : 0);
    char *key = malloc(len);
    if (key) {
        snprintf(key, len, "%s|%s|%s|%s|%s|%s", fb_json_str(rec, "benchmark"), fb_json_str(rec, "kernel"),
                 fb_json_str(rec, "backend"), fb_json_str(rec, "device_name"), fb_json_str(rec, "precision"),
                 params ? params : "{}");
        append_matrix_id(rec, key, len);
        /* cold and warm caches measure different things: never pair them */
        snprintf(key + strlen(key), len - strlen(key), "|%s|%s|%s", fb_json_str(rec, "suite"), fb_json_str(rec, "case"),
                 json_is_true(json_object_get(rec, "cold")) ? "cold" : "");
        /* a problem decomposed over P ranks is another measurement than on one */
        const double ranks = fb_json_num(rec, "mpi.ranks");
        if (ranks > 1) snprintf(key + strlen(key), len - strlen(key), "|ranks=%.0f", ranks);
    }
    free(params);
    return key;
}

static fb_status copy_samples(fb_record *r)
{
    fb_status status = FB_OK;
    const json_t *samples = fb_json_get(r->json, "stats.samples_s"), *v;
    size_t i;
    if (!json_is_array(samples) || json_array_size(samples) == 0) return FB_OK;
    FB_ALLOC(r->samples, json_array_size(samples), "samples");
    json_array_foreach(samples, i, v) r->samples[i] = json_number_value(v);
    r->nsamples = (int)json_array_size(samples);
fail:
    return status;
}

static const char *run_of(const json_t *rec) { return fb_json_str(rec, "run_id"); }

/* Takes ownership of rec. A later header with the same run id stands for
 * the records after it. */
static fb_status add_header(fb_results_set *set, json_t *rec)
{
    fb_status status = FB_OK;
    const char *run[] = {run_of(rec)};
    json_t **h = fb_grow(set->headers, &set->headers_cap, set->nheaders + 1, sizeof *h);
    if (!h) {
        json_decref(rec);
        FB_FAIL(FB_ERR_NOMEM, "out of host memory reading %s", set->path);
    }
    set->headers = h;
    set->headers[set->nheaders++] = rec; /* the set owns it from here on */
    FB_CHECK(fb_json_index_set(set->header_of_run, run, 1, json_incref(rec)));
fail:
    return status;
}

static int is_stream_triad(const fb_record *r)
{
    return fb_record_usable(r) && strcmp(fb_json_str(r->json, "benchmark"), "stream") == 0 &&
           strcmp(fb_json_str(r->json, "kernel"), "triad") == 0;
}

/* The design's rule for a stream reference: measured in the same run, on
 * the same device, in the same precision. */
static void stream_ref_key(const fb_record *r, const char *key[3])
{
    key[0] = run_of(r->json);
    key[1] = fb_json_str(r->json, "device");
    key[2] = fb_json_str(r->json, "precision");
}

/* Records the first usable triad of each run, device and precision as the
 * reference of the records that share them. */
static fb_status note_stream_ref(fb_results_set *set, int i)
{
    const fb_record *r = &set->records[i];
    const char *key[3];
    if (!is_stream_triad(r) || !(fb_json_num(r->json, "gbs") > 0)) return FB_OK;
    stream_ref_key(r, key);
    if (fb_json_index_get(set->stream_refs, key, 3)) return FB_OK;
    return fb_json_index_set(set->stream_refs, key, 3, json_integer(i));
}

/* Takes ownership of rec. */
static fb_status add_measurement(fb_results_set *set, json_t *rec, int line)
{
    fb_status status = FB_OK;
    const char *run[] = {run_of(rec)};
    fb_record *rs = fb_grow(set->records, &set->records_cap, set->nrecords + 1, sizeof *rs);
    if (!rs) {
        json_decref(rec);
        FB_FAIL(FB_ERR_NOMEM, "out of host memory reading %s", set->path);
    }
    set->records = rs;
    fb_record *r = memset(&rs[set->nrecords++], 0, sizeof *r);
    r->json = rec; /* the set owns it from here on */
    r->line = line;
    r->header = fb_json_index_get(set->header_of_run, run, 1); /* the latest header of its run so far */
    r->key = fb_record_key(rec);
    if (!r->key) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading %s", set->path);
    FB_CHECK(copy_samples(r));
    FB_CHECK(note_stream_ref(set, set->nrecords - 1));
fail:
    return status;
}

/* Takes ownership of rec. */
static fb_status add_record(fb_results_set *set, json_t *rec, int line)
{
    if (strcmp(fb_json_str(rec, "type"), "header") == 0) return add_header(set, rec);
    return add_measurement(set, rec, line);
}

static const fb_record *sort_base;

static int cmp_by_key(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    int c = strcmp(sort_base[i].key, sort_base[j].key);
    return c ? c : (i > j) - (i < j);
}

/* Marks every record that a later one with the same key replaces, so that a
 * file holding several runs reads as "the latest measurement of each".
 * Sorting keeps this fast on sweeps of many thousand records. */
static fb_status mark_superseded(fb_results_set *set)
{
    fb_status status = FB_OK;
    int *order = NULL;
    FB_ALLOC(set->by_key, set->nrecords, "record index");
    order = set->by_key;
    for (int i = 0; i < set->nrecords; ++i)
        order[i] = i;
    sort_base = set->records;
    qsort(order, (size_t)set->nrecords, sizeof *order, cmp_by_key);
    FB_ALLOC(set->latest, set->nrecords, "record index");
    for (int i = 0; i < set->nrecords; ++i) {
        fb_record *r = &set->records[order[i]];
        r->superseded = i + 1 < set->nrecords && strcmp(r->key, set->records[order[i + 1]].key) == 0;
        if (!r->superseded) set->latest[set->nlatest++] = order[i];
    }
fail:
    return status;
}

const fb_record *fb_results_find(const fb_results_set *set, const char *key)
{
    int lo = 0, hi = set->nlatest - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(set->records[set->latest[mid]].key, key);
        if (c == 0) return &set->records[set->latest[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

int fb_results_find_all(const fb_results_set *set, const char *key, int *first)
{
    int lo = 0, hi = set->nrecords, n = 0;
    while (lo < hi) { /* the first position whose key is >= key */
        int mid = lo + (hi - lo) / 2;
        if (strcmp(set->records[set->by_key[mid]].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    while (lo + n < set->nrecords && strcmp(set->records[set->by_key[lo + n]].key, key) == 0)
        ++n;
    return n;
}

#define DAMAGED_SAID 3 /* damaged lines named one by one; the rest are counted */

/* A line that is not JSON: skipped and said (the first few by line), its
 * message kept in case nothing else in the file is readable (then it is
 * no results file at all). */
static void skip_damaged(fb_results_set *set, int line, char *first, size_t len)
{
    if (!set->damaged++) snprintf(first, len, "%s", fb_error_message());
    if (set->damaged <= DAMAGED_SAID)
        fprintf(stderr, "%s: line %d: not valid JSON (a damaged write?): skipped\n", set->path, line);
}

static int is_json_text(const char *text)
{
    json_t *rec = json_loads(text, 0, NULL);
    json_decref(rec);
    return rec != NULL;
}

static fb_status read_lines(FILE *f, fb_results_set *set)
{
    fb_status status = FB_OK;
    char *text = NULL, first[1400] = "";
    size_t cap = 0;
    ssize_t n;
    json_t *rec = NULL;
    for (int line = 1; (n = getline(&text, &cap, f)) >= 0; ++line) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
            text[--n] = '\0';
        if (strspn(text, " \t") == (size_t)n) continue; /* tolerate blank lines (hand-edited files) */
        status = fb_results_check_line(text, set->path, line, &rec);
        if (status != FB_OK && is_json_text(text)) goto fail; /* a record that breaks the schema */
        if (status != FB_OK) {
            status = FB_OK;
            skip_damaged(set, line, first, sizeof first);
            continue;
        }
        FB_CHECK(add_record(set, rec, line));
    }
    if (ferror(f)) FB_FAIL(FB_ERR_IO, "%s: read failed", set->path);
    if (set->damaged && !set->nheaders && !set->nrecords) FB_FAIL(FB_ERR_INPUT, "%s", first);
    if (set->damaged > DAMAGED_SAID) fprintf(stderr, "%s: %d damaged lines skipped in all\n", set->path, set->damaged);
fail:
    free(text);
    return status;
}

static fb_status set_new(const char *path, fb_results_set **out)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    FB_ALLOC(set, 1, "results set");
    snprintf(set->path, sizeof set->path, "%s", path);
    set->header_of_run = json_object();
    set->stream_refs = json_object();
    if (!set->header_of_run || !set->stream_refs) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading %s", path);
    *out = set;
    return FB_OK;
fail:
    fb_results_set_free(set);
    return status;
}

/* Reads path's records into set, set->path naming it meanwhile (the
 * messages of read_lines name the file they are about). An empty file is
 * an error where it is the only one; beside others (a command of the run
 * that stopped before writing) it is said and skipped. */
static fb_status read_file(fb_results_set *set, const char *path, int only)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    const int before = set->nheaders + set->nrecords;
    snprintf(set->path, sizeof set->path, "%s", path);
    FB_CHECK(fb_file_fopen_read_gz(path, NULL, &f));
    FB_CHECK(read_lines(f, set));
    if (set->nheaders + set->nrecords == before && only) FB_FAIL(FB_ERR_INPUT, "%s: empty results file", path);
    if (set->nheaders + set->nrecords == before) fprintf(stderr, "%s: empty results file: skipped\n", path);
fail:
    if (f) fclose(f);
    return status;
}

fb_status fb_results_load(const char *path, fb_results_set **out)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    *out = NULL;
    FB_CHECK(set_new(path, &set));
    FB_CHECK(read_file(set, path, 1));
    FB_CHECK(mark_superseded(set));
    *out = set;
    set = NULL;
fail:
    fb_results_set_free(set);
    return status;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static fb_status add_file_name(fb_results_set *set, const char *path)
{
    fb_status status = FB_OK;
    char **grown = realloc(set->files, (size_t)(set->nfiles + 1) * sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing %s", path);
    set->files = grown;
    if (!(set->files[set->nfiles] = strdup(path))) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing %s", path);
    set->nfiles++;
fail:
    return status;
}

/* The *.jsonl and *.jsonl.gz files of dir, in name order, added to set->files. */
static fb_status add_folder(fb_results_set *set, const char *dir)
{
    fb_status status = FB_OK;
    DIR *d = opendir(dir);
    struct dirent *e;
    const int first = set->nfiles;
    char path[2048];
    if (!d) FB_FAIL(FB_ERR_IO, "%s: cannot read the folder (%s)", dir, strerror(errno));
    while ((e = readdir(d))) {
        const size_t len = strlen(e->d_name);
        const int plain = len > 6 && strcmp(e->d_name + len - 6, ".jsonl") == 0;
        if (!plain && !(len > 9 && strcmp(e->d_name + len - 9, ".jsonl.gz") == 0)) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FB_CHECK(add_file_name(set, path));
    }
    if (set->nfiles == first) FB_FAIL(FB_ERR_INPUT, "%s: no results file (*.jsonl, *.jsonl.gz) in this folder", dir);
    qsort(set->files + first, (size_t)(set->nfiles - first), sizeof *set->files, cmp_names);
fail:
    if (d) closedir(d);
    return status;
}

static fb_status add_path(fb_results_set *set, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return add_folder(set, path);
    return add_file_name(set, path);
}

fb_status fb_results_load_run(const char *const *paths, int n, fb_results_set **out)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    *out = NULL;
    FB_CHECK(set_new(paths[0], &set));
    for (int i = 0; i < n; ++i)
        FB_CHECK(add_path(set, paths[i]));
    for (int i = 0; i < set->nfiles; ++i) {
        const int from = set->nrecords;
        FB_CHECK(read_file(set, set->files[i], set->nfiles == 1));
        for (int r = from; r < set->nrecords; ++r)
            set->records[r].file = i;
    }
    if (set->nheaders + set->nrecords == 0) FB_FAIL(FB_ERR_INPUT, "%s: every results file is empty", paths[0]);
    if (n == 1 || set->nfiles == 1)
        snprintf(set->path, sizeof set->path, "%s", paths[0]);
    else
        snprintf(set->path, sizeof set->path, "%s and %d more", paths[0], n - 1);
    FB_CHECK(mark_superseded(set));
    *out = set;
    set = NULL;
fail:
    fb_results_set_free(set);
    return status;
}

void fb_record_where(const fb_results_set *set, const fb_record *r, char *buf, size_t len)
{
    const char *file = set->nfiles > 1 ? set->files[r->file] : NULL;
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (file)
        snprintf(buf, len, "%s:%d", slash ? slash + 1 : file, r->line);
    else
        snprintf(buf, len, "%d", r->line);
}

void fb_results_set_free(fb_results_set *set)
{
    if (!set) return;
    for (int i = 0; i < set->nheaders; ++i)
        json_decref(set->headers[i]);
    for (int i = 0; i < set->nrecords; ++i) {
        json_decref(set->records[i].json);
        free(set->records[i].key);
        free(set->records[i].samples);
    }
    free(set->headers);
    free(set->records);
    free(set->latest);
    free(set->by_key);
    json_decref(set->header_of_run);
    json_decref(set->stream_refs);
    json_decref(set->device_triad);
    for (int i = 0; i < set->nfiles; ++i)
        free(set->files[i]);
    free(set->files);
    free(set);
}

int fb_record_usable(const fb_record *r)
{
    return strcmp(fb_json_str(r->json, "status"), "ok") == 0 && r->nsamples > 0 && fb_record_median(r) > 0;
}

int fb_record_expected(const fb_record *r)
{
    static const char *const expected[] = {"pruned", "abandoned", "skipped", "timeout", "unavailable"};
    const char *st = fb_json_str(r->json, "status");
    for (size_t i = 0; i < sizeof expected / sizeof *expected; ++i)
        if (!strcmp(st, expected[i])) return 1;
    return 0;
}

void fb_record_failure(const fb_record *r, char *buf, size_t len)
{
    const char *st = fb_json_str(r->json, "status"), *reason = fb_json_str(r->json, "reason");
    if (strcmp(st, "ok") == 0)
        snprintf(buf, len, "ok but %s", r->nsamples ? "median is not positive" : "no samples");
    else
        snprintf(buf, len, "%s%s%s", st, *reason ? ": " : "", reason);
}

double fb_record_median(const fb_record *r)
{
    double m = fb_json_num(r->json, "stats.median_s");
    return isnan(m) ? 0.0 : m;
}

int fb_record_same_run_rounds(const json_t *a, const json_t *b)
{
    return json_object_get(a, "round") && json_object_get(b, "round") && !strcmp(run_of(a), run_of(b));
}

void fb_params_text(const json_t *params, char *buf, size_t len)
{
    const char *k;
    const json_t *v;
    size_t used = 0;
    buf[0] = '\0';
    /* a sorted dump read back in order gives the keys sorted */
    char *dump = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *canon = dump ? json_loads(dump, JSON_PRESERVE_ORDER, NULL) : NULL;
    json_object_foreach(canon, k, v)
    {
        char val[64];
        if (json_is_integer(v))
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        else if (json_is_number(v))
            snprintf(val, sizeof val, "%g", json_number_value(v));
        else if (json_is_string(v))
            snprintf(val, sizeof val, "%s", json_string_value(v));
        else
            snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "?");
        if (used < len) used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", k, val);
    }
    json_decref(canon);
    free(dump);
}

const char *fb_record_matrix(const fb_record *r)
{
    const json_t *m = fb_record_problem(r->json);
    const char *name, *slash;
    if (json_is_string(m)) return json_string_value(m);
    if (!json_is_object(m)) return "";
    name = fb_json_str(m, "name");
    if (*name) return name;
    name = fb_json_str(m, "source");
    slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}

void fb_record_label(const fb_record *r, char *buf, size_t len)
{
    char params[512];
    const char *matrix = fb_record_matrix(r);
    fb_params_text(json_object_get(r->json, "params"), params, sizeof params);
    snprintf(buf, len, "%s %s %s %s%s%s%s%s", fb_json_str(r->json, "benchmark"), fb_json_str(r->json, "kernel"),
             fb_json_str(r->json, "device"), fb_json_str(r->json, "precision"), *matrix ? " " : "", matrix,
             *params ? " " : "", params);
}

/* A share of a sweep (--shard, MPI ranks) says its own host: the ranks of
 * one run ran on several. */
const char *fb_record_host(const fb_record *r)
{
    const char *own = json_string_value(json_object_get(r->json, "host"));
    if (own) return own;
    return r->header ? fb_json_str(r->header, "host.hostname") : "";
}

const json_t *fb_record_device(const fb_record *r)
{
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(r->header, "devices"), i, d)
    {
        if (!strcmp(fb_json_str(d, "id"), fb_json_str(r->json, "device"))) return d;
    }
    return NULL;
}

int fb_backend_is_baseline(const char *backend) { return backend && strcmp(backend, "openmp") == 0; }

int fb_device_is_host_cpu(const char *backend, const json_t *dev)
{
    const char *name = fb_json_str(dev, "name");
    return fb_backend_is_baseline(backend) || json_is_object(json_object_get(dev, "simd")) ||
           strstr(fb_json_str(dev, "device_version"), "pthread") || strstr(name, "pthread") || strstr(name, "cpu");
}

double fb_record_triad(const fb_results_set *set, const fb_record *r)
{
    char key[160];
    const json_t *t;
    if (!set->device_triad) return NAN;
    snprintf(key, sizeof key, "%s|%s", fb_json_str(r->json, "device"), fb_json_str(r->json, "precision"));
    /* by key, not fb_json_num's dotted path: "opencl:0.0" has a dot */
    if (!(t = json_object_get(set->device_triad, key)))
        t = json_object_get(set->device_triad, fb_json_str(r->json, "device"));
    return t ? json_number_value(t) : NAN;
}

double fb_record_fraction(const fb_results_set *set, const fb_record *r)
{
    double own = fb_json_num(r->json, "fraction_of_stream"), gbs = fb_json_num(r->json, "gbs");
    const char *key[3];
    if (set->device_triad) {
        const double triad = fb_record_triad(set, r);
        return fb_record_usable(r) && gbs > 0 && triad > 0 ? gbs / triad : NAN;
    }
    if (!isnan(own)) return own;
    if (!fb_record_usable(r) || !(gbs > 0)) return NAN;
    stream_ref_key(r, key);
    long long ref = fb_json_index_int(set->stream_refs, key, 3);
    return ref >= 0 ? gbs / fb_json_num(set->records[ref].json, "gbs") : NAN;
}
