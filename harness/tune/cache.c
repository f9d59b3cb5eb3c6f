/* cache.c - see cache.h. The cache is the JSON "entries" array itself,
 * plus an index from each entry's key and exact signature to its position:
 * a cache kept for a year can hold tens of thousands of entries, and
 * loading one puts every entry, which must not scan the others. */
#include "cache.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "../core/files.h"
#include "../core/interrupt.h"
#include "../core/json_file.h"
#include "../core/json_index.h"
#include "../core/params.h"
#include "../results/records/reader.h"

#define FB_CACHE_VERSION 1
#define PARAM_NAME_MAX 63
/* An entry's "-DNAME=VALUE ..." as exported: every entry's fits, as
 * params_are_valid allows no more than FB_MAX_PARAMS names of at most
 * PARAM_NAME_MAX characters with values of at most 11 ("-1000000000"). */
#define DEFINES_LEN 1024
_Static_assert((sizeof " -D=" - 1 + PARAM_NAME_MAX + 11) * FB_MAX_PARAMS < DEFINES_LEN,
               "an entry's defines fit DEFINES_LEN");

struct fb_tuning_cache {
    json_t *entries; /* array of validated entry objects */
    json_t *index;   /* device, kernel, precision, signature_key -> position in entries */
    char path[1024]; /* the file it was loaded from ("" when built in memory) */
};

const char *fb_cache_source(const fb_tuning_cache *c) { return c && c->path[0] ? c->path : "the tuning cache"; }

/* ---- signatures ---------------------------------------------------------- */

static int read_int(const json_t *obj, const char *key, long long *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v)) return 0;
    *out = (long long)json_integer_value(v);
    return 1;
}

/* Integers count: a hand-edited file may well say "nnz_per_row_max": 27. */
static int read_number(const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_number(v)) return 0;
    *out = json_number_value(v);
    return 1;
}

const char *fb_signature_kind_name(fb_signature_kind kind)
{
    switch (kind) {
    case FB_SIGNATURE_MATRIX: return "matrix";
    case FB_SIGNATURE_GRID: return "grid";
    case FB_SIGNATURE_MESH: return "mesh";
    }
    return "matrix";
}

/* NULL when g is a grid the distance can compare (every extent at least
 * 1, a finite stretch of at least 1), else what is wrong. */
static const char *grid_problem(const fb_grid_signature *g)
{
    if (g->nx < 1 || g->ny < 1 || g->nz < 1) return "\"nx\", \"ny\" and \"nz\" must be at least 1";
    if (!(g->stretch >= 1.0) || !isfinite(g->stretch)) return "\"stretch\" must be a finite number of at least 1";
    return NULL;
}

json_t *fb_signature_json(const fb_signature *s)
{
    const fb_matrix_signature *m = &s->matrix;
    const fb_grid_signature *g = &s->grid;
    const fb_mesh_signature *h = &s->mesh;
    switch (s->kind) {
    case FB_SIGNATURE_GRID:
        return json_pack("{s:s, s:I, s:I, s:I, s:f}", "kind", "grid", "nx", (json_int_t)g->nx, "ny", (json_int_t)g->ny,
                         "nz", (json_int_t)g->nz, "stretch", g->stretch);
    case FB_SIGNATURE_MESH:
        return json_pack("{s:s, s:I, s:I, s:f, s:f, s:f}", "kind", "mesh", "nodes", (json_int_t)h->nodes, "edges",
                         (json_int_t)h->edges, "degree_mean", h->degree_mean, "degree_stddev", h->degree_stddev,
                         "degree_max", h->degree_max);
    case FB_SIGNATURE_MATRIX: break;
    }
    return json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:i}", "kind", "matrix", "rows", (json_int_t)m->rows, "nnz",
                     (json_int_t)m->nnz, "nnz_per_row_mean", m->row_mean, "nnz_per_row_stddev", m->row_stddev,
                     "nnz_per_row_max", m->row_max, "block", m->block);
}

/* The inverses of fb_signature_json, one per kind. NULL on success, else
 * what is wrong. */
static const char *matrix_from_cache_json(const json_t *s, fb_matrix_signature *out)
{
    long long block = 0;
    if (!read_int(s, "rows", &out->rows)) return "\"signature\" lacks the integer \"rows\"";
    if (!read_int(s, "nnz", &out->nnz)) return "\"signature\" lacks the integer \"nnz\"";
    if (!read_number(s, "nnz_per_row_mean", &out->row_mean)) return "\"signature\" lacks \"nnz_per_row_mean\"";
    if (!read_number(s, "nnz_per_row_stddev", &out->row_stddev)) return "\"signature\" lacks \"nnz_per_row_stddev\"";
    if (!read_number(s, "nnz_per_row_max", &out->row_max)) return "\"signature\" lacks \"nnz_per_row_max\"";
    if (!read_int(s, "block", &block) || block < 1 || block > INT_MAX)
        return "\"signature\" lacks a positive integer \"block\"";
    out->block = (int)block;
    return NULL;
}

static const char *grid_from_cache_json(const json_t *s, fb_grid_signature *out)
{
    if (!read_int(s, "nx", &out->nx) || !read_int(s, "ny", &out->ny) || !read_int(s, "nz", &out->nz))
        return "grid \"signature\" lacks the integer \"nx\", \"ny\" or \"nz\"";
    if (!read_number(s, "stretch", &out->stretch)) return "grid \"signature\" lacks the number \"stretch\"";
    return grid_problem(out);
}

static const char *mesh_from_cache_json(const json_t *s, fb_mesh_signature *out)
{
    if (!read_int(s, "nodes", &out->nodes) || !read_int(s, "edges", &out->edges))
        return "mesh \"signature\" lacks the integer \"nodes\" or \"edges\"";
    if (!read_number(s, "degree_mean", &out->degree_mean) || !read_number(s, "degree_stddev", &out->degree_stddev) ||
        !read_number(s, "degree_max", &out->degree_max))
        return "mesh \"signature\" lacks the number \"degree_mean\", \"degree_stddev\" or \"degree_max\"";
    return NULL;
}

/* Before signatures had kinds, `solve --tune` stored the mesh as the
 * signature of its pressure matrix: a row per node, its neighbours plus
 * the diagonal. That describes the mesh exactly, so such an entry is read
 * as the mesh signature it stands for, through the function the solver
 * computes new signatures with (bench/signature.h): old caches keep their solver entries,
 * found exactly on the same mesh. */
static void mesh_of_pressure_matrix(fb_signature *sig)
{
    const fb_matrix_signature m = sig->matrix;
    sig->kind = FB_SIGNATURE_MESH;
    sig->mesh = fb_mesh_signature_of_rows(m.rows, m.nnz, m.row_mean, m.row_stddev, m.row_max);
}

/* An entry's signature; `kernel` names the entry's kernel (an "ns" entry
 * without a kind is an old mesh signature, above). */
static const char *signature_from_cache_json(const json_t *s, const char *kernel, fb_signature *out)
{
    const json_t *kind = json_object_get(s, "kind");
    const char *problem;
    memset(out, 0, sizeof *out);
    if (!json_is_object(s)) return "lacks the \"signature\" object";
    if (kind && !json_is_string(kind)) return "\"signature\": \"kind\" is not a string";
    const char *name = kind ? json_string_value(kind) : "matrix";
    if (!strcmp(name, "grid")) {
        out->kind = FB_SIGNATURE_GRID;
        return grid_from_cache_json(s, &out->grid);
    }
    if (!strcmp(name, "mesh")) {
        out->kind = FB_SIGNATURE_MESH;
        return mesh_from_cache_json(s, &out->mesh);
    }
    if (strcmp(name, "matrix") != 0) return "\"signature\": \"kind\" is not \"matrix\", \"grid\" or \"mesh\"";
    out->kind = FB_SIGNATURE_MATRIX;
    if ((problem = matrix_from_cache_json(s, &out->matrix))) return problem;
    if (!kind && !strcmp(kernel, "ns")) mesh_of_pressure_matrix(out);
    return NULL;
}

/* log1p keeps empty matrices and rows (0 entries) finite, and for the sizes
 * that matter (hundreds and up) it is the plain log ratio. */
static double log_ratio(double a, double b) { return fabs(log1p(fmax(a, 0.0)) - log1p(fmax(b, 0.0))); }

static double variation(double mean, double stddev) { return mean > 0 ? stddev / mean : 0.0; }

/* The terms follow what the tuned parameters trade off: rows set the
 * available parallelism (work-groups, rows per group), nnz and the mean row
 * length set the work per row and so the best vector width, and the
 * coefficient of variation measures irregularity, i.e. load balance. Ratios,
 * not differences, because a kernel tuned at 1e4 rows says as much about 2e4
 * as one tuned at 1e6 says about 2e6. The block size changes the kernel's
 * data layout itself, so parameters never carry across block sizes. */
static double matrix_distance(const fb_matrix_signature *a, const fb_matrix_signature *b)
{
    if (a->block != b->block) return INFINITY;
    return log_ratio((double)a->rows, (double)b->rows) + log_ratio((double)a->nnz, (double)b->nnz) +
           log_ratio(a->row_mean, b->row_mean) +
           fabs(variation(a->row_mean, a->row_stddev) - variation(b->row_mean, b->row_stddev));
}

/* The grid kernels' parameters are a work-group shape over the axes, an
 * array order or cell layout, and an occupancy cap: what they trade off is
 * how a group's tile fits each extent (a 4096x16 grid wants another shape
 * than a 256x256 one of the same cells), so each axis is a term of its own,
 * a ratio for the reason the matrix terms are. The stretch changes neither
 * the kernels nor their traffic (the widths are 1D arrays either way); it
 * is a term so that an exact match is the same mesh and, among grids of
 * one size, the nearest is the one of the nearest stretch; as a ratio
 * (widest / narrowest cell) its log is what compares. grid_problem keeps
 * every quantity at least 1, so the logs are finite. */
static double grid_distance(const fb_grid_signature *a, const fb_grid_signature *b)
{
    return fabs(log((double)a->nx) - log((double)b->nx)) + fabs(log((double)a->ny) - log((double)b->ny)) +
           fabs(log((double)a->nz) - log((double)b->nz)) + fabs(log(a->stretch) - log(b->stretch));
}

/* The solver's kernels walk the edge graph a node per work-item, as an
 * SpMV walks rows: nodes are the parallelism, edges and the mean degree
 * the work per item, the degree's variation the balance (RENUMBER=2 sorts
 * by it), so the terms are the matrix terms. */
static double mesh_distance(const fb_mesh_signature *a, const fb_mesh_signature *b)
{
    return log_ratio((double)a->nodes, (double)b->nodes) + log_ratio((double)a->edges, (double)b->edges) +
           log_ratio(a->degree_mean, b->degree_mean) +
           fabs(variation(a->degree_mean, a->degree_stddev) - variation(b->degree_mean, b->degree_stddev));
}

double fb_signature_distance(const fb_signature *a, const fb_signature *b)
{
    if (a->kind != b->kind) return INFINITY; /* a grid says nothing about a matrix */
    switch (a->kind) {
    case FB_SIGNATURE_GRID: return grid_distance(&a->grid, &b->grid);
    case FB_SIGNATURE_MESH: return mesh_distance(&a->mesh, &b->mesh);
    case FB_SIGNATURE_MATRIX: break;
    }
    return matrix_distance(&a->matrix, &b->matrix);
}

/* The quantities two signatures of a kind share exactly when they are
 * "the same" in cache.h's sense: distance 0 and the same longest row (or
 * degree), which the distance leaves out (the variation already stands
 * for irregularity) but which still tells two problems apart. Each is a
 * term of the distance's own quantity (a term is 0 only when its two are
 * equal, and the distance, a sum of terms of one sign, only when every
 * term is). *n is their count; *tag leads the key. */
static void key_quantities(const fb_signature *s, double q[5], int *n, long long *tag)
{
    const fb_matrix_signature *m = &s->matrix;
    const fb_grid_signature *g = &s->grid;
    const fb_mesh_signature *h = &s->mesh;
    *n = s->kind == FB_SIGNATURE_GRID ? 4 : 5;
    *tag = s->kind == FB_SIGNATURE_MATRIX ? m->block : 0;
    if (s->kind == FB_SIGNATURE_GRID) {
        q[0] = log((double)g->nx), q[1] = log((double)g->ny), q[2] = log((double)g->nz), q[3] = log(g->stretch);
    } else if (s->kind == FB_SIGNATURE_MESH) {
        q[0] = log1p(fmax((double)h->nodes, 0.0)), q[1] = log1p(fmax((double)h->edges, 0.0));
        q[2] = log1p(fmax(h->degree_mean, 0.0)), q[3] = variation(h->degree_mean, h->degree_stddev);
        q[4] = h->degree_max;
    } else {
        q[0] = log1p(fmax((double)m->rows, 0.0)), q[1] = log1p(fmax((double)m->nnz, 0.0));
        q[2] = log1p(fmax(m->row_mean, 0.0)), q[3] = variation(m->row_mean, m->row_stddev), q[4] = m->row_max;
    }
}

/* A text two signatures share exactly when they are the same: the kind,
 * the block size (matrices) and key_quantities; "+ 0.0" makes -0 print as
 * 0, which it equals. It returns 0 when a quantity is not finite: such a
 * signature equals none, itself included (its distance is NaN). */
static int signature_key(const fb_signature *s, char *buf, size_t len)
{
    double q[5];
    int n;
    long long tag;
    key_quantities(s, q, &n, &tag);
    int used = snprintf(buf, len, "%s %lld", fb_signature_kind_name(s->kind), tag);
    for (int i = 0; i < n; ++i) {
        if (!isfinite(q[i]) || used < 0 || (size_t)used >= len) return 0;
        used += snprintf(buf + used, len - (size_t)used, " %a", q[i] + 0.0);
    }
    return used >= 0 && (size_t)used < len;
}

/* ---- entries ------------------------------------------------------------- */

/* Writes the reason into why and returns 0, so checks read as one line. */
static int invalid(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int invalid(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 0;
}

/* A parameter's name becomes "-DNAME=VALUE" in a kernel's build options and
 * in an exported header: a C identifier, or a name such as "WG_SIZE=64
 * -cl-fast-relaxed-math -DX" would inject options. */
static int is_c_identifier(const char *name)
{
    size_t n = strlen(name);
    if (!n || n > PARAM_NAME_MAX || (name[0] >= '0' && name[0] <= '9')) return 0;
    for (const char *p = name; *p; ++p)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
    return 1;
}

/* Every cached value follows the one rule of parameter values
 * (core/params.h: an integer within +-FB_PARAM_VALUE_MAX): a value no
 * int holds ran truncated (4294967424 as 128), one of another type as
 * the kernel's default, and both were reported as tuned. */
static int params_are_valid(const json_t *params, char *why, size_t len)
{
    const char *name;
    const json_t *v;
    char text[64], reason[160];
    int value;
    /* no kernel has more axes; within it, "-DNAME=VALUE" of every parameter
     * fits the exported defines' buffer (they were cut at its end) */
    if (json_object_size(params) > FB_MAX_PARAMS)
        return invalid(why, len, "\"params\": holds %zu parameters; a kernel has at most %d", json_object_size(params),
                       FB_MAX_PARAMS);
    json_object_foreach((json_t *)params, name, v)
    {
        if (!is_c_identifier(name)) {
            char *shown = json_dumps(json_string(name), JSON_ENCODE_ANY);
            invalid(why, len, "\"params\": the name %.80s is not a C identifier (letters, digits, _)",
                    shown ? shown : "?");
            free(shown);
            return 0;
        }
        if (!json_is_integer(v)) {
            char *shown = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            invalid(why, len, "\"params\": %.60s is %.60s, not an integer", name, shown ? shown : "not JSON");
            free(shown);
            return 0;
        }
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        if (fb_param_value_parse(text, strlen(text), &value, reason, sizeof reason))
            return invalid(why, len, "\"params\": %.60s: %s", name, reason);
    }
    return 1;
}

/* 1 if `entry` is a usable cache entry (its signature goes to *sig), else 0
 * with the reason in why. fb_cache_put and fb_cache_load share it, so a file
 * loads exactly when every entry could have been put. */
static int entry_is_valid(const json_t *entry, fb_signature *sig, char *why, size_t len)
{
    static const char *const strings[] = {"device", "kernel", "precision"};
    if (!json_is_object(entry)) return invalid(why, len, "not a JSON object");
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; ++i)
        if (!json_is_string(json_object_get(entry, strings[i])))
            return invalid(why, len, "lacks the string \"%s\"", strings[i]);
    const char *precision = json_string_value(json_object_get(entry, "precision"));
    if (strcmp(precision, "double") != 0 && strcmp(precision, "single") != 0)
        return invalid(why, len, "\"precision\" is '%s', not 'double' or 'single'", precision);
    const char *kernel = json_string_value(json_object_get(entry, "kernel"));
    const char *problem = signature_from_cache_json(json_object_get(entry, "signature"), kernel, sig);
    if (problem) return invalid(why, len, "%s", problem);
    if (!json_is_object(json_object_get(entry, "params"))) return invalid(why, len, "lacks the \"params\" object");
    return params_are_valid(json_object_get(entry, "params"), why, len);
}

/* Entries in the cache were validated on the way in. */
static fb_signature entry_signature(const json_t *entry)
{
    fb_signature sig;
    signature_from_cache_json(json_object_get(entry, "signature"), json_string_value(json_object_get(entry, "kernel")),
                              &sig);
    return sig;
}

/* ---- the cache ----------------------------------------------------------- */

static fb_status cache_new(fb_tuning_cache **out)
{
    fb_status status = FB_OK;
    fb_tuning_cache *c = NULL;
    FB_ALLOC(c, 1, "the tuning cache");
    c->entries = json_array();
    c->index = json_object();
    if (!c->entries || !c->index) FB_FAIL(FB_ERR_NOMEM, "out of host memory allocating the tuning cache");
    *out = c;
    return FB_OK;
fail:
    fb_cache_free(c);
    return status;
}

int fb_cache_size(const fb_tuning_cache *c) { return c ? (int)json_array_size(c->entries) : 0; }

void fb_cache_free(fb_tuning_cache *c)
{
    if (!c) return;
    json_decref(c->entries);
    json_decref(c->index);
    free(c);
}

const char *fb_cache_match_name(fb_cache_match m)
{
    switch (m) {
    case FB_CACHE_EXACT: return "exact";
    case FB_CACHE_NEAREST: return "nearest";
    case FB_CACHE_NONE: return "none";
    }
    return "none";
}

/* The index keys of a (validated) entry whose signature is sig; 0 when
 * the signature equals no other (signature_key). */
static int index_keys(const json_t *entry, const fb_signature *sig, char *sig_key, size_t len, const char *keys[4])
{
    keys[0] = json_string_value(json_object_get(entry, "device"));
    keys[1] = json_string_value(json_object_get(entry, "kernel"));
    keys[2] = json_string_value(json_object_get(entry, "precision"));
    keys[3] = sig_key;
    return signature_key(sig, sig_key, len);
}

fb_status fb_cache_put(fb_tuning_cache *c, json_t *entry)
{
    fb_status status = FB_OK;
    fb_signature sig;
    char why[256], sig_key[256];
    const char *keys[4];
    if (!entry_is_valid(entry, &sig, why, sizeof why)) FB_FAIL(FB_ERR_USAGE, "tuning cache entry: %s", why);
    int indexed = index_keys(entry, &sig, sig_key, sizeof sig_key, keys);
    long long i = indexed ? fb_json_index_int(c->index, keys, 4) : -1;
    /* json_array_set/append (not _new) take the cache's own reference. */
    int rc = i >= 0 ? json_array_set(c->entries, (size_t)i, entry) : json_array_append(c->entries, entry);
    if (rc != 0) FB_FAIL(FB_ERR_NOMEM, "out of host memory adding a tuning cache entry");
    if (indexed && i < 0)
        FB_CHECK(fb_json_index_set(c->index, keys, 4, json_integer((json_int_t)json_array_size(c->entries) - 1)));
fail:
    return status;
}

/* ---- files --------------------------------------------------------------- */

static fb_status check_top_level(const json_t *root, const char *path)
{
    fb_status status = FB_OK;
    const json_t *version = json_object_get(root, "flowbench_tuning_cache");
    if (!json_is_object(root) || !json_is_integer(version))
        FB_FAIL(FB_ERR_INPUT, "%s: not a flowbench tuning cache (no \"flowbench_tuning_cache\": %d)", path,
                FB_CACHE_VERSION);
    if (json_integer_value(version) != FB_CACHE_VERSION)
        FB_FAIL(FB_ERR_INPUT, "%s: tuning cache version %lld, this flowbench reads version %d", path,
                (long long)json_integer_value(version), FB_CACHE_VERSION);
    if (!json_is_array(json_object_get(root, "entries")))
        FB_FAIL(FB_ERR_INPUT, "%s: tuning cache without an \"entries\" array", path);
fail:
    return status;
}

/* Entry numbers in messages are 0-based, as jq '.entries[N]' counts them. */
static fb_status put_entries(fb_tuning_cache *c, const json_t *entries, const char *path)
{
    fb_status status = FB_OK;
    fb_signature sig;
    char why[256];
    for (size_t i = 0; i < json_array_size(entries); ++i) {
        json_t *e = json_array_get(entries, i);
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        if (!entry_is_valid(e, &sig, why, sizeof why)) FB_FAIL(FB_ERR_INPUT, "%s: entry %zu: %s", path, i, why);
        FB_CHECK(fb_cache_put(c, e));
    }
fail:
    return status;
}

/* A cache from a file's JSON root (NULL: empty), checked as a file is,
 * path naming it in messages; and back. */
static fb_status cache_from_json(const json_t *root, const char *path, fb_tuning_cache **out)
{
    fb_status status = FB_OK;
    fb_tuning_cache *c = NULL;
    *out = NULL;
    FB_CHECK(cache_new(&c));
    snprintf(c->path, sizeof c->path, "%s", path);
    if (root) {
        FB_CHECK(check_top_level(root, path));
        FB_CHECK(put_entries(c, json_object_get(root, "entries"), path));
    }
    *out = c;
    return FB_OK;
fail:
    fb_cache_free(c);
    return status;
}

static json_t *cache_to_json(const fb_tuning_cache *c)
{
    return json_pack("{s:i, s:O}", "flowbench_tuning_cache", FB_CACHE_VERSION, "entries", c->entries);
}

fb_status fb_cache_load(const char *path, fb_tuning_cache **out)
{
    fb_status status = FB_OK;
    json_error_t err;
    json_t *root = NULL;
    FILE *f = NULL;
    *out = NULL;
    /* A missing file is no error: nothing has been tuned yet. */
    FB_CHECK(fb_file_fopen_read_if_exists(path, "the tuning cache", &f));
    if (f && !(root = json_loadf(f, JSON_REJECT_DUPLICATES, &err)))
        FB_FAIL(FB_ERR_INPUT, "%s: not valid JSON (%s, line %d)", path, err.text, err.line);
    FB_CHECK(cache_from_json(root, path, out));
fail:
    if (f) fclose(f);
    json_decref(root);
    return status;
}

fb_status fb_cache_check(const char *path)
{
    fb_tuning_cache *c = NULL;
    fb_status status = fb_cache_load(path, &c);
    fb_cache_free(c);
    return status;
}

fb_status fb_cache_save(const fb_tuning_cache *c, const char *path)
{
    fb_status status = FB_OK;
    json_t *root = cache_to_json(c);
    if (!root) FB_FAIL(FB_ERR_NOMEM, "out of host memory saving the tuning cache");
    FB_CHECK(fb_json_file_replace(root, path));
fail:
    json_decref(root);
    return status;
}

typedef struct store_ctx {
    const char *path;
    json_t *entry;
    int size; /* entries after the store */
} store_ctx;

/* The file as it is now, with the entry put in: what other processes
 * stored since this one loaded the cache stays. */
static fb_status put_into_current(const json_t *current, void *arg, json_t **next)
{
    fb_status status = FB_OK;
    store_ctx *ctx = arg;
    fb_tuning_cache *c = NULL;
    FB_CHECK(cache_from_json(current, ctx->path, &c));
    FB_CHECK(fb_cache_put(c, ctx->entry));
    ctx->size = fb_cache_size(c);
    *next = cache_to_json(c);
    if (!*next) FB_FAIL(FB_ERR_NOMEM, "out of host memory saving the tuning cache");
fail:
    fb_cache_free(c);
    return status;
}

fb_status fb_cache_store(const char *path, json_t *entry, int *size)
{
    store_ctx ctx = {path, entry, 0};
    fb_status status = fb_json_file_update(path, put_into_current, &ctx);
    if (size) *size = ctx.size;
    return status;
}

/* ---- lookup across devices ----------------------------------------------- */

typedef fb_cache_device device_parts;

/* sm_XY where CUDA says; elsewhere the name (the device's family is what
 * its runtime calls it). */
static void arch_of(const fb_device_info *d, char *buf, size_t len)
{
    if (d->cc_major > 0)
        snprintf(buf, len, "sm_%d%d", d->cc_major, d->cc_minor);
    else
        snprintf(buf, len, "%s", d->name);
}

static const char *type_of(const fb_device_info *d) { return d->host_cpu ? "cpu" : "gpu"; }

fb_status fb_cache_set_device(json_t *entry, const fb_device_info *d)
{
    fb_status status = FB_OK;
    char device[1024], arch[FB_TEXT_LEN];
    fb_device_fingerprint(d, device, sizeof device);
    arch_of(d, arch, sizeof arch);
    if (json_object_set_new(entry, "device", json_string(device)) ||
        json_object_set_new(entry, "device_arch", json_string(arch)) ||
        json_object_set_new(entry, "device_type", json_string(type_of(d))))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the device of a cache entry");
fail:
    return status;
}

/* Field `i` of a '|'-joined fingerprint into buf ("" past the end). */
static void fingerprint_field(const char *fp, int i, char *buf, size_t len)
{
    const char *start = fp;
    for (int k = 0; k < i && start; ++k)
        start = strchr(start, '|') ? strchr(start, '|') + 1 : NULL;
    const char *end = start ? strchr(start, '|') : NULL;
    size_t n = !start ? 0 : end ? (size_t)(end - start) : strlen(start);
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), start ? start : "");
}

/* backend|name|vendor|driver|units, as fb_device_fingerprint joins them. */
static void split_fingerprint(const char *fp, device_parts *p)
{
    fingerprint_field(fp, 0, p->backend, sizeof p->backend);
    fingerprint_field(fp, 1, p->name, sizeof p->name);
    fingerprint_field(fp, 2, p->vendor, sizeof p->vendor);
    fingerprint_field(fp, 3, p->driver, sizeof p->driver);
    fingerprint_field(fp, 4, p->units, sizeof p->units);
}

static void cache_entry_device(const json_t *e, device_parts *p)
{
    const char *arch = json_string_value(json_object_get(e, "device_arch"));
    const char *type = json_string_value(json_object_get(e, "device_type"));
    split_fingerprint(json_string_value(json_object_get(e, "device")), p);
    snprintf(p->arch, sizeof p->arch, "%s", arch ? arch : "");
    /* the host backend runs on this CPU whatever the entry's age */
    snprintf(p->type, sizeof p->type, "%s", type ? type : fb_backend_is_baseline(p->backend) ? "cpu" : "");
}

static void parts_of_device(const fb_device_info *d, device_parts *p)
{
    char fp[1024];
    fb_device_fingerprint(d, fp, sizeof fp);
    split_fingerprint(fp, p);
    arch_of(d, p->arch, sizeof p->arch);
    snprintf(p->type, sizeof p->type, "%s", type_of(d));
}

static int same(const char *a, const char *b) { return strcmp(a, b) == 0; }

static fb_device_match device_level(const device_parts *want, const device_parts *have)
{
    if (!same(want->backend, have->backend)) return FB_DEVICE_NONE;
    int device = same(want->name, have->name) && same(want->vendor, have->vendor) && same(want->units, have->units);
    if (device && same(want->driver, have->driver)) return FB_DEVICE_EXACT;
    if (device) return FB_DEVICE_SAME;
    if (*have->arch && same(want->arch, have->arch)) return FB_DEVICE_ARCH;
    if (*have->type && same(want->vendor, have->vendor) && same(want->type, have->type)) return FB_DEVICE_VENDOR;
    return FB_DEVICE_NONE;
}

static int same_signature(const fb_signature *a, const fb_signature *b)
{
    char ka[256], kb[256];
    return signature_key(a, ka, sizeof ka) && signature_key(b, kb, sizeof kb) && same(ka, kb);
}

/* 1 when (level, distance, equal) is a better hit than *best. */
static int better(fb_device_match level, double d, int equal, const fb_cache_hit *best)
{
    if (level != best->device) return level > best->device;
    if (equal != (best->match == FB_CACHE_EXACT)) return equal;
    return d < best->distance;
}

/* How near an entry's device is to the one asked for (want). */
typedef fb_device_match (*level_fn)(const json_t *entry, const void *want);

static fb_device_match level_of_parts(const json_t *entry, const void *want)
{
    device_parts have;
    cache_entry_device(entry, &have);
    return device_level(want, &have);
}

/* fb_cache_lookup's: the same fingerprint or none. */
static fb_device_match level_of_fingerprint(const json_t *entry, const void *want)
{
    return same(json_string_value(json_object_get(entry, "device")), want) ? FB_DEVICE_EXACT : FB_DEVICE_NONE;
}

static fb_cache_hit find(const fb_tuning_cache *c, const char *kernel, int is_double, const fb_signature *sig,
                         level_fn level_of, const void *want)
{
    fb_cache_hit best = {.entry = NULL, .device = FB_DEVICE_NONE, .match = FB_CACHE_NONE, .distance = INFINITY};
    const char *precision = is_double ? "double" : "single";
    for (size_t i = 0; c && i < json_array_size(c->entries); ++i) {
        const json_t *e = json_array_get(c->entries, i);
        if (!same(json_string_value(json_object_get(e, "kernel")), kernel) ||
            !same(json_string_value(json_object_get(e, "precision")), precision))
            continue;
        fb_device_match level = level_of(e, want);
        fb_signature other = entry_signature(e);
        double d = fb_signature_distance(&other, sig);
        if (level == FB_DEVICE_NONE || !isfinite(d)) continue; /* another kind, another block size */
        int equal = same_signature(&other, sig);
        if (!better(level, d, equal, &best)) continue;
        best = (fb_cache_hit){e, level, equal ? FB_CACHE_EXACT : FB_CACHE_NEAREST, d};
    }
    return best;
}

fb_cache_hit fb_cache_find(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel, int is_double,
                           const fb_signature *sig)
{
    device_parts want;
    parts_of_device(dev, &want);
    return find(c, kernel, is_double, sig, level_of_parts, &want);
}

const json_t *fb_cache_lookup(const fb_tuning_cache *c, const char *device, const char *kernel, int is_double,
                              const fb_signature *sig, fb_cache_match *match)
{
    fb_cache_hit hit = find(c, kernel, is_double, sig, level_of_fingerprint, device);
    if (match) *match = hit.match;
    return hit.entry;
}

const char *fb_device_match_name(fb_device_match m)
{
    switch (m) {
    case FB_DEVICE_EXACT: return "exact";
    case FB_DEVICE_SAME: return "device";
    case FB_DEVICE_ARCH: return "architecture";
    case FB_DEVICE_VENDOR: return "vendor";
    case FB_DEVICE_NONE: return "none";
    }
    return "none";
}

/* The entry of c with the same device, kernel, precision and signature
 * as `entry` (from a loaded cache), or NULL. The index alone: the lookups
 * scan every entry for the nearest device and signature, and a merge asks
 * once per entry of every input. */
static const json_t *same_key(const fb_tuning_cache *c, const json_t *entry)
{
    fb_signature sig = entry_signature(entry);
    char sig_key[256];
    const char *keys[4];
    if (!index_keys(entry, &sig, sig_key, sizeof sig_key, keys)) return NULL;
    long long i = fb_json_index_int(c->index, keys, 4);
    return i >= 0 ? json_array_get(c->entries, (size_t)i) : NULL;
}

/* ---- merge --------------------------------------------------------------- */

typedef struct merge_ctx {
    const char *out;
    fb_tuning_cache **inputs;
    const char *const *names;
    int n;
    FILE *say;
    fb_cache_merge_counts counts;
} merge_ctx;

static double median_of(const json_t *entry)
{
    const json_t *m = json_object_get(entry, "median_s");
    return json_is_number(m) && json_number_value(m) > 0 ? json_number_value(m) : INFINITY;
}

static const char *origin_of(const json_t *entry, const char *fallback)
{
    const char *from = json_string_value(json_object_get(entry, "from"));
    return from ? from : fallback;
}

/* "merge: csr-vector double on DEVICE (gen:cube:29): kept {WG..} (0.041 ms, from B) over {..} (0.052 ms, from A)" */
static void say_disagreement(FILE *say, const json_t *won, const char *won_from, const json_t *lost,
                             const char *lost_from)
{
    char *wp = json_dumps(json_object_get(won, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    char *lp = json_dumps(json_object_get(lost, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    const char *problem = json_string_value(json_object_get(won, "matrix"));
    if (!problem) problem = json_string_value(json_object_get(won, "grid"));
    fprintf(say, "merge: %s %s on %s (%s): kept %s (%.4g ms, from %s) over %s (%.4g ms, from %s)\n",
            json_string_value(json_object_get(won, "kernel")), json_string_value(json_object_get(won, "precision")),
            json_string_value(json_object_get(won, "device")), problem ? problem : "?", wp ? wp : "?",
            median_of(won) * 1e3, won_from, lp ? lp : "?", median_of(lost) * 1e3, lost_from);
    free(wp);
    free(lp);
}

/* One input entry into the merged cache m: added, or put over a slower
 * point of its key, or left out beside a faster (or as fast) one; another
 * point for the same key is said either way. */
static fb_status merge_entry(merge_ctx *ctx, fb_tuning_cache *m, const json_t *entry, const char *name)
{
    fb_status status = FB_OK;
    const json_t *there = same_key(m, entry);
    json_t *copy = json_deep_copy(entry);
    if (!copy) FB_FAIL(FB_ERR_NOMEM, "out of host memory merging tuning caches");
    if (!json_object_get(copy, "from")) json_object_set_new(copy, "from", json_string(name));
    const int faster = !there || median_of(copy) < median_of(there);
    if (there && !json_equal(json_object_get(there, "params"), json_object_get(copy, "params"))) {
        const json_t *won = faster ? copy : there, *lost = faster ? there : copy;
        say_disagreement(ctx->say, won, origin_of(won, ctx->out), lost, origin_of(lost, ctx->out));
    }
    if (!faster) {
        ctx->counts.kept++;
    } else {
        ctx->counts.added += !there, ctx->counts.replaced += there != NULL;
        FB_CHECK(fb_cache_put(m, copy));
    }
fail:
    json_decref(copy);
    return status;
}

static fb_status merge_into_current(const json_t *current, void *arg, json_t **next)
{
    fb_status status = FB_OK;
    merge_ctx *ctx = arg;
    fb_tuning_cache *m = NULL;
    FB_CHECK(cache_from_json(current, ctx->out, &m));
    for (int i = 0; i < ctx->n; ++i)
        for (int e = 0; e < fb_cache_size(ctx->inputs[i]); ++e)
            FB_CHECK(merge_entry(ctx, m, json_array_get(ctx->inputs[i]->entries, (size_t)e), ctx->names[i]));
    *next = cache_to_json(m);
    if (!*next) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing %s", ctx->out);
fail:
    fb_cache_free(m);
    return status;
}

fb_status fb_cache_merge_files(const char *out, const char *const *inputs, int ninputs, FILE *say,
                               fb_cache_merge_counts *counts)
{
    fb_status status = FB_OK;
    merge_ctx ctx = {.out = out, .names = inputs, .n = ninputs, .say = say};
    FB_ALLOC(ctx.inputs, (size_t)ninputs + 1, "the caches to merge");
    for (int i = 0; i < ninputs; ++i) {
        FILE *probe = NULL;
        FB_CHECK(fb_file_fopen_read_if_exists(inputs[i], "a tuning cache to merge", &probe));
        if (!probe) FB_FAIL(FB_ERR_INPUT, "%s: no such tuning cache", inputs[i]);
        fclose(probe);
        FB_CHECK(fb_cache_load(inputs[i], &ctx.inputs[i]));
    }
    FB_CHECK(fb_json_file_update(out, merge_into_current, &ctx));
    *counts = ctx.counts;
fail:
    for (int i = 0; ctx.inputs && i < ninputs; ++i)
        fb_cache_free(ctx.inputs[i]);
    free(ctx.inputs);
    return status;
}

/* ---- export -------------------------------------------------------------- */

/* The one number an application knows of its problem: a matrix's rows, a
 * grid's cells, a mesh's nodes. */
static double problem_size(const fb_signature *s)
{
    switch (s->kind) {
    case FB_SIGNATURE_GRID: return (double)s->grid.nx * (double)s->grid.ny * (double)s->grid.nz;
    case FB_SIGNATURE_MESH: return (double)s->mesh.nodes;
    case FB_SIGNATURE_MATRIX: break;
    }
    return (double)s->matrix.rows;
}

/* "-DWG_SIZE=128 -DVECTOR_SIZE=4" in the entry's (sorted) parameter order. */
static void defines_of(const json_t *entry, char *buf, size_t len)
{
    const char *name;
    const json_t *v;
    size_t used = 0;
    buf[0] = '\0';
    json_object_foreach((json_t *)json_object_get(entry, "params"), name, v) if (used < len) used += (size_t)snprintf(
        buf + used, len - used, "%s-D%s=%lld", used ? " " : "", name, (long long)json_integer_value(v));
}

/* A C string literal holding exactly the bytes of s: printable ASCII as
 * itself, with " and \ escaped and ? as \? (no trigraph can form); any
 * other byte (UTF-8 of a device's name, a control character) as a 3-digit
 * octal escape, which, unlike \x, ends after its three digits. The string
 * compares equal to the device's name in the application. */
static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\' || ch == '?')
            fprintf(f, "\\%c", ch);
        else if (ch >= 32 && ch < 127)
            fputc(ch, f);
        else
            fprintf(f, "\\%03o", ch);
    }
    fputc('"', f);
}

/* Text inside a C comment: the same escapes as text, so that no byte of a
 * path ends the comment ("*" "/") or opens one (-Wcomment), starts a line
 * (a newline followed by a #define) or forms a trigraph. */
static void comment_text(FILE *f, const char *s)
{
    for (; s && *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 32 && ch < 127 && ch != '?' && ch != '\\' && !(ch == '*' && s[1] == '/') &&
            !(ch == '/' && s[1] == '*'))
            fputc(ch, f);
        else
            fprintf(f, "\\%03o", ch);
    }
}

/* How far the entry is to be trusted, as tune's confirmation measured it
 * (confirm.h): numbers only, so nothing of the cache's text reaches the
 * C source but the escaped strings above. */
static void confidence_comment(FILE *f, const json_t *c)
{
    const json_t *gain = json_object_get(c, "gain_vs_default"), *p = json_object_get(c, "p_vs_default");
    const int rounds = (int)json_integer_value(json_object_get(c, "rounds"));
    if (!json_is_object(c)) {
        fputs(" /* not confirmed in fresh processes */", f);
        return;
    }
    if (!json_is_true(json_object_get(c, "winner_stored")))
        fprintf(f, " /* confirmed over %d processes: no significant winner, the default kept */", rounds);
    else if (json_is_number(gain) && json_is_number(p))
        fprintf(f, " /* confirmed over %d processes: %.3gx the default, p %.2g */", rounds, 1 + json_number_value(gain),
                json_number_value(p));
    else
        fprintf(f, " /* confirmed over %d processes; the default cannot run there */", rounds);
}

static void header_entry(FILE *f, const json_t *e)
{
    fb_cache_device d;
    fb_signature sig = entry_signature(e);
    char defines[DEFINES_LEN];
    cache_entry_device(e, &d);
    defines_of(e, defines, sizeof defines);
    const char *fields[] = {d.name,
                            d.arch,
                            d.vendor,
                            d.type,
                            json_string_value(json_object_get(e, "kernel")),
                            json_string_value(json_object_get(e, "precision"))};
    fputs("    {", f);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        c_string(f, fields[i]);
        fputs(", ", f);
    }
    fprintf(f, "%.17g, ", problem_size(&sig));
    c_string(f, defines);
    fputs("},", f);
    confidence_comment(f, json_object_get(e, "confidence"));
    fputs("\n", f);
}

/* The lookup the header carries, the fallback of cache.h over what an
 * application knows of its device: its name, architecture, vendor, type. */
static const char *const header_lookup =
    "/* 3: this device (its name and vendor), 2: its architecture, 1: its vendor\n"
    " * and type, 0: none. */\n"
    "static inline int flowbench_tuned_level(const flowbench_tuned_entry *e, const char *device, const char *arch,\n"
    "                                        const char *vendor, const char *type)\n"
    "{\n"
    "    if (!strcmp(e->device, device) && !strcmp(e->vendor, vendor)) return 3;\n"
    "    if (arch && *e->arch && !strcmp(e->arch, arch)) return 2;\n"
    "    if (type && *e->type && !strcmp(e->vendor, vendor) && !strcmp(e->type, type)) return 1;\n"
    "    return 0;\n"
    "}\n\n"
    "/* How far apart two problem sizes are, as a ratio >= 1. */\n"
    "static inline double flowbench_tuned_ratio(double a, double b)\n"
    "{\n"
    "    if (a <= 0 || b <= 0) return a == b ? 1.0 : 1e300;\n"
    "    return a > b ? a / b : b / a;\n"
    "}\n\n"
    "/* The -D defines tuned for `kernel` in `precision` (\"double\", \"single\") on\n"
    " * this device, from the entry of the nearest device level and, within it,\n"
    " * of the nearest problem size (matrix rows, grid cells, mesh nodes); NULL\n"
    " * when no entry fits: build with the kernel's defaults. arch and type may\n"
    " * be NULL (then those levels are skipped). */\n"
    "static inline const char *flowbench_tuned(const char *device, const char *arch, const char *vendor,\n"
    "                                          const char *type, const char *kernel, const char *precision,\n"
    "                                          double size)\n"
    "{\n"
    "    const flowbench_tuned_entry *best = NULL;\n"
    "    int best_level = 0;\n"
    "    double best_ratio = 0;\n"
    "    for (size_t i = 0; i < sizeof flowbench_tuned_entries / sizeof flowbench_tuned_entries[0]; ++i) {\n"
    "        const flowbench_tuned_entry *e = &flowbench_tuned_entries[i];\n"
    "        if (!e->kernel || strcmp(e->kernel, kernel) || strcmp(e->precision, precision)) continue;\n"
    "        int level = flowbench_tuned_level(e, device, arch, vendor, type);\n"
    "        double ratio = flowbench_tuned_ratio(e->size, size);\n"
    "        if (level > best_level || (level && level == best_level && ratio < best_ratio)) {\n"
    "            best = e, best_level = level, best_ratio = ratio;\n"
    "        }\n"
    "    }\n"
    "    return best ? best->defines : NULL;\n"
    "}\n";

static fb_status write_header(FILE *f, const fb_tuning_cache *c, const char *guard)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "/* Tuned kernel parameters, written by `flowbench tune export --header` from\n * ");
    comment_text(f, fb_cache_source(c));
    fprintf(f, " on %s (%d entries).\n", date, fb_cache_size(c));
    fprintf(f, " * Include it in one or more files of your application (C11 or C++17); it\n"
               " * needs nothing of flowbench. docs/tuning.md, \"Shipping your settings\". */\n");
    fprintf(f, "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <string.h>\n\n", guard, guard);
    fprintf(f,
            "typedef struct flowbench_tuned_entry {\n    const char *device, *arch, *vendor, *type;\n"
            "    const char *kernel, *precision;\n    double size;         /* matrix rows, grid cells, mesh nodes */\n"
            "    const char *defines; /* \"-DWG_SIZE=128 ...\" */\n} flowbench_tuned_entry;\n\n");
    fprintf(f, "static const flowbench_tuned_entry flowbench_tuned_entries[] = {\n");
    for (int i = 0; i < fb_cache_size(c); ++i)
        header_entry(f, json_array_get(c->entries, (size_t)i));
    fprintf(f,
            "    {NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL} /* the end (and an empty cache's only row) */\n};\n\n");
    fputs(header_lookup, f);
    fprintf(f, "\n#endif\n");
    return ferror(f) ? FB_ERR_IO : FB_OK;
}

/* FLOWBENCH_TUNED_H unless the file's name says otherwise: two exported
 * headers may be included together. */
static void guard_of(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = 0;
    for (; *base && n + 2 < len; ++base)
        buf[n++] = (*base >= 'a' && *base <= 'z')                                       ? (char)(*base - 32)
                   : ((*base >= 'A' && *base <= 'Z') || (*base >= '0' && *base <= '9')) ? *base
                                                                                        : '_';
    buf[n] = '\0';
    if (!n || (buf[0] >= '0' && buf[0] <= '9')) snprintf(buf, len, "FLOWBENCH_TUNED_H");
}

fb_status fb_cache_export_header(const fb_tuning_cache *c, const char *path)
{
    fb_status status = FB_OK;
    fb_file_replace replace;
    char guard[256];
    int fd = -1;
    FILE *f = NULL;
    guard_of(path, guard, sizeof guard);
    FB_CHECK(fb_file_replace_begin(path, &replace, &fd));
    f = fdopen(fd, "w");
    if (!f || write_header(f, c, guard) != FB_OK || fclose(f) != 0) {
        if (!f) close(fd);
        fb_file_replace_abort(&replace);
        FB_FAIL(FB_ERR_IO, "%s: cannot write the header", path);
    }
    FB_CHECK(fb_file_replace_commit(&replace));
fail:
    return status;
}

static json_t *db_entry(const json_t *e)
{
    fb_cache_device d;
    fb_signature sig = entry_signature(e);
    char defines[DEFINES_LEN];
    cache_entry_device(e, &d);
    defines_of(e, defines, sizeof defines);
    json_t *j = json_pack("{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s}, s:O, s:O, s:{s:s, s:f, s:o}, s:O, s:s}", "device",
                          "backend", d.backend, "name", d.name, "vendor", d.vendor, "driver", d.driver, "compute_units",
                          d.units, "arch", d.arch, "type", d.type, "kernel", json_object_get(e, "kernel"), "precision",
                          json_object_get(e, "precision"), "problem", "kind", fb_signature_kind_name(sig.kind), "size",
                          problem_size(&sig), "signature", fb_signature_json(&sig), "params",
                          json_object_get(e, "params"), "defines", defines);
    static const char *const kept[] = {"median_s", "gbs",  "date",     "from",      "strategy",
                                       "matrix",   "grid", "spread_s", "confidence"};
    for (size_t i = 0; j && i < sizeof kept / sizeof kept[0]; ++i)
        if (json_object_get(e, kept[i])) json_object_set(j, kept[i], json_object_get(e, kept[i]));
    return j;
}

fb_status fb_cache_export_json(const fb_tuning_cache *c, const char *path)
{
    fb_status status = FB_OK;
    json_t *entries = json_array(), *root = NULL;
    for (int i = 0; entries && i < fb_cache_size(c); ++i)
        if (json_array_append_new(entries, db_entry(json_array_get(c->entries, (size_t)i))) != 0) break;
    root = json_pack("{s:i, s:s, s:o}", "flowbench_tuning_db", 1, "source", fb_cache_source(c), "entries", entries);
    if (!root || json_array_size(entries) != (size_t)fb_cache_size(c))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory exporting %s", fb_cache_source(c));
    FB_CHECK(fb_json_file_replace(root, path));
fail:
    json_decref(root);
    return status;
}
