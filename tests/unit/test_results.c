/* test_results.c - the results writer (every record valid JSON, flushed per
 * record), the reader (required fields, line-numbered errors, configuration
 * keys, repeated runs), the fraction-of-stream rule and the CSV export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <zlib.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/record.h"
#include "core/interrupt.h"
#include "results/records/export.h"
#include "results/records/merge.h"
#include "results/records/reader.h"
#include "results/records/results.h"

static void temp_path(char *path, size_t len, const char *name)
{
    snprintf(path, len, "/tmp/fb-test-results-%ld-%s", (long)getpid(), name);
    unlink(path);
}

static fb_device_info test_device(void)
{
    fb_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.backend, sizeof d.backend, "openmp");
    snprintf(d.id, sizeof d.id, "openmp:0");
    snprintf(d.name, sizeof d.name, "Test CPU (unit test)");
    snprintf(d.driver_version, sizeof d.driver_version, "test driver 1");
    snprintf(d.runtime_version, sizeof d.runtime_version, "test runtime 2");
    d.compute_units = 2;
    return d;
}

/* A measurement record the way cmd_stream.c builds one, with 3 samples. */
static json_t *test_record(const char *kernel, double t)
{
    double samples[3] = {t, 1.1 * t, 0.9 * t};
    fb_measurement m = {.samples = samples, .nsamples = 3};
    fb_stats_compute(samples, 3, &m.stats);
    json_t *rec =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:i, s:i}, s:f, s:s}", "benchmark", "stream", "kernel", kernel,
                  "backend", "openmp", "device", "openmp:0", "device_name", "Test CPU (unit test)", "precision",
                  "double", "params", "wg", 256, "n", 1000, "gbs", 24e3 / t / 1e9, "status", "ok");
    json_object_set_new(rec, "stats", fb_json_measurement(&m));
    return rec;
}

static int count_valid_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1 << 16];
    int n = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        assert_non_null(j); /* every line is one complete JSON object */
        assert_true(json_is_object(j));
        json_decref(j);
        n++;
    }
    fclose(f);
    return n;
}

static void test_writer_flushes_each_record(void **state)
{
    (void)state;
    char path[256];
    fb_device_info d = test_device();
    fb_results *w = NULL;
    temp_path(path, sizeof path, "writer.jsonl");
    assert_int_equal(fb_results_open(path, "test", &d, 1, &w), FB_OK);
    assert_int_equal(count_valid_lines(path), 1); /* the header is on disk before any measurement */
    for (int i = 0; i < 3; ++i) {
        json_t *rec = test_record("triad", 1e-3);
        assert_int_equal(fb_results_append(w, rec), FB_OK);
        json_decref(rec);
        /* read back through another handle while the writer is still open */
        assert_int_equal(count_valid_lines(path), 2 + i);
    }
    fb_results_close(w);
    unlink(path);
}

/* --out into folders not made yet: they are made, the header written. */
static void test_writer_makes_its_folder(void **state)
{
    (void)state;
    char dir[256], path[320];
    fb_device_info d = test_device();
    fb_results *w = NULL;
    temp_path(dir, sizeof dir, "new-folder");
    snprintf(path, sizeof path, "%s/a/b/r.jsonl", dir);
    assert_int_equal(fb_results_open(path, "test", &d, 1, &w), FB_OK);
    fb_results_close(w);
    assert_int_equal(count_valid_lines(path), 1);
    unlink(path);
    snprintf(path, sizeof path, "%s/a/b", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/a", dir);
    rmdir(path);
    rmdir(dir);
}

static void assert_has(const json_t *obj, const char *path)
{
    if (!*fb_json_str(obj, path) && isnan(fb_json_num(obj, path))) fail_msg("missing required field %s", path);
}

static void test_header_has_required_fields(void **state)
{
    (void)state;
    fb_device_info d = test_device();
    json_t *h = fb_json_header("test", &d, 1);
    const char *fields[] = {"date",
                            "command",
                            "host.hostname",
                            "host.cpu",
                            "host.os",
                            "host.logical_cpus",
                            "build.flowbench_version",
                            "build.git_revision",
                            "build.compiler",
                            "build.flags",
                            NULL};
    for (int i = 0; fields[i]; ++i)
        assert_has(h, fields[i]);
    const json_t *dev = json_array_get(json_object_get(h, "devices"), 0);
    assert_string_equal(fb_json_str(dev, "driver_version"), "test driver 1");
    assert_string_equal(fb_json_str(dev, "runtime_version"), "test runtime 2");
    assert_string_equal(fb_json_str(dev, "name"), "Test CPU (unit test)");
    json_decref(h);
}

/* The command line in every header, quoted so that a shell reads it back
 * word for word (the resume hint and the CSV's command_line column). */
static void test_header_command_line(void **state)
{
    (void)state;
    char *const argv[] = {"flowbench", "sweep", "my suite.suite", "--cache", "it's.json", ""};
    char buf[256] = "";
    fb_results_set_command_line(6, argv);
    json_t *h = fb_json_header("sweep", NULL, 0);
    assert_string_equal(fb_json_str(h, "command_line"), "flowbench sweep 'my suite.suite' --cache 'it'\\''s.json' ''");
    json_decref(h);
    fb_shell_append(buf, sizeof buf, "a");
    fb_shell_append(buf, sizeof buf, "$b");
    assert_string_equal(buf, "a '$b'");
    fb_results_set_command_line(0, argv);
}

/* Pruned, abandoned, skipped, timeout and unavailable are what a sweep
 * expects; failed, crashed and wrong-result are failures. */
static void test_record_expected(void **state)
{
    (void)state;
    const char *expected[] = {"pruned", "abandoned", "skipped", "timeout", "unavailable"};
    const char *failures[] = {"failed", "crashed", "wrong-result", "build-error", "launch-error", "ok"};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; ++i) {
        fb_record r = {.json = json_pack("{s:s}", "status", expected[i])};
        assert_true(fb_record_expected(&r));
        json_decref(r.json);
    }
    for (size_t i = 0; i < sizeof failures / sizeof *failures; ++i) {
        fb_record r = {.json = json_pack("{s:s}", "status", failures[i])};
        assert_false(fb_record_expected(&r));
        json_decref(r.json);
    }
}

static void test_measurement_stats_fields(void **state)
{
    (void)state;
    json_t *rec = test_record("copy", 2e-3);
    const char *fields[] = {"stats.n", "stats.median_s", "stats.min_s", "stats.mean_s", "stats.stddev_s", NULL};
    for (int i = 0; fields[i]; ++i)
        assert_has(rec, fields[i]);
    assert_int_equal(json_array_size(json_object_get(json_object_get(rec, "stats"), "samples_s")), 3);
    assert_float_equal(fb_json_num(rec, "stats.median_s"), 2e-3, 1e-15);
    json_decref(rec);
}

static void test_fraction_of_stream_helper(void **state)
{
    (void)state;
    json_t *rec = json_object();
    fb_json_set_fraction_of_stream(rec, 50, 200);
    assert_float_equal(fb_json_num(rec, "fraction_of_stream"), 0.25, 1e-15);
    assert_float_equal(fb_json_num(rec, "stream_gbs"), 200, 0);
    fb_json_set_fraction_of_stream(rec, 50, 0); /* unknown reference: null, not 0 or inf */
    assert_true(json_is_null(json_object_get(rec, "fraction_of_stream")));
    json_decref(rec);
}

/* The read ceiling: a fraction where dot is near or above the triad, none
 * (with a note) where dot is far below it (the dot kernel measured, not
 * memory: PoCL's once was a third of its triad), none where no dot was
 * measured. */
static void test_fraction_of_read_helper(void **state)
{
    (void)state;
    json_t *rec = json_object();
    fb_json_set_fraction_of_stream(rec, 45, 50);
    fb_json_set_fraction_of_read(rec, 45, 48); /* 0.96 of the triad: within noise, a ceiling */
    assert_float_equal(fb_json_num(rec, "fraction_of_read"), 45.0 / 48.0, 1e-15);
    assert_float_equal(fb_json_num(rec, "read_gbs"), 48, 0);
    assert_null(json_object_get(rec, "read_note"));
    fb_json_set_fraction_of_read(rec, 45, 15);
    assert_true(json_is_null(json_object_get(rec, "fraction_of_read")));
    assert_non_null(strstr(json_string_value(json_object_get(rec, "read_note")), "under 0.8 of the triad"));
    json_decref(rec);
    rec = json_object();
    fb_json_set_fraction_of_stream(rec, 45, 50);
    fb_json_set_fraction_of_read(rec, 45, 0);
    assert_true(json_is_null(json_object_get(rec, "fraction_of_read")) &&
                json_is_null(json_object_get(rec, "read_gbs")));
    assert_null(json_object_get(rec, "read_note"));
    json_decref(rec);
}

/* The judged record of a kernel whose working set is `bytes` on a 32 MiB
 * cache, divided by a triad whose 3 arrays were (reuse 1) or were not
 * (reuse 0) under 4x that cache: its note. */
static json_t *judged(double bytes, int reuse, double fraction)
{
    json_t *rec = json_pack("{s:f, s:{s:b}}", "bytes", bytes, "stream_reference", "cache_reuse", reuse);
    fb_json_set_fraction_of_stream(rec, fraction * 10, 10);
    fb_json_judge_roofline(rec, (size_t)32 << 20);
    return rec;
}

static const char *note_of(const json_t *rec) { return json_string_value(json_object_get(rec, "roofline_note")); }

/* The note follows the facts: a cache-resident triad is never called the
 * DRAM triad (the defect: stream said "figures include cache reuse" where
 * spmv called the same figure "the DRAM triad"). */
static void test_roofline_note_follows_the_triad(void **state)
{
    (void)state;
    json_t *rec = judged(1e6, 0, 0.5); /* resident kernel, DRAM triad: as before */
    assert_true(json_is_true(json_object_get(rec, "cache_resident")));
    assert_non_null(strstr(note_of(rec), "the fraction of the DRAM triad is not a roofline fraction"));
    json_decref(rec);
    rec = judged(1e6, 1, 0.5); /* resident kernel, cache triad */
    assert_null(strstr(note_of(rec), "DRAM triad"));
    assert_non_null(strstr(note_of(rec), "the stream triad includes cache reuse"));
    json_decref(rec);
    rec = judged(1e9, 1, 0.5); /* a DRAM-sized kernel over a cache triad */
    assert_true(json_is_false(json_object_get(rec, "cache_resident")));
    assert_null(strstr(note_of(rec), "DRAM triad"));
    assert_non_null(strstr(note_of(rec), "divides by a cache figure"));
    json_decref(rec);
    rec = judged(1e9, 0, 0.5); /* both DRAM: a roofline fraction, no note */
    assert_null(note_of(rec));
    json_decref(rec);
    rec = judged(1e9, 0, 1.5);
    assert_non_null(strstr(note_of(rec), "above the stream triad"));
    json_decref(rec);
}

static const char *valid =
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"r1\",\"benchmark\":\"spmv\",\"kernel\":\"csr\","
    "\"backend\":\"opencl\",\"device\":\"opencl:0.0\",\"device_name\":\"GPU\",\"precision\":\"double\","
    "\"params\":{\"WG\":64},\"status\":\"ok\",\"stats\":{\"samples_s\":[1e-3,2e-3],\"median_s\":1.5e-3}}";

static void test_reader_accepts_valid_record(void **state)
{
    (void)state;
    json_t *rec = NULL;
    assert_int_equal(fb_results_check_line(valid, "r.jsonl", 3, &rec), FB_OK);
    assert_non_null(rec);
    json_decref(rec);
}

/* Removing any required field fails with the file, the line and the field. */
static void test_reader_names_missing_required_field(void **state)
{
    (void)state;
    const char *required[] = {"run_id",      "benchmark", "kernel", "backend", "device",
                              "device_name", "precision", "status", "params",  NULL};
    for (int i = 0; required[i]; ++i) {
        json_t *rec = json_loads(valid, 0, NULL), *out = NULL;
        char *text, want[64];
        json_object_del(rec, required[i]);
        text = json_dumps(rec, JSON_COMPACT);
        assert_int_equal(fb_results_check_line(text, "r.jsonl", 7, &out), FB_ERR_INPUT);
        assert_null(out);
        assert_non_null(strstr(fb_error_message(), "r.jsonl: line 7: "));
        snprintf(want, sizeof want, "\"%s\"", required[i]);
        if (!strstr(fb_error_message(), want)) fail_msg("'%s' does not name %s", fb_error_message(), want);
        free(text);
        json_decref(rec);
    }
}

static void test_reader_rejects_bad_lines(void **state)
{
    (void)state;
    json_t *out = NULL;
    assert_int_equal(fb_results_check_line("{\"type\":", "r.jsonl", 7, &out), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "r.jsonl: line 7: not valid JSON ("));
    assert_int_equal(fb_results_check_line("[1,2]", "r.jsonl", 2, &out), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not a JSON object"));
    assert_int_equal(fb_results_check_line("{\"type\":\"measurement\",\"schema\":99}", "r.jsonl", 1, &out),
                     FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "schema 99 is newer"));
    assert_int_equal(fb_results_check_line("{\"type\":\"other\",\"schema\":1}", "r.jsonl", 1, &out), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not header or measurement"));
    char *bad = strdup(valid);
    strcpy(strstr(bad, "[1e-3"), "[-1,2]}}");
    assert_int_equal(fb_results_check_line(bad, "r.jsonl", 4, &out), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "samples_s[0]"));
    free(bad);
}

static char *key_of(const char *text)
{
    json_t *rec = json_loads(text, 0, NULL);
    char *key = fb_record_key(rec);
    json_decref(rec);
    return key;
}

static void test_key_canonical(void **state)
{
    (void)state;
    char *a = key_of("{\"benchmark\":\"b\",\"kernel\":\"k\",\"params\":{\"X\":1,\"Y\":2}}");
    char *b = key_of("{\"kernel\":\"k\",\"params\":{\"Y\":2,\"X\":1},\"benchmark\":\"b\"}");
    char *c =
        key_of("{\"benchmark\":\"b\",\"kernel\":\"k\",\"params\":{\"X\":1,\"Y\":2},\"matrix\":{\"hash\":\"h1\"}}");
    char *d = key_of("{\"benchmark\":\"b\",\"kernel\":\"k\",\"params\":{\"X\":1,\"Y\":2},\"cold\":true}");
    assert_string_equal(a, b);     /* parameter order does not matter */
    assert_string_not_equal(a, c); /* the matrix does */
    assert_string_not_equal(a, d); /* cold and warm caches never pair */
    free(a), free(b), free(c), free(d);
}

static void write_file(const char *path, const char *const *lines)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; lines[i]; ++i)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
}

/* A share's header of 1/99999 makes one line on stderr, not 99,998: the
 * first shares no input holds named, the rest counted. */
static void test_merge_summarises_missing_shares(void **state)
{
    (void)state;
    char in[256], out[256], err[256], line[1024], said[1024] = "";
    const char *lines[] = {"{\"type\":\"header\",\"schema\":1,\"run_id\":\"r1\",\"date\":\"d\",\"host\":{\"hostname\":"
                           "\"h\",\"cpu\":\"Test CPU\"},\"devices\":[],\"sweep\":{\"shard\":\"1/99999\"}}",
                           NULL};
    const char *inputs[1] = {in};
    fb_merge_summary sum;
    int n = 0;
    temp_path(in, sizeof in, "share.jsonl");
    temp_path(out, sizeof out, "merged.jsonl");
    temp_path(err, sizeof err, "stderr.txt");
    write_file(in, lines);
    fflush(stderr);
    int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    fb_status st = fb_merge_files(out, inputs, 1, &sum);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(st, FB_OK);
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (strstr(line, "no input holds") && n++ == 0) snprintf(said, sizeof said, "%s", line);
    fclose(f);
    assert_int_equal(n, 1);
    assert_non_null(strstr(said, "merge: no input holds 99998 of the 99999 shards (2/99999, 3/99999, 4/99999, "
                                 "5/99999, 6/99999, ...): "));
    unlink(in), unlink(out), unlink(err);
}

#define HEADER(id)                                                                                                     \
    "{\"type\":\"header\",\"schema\":1,\"run_id\":\"" id "\",\"date\":\"d\",\"host\":{\"hostname\":\"h\","             \
    "\"cpu\":\"Test CPU\"},\"devices\":[]}"
#define STREAM(id, kernel, gbs, t)                                                                                     \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"stream\",\"kernel\":\"" kernel       \
    "\",\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"Test CPU\",\"precision\":\"double\","         \
    "\"params\":{\"n\":1000},\"status\":\"ok\",\"gbs\":" gbs ",\"stats\":{\"samples_s\":[" t "],\"median_s\":" t "}}"

static void test_repeated_runs_and_fraction(void **state)
{
    (void)state;
    char path[256];
    fb_results_set *set = NULL;
    const char *lines[] = {HEADER("r1"),
                           STREAM("r1", "triad", "10", "1e-3"),
                           STREAM("r1", "copy", "5", "2e-3"),
                           "",
                           HEADER("r2"),
                           STREAM("r2", "triad", "20", "5e-4"),
                           NULL};
    temp_path(path, sizeof path, "runs.jsonl");
    write_file(path, lines);
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    assert_int_equal(set->nheaders, 2);
    assert_int_equal(set->nrecords, 3);
    assert_int_equal(set->records[0].line, 2);
    assert_int_equal(set->records[2].line, 6); /* the blank line still counts */
    assert_true(set->records[0].superseded);   /* run r2 measured triad again */
    assert_false(set->records[2].superseded);
    assert_ptr_equal(set->records[2].header, set->headers[1]);
    int first;
    assert_int_equal(fb_results_find_all(set, set->records[0].key, &first), 2);
    assert_ptr_equal(fb_results_find(set, set->records[0].key), &set->records[2]);
    /* copy's fraction comes from the triad of its own run (r1), not r2's */
    assert_float_equal(fb_record_fraction(set, &set->records[1]), 0.5, 1e-12);
    fb_results_set_free(set);
    unlink(path);
}

#define FAILED_TRIAD(id)                                                                                               \
    "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"" id "\",\"benchmark\":\"stream\",\"kernel\":\"triad\","      \
    "\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"Test CPU\",\"precision\":\"double\","            \
    "\"params\":{\"n\":1000},\"status\":\"failed\",\"gbs\":99}"

/* The reference of a record's fraction is the first usable triad of its
 * run: a failed one before it does not count, a later one does not
 * replace it, another run's never stands in. Each record takes the latest
 * header of its run that precedes it. */
static void test_fraction_reference_and_headers(void **state)
{
    (void)state;
    char path[256];
    fb_results_set *set = NULL;
    const char *lines[] = {HEADER("r1"),
                           FAILED_TRIAD("r1"),
                           STREAM("r1", "triad", "10", "1e-3"),
                           STREAM("r1", "copy", "5", "2e-3"),
                           HEADER("r1"), /* the same run id again: a second header */
                           STREAM("r1", "triad", "40", "1e-3"),
                           HEADER("r2"),
                           STREAM("r2", "copy", "5", "2e-3"),
                           STREAM("r3", "add", "5", "2e-3"), /* a run with no header */
                           NULL};
    temp_path(path, sizeof path, "refs.jsonl");
    write_file(path, lines);
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    assert_int_equal(set->nrecords, 6);
    assert_float_equal(fb_record_fraction(set, &set->records[2]), 0.5, 1e-12); /* copy over the first ok triad */
    assert_float_equal(fb_record_fraction(set, &set->records[3]), 4.0, 1e-12); /* the later triad over the first */
    assert_true(isnan(fb_record_fraction(set, &set->records[4])));             /* r2 measured no triad */
    assert_ptr_equal(set->records[2].header, set->headers[0]);
    assert_ptr_equal(set->records[3].header, set->headers[1]);
    assert_ptr_equal(set->records[4].header, set->headers[2]);
    assert_null(set->records[5].header);
    fb_results_set_free(set);
    unlink(path);
}

/* A signal stops the loading of a large file: it is polled per line. */
static void test_load_polls_interrupt(void **state)
{
    (void)state;
    char path[256];
    fb_results_set *set = NULL;
    const char *lines[] = {HEADER("r1"), STREAM("r1", "triad", "10", "1e-3"), NULL};
    temp_path(path, sizeof path, "interrupted.jsonl");
    write_file(path, lines);
    fb_interrupted = 1;
    fb_status st = fb_results_load(path, &set);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_null(set);
    unlink(path);
}

static void test_load_reports_line_number(void **state)
{
    (void)state;
    char path[256];
    fb_results_set *set = NULL;
    const char *lines[] = {HEADER("r1"), STREAM("r1", "triad", "10", "1e-3"), "{not json", NULL};
    const char *only_damage[] = {"{not json", "{\"type\":\"head", NULL};
    temp_path(path, sizeof path, "bad.jsonl");
    write_file(path, lines);
    /* a damaged line (a cut or interleaved write) costs that line only */
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    assert_int_equal(set->damaged, 1);
    assert_int_equal(set->nrecords, 1);
    fb_results_set_free(set);
    set = NULL;
    /* nothing but damage: no results file */
    write_file(path, only_damage);
    assert_int_equal(fb_results_load(path, &set), FB_ERR_INPUT);
    assert_null(set);
    assert_non_null(strstr(fb_error_message(), ": line 1: not valid JSON"));
    unlink(path);
    assert_int_equal(fb_results_load(path, &set), FB_ERR_INPUT); /* now missing */
    assert_non_null(strstr(fb_error_message(), "cannot open"));
}

/* A results file gzipped (the committed study's .jsonl.gz) reads as the
 * file itself, whatever its name; a folder takes it beside *.jsonl; a
 * stream cut short is a read error naming the file, not a short set. */
static void test_load_gzip(void **state)
{
    (void)state;
    char path[256], cut[256];
    fb_results_set *set = NULL;
    const char *lines[] = {HEADER("r1"), STREAM("r1", "triad", "10", "1e-3"), STREAM("r1", "copy", "10", "2e-3"), NULL};
    temp_path(path, sizeof path, "run.jsonl.gz");
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    for (int i = 0; lines[i]; ++i)
        gzprintf(gz, "%s\n", lines[i]);
    assert_int_equal(gzclose(gz), Z_OK);
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    assert_int_equal(set->nrecords, 2);
    assert_int_equal(set->nheaders, 1);
    fb_results_set_free(set);
    set = NULL;
    /* the first half of the compressed bytes: the inflater runs dry */
    FILE *in = fopen(path, "rb");
    char bytes[4096];
    size_t n = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    temp_path(cut, sizeof cut, "cut.jsonl.gz");
    FILE *out = fopen(cut, "wb");
    fwrite(bytes, 1, n / 2, out);
    fclose(out);
    fb_status st = fb_results_load(cut, &set);
    assert_true(st == FB_ERR_IO || st == FB_ERR_INPUT);
    assert_null(set);
    assert_non_null(strstr(fb_error_message(), cut));
    unlink(cut);
    unlink(path);
}

/* The results file of lines exported as CSV into csv (name.csv in the
 * temporary folder), opened for reading; the results file is removed. */
static FILE *export_lines(const char **lines, const char *name, char *csv, size_t len)
{
    char path[256], file[64];
    fb_results_set *set = NULL;
    snprintf(file, sizeof file, "%s.jsonl", name);
    temp_path(path, sizeof path, file);
    snprintf(file, sizeof file, "%s.csv", name);
    temp_path(csv, len, file);
    write_file(path, lines);
    assert_int_equal(fb_results_load(path, &set), FB_OK);
    FILE *out = fopen(csv, "w");
    assert_int_equal(fb_export_csv(set, out, 0), FB_OK);
    fclose(out);
    fb_results_set_free(set);
    unlink(path);
    out = fopen(csv, "r");
    assert_non_null(out);
    return out;
}

static void test_export_csv(void **state)
{
    (void)state;
    char csv[256], line[4096];
    const char *lines[] = {HEADER("r1"), STREAM("r1", "triad", "10", "1e-3"), NULL};
    FILE *out = export_lines(lines, "export", csv, sizeof csv);
    assert_non_null(fgets(line, sizeof line, out));
    assert_non_null(strstr(line, "run_id,host,benchmark,suite,case,kernel,backend,device,device_name,precision,"));
    assert_non_null(
        strstr(line, ",median_s,min_s,mean_s,stddev_s,max_s,cv,median_spread,gflops,gbs,ns_per_cell,fraction_of_stream,"
                     "fraction_of_read,max_rel_error,status"));
    assert_non_null(strstr(line, ",param_n\n"));
    assert_non_null(fgets(line, sizeof line, out));
    assert_non_null(strstr(line, "r1,h,stream,,,triad,openmp,openmp:0,Test CPU,double,"));
    assert_non_null(strstr(line, ",10,,1,,,ok,")); /* gbs 10, no ns_per_cell, fraction 1 (triad over itself), no read
                                                      fraction, no check error */
    assert_null(fgets(line, sizeof line, out));
    fclose(out);
    unlink(csv);
}

/* The spread columns: cv = stddev_s / mean_s, max_s and median_spread as
 * recorded. */
static void test_export_spread(void **state)
{
    (void)state;
    char csv[256], line[4096];
    const char *lines[] = {
        HEADER("r1"),
        "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"r1\",\"benchmark\":\"stream\",\"kernel\":\"triad\","
        "\"backend\":\"openmp\",\"device\":\"openmp:0\",\"device_name\":\"Test CPU\",\"precision\":\"double\","
        "\"params\":{\"n\":1000},\"status\":\"ok\",\"gbs\":10,\"stats\":{\"samples_s\":[1e-3],\"median_s\":1e-3,"
        "\"min_s\":0.9e-3,\"mean_s\":2e-3,\"stddev_s\":0.5e-3,\"max_s\":4e-3,\"median_spread\":0.125}}",
        NULL};
    FILE *out = export_lines(lines, "spread", csv, sizeof csv);
    assert_non_null(fgets(line, sizeof line, out));
    assert_non_null(fgets(line, sizeof line, out));
    assert_non_null(strstr(line, ",0.001,0.0009,0.002,0.0005,0.004,0.25,0.125,")); /* median .. max, cv, spread */
    fclose(out);
    unlink(csv);
}

static void test_csv_quoting(void **state)
{
    (void)state;
    char buf[128] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    fb_csv_field(f, "plain");
    fputc(' ', f);
    fb_csv_field(f, "a,b \"c\"");
    fputc(' ', f);
    fb_csv_number(f, NAN);
    fclose(f);
    assert_string_equal(buf, "plain \"a,b \"\"c\"\"\" ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_flushes_each_record),
        cmocka_unit_test(test_writer_makes_its_folder),
        cmocka_unit_test(test_header_has_required_fields),
        cmocka_unit_test(test_header_command_line),
        cmocka_unit_test(test_record_expected),
        cmocka_unit_test(test_measurement_stats_fields),
        cmocka_unit_test(test_fraction_of_stream_helper),
        cmocka_unit_test(test_fraction_of_read_helper),
        cmocka_unit_test(test_roofline_note_follows_the_triad),
        cmocka_unit_test(test_reader_accepts_valid_record),
        cmocka_unit_test(test_reader_names_missing_required_field),
        cmocka_unit_test(test_reader_rejects_bad_lines),
        cmocka_unit_test(test_key_canonical),
        cmocka_unit_test(test_repeated_runs_and_fraction),
        cmocka_unit_test(test_fraction_reference_and_headers),
        cmocka_unit_test(test_load_polls_interrupt),
        cmocka_unit_test(test_load_reports_line_number),
        cmocka_unit_test(test_load_gzip),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_export_spread),
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_merge_summarises_missing_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
