/* test_cache.c - the tuning cache: signatures of each kind (matrix, grid,
 * mesh) and their distance, the exact / nearest / none fallback of
 * lookups, entries of files written before signatures had kinds, and the
 * file round trip with its error messages. Files live in one mkdtemp
 * directory per run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "tune/cache.h"
#include "results/gate/noise.h"
#include "tune/prior.h"
#include "results/records/stream_ref.h"
#include "tune/tuned.h"
#include "families.h"

static char tmp_dir[] = "/tmp/fb-cache-test-XXXXXX";

static int make_tmp_dir(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int remove_tmp_dir(void **state)
{
    (void)state;
    return nftw(tmp_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void tmp_path(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", tmp_dir, name); }

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static fb_signature sig_of(long long rows, double mean, double stddev, int block)
{
    fb_signature s = {.kind = FB_SIGNATURE_MATRIX,
                      .matrix = {.rows = rows,
                                 .nnz = (long long)(rows * mean),
                                 .row_mean = mean,
                                 .row_stddev = stddev,
                                 .row_max = mean + 3 * stddev,
                                 .block = block}};
    return s;
}

static fb_signature grid_of(long long nx, long long ny, long long nz, double stretch)
{
    fb_signature s = {.kind = FB_SIGNATURE_GRID, .grid = {.nx = nx, .ny = ny, .nz = nz, .stretch = stretch}};
    return s;
}

static fb_signature mesh_of(long long nodes, double degree_mean, double degree_stddev, double degree_max)
{
    fb_signature s = {.kind = FB_SIGNATURE_MESH,
                      .mesh = {.nodes = nodes,
                               .edges = (long long)(nodes * degree_mean),
                               .degree_mean = degree_mean,
                               .degree_stddev = degree_stddev,
                               .degree_max = degree_max}};
    return s;
}

static json_t *entry_of(const char *device, const char *kernel, const char *precision, fb_signature s, int wg)
{
    return json_pack("{s:s, s:s, s:s, s:o, s:{s:i}, s:f}", "device", device, "kernel", kernel, "precision", precision,
                     "signature", fb_signature_json(&s), "params", "WG_SIZE", wg, "median_s", 1e-4);
}

/* Puts the entry and drops the test's reference: the cache must hold its own. */
static void put(fb_tuning_cache *c, json_t *entry)
{
    assert_non_null(entry);
    assert_int_equal(fb_cache_put(c, entry), FB_OK);
    json_decref(entry);
}

static int wg_of(const json_t *entry)
{
    return (int)json_integer_value(json_object_get(json_object_get(entry, "params"), "WG_SIZE"));
}

static fb_tuning_cache *empty_cache(void)
{
    char path[128];
    fb_tuning_cache *c = NULL;
    tmp_path(path, sizeof path, "never-written.json");
    assert_int_equal(fb_cache_load(path, &c), FB_OK);
    assert_non_null(c);
    return c;
}

static void test_fingerprint_format(void **state)
{
    (void)state;
    fb_device_info d = {.backend = "cuda",
                        .name = "NVIDIA H100 80GB HBM3",
                        .vendor = "NVIDIA Corporation",
                        .driver_version = "12040",
                        .compute_units = 132};
    char buf[256];
    fb_device_fingerprint(&d, buf, sizeof buf);
    assert_string_equal(buf, "cuda|NVIDIA H100 80GB HBM3|NVIDIA Corporation|12040|132");
}

static void test_distance(void **state)
{
    (void)state;
    fb_signature a = sig_of(10000, 5, 1, 1), b = sig_of(20000, 5, 1, 1), c = sig_of(1000000, 5, 1, 1);
    assert_true(fb_signature_distance(&a, &a) == 0.0);
    assert_float_equal(fb_signature_distance(&a, &b), fb_signature_distance(&b, &a), 1e-15);
    assert_true(fb_signature_distance(&a, &b) > 0);
    assert_true(fb_signature_distance(&a, &c) > fb_signature_distance(&a, &b));

    fb_signature irregular = sig_of(10000, 5, 10, 1); /* same size, cv 2 instead of 0.2 */
    assert_float_equal(fb_signature_distance(&a, &irregular), 1.8, 1e-12);

    fb_signature empty = sig_of(0, 0, 0, 1); /* zeros must not give NaN or infinity */
    assert_true(isfinite(fb_signature_distance(&a, &empty)));

    fb_signature blocked = sig_of(10000, 5, 1, 2);
    assert_true(isinf(fb_signature_distance(&a, &blocked)));
    assert_true(isinf(fb_signature_distance(&blocked, &a)));
}

static void test_lookup_exact_and_nearest(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature big = sig_of(1000000, 5, 1, 1), small = sig_of(10000, 5, 1, 1);
    put(c, entry_of("dev", "csr-vector", "double", big, 256)); /* the far one first: order must not matter */
    put(c, entry_of("dev", "csr-vector", "double", small, 64));
    assert_int_equal(fb_cache_size(c), 2);

    fb_cache_match match;
    const json_t *e = fb_cache_lookup(c, "dev", "csr-vector", 1, &small, &match);
    assert_int_equal(match, FB_CACHE_EXACT);
    assert_int_equal(wg_of(e), 64);

    fb_signature query = sig_of(20000, 5, 1, 1);
    e = fb_cache_lookup(c, "dev", "csr-vector", 1, &query, &match);
    assert_int_equal(match, FB_CACHE_NEAREST);
    assert_int_equal(wg_of(e), 64);

    query = sig_of(500000, 5, 1, 1);
    e = fb_cache_lookup(c, "dev", "csr-vector", 1, &query, &match);
    assert_int_equal(match, FB_CACHE_NEAREST);
    assert_int_equal(wg_of(e), 256);
    assert_string_equal(fb_cache_match_name(match), "nearest");
    fb_cache_free(c);
}

static void test_lookup_never_crosses_key_or_block(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature s = sig_of(10000, 5, 1, 1);
    put(c, entry_of("dev", "csr-vector", "double", s, 64));

    fb_cache_match match = FB_CACHE_EXACT;
    assert_null(fb_cache_lookup(c, "other-dev", "csr-vector", 1, &s, &match));
    assert_int_equal(match, FB_CACHE_NONE);
    assert_null(fb_cache_lookup(c, "dev", "csr-scalar", 1, &s, &match));
    assert_int_equal(match, FB_CACHE_NONE);
    assert_null(fb_cache_lookup(c, "dev", "csr-vector", 0, &s, &match));
    assert_int_equal(match, FB_CACHE_NONE);

    fb_signature blocked = sig_of(10000, 5, 1, 2); /* the only entry, but another block size */
    assert_null(fb_cache_lookup(c, "dev", "csr-vector", 1, &blocked, &match));
    assert_int_equal(match, FB_CACHE_NONE);
    assert_string_equal(fb_cache_match_name(match), "none");
    fb_cache_free(c);
}

static void test_put_replaces_equal_key(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature s = sig_of(10000, 5, 1, 1);
    put(c, entry_of("dev", "csr-vector", "single", s, 64));
    put(c, entry_of("dev", "csr-vector", "single", s, 128));
    assert_int_equal(fb_cache_size(c), 1);
    fb_cache_match match;
    const json_t *e = fb_cache_lookup(c, "dev", "csr-vector", 0, &s, &match);
    assert_int_equal(match, FB_CACHE_EXACT);
    assert_string_equal(fb_cache_match_name(match), "exact");
    assert_int_equal(wg_of(e), 128);

    put(c, entry_of("dev", "csr-vector", "double", s, 32)); /* another precision is another key */
    assert_int_equal(fb_cache_size(c), 2);
    fb_cache_free(c);
}

/* "Equal" is the distance's notion, which the cache's index must keep:
 * values the distance cannot tell apart (rows and means clamped at 0, a
 * variation of 0 for an empty mean, -0 and 0) are one signature; a
 * different longest row is another. */
static void test_put_equal_as_the_distance_sees_it(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature a = sig_of(-1, 0, 1, 1), b = sig_of(-2, 0, 3, 1), d = a;
    a.matrix.row_max = 0.0, b.matrix.row_max = -0.0;
    put(c, entry_of("dev", "csr-vector", "double", a, 64));
    put(c, entry_of("dev", "csr-vector", "double", b, 128));
    assert_int_equal(fb_cache_size(c), 1);
    fb_cache_match match;
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "csr-vector", 1, &a, &match)), 128);
    assert_int_equal(match, FB_CACHE_EXACT);

    d.matrix.row_max = 1.0;
    put(c, entry_of("dev", "csr-vector", "double", d, 256));
    assert_int_equal(fb_cache_size(c), 2);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "csr-vector", 1, &d, &match)), 256);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_cache_free(c);
}

static void test_put_rejects_incomplete_entries(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    json_t *e = entry_of("dev", "csr-vector", "double", sig_of(100, 5, 1, 1), 64);
    json_object_del(e, "params");
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"params\""));
    json_decref(e);

    e = entry_of("dev", "csr-vector", "half", sig_of(100, 5, 1, 1), 64);
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "precision"));
    json_decref(e);

    e = entry_of("dev", "csr-vector", "double", sig_of(100, 5, 1, 1), 64);
    json_object_del(json_object_get(e, "signature"), "block");
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"block\""));
    json_decref(e);

    e = entry_of("dev", "csr-vector", "double", sig_of(100, 5, 1, 1), 64);
    json_object_del(e, "device");
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"device\""));
    json_decref(e);
    assert_int_equal(fb_cache_size(c), 0);
    fb_cache_free(c);
}

static void test_save_load_round_trip(void **state)
{
    (void)state;
    char path[256], tmp[300];
    tmp_path(path, sizeof path, "new/sub/dir/tuning.json"); /* none of the directories exists yet */
    fb_tuning_cache *c = empty_cache(), *back = NULL;
    put(c, entry_of("dev", "csr-vector", "double", sig_of(10000, 4.96, 0.2, 1), 64));
    put(c, entry_of("dev", "bcsr", "single", sig_of(123457, 7.3333333333333339, 2.5, 2), 128));
    assert_int_equal(fb_cache_save(c, path), FB_OK);

    assert_int_equal(fb_cache_load(path, &back), FB_OK);
    assert_int_equal(fb_cache_size(back), 2);
    fb_signature s = sig_of(123457, 7.3333333333333339, 2.5, 2);
    fb_cache_match m1, m2;
    const json_t *orig = fb_cache_lookup(c, "dev", "bcsr", 0, &s, &m1);
    const json_t *loaded = fb_cache_lookup(back, "dev", "bcsr", 0, &s, &m2);
    assert_int_equal(m2, FB_CACHE_EXACT); /* doubles survive the text form exactly */
    assert_true(json_equal(orig, loaded));

    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    struct stat st;
    assert_int_equal(stat(tmp, &st), -1); /* the temporary file was renamed away */

    put(back, entry_of("dev", "csr-vector", "double", sig_of(10000, 4.96, 0.2, 1), 512));
    assert_int_equal(fb_cache_save(back, path), FB_OK); /* over an existing file */
    fb_cache_free(back);
    assert_int_equal(fb_cache_load(path, &back), FB_OK);
    assert_int_equal(fb_cache_size(back), 2);
    s = sig_of(10000, 4.96, 0.2, 1);
    assert_int_equal(wg_of(fb_cache_lookup(back, "dev", "csr-vector", 1, &s, &m1)), 512);
    fb_cache_free(back);
    fb_cache_free(c);
}

/* A file that lists one key twice loads as the later entry, and a signal
 * stops the loading of a large file (it is polled per entry). */
static void test_load_duplicates_and_interrupt(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof path, "duplicates.json");
    fb_tuning_cache *c = empty_cache(), *back = NULL;
    fb_signature s = sig_of(10000, 5, 1, 1);
    put(c, entry_of("dev", "csr-vector", "double", s, 64));
    put(c, entry_of("dev", "csr-vector", "double", sig_of(20000, 5, 1, 1), 32));
    assert_int_equal(fb_cache_save(c, path), FB_OK);
    fb_cache_free(c);
    json_t *root = json_load_file(path, 0, NULL), *entries = json_object_get(root, "entries");
    json_t *later = json_deep_copy(json_array_get(entries, 0));
    json_object_set_new(json_object_get(later, "params"), "WG_SIZE", json_integer(512));
    json_array_append_new(entries, later);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);

    assert_int_equal(fb_cache_load(path, &back), FB_OK);
    assert_int_equal(fb_cache_size(back), 2);
    assert_int_equal(wg_of(fb_cache_lookup(back, "dev", "csr-vector", 1, &s, NULL)), 512);
    fb_cache_free(back);

    back = NULL;
    fb_interrupted = 1;
    fb_status st = fb_cache_load(path, &back);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_null(back);
}

static void test_save_error_names_path(void **state)
{
    (void)state;
    char file[128], path[256];
    tmp_path(file, sizeof file, "plain-file");
    write_file(file, "x");
    snprintf(path, sizeof path, "%s/tuning.json", file); /* its "directory" is a file */
    fb_tuning_cache *c = empty_cache();
    assert_int_equal(fb_cache_save(c, path), FB_ERR_IO);
    assert_non_null(strstr(fb_error_message(), file));
    fb_cache_free(c);
}

static void expect_load_error(const char *name, const char *text, const char *needle)
{
    char path[128];
    tmp_path(path, sizeof path, name);
    write_file(path, text);
    fb_tuning_cache *c = (fb_tuning_cache *)1;
    assert_int_equal(fb_cache_load(path, &c), FB_ERR_INPUT);
    assert_null(c);
    assert_non_null(strstr(fb_error_message(), path));
    assert_non_null(strstr(fb_error_message(), needle));
}

static void test_load_errors(void **state)
{
    (void)state;
    expect_load_error("bad.json", "{\"flowbench_tuning_cache\": 1,\n \"entries\": [", "line 2");
    expect_load_error("other.json", "{\"entries\": []}", "flowbench_tuning_cache");
    expect_load_error("version.json", "{\"flowbench_tuning_cache\": 2, \"entries\": []}", "version 2");
    expect_load_error("entries.json", "{\"flowbench_tuning_cache\": 1, \"entries\": {}}", "entries");

    /* entry 1 (0-based) lacks "params" */
    json_t *entries = json_array();
    json_array_append_new(entries, entry_of("dev", "k", "double", sig_of(100, 5, 1, 1), 64));
    json_array_append_new(entries, entry_of("dev", "k", "double", sig_of(200, 5, 1, 1), 64));
    json_object_del(json_array_get(entries, 1), "params");
    json_t *root = json_pack("{s:i, s:o}", "flowbench_tuning_cache", 1, "entries", entries);
    char *text = json_dumps(root, JSON_INDENT(2));
    expect_load_error("no-params.json", text, "entry 1: lacks the \"params\" object");
    free(text);
    json_decref(root);
}

/* A cached value follows the one rule of parameter values (core/params.h):
 * 4294967424 ran as 128 (truncated) and a string as the kernel's default,
 * both reported as tuned. */
static void test_load_refuses_bad_param_values(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"4294967424", "entry 1: \"params\": WG_SIZE: '4294967424' is out of range (-1000000000..1000000000)"},
        {"-1000000001", "entry 1: \"params\": WG_SIZE: '-1000000001' is out of range"},
        {"\"abc\"", "entry 1: \"params\": WG_SIZE is \"abc\", not an integer"},
        {"128.0", "entry 1: \"params\": WG_SIZE is 128.0, not an integer"},
        {"null", "entry 1: \"params\": WG_SIZE is null, not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        json_t *entries = json_array();
        json_array_append_new(entries, entry_of("dev", "k", "double", sig_of(100, 5, 1, 1), 64));
        json_array_append_new(entries, entry_of("dev", "k", "double", sig_of(200, 5, 1, 1), 64));
        json_object_set_new(json_object_get(json_array_get(entries, 1), "params"), "WG_SIZE",
                            json_loads(bad[i][0], JSON_DECODE_ANY, NULL));
        json_t *root = json_pack("{s:i, s:o}", "flowbench_tuning_cache", 1, "entries", entries);
        char *text = json_dumps(root, JSON_INDENT(2));
        expect_load_error("bad-value.json", text, bad[i][1]);
        free(text);
        json_decref(root);
    }
    /* the rule's own limit is a value */
    json_t *e = entry_of("dev", "k", "double", sig_of(100, 5, 1, 1), 1000000000);
    fb_tuning_cache *c = empty_cache();
    assert_int_equal(fb_cache_put(c, e), FB_OK);
    json_decref(e);
    fb_cache_free(c);
}

/* Stores into a cache whose lock another process holds; stderr goes to
 * *note. */
static fb_status store_while_locked(const char *path, const char *wait, char *note, size_t len)
{
    char lock[300], err_path[300];
    tmp_path(err_path, sizeof err_path, "stderr.txt");
    snprintf(lock, sizeof lock, "%s.lock", path);
    int held = open(lock, O_RDWR | O_CREAT, 0666), saved = dup(2),
        err = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0666);
    assert_true(held >= 0 && saved >= 0 && err >= 0);
    assert_int_equal(flock(held, LOCK_EX), 0); /* another open file: another holder, as another process is */
    setenv("FLOWBENCH_LOCK_WAIT", wait, 1);
    json_t *e = entry_of("dev", "k", "double", sig_of(100, 5, 1, 1), 64);
    fflush(stderr);
    dup2(err, 2);
    fb_status st = fb_cache_store(path, e, NULL);
    fflush(stderr);
    dup2(saved, 2);
    unsetenv("FLOWBENCH_LOCK_WAIT");
    json_decref(e);
    ssize_t n = pread(err, note, len - 1, 0);
    note[n > 0 ? n : 0] = '\0';
    close(err), close(saved), close(held);
    return st;
}

/* A held lock is waited for with a note naming it, up to a bound, and a
 * signal ends the wait; it used to wait forever, silently, deaf to
 * SIGTERM. alarm: a wait that never ends fails the test instead of
 * hanging it. */
static void test_lock_wait_is_said_bounded_and_interruptible(void **state)
{
    (void)state;
    char path[256], note[1024];
    tmp_path(path, sizeof path, "locked.json");
    alarm(20);
    assert_int_equal(store_while_locked(path, "1.2", note, sizeof note), FB_ERR_IO); /* the note comes after 1 s */
    assert_non_null(strstr(fb_error_message(), path));
    assert_non_null(strstr(fb_error_message(), ".lock: another process held this lock for 1.2 s; gave up"));
    assert_non_null(strstr(note, "waiting for the lock "));
    assert_non_null(strstr(note, path));
    assert_null(strstr(strstr(note, "waiting") + 1, "waiting")); /* said once */

    fb_interrupted = 1;
    fb_status st = store_while_locked(path, "60", note, sizeof note);
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_non_null(strstr(fb_error_message(), ".lock: interrupted while waiting for this lock"));

    assert_int_equal(store_while_locked(path, "soon", note, sizeof note), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "FLOWBENCH_LOCK_WAIT: 'soon' is not a number of seconds"));
    alarm(0);
    struct stat st_file;
    assert_int_equal(stat(path, &st_file), -1); /* nothing was stored */
}

static void test_missing_file_is_empty_cache(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    assert_int_equal(fb_cache_size(c), 0);
    fb_signature s = sig_of(100, 5, 1, 1);
    fb_cache_match match;
    assert_null(fb_cache_lookup(c, "dev", "k", 1, &s, &match));
    assert_int_equal(match, FB_CACHE_NONE);
    fb_cache_free(c);
}

/* Eight tune runs storing into one cache at once, each its own kernel:
 * every entry is in the file afterwards (load, put, save lost some). */
static void test_concurrent_stores_keep_every_entry(void **state)
{
    (void)state;
    enum { N = 8 };
    char path[512];
    fb_tuning_cache *c = NULL;
    tmp_path(path, sizeof path, "concurrent.json");
    for (int i = 0; i < N; ++i) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char kernel[16];
            snprintf(kernel, sizeof kernel, "k%d", i);
            json_t *e = entry_of("dev", kernel, "double", sig_of(100, 5, 1, 1), 64);
            _exit(fb_cache_store(path, e, NULL) == FB_OK ? 0 : 1);
        }
    }
    for (int i = 0; i < N; ++i) {
        int st = 0;
        assert_true(wait(&st) > 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(fb_cache_load(path, &c), FB_OK);
    assert_int_equal(fb_cache_size(c), N);
    fb_cache_free(c);
    /* the same key again replaces its entry */
    int size = 0;
    json_t *e = entry_of("dev", "k0", "double", sig_of(100, 5, 1, 1), 128);
    assert_int_equal(fb_cache_store(path, e, &size), FB_OK);
    json_decref(e);
    assert_int_equal(size, N);
}

/* The solver's mesh signature from its pressure matrix's rows
 * (bench/signature.h). */
static void test_mesh_signature_of_rows(void **state)
{
    (void)state;
    /* the pressure matrix's rows: neighbours + the diagonal */
    fb_mesh_signature m = fb_mesh_signature_of_rows(100, 1100, 11.0, 2.0, 15.0);
    assert_int_equal(m.nodes, 100);
    assert_int_equal(m.edges, 1000);
    assert_float_equal(m.degree_mean, 10.0, 0);
    assert_float_equal(m.degree_stddev, 2.0, 0);
    assert_float_equal(m.degree_max, 14.0, 0);
}

/* |log nx ratio| + |log ny ratio| + |log nz ratio| + |log stretch ratio|:
 * each axis on its own, so a grid of another shape is further than one of
 * the same shape and four times the cells. */
static void test_grid_distance(void **state)
{
    (void)state;
    fb_signature a = grid_of(100, 100, 1, 1.0), wide = grid_of(200, 100, 1, 1.0);
    assert_true(fb_signature_distance(&a, &a) == 0.0);
    assert_float_equal(fb_signature_distance(&a, &wide), log(2.0), 1e-15);
    assert_float_equal(fb_signature_distance(&wide, &a), log(2.0), 1e-15);
    fb_signature deep = grid_of(100, 100, 2, 1.0), stretched = grid_of(100, 100, 1, 4.0);
    assert_float_equal(fb_signature_distance(&a, &deep), log(2.0), 1e-15);
    assert_float_equal(fb_signature_distance(&a, &stretched), log(4.0), 1e-15);
    fb_signature flat = grid_of(400, 25, 1, 1.0), bigger = grid_of(200, 200, 1, 1.0);
    assert_float_equal(fb_signature_distance(&a, &flat), 2 * log(4.0), 1e-15);
    assert_true(fb_signature_distance(&a, &bigger) < fb_signature_distance(&a, &flat));
}

/* A grid says nothing about a matrix or a mesh: INFINITY between kinds,
 * however alike the numbers, and a lookup never crosses kinds. */
static void test_kinds_never_match(void **state)
{
    (void)state;
    fb_signature matrix = sig_of(100, 5, 1, 1), grid = grid_of(100, 5, 1, 1.0), mesh = mesh_of(100, 5, 1, 8);
    assert_true(isinf(fb_signature_distance(&matrix, &grid)));
    assert_true(isinf(fb_signature_distance(&grid, &mesh)));
    assert_true(isinf(fb_signature_distance(&mesh, &matrix)));
    assert_true(isinf(fb_signature_distance(&grid, &matrix)));

    fb_tuning_cache *c = empty_cache();
    fb_cache_match match = FB_CACHE_EXACT;
    put(c, entry_of("dev", "k", "double", matrix, 64));
    assert_null(fb_cache_lookup(c, "dev", "k", 1, &grid, &match));
    assert_int_equal(match, FB_CACHE_NONE);
    assert_null(fb_cache_lookup(c, "dev", "k", 1, &mesh, &match));
    assert_int_equal(match, FB_CACHE_NONE);

    put(c, entry_of("dev", "k", "double", grid, 128)); /* not "the same signature" as the matrix's */
    put(c, entry_of("dev", "k", "double", mesh, 256));
    assert_int_equal(fb_cache_size(c), 3);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "k", 1, &matrix, &match)), 64);
    assert_int_equal(match, FB_CACHE_EXACT);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "k", 1, &grid, &match)), 128);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_signature other_mesh = mesh_of(200, 5, 1, 8);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "k", 1, &other_mesh, &match)), 256);
    assert_int_equal(match, FB_CACHE_NEAREST);
    fb_cache_free(c);
}

static void test_grid_lookup_exact_nearest_default(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature small = grid_of(33, 33, 1, 1.0), big = grid_of(257, 257, 1, 1.0);
    put(c, entry_of("dev", "heat-jacobi", "double", big, 256));
    put(c, entry_of("dev", "heat-jacobi", "double", small, 64));
    fb_cache_match match;
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "heat-jacobi", 1, &small, &match)), 64);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_signature query = grid_of(40, 40, 1, 1.0);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "heat-jacobi", 1, &query, &match)), 64);
    assert_int_equal(match, FB_CACHE_NEAREST);
    query = grid_of(200, 200, 1, 1.0);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "heat-jacobi", 1, &query, &match)), 256);
    assert_int_equal(match, FB_CACHE_NEAREST);
    query = grid_of(33, 33, 1, 2.0); /* the same size, stretched: near, not the same */
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "heat-jacobi", 1, &query, &match)), 64);
    assert_int_equal(match, FB_CACHE_NEAREST);
    assert_null(fb_cache_lookup(c, "dev", "heat-jacobi", 0, &small, &match)); /* another precision */
    assert_int_equal(match, FB_CACHE_NONE);
    assert_null(fb_cache_lookup(c, "dev", "heat-rbgs", 1, &small, &match)); /* another kernel */
    assert_int_equal(match, FB_CACHE_NONE);

    put(c, entry_of("dev", "heat-jacobi", "double", grid_of(33, 33, 1, 1.0), 32)); /* the same grid: replaced */
    assert_int_equal(fb_cache_size(c), 2);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "heat-jacobi", 1, &small, &match)), 32);
    fb_cache_free(c);
}

static void test_mesh_lookup_exact_nearest(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_signature l0 = mesh_of(3375, 12.45, 2.2, 14), l2 = mesh_of(185193, 13.4, 1.2, 14);
    put(c, entry_of("dev", "ns", "double", l0, 64));
    put(c, entry_of("dev", "ns", "double", l2, 256));
    fb_cache_match match;
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "ns", 1, &l0, &match)), 64);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_signature l1 = mesh_of(24389, 13.0, 1.7, 14);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "ns", 1, &l1, &match)), 64);
    assert_int_equal(match, FB_CACHE_NEAREST);
    fb_signature other_max = l0;
    other_max.mesh.degree_max = 20; /* the distance leaves it out; "the same" does not */
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "ns", 1, &other_max, &match)), 64);
    assert_int_equal(match, FB_CACHE_NEAREST);
    fb_cache_free(c);
}

/* Files written before signatures had kinds: an entry without "kind" is a
 * matrix signature, and an "ns" entry's is the mesh as its pressure
 * matrix, read as that mesh and found exactly by the mesh signature
 * the solver computes now (through fb_mesh_signature_of_rows). */
static void test_entries_without_kind(void **state)
{
    (void)state;
    char path[128];
    fb_tuning_cache *c = NULL;
    const double mean = 45403.0 / 3375, stddev = 2.220591322525045, max = 15;
    json_t *old_matrix = entry_of("dev", "csr-vector", "double", sig_of(10000, 5, 1, 1), 64);
    json_t *old_ns =
        json_pack("{s:s, s:s, s:s, s:s, s:{s:i, s:i, s:f, s:f, s:f, s:i}, s:{s:i}}", "device", "dev", "kernel", "ns",
                  "family", "ns", "precision", "double", "signature", "rows", 3375, "nnz", 45403, "nnz_per_row_mean",
                  mean, "nnz_per_row_stddev", stddev, "nnz_per_row_max", max, "block", 1, "params", "WG_SIZE", 32);
    json_object_del(json_object_get(old_matrix, "signature"), "kind");
    json_t *root = json_pack("{s:i, s:[o, o]}", "flowbench_tuning_cache", 1, "entries", old_matrix, old_ns);
    tmp_path(path, sizeof path, "before-kinds.json");
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);

    assert_int_equal(fb_cache_load(path, &c), FB_OK);
    assert_int_equal(fb_cache_size(c), 2);
    fb_cache_match match;
    fb_signature matrix = sig_of(10000, 5, 1, 1);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "csr-vector", 1, &matrix, &match)), 64);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_signature mesh = {.kind = FB_SIGNATURE_MESH, .mesh = fb_mesh_signature_of_rows(3375, 45403, mean, stddev, max)};
    assert_int_equal(mesh.mesh.edges, 42028);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "ns", 1, &mesh, &match)), 32);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_signature as_matrix = sig_of(3375, mean, stddev, 1); /* it is no longer a matrix signature */
    assert_null(fb_cache_lookup(c, "dev", "ns", 1, &as_matrix, &match));

    put(c, entry_of("dev", "ns", "double", mesh, 128)); /* a new entry for the same mesh replaces the old one */
    assert_int_equal(fb_cache_size(c), 2);
    assert_int_equal(wg_of(fb_cache_lookup(c, "dev", "ns", 1, &mesh, &match)), 128);
    fb_cache_free(c);
}

/* Each kind survives save and load, says its kind in the file, and a
 * signature of an unknown kind or a grid without its fields is refused. */
static void test_kinds_round_trip_and_errors(void **state)
{
    (void)state;
    char path[128];
    fb_tuning_cache *c = empty_cache(), *back = NULL;
    fb_signature grid = grid_of(12, 10, 8, 1.0), mesh = mesh_of(3375, 12.452740740740741, 2.2, 14);
    put(c, entry_of("dev", "fv-gather", "single", grid, 64));
    put(c, entry_of("dev", "ns", "double", mesh, 128));
    tmp_path(path, sizeof path, "kinds.json");
    assert_int_equal(fb_cache_save(c, path), FB_OK);
    fb_cache_free(c);
    json_t *root = json_load_file(path, 0, NULL), *entries = json_object_get(root, "entries");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(json_array_get(entries, 0), "signature"), "kind")), "grid");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(json_array_get(entries, 1), "signature"), "kind")), "mesh");
    json_decref(root);
    assert_int_equal(fb_cache_load(path, &back), FB_OK);
    fb_cache_match match;
    assert_int_equal(wg_of(fb_cache_lookup(back, "dev", "fv-gather", 0, &grid, &match)), 64);
    assert_int_equal(match, FB_CACHE_EXACT);
    assert_int_equal(wg_of(fb_cache_lookup(back, "dev", "ns", 1, &mesh, &match)), 128);
    assert_int_equal(match, FB_CACHE_EXACT);
    fb_cache_free(back);

    c = empty_cache();
    json_t *e = entry_of("dev", "fv-gather", "double", grid, 64);
    json_object_set_new(json_object_get(e, "signature"), "kind", json_string("tensor"));
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"kind\""));
    json_decref(e);
    e = entry_of("dev", "fv-gather", "double", grid, 64);
    json_object_del(json_object_get(e, "signature"), "nz");
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"nz\""));
    json_decref(e);
    e = entry_of("dev", "fv-gather", "double", grid_of(12, 10, 8, 0.5), 64);
    assert_int_equal(fb_cache_put(c, e), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "\"stretch\""));
    json_decref(e);
    assert_int_equal(fb_cache_size(c), 0);
    fb_cache_free(c);
}

/* setenv, or unsetenv when value is NULL (a variable that was not set). */
static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* Every variable a cache path reads: saved and unset before a path test,
 * put back after (a failed assertion too), since ctest gives each test a
 * FLOWBENCH_CACHE_DIR of its own (tests/CMakeLists.txt), which would come
 * before XDG_CACHE_HOME. */
static const char *const path_vars[] = {"FLOWBENCH_CACHE_DIR",    "FLOWBENCH_TUNING_CACHE", "FLOWBENCH_NOISE_FILE",
                                        "FLOWBENCH_STREAM_CACHE", "XDG_CACHE_HOME",         "HOME"};
#define NPATH_VARS (sizeof path_vars / sizeof *path_vars)
static char *saved_path_vars[NPATH_VARS];

static int save_path_vars(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPATH_VARS; ++i) {
        saved_path_vars[i] = getenv(path_vars[i]) ? strdup(getenv(path_vars[i])) : NULL;
        unsetenv(path_vars[i]);
    }
    return 0;
}

static int restore_path_vars(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPATH_VARS; ++i) {
        set_env(path_vars[i], saved_path_vars[i]);
        free(saved_path_vars[i]);
        saved_path_vars[i] = NULL;
    }
    return 0;
}

static void test_default_path(void **state)
{
    (void)state;
    char buf[256];

    set_env("FLOWBENCH_TUNING_CACHE", "/srv/tuning.json");
    set_env("XDG_CACHE_HOME", "/xdg");
    set_env("HOME", "/home/u");
    fb_cache_default_path(buf, sizeof buf);
    assert_string_equal(buf, "/srv/tuning.json");
    unsetenv("FLOWBENCH_TUNING_CACHE");
    fb_cache_default_path(buf, sizeof buf);
    assert_string_equal(buf, "/xdg/flowbench/tuning.json");
    unsetenv("XDG_CACHE_HOME");
    fb_cache_default_path(buf, sizeof buf);
    assert_string_equal(buf, "/home/u/.cache/flowbench/tuning.json");
    unsetenv("HOME");
    fb_cache_default_path(buf, sizeof buf);
    assert_string_equal(buf, "flowbench-tuning.json");
}

/* Each cache's default path with XDG_CACHE_HOME and HOME set, so that a
 * path still taken from them fails. */
static void assert_caches_in(const char *tuning, const char *noise, const char *stream, const char *prior)
{
    char buf[256], beside[256];
    fb_cache_default_path(buf, sizeof buf);
    assert_string_equal(buf, tuning);
    fb_noise_path(NULL, buf, sizeof buf);
    assert_string_equal(buf, noise);
    fb_stream_ref_default_path(buf, sizeof buf);
    assert_string_equal(buf, stream);
    fb_cache_default_path(buf, sizeof buf);
    fb_prior_path_beside(buf, beside, sizeof beside);
    assert_string_equal(beside, prior);
}

/* FLOWBENCH_CACHE_DIR is the folder of every cache (history.db, beside the
 * tuning cache too: e2e.history), before XDG_CACHE_HOME and HOME, after
 * each file's own variable and an explicit option; empty is unset. */
static void test_cache_dir_moves_every_cache(void **state)
{
    (void)state;
    char buf[256];
    set_env("XDG_CACHE_HOME", "/xdg");
    set_env("HOME", "/home/u");

    set_env("FLOWBENCH_CACHE_DIR", "/fb");
    assert_caches_in("/fb/tuning.json", "/fb/noise.json", "/fb/stream.json", "/fb/tuning-prior.json");
    fb_cache_path("/opt/mine.json", buf, sizeof buf);
    assert_string_equal(buf, "/opt/mine.json");
    fb_noise_path("/opt/noise.json", buf, sizeof buf);
    assert_string_equal(buf, "/opt/noise.json");

    set_env("FLOWBENCH_TUNING_CACHE", "/srv/t.json"); /* what lives beside it moves with it, as before */
    set_env("FLOWBENCH_NOISE_FILE", "/srv/n.json");
    assert_caches_in("/srv/t.json", "/srv/n.json", "/srv/stream.json", "/srv/tuning-prior.json");
    set_env("FLOWBENCH_STREAM_CACHE", "/srv/s.json");
    fb_stream_ref_default_path(buf, sizeof buf);
    assert_string_equal(buf, "/srv/s.json");

    unsetenv("FLOWBENCH_TUNING_CACHE");
    unsetenv("FLOWBENCH_NOISE_FILE");
    unsetenv("FLOWBENCH_STREAM_CACHE");
    set_env("FLOWBENCH_CACHE_DIR", "");
    assert_caches_in("/xdg/flowbench/tuning.json", "/xdg/flowbench/noise.json", "/xdg/flowbench/stream.json",
                     "/xdg/flowbench/tuning-prior.json");
}

/* --tuned takes only a point of the kernel's space: a cached value outside
 * it (an edited cache) is refused naming the cache file, where it ran
 * into the kernel's own refusal, which named no file. */
static void test_tuned_value_outside_the_space_names_the_cache(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_device_info dev = {.backend = "opencl", .name = "dev", .vendor = "v", .driver_version = "1", .compute_units = 2};
    fb_param_axis axes[1] = {{.name = "WG_SIZE", .def = 64, .values = {32, 64, 128}, .nvalues = 3}};
    fb_signature sig = sig_of(1000, 7, 1, 1);
    fb_param_point point;
    json_t *tuning = NULL;
    char device[1024];
    fb_device_fingerprint(&dev, device, sizeof device);
    put(c, entry_of(device, "csr-scalar", "double", sig, 128));
    assert_int_equal(fb_tuned_point(c, &dev, "csr-scalar", axes, 1, 1, &sig, &point, &tuning), FB_OK);
    assert_int_equal(point.values[0], 128);
    json_decref(tuning), tuning = NULL;
    put(c, entry_of(device, "csr-scalar", "double", sig, -64)); /* the same key: replaces */
    assert_int_equal(fb_tuned_point(c, &dev, "csr-scalar", axes, 1, 1, &sig, &point, &tuning), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "never-written.json: its entry for csr-scalar holds WG_SIZE=-64"));
    json_decref(tuning);
    fb_cache_free(c);
}

/* An entry stored on one device, found from others by the fallback of
 * cache.h: the same GPU after a driver upgrade ("device"), another GPU of
 * its architecture, another GPU of its vendor; nothing for another
 * vendor's GPU or a CPU. The nearer level wins over a nearer signature,
 * and the tuning record says which level matched and how far. */
static fb_device_info gpu(const char *name, const char *driver, int cc_minor, const char *vendor)
{
    fb_device_info d = {.backend = "cuda", .compute_units = 132, .cc_major = 9, .cc_minor = cc_minor};
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
    snprintf(d.driver_version, sizeof d.driver_version, "%s", driver);
    return d;
}

static int tuned_wg(const fb_tuning_cache *c, const fb_device_info *dev, const fb_signature *sig, const char *level)
{
    fb_param_axis axes[1] = {{.name = "WG_SIZE", .def = 64, .values = {32, 64, 128, 256}, .nvalues = 4}};
    fb_param_point point;
    json_t *tuning = NULL;
    assert_int_equal(fb_tuned_point(c, dev, "csr-scalar", axes, 1, 1, sig, &point, &tuning), FB_OK);
    assert_string_equal(json_string_value(json_object_get(tuning, "device_match")), level);
    assert_true(!strcmp(level, "none") || json_is_real(json_object_get(tuning, "distance")));
    json_decref(tuning);
    return point.values[0];
}

static void test_lookup_falls_back_across_devices(void **state)
{
    (void)state;
    fb_tuning_cache *c = empty_cache();
    fb_device_info h100 = gpu("NVIDIA H100", "12.4", 0, "NVIDIA"), upgraded = gpu("NVIDIA H100", "13.0", 0, "NVIDIA");
    fb_device_info h200 = gpu("NVIDIA H200", "12.4", 0, "NVIDIA"), gh = gpu("NVIDIA GH200", "12.4", 1, "NVIDIA");
    fb_device_info amd = gpu("AMD MI300", "6.0", 0, "AMD"), cpu = h100;
    amd.cc_major = 0; /* no compute capability: its name stands for its architecture */
    cpu.host_cpu = 1, cpu.cc_major = 0;
    snprintf(cpu.name, sizeof cpu.name, "NVIDIA Grace");
    fb_signature sig = sig_of(1000, 7, 1, 1), far = sig_of(100000, 27, 3, 1);
    json_t *e = entry_of("x", "csr-scalar", "double", sig, 128);
    assert_int_equal(fb_cache_set_device(e, &h100), FB_OK);
    put(c, e);
    assert_int_equal(tuned_wg(c, &h100, &sig, "exact"), 128);
    assert_int_equal(tuned_wg(c, &upgraded, &sig, "device"), 128);
    assert_int_equal(tuned_wg(c, &h200, &sig, "architecture"), 128);
    assert_int_equal(tuned_wg(c, &gh, &sig, "vendor"), 128);
    assert_int_equal(tuned_wg(c, &amd, &sig, "none"), 64);
    assert_int_equal(tuned_wg(c, &cpu, &sig, "none"), 64);
    /* the upgraded driver's own entry, of a far signature, beats the old driver's exact one */
    e = entry_of("x", "csr-scalar", "double", far, 256);
    assert_int_equal(fb_cache_set_device(e, &upgraded), FB_OK);
    put(c, e);
    assert_int_equal(tuned_wg(c, &upgraded, &sig, "exact"), 256);
    assert_int_equal(tuned_wg(c, &h100, &sig, "exact"), 128);
    fb_cache_free(c);
}

static long long int_at(const json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

/* A family's signature (fb_family.signature) says what its record object
 * says of the problem: rows, nnz, entries per row and block for a scalar
 * and a blocked matrix; the extents and stretch of a stretched heat2d
 * grid and an fv-surface grid. */
static void test_family_signature_is_its_records(void **state)
{
    (void)state;
    static const struct {
        const char *family, *spec;
    } problems[] = {{"spmv", "gen:cube:6"},
                    {"spmv", "gen:cube:6:block=3"},
                    {"heat2d", "grid:33x17:stretch=4"},
                    {"fv-surface", "grid:8x6x4"}};
    for (size_t i = 0; i < sizeof problems / sizeof problems[0]; ++i) {
        const fb_family *f = fb_family_find(problems[i].family);
        void *problem = NULL;
        fb_signature typed;
        assert_non_null(f);
        assert_int_equal(f->problem_open(problems[i].spec, &problem), FB_OK);
        f->signature(problem, &typed);
        const json_t *rec = f->problem_json(problem), *per_row = json_object_get(rec, "nnz_per_row");
        if (typed.kind == FB_SIGNATURE_MATRIX) {
            const json_t *block = json_object_get(rec, "block");
            assert_true(typed.matrix.rows == int_at(rec, "rows") && typed.matrix.nnz == int_at(rec, "nnz"));
            assert_true(typed.matrix.row_mean == json_number_value(json_object_get(per_row, "mean")));
            assert_true(typed.matrix.row_max == json_number_value(json_object_get(per_row, "max")));
            assert_int_equal(typed.matrix.block, block ? int_at(block, "size") : 1);
        } else {
            assert_int_equal(typed.kind, FB_SIGNATURE_GRID);
            assert_true(typed.grid.nx == int_at(rec, "nx") && typed.grid.ny == int_at(rec, "ny"));
            assert_true(typed.grid.nz == (json_object_get(rec, "nz") ? int_at(rec, "nz") : 1));
            const json_t *stretch = json_object_get(rec, "stretch");
            assert_true(typed.grid.stretch == (stretch ? json_number_value(stretch) : 1.0));
        }
        f->problem_close(problem);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fingerprint_format),
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_lookup_exact_and_nearest),
        cmocka_unit_test(test_lookup_never_crosses_key_or_block),
        cmocka_unit_test(test_put_replaces_equal_key),
        cmocka_unit_test(test_put_equal_as_the_distance_sees_it),
        cmocka_unit_test(test_put_rejects_incomplete_entries),
        cmocka_unit_test(test_save_load_round_trip),
        cmocka_unit_test(test_load_duplicates_and_interrupt),
        cmocka_unit_test(test_save_error_names_path),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_refuses_bad_param_values),
        cmocka_unit_test(test_lock_wait_is_said_bounded_and_interruptible),
        cmocka_unit_test(test_missing_file_is_empty_cache),
        cmocka_unit_test(test_concurrent_stores_keep_every_entry),
        cmocka_unit_test_setup_teardown(test_default_path, save_path_vars, restore_path_vars),
        cmocka_unit_test_setup_teardown(test_cache_dir_moves_every_cache, save_path_vars, restore_path_vars),
        cmocka_unit_test(test_mesh_signature_of_rows),
        cmocka_unit_test(test_grid_distance),
        cmocka_unit_test(test_kinds_never_match),
        cmocka_unit_test(test_grid_lookup_exact_nearest_default),
        cmocka_unit_test(test_mesh_lookup_exact_nearest),
        cmocka_unit_test(test_entries_without_kind),
        cmocka_unit_test(test_kinds_round_trip_and_errors),
        cmocka_unit_test(test_family_signature_is_its_records),
        cmocka_unit_test(test_tuned_value_outside_the_space_names_the_cache),
        cmocka_unit_test(test_lookup_falls_back_across_devices),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
