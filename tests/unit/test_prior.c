/* test_prior.c - the tuning prior (tune/prior.h) on synthetic recorded
 * sweeps: what it predicts, that leave-one-out leaves the matrix out, which
 * device's landscapes it uses, its file (written whole, read back, refused
 * naming the file when malformed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/prior.h"

/* The synthetic kernel: A = {1, 2, 4, 8} (work per item), B = {32, 64, 128}
 * (work-group size), default (2, 64). */
static const fb_param_axis axes[] = {
    {.name = "A", .def = 2, .values = {1, 2, 4, 8}, .nvalues = 4},
    {.name = "B", .def = 64, .values = {32, 64, 128}, .nvalues = 3},
};

typedef struct synth {
    const char *name, *hash;
    double rows, mean, stddev;
    int best_a, best_b; /* where its landscape has its minimum (values) */
} synth;

/* Few entries per row want one item per row and mid-sized groups; many
 * want 8 and big groups: the features decide the optimum, as they do for
 * csr-vector's VECTOR_SIZE. */
static const synth matrices[] = {
    {"small-a", "h1", 1000, 2, 0.5, 1, 64}, {"small-b", "h2", 2000, 3, 0.6, 1, 64},
    {"dense-a", "h3", 1000, 40, 4, 8, 128}, {"dense-b", "h4", 3000, 50, 5, 8, 128},
    {"odd", "h5", 1e7, 10, 30, 2, 32}, /* far from everything, an optimum of its own */
};
#define NMATRICES (sizeof matrices / sizeof matrices[0])

static int index_of(const fb_param_axis *a, int value)
{
    for (int k = 0; k < a->nvalues; ++k)
        if (a->values[k] == value) return k;
    return -1;
}

/* A bowl in index space around the matrix's optimum. */
static double cost_at(const synth *m, int a, int b)
{
    double da = index_of(&axes[0], a) - index_of(&axes[0], m->best_a);
    double db = index_of(&axes[1], b) - index_of(&axes[1], m->best_b);
    return 1e-4 * (1 + 0.15 * da * da + 0.1 * db * db);
}

static char dir[256];

static void path_in(const char *name, char *buf, size_t len) { snprintf(buf, len, "%s/%s", dir, name); }

static json_t *header(const char *device_name)
{
    return json_pack("{s:s, s:i, s:s, s:s, s:{}, s:[{s:s, s:s, s:s, s:s, s:s, s:i}]}", "type", "header", "schema", 1,
                     "run_id", "r1", "date", "2026-11-23T00:00:00Z", "host", "devices", "backend", "opencl", "id",
                     "opencl:0.0", "name", device_name, "vendor", "V", "driver_version", "3.1", "compute_units", 2);
}

static json_t *record(const synth *m, int a, int b, double cost)
{
    json_t *matrix =
        json_pack("{s:s, s:s, s:s, s:f, s:f, s:{s:f, s:f}}", "name", m->name, "source", m->name, "hash", m->hash,
                  "rows", m->rows, "nnz", m->rows * m->mean, "nnz_per_row", "mean", m->mean, "stddev", m->stddev);
    return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:i, s:i}, s:o, s:{s:[f], s:f}}", "type",
                     "measurement", "schema", 1, "run_id", "r1", "benchmark", "spmv", "kernel", "k2", "backend",
                     "opencl", "device", "opencl:0.0", "device_name", "dev", "precision", "double", "status", "ok",
                     "params", "A", a, "B", b, "matrix", matrix, "stats", "samples_s", cost, "median_s", cost);
}

/* Writes a recorded exhaustive sweep of the kernel on matrices[0..n-1]
 * (every point: `points` 0; else only the first `points` of each). */
static void write_sweep(const char *file, const char *device_name, size_t n, int points)
{
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    json_t *h = header(device_name);
    json_dumpf(h, f, JSON_COMPACT);
    fputc('\n', f);
    json_decref(h);
    for (size_t i = 0; i < n; ++i) {
        int written = 0;
        for (int a = 0; a < axes[0].nvalues; ++a)
            for (int b = 0; b < axes[1].nvalues; ++b) {
                if (points && written++ >= points) continue;
                json_t *r = record(&matrices[i], axes[0].values[a], axes[1].values[b],
                                   cost_at(&matrices[i], axes[0].values[a], axes[1].values[b]));
                json_dumpf(r, f, JSON_COMPACT);
                fputc('\n', f);
                json_decref(r);
            }
    }
    fclose(f);
}

/* Fits to a sweep of every matrix and loads the saved file back. */
static fb_prior *fitted(const char *device_name)
{
    char sweep[512], file[512];
    json_t *prior = NULL;
    fb_prior *p = NULL;
    path_in("sweep.jsonl", sweep, sizeof sweep);
    path_in("prior.json", file, sizeof file);
    write_sweep(sweep, device_name, NMATRICES, 0);
    const char *sweeps[] = {sweep};
    assert_int_equal(fb_prior_fit(sweeps, 1, &prior), FB_OK);
    assert_int_equal(fb_prior_save(prior, file), FB_OK);
    json_decref(prior);
    assert_int_equal(fb_prior_load(file, 0, &p), FB_OK);
    assert_non_null(p);
    return p;
}

static fb_prior_query query_like(const synth *m, const char *device)
{
    fb_prior_query q = {.kernel = "k2", .precision = "double", .device = device, .axes = axes, .naxes = 2};
    q.features = (fb_prior_features){
        .rows = m->rows, .row_mean = m->mean, .row_cv = m->stddev / m->mean, .block = 1, .block_fill = 1};
    return q;
}

#define DEVICE "opencl|dev|V|3.1|2"

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fb-test-prior-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- predictions ---------------------------------------------------------- */

static void test_predicts_the_optimum_of_similar_matrices(void **state)
{
    (void)state;
    fb_prior *p = fitted("dev");
    fb_prior_prediction pr;
    assert_int_equal(fb_prior_size(p), (int)NMATRICES);

    /* a new matrix of many entries per row: the dense ones' optimum */
    synth dense = {"new-dense", "h9", 2000, 45, 4, 0, 0};
    fb_prior_query q = query_like(&dense, DEVICE);
    fb_prior_predict(p, &q, &pr);
    assert_true(pr.found);
    assert_true(pr.same_device);
    assert_int_equal(pr.point.values[0], 8);
    assert_int_equal(pr.point.values[1], 128);
    assert_int_equal(pr.nfrom, 3);
    assert_string_equal(pr.from[0], "dense-b"); /* log 1.5 + log 1.11 away; dense-a log 2 + log 1.125 */
    assert_string_equal(pr.from[1], "dense-a");
    assert_true(pr.distance[0] <= pr.distance[1] && pr.distance[1] <= pr.distance[2]);

    /* and of few: the sparse ones' */
    synth sparse = {"new-sparse", "h8", 1500, 2.5, 0.5, 0, 0};
    q = query_like(&sparse, DEVICE);
    fb_prior_predict(p, &q, &pr);
    assert_int_equal(pr.point.values[0], 1);
    assert_int_equal(pr.point.values[1], 64);

    /* the score ranks points as the neighbours' landscapes do */
    fb_param_point best = {{1, 64}}, near = {{2, 64}}, far = {{8, 128}};
    assert_true(fb_prior_score(p, &q, &pr, &best) < fb_prior_score(p, &q, &pr, &near));
    assert_true(fb_prior_score(p, &q, &pr, &near) < fb_prior_score(p, &q, &pr, &far));
    assert_true(fabs(fb_prior_score(p, &q, &pr, &best) - pr.score) < 1e-12);

    /* another kernel, another precision: nothing */
    q.kernel = "k3";
    fb_prior_predict(p, &q, &pr);
    assert_false(pr.found);
    q.kernel = "k2";
    q.precision = "single";
    fb_prior_predict(p, &q, &pr);
    assert_false(pr.found);
    fb_prior_free(p);
}

static void test_leave_one_out_excludes_the_matrix(void **state)
{
    (void)state;
    fb_prior *p = fitted("dev");
    fb_prior_prediction pr;
    const synth *odd = &matrices[4];
    fb_prior_query q = query_like(odd, DEVICE);

    /* with its own landscape in the prior, the prior remembers its optimum */
    fb_prior_predict(p, &q, &pr);
    assert_string_equal(pr.from[0], "odd");
    assert_true(pr.distance[0] == 0);
    assert_int_equal(pr.point.values[0], odd->best_a);
    assert_int_equal(pr.point.values[1], odd->best_b);

    /* left out, it must be predicted from the others */
    q.exclude_hash = odd->hash;
    fb_prior_predict(p, &q, &pr);
    assert_true(pr.found);
    assert_int_equal(pr.nfrom, 3);
    for (int i = 0; i < pr.nfrom; ++i)
        assert_string_not_equal(pr.from[i], "odd");
    assert_false(pr.point.values[0] == odd->best_a && pr.point.values[1] == odd->best_b);

    /* the only landscape of a kernel, left out: no prediction */
    char sweep[512], file[512];
    json_t *prior = NULL;
    fb_prior *one = NULL;
    path_in("one.jsonl", sweep, sizeof sweep);
    path_in("one.json", file, sizeof file);
    write_sweep(sweep, "dev", 1, 0);
    const char *sweeps[] = {sweep};
    assert_int_equal(fb_prior_fit(sweeps, 1, &prior), FB_OK);
    assert_int_equal(fb_prior_save(prior, file), FB_OK);
    json_decref(prior);
    assert_int_equal(fb_prior_load(file, 0, &one), FB_OK);
    q = query_like(&matrices[0], DEVICE);
    q.exclude_hash = matrices[0].hash;
    fb_prior_predict(one, &q, &pr);
    assert_false(pr.found);
    fb_prior_free(one);
    fb_prior_free(p);
}

static void test_same_device_first_then_any(void **state)
{
    (void)state;
    char a[512], b[512];
    json_t *prior = NULL;
    fb_prior_prediction pr;
    path_in("dev-a.jsonl", a, sizeof a);
    path_in("dev-b.jsonl", b, sizeof b);
    write_sweep(a, "devA", NMATRICES, 0);
    write_sweep(b, "devB", 2, 0); /* the sparse matrices only */
    const char *sweeps[] = {a, b};
    assert_int_equal(fb_prior_fit(sweeps, 2, &prior), FB_OK);
    const json_t *from = json_object_get(prior, "fit_from");
    assert_int_equal(json_array_size(from), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(from, 1), "path")), b);
    assert_int_equal(strlen(json_string_value(json_object_get(json_array_get(from, 1), "hash"))), 16);
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(from, 1), "devices"), 0)),
                        "opencl|devB|V|3.1|2");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(from, 1), "records")), 24);
    char file[512];
    fb_prior *p = NULL;
    path_in("two.json", file, sizeof file);
    assert_int_equal(fb_prior_save(prior, file), FB_OK);
    json_decref(prior);
    assert_int_equal(fb_prior_load(file, 0, &p), FB_OK);
    assert_int_equal(fb_prior_size(p), (int)NMATRICES + 2);

    /* on devB, a dense matrix gets devB's (sparse) landscapes: its own device first */
    synth dense = {"new-dense", "h9", 2000, 45, 4, 0, 0};
    fb_prior_query q = query_like(&dense, "opencl|devB|V|3.1|2");
    fb_prior_predict(p, &q, &pr);
    assert_true(pr.same_device);
    assert_int_equal(pr.nfrom, 2);
    assert_int_equal(pr.point.values[0], 1);
    /* on a device never recorded: every device's */
    q.device = "cuda|other|V|1|80";
    fb_prior_predict(p, &q, &pr);
    assert_true(pr.found);
    assert_false(pr.same_device);
    assert_int_equal(pr.nfrom, 3);
    assert_int_equal(pr.point.values[0], 8);
    fb_prior_free(p);
}

/* ---- the file --------------------------------------------------------------- */

static void test_file_written_whole_beside_the_cache(void **state)
{
    (void)state;
    char buf[512], file[512];
    fb_prior_path_beside("/a/b/tuning.json", buf, sizeof buf);
    assert_string_equal(buf, "/a/b/tuning-prior.json");
    fb_prior_path_beside("tuning.json", buf, sizeof buf);
    assert_string_equal(buf, "tuning-prior.json");

    /* the parent made, nothing else left beside the file */
    fb_prior *p = fitted("dev");
    fb_prior_free(p);
    json_t *prior = NULL;
    char sweep[512];
    path_in("sweep.jsonl", sweep, sizeof sweep);
    const char *sweeps[] = {sweep};
    assert_int_equal(fb_prior_fit(sweeps, 1, &prior), FB_OK);
    path_in("new/dir/tuning-prior.json", file, sizeof file);
    assert_int_equal(fb_prior_save(prior, file), FB_OK);
    json_decref(prior);
    path_in("new/dir", buf, sizeof buf);
    DIR *d = opendir(buf);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') {
            assert_string_equal(e->d_name, "tuning-prior.json");
            n++;
        }
    closedir(d);
    assert_int_equal(n, 1);
    assert_int_equal(fb_prior_load(file, 0, &p), FB_OK);
    assert_int_equal(fb_prior_size(p), (int)NMATRICES);
    fb_prior_free(p);
}

static void write_text(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_refused(const char *text, const char *why)
{
    char file[512];
    fb_prior *p = (fb_prior *)1;
    path_in("bad.json", file, sizeof file);
    write_text(file, text);
    assert_int_equal(fb_prior_load(file, 1, &p), FB_ERR_INPUT);
    assert_null(p);
    assert_non_null(strstr(fb_error_message(), file));
    assert_non_null(strstr(fb_error_message(), why));
}

#define GOOD_ENTRY                                                                                                     \
    "{\"device\": \"d\", \"kernel\": \"k2\", \"precision\": \"double\", \"matrix\": \"m\", \"matrix_hash\": \"h\", "   \
    "\"features\": {\"rows\": 10, \"nnz_per_row_mean\": 2, \"nnz_per_row_cv\": 0, \"block\": 1, \"block_fill\": 1}, "
static void test_malformed_prior_refused_naming_the_file(void **state)
{
    (void)state;
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [", "not valid JSON");
    assert_refused("{\"entries\": []}", "not a tuning prior");
    assert_refused("{\"flowbench_tuning_prior\": 1}", "no \"entries\" list");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [{\"kernel\": \"k2\"}]}", "entry 0: no string");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": 1}, \"ratio\": 1}]}, {\"device\": \"d\", \"kernel\": \"k2\", "
                   "\"precision\": \"double\", \"matrix\": \"m\", \"matrix_hash\": \"h\", \"features\": {\"rows\": "
                   "0}}]}",
                   "entry 1: \"features\"");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": 1}, \"ratio\": 0.5}]}]}",
                   "entry 0: \"near\"");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": \"one\"}, \"ratio\": 1}]}]}",
                   "entry 0: \"near\"");
    /* a ratio past the near-optimal set's 1.25 (1e308 overflowed the score,
     * reported as out of host memory), statistics no matrix has */
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": 1}, \"ratio\": 1e308}]}]}",
                   "entry 0: \"near\" is not a non-empty list of {\"params\": {NAME: integer within "
                   "+-1000000000}, \"ratio\": 1 to 1.25}");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": 4294967297}, \"ratio\": 1}]}]}",
                   "entry 0: \"near\"");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [" GOOD_ENTRY
                   "\"near\": [{\"params\": {\"A\": 1}, \"ratio\": 1.3}]}]}",
                   "entry 0: \"near\"");
    assert_refused("{\"flowbench_tuning_prior\": 1, \"entries\": [{\"device\": \"d\", \"kernel\": \"k2\", "
                   "\"precision\": \"double\", \"matrix\": \"m\", \"matrix_hash\": \"h\", \"features\": {\"rows\": "
                   "10, \"nnz_per_row_mean\": 2, \"nnz_per_row_cv\": -1e308, \"block\": 1, \"block_fill\": 1}, "
                   "\"near\": [{\"params\": {\"A\": 1}, \"ratio\": 1}]}]}",
                   "entry 0: \"features\"");

    /* missing: no error when it may be absent, one naming it when not */
    char file[512];
    fb_prior *p = (fb_prior *)1;
    path_in("absent.json", file, sizeof file);
    assert_int_equal(fb_prior_load(file, 1, &p), FB_OK);
    assert_null(p);
    assert_int_equal(fb_prior_load(file, 0, &p), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), file));
    assert_int_equal(fb_prior_load(dir, 1, &p), FB_ERR_INPUT); /* a directory */
    assert_non_null(strstr(fb_error_message(), "is a directory"));
}

/* Statistics at the edge of a double (a cv and a fill near DBL_MAX) are
 * features all the same: their distance sums to infinity, whose weight 0
 * gave the start a score of 0/0 and no point. */
static void test_extreme_features_still_predict(void **state)
{
    (void)state;
    char file[512];
    fb_prior *p = NULL;
    fb_prior_prediction pr;
    path_in("extreme.json", file, sizeof file);
    write_text(file, "{\"flowbench_tuning_prior\": 1, \"entries\": [{\"device\": \"d\", \"kernel\": \"k2\", "
                     "\"precision\": \"double\", \"matrix\": \"m\", \"matrix_hash\": \"h\", \"features\": "
                     "{\"rows\": 1e308, \"nnz_per_row_mean\": 1e308, \"nnz_per_row_cv\": 1.7e308, \"block\": 1e308, "
                     "\"block_fill\": 1.7e308}, \"near\": [{\"params\": {\"A\": 1, \"B\": 128}, \"ratio\": 1.25}]}]}");
    assert_int_equal(fb_prior_load(file, 0, &p), FB_OK);
    fb_prior_query q = query_like(&matrices[0], DEVICE);
    fb_prior_predict(p, &q, &pr);
    assert_true(pr.found);
    assert_true(isfinite(pr.distance[0]));
    assert_true(fabs(pr.score - 1.25) < 1e-9);
    assert_int_equal(pr.point.values[0], 1);
    assert_int_equal(pr.point.values[1], 128);
    fb_prior_free(p);
}

static void test_fit_needs_landscapes(void **state)
{
    (void)state;
    char sweep[512];
    json_t *prior = NULL;
    path_in("single.jsonl", sweep, sizeof sweep);
    write_sweep(sweep, "dev", NMATRICES, 1); /* one point per matrix: no landscape */
    const char *sweeps[] = {sweep};
    assert_int_equal(fb_prior_fit(sweeps, 1, &prior), FB_ERR_INPUT);
    assert_null(prior);
    assert_non_null(strstr(fb_error_message(), sweep));
    assert_non_null(strstr(fb_error_message(), "no landscape"));

    /* two points make one; the near set holds the better within 25% */
    write_sweep(sweep, "dev", 1, 2);
    assert_int_equal(fb_prior_fit(sweeps, 1, &prior), FB_OK);
    const json_t *e = json_array_get(json_object_get(prior, "entries"), 0);
    assert_int_equal(json_integer_value(json_object_get(e, "points")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(e, "best"), "params"), "B")),
                     64);
    assert_int_equal(json_array_size(json_object_get(e, "near")), 2); /* (1,32) is 1.1x (1,64) */
    json_decref(prior);

    const char *missing[] = {"/nonexistent/sweep.jsonl"};
    assert_int_equal(fb_prior_fit(missing, 1, &prior), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "/nonexistent/sweep.jsonl"));
}

static void test_features(void **state)
{
    (void)state;
    fb_prior_features f, g;
    json_t *csr = json_pack("{s:i, s:{s:f, s:f}}", "rows", 100, "nnz_per_row", "mean", 4.0, "stddev", 1.0);
    json_t *bcsr = json_pack("{s:i, s:{s:f, s:f}, s:{s:i, s:f}}", "rows", 100, "nnz_per_row", "mean", 4.0, "stddev",
                             1.0, "block", "size", 4, "fill", 0.5);
    json_t *grid = json_pack("{s:i, s:i}", "nx", 33, "ny", 33);
    assert_int_equal(fb_prior_features_from_json(csr, &f), FB_OK);
    assert_true(f.row_cv == 0.25 && f.block == 1 && f.block_fill == 1);
    assert_int_equal(fb_prior_features_from_json(bcsr, &g), FB_OK);
    assert_true(g.block == 4 && g.block_fill == 0.5);
    assert_true(fb_prior_distance(&f, &f) == 0);
    assert_true(fabs(fb_prior_distance(&f, &g) - (log(4) + 0.5)) < 1e-12);
    assert_int_equal(fb_prior_features_from_json(grid, &f), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not a matrix"));
    json_decref(csr);
    json_decref(bcsr);
    json_decref(grid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predicts_the_optimum_of_similar_matrices),
        cmocka_unit_test(test_leave_one_out_excludes_the_matrix),
        cmocka_unit_test(test_same_device_first_then_any),
        cmocka_unit_test(test_file_written_whole_beside_the_cache),
        cmocka_unit_test(test_malformed_prior_refused_naming_the_file),
        cmocka_unit_test(test_extreme_features_still_predict),
        cmocka_unit_test(test_fit_needs_landscapes),
        cmocka_unit_test(test_features),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
