/* test_noise.c - the A/A noise store: what one learned comparison adds,
 * the floor read back, refusing a file that is not a store, and learners
 * running at once keeping every comparison (the lock). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/gate/noise.h"

static void store_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/flowbench-noise-%ld-%s.json", P_tmpdir, (long)getpid(), name);
    unlink(buf);
}

static void remove_store(const char *path)
{
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
}

static void learn_one(const char *path, const char *machine, const char *key, double change)
{
    json_t *changes = json_pack("{s:f}", key, change);
    size_t stored = 0;
    assert_int_equal(fb_noise_learn(path, machine, changes, &stored), FB_OK);
    assert_int_equal(stored, 1);
    json_decref(changes);
}

static void test_missing_store_is_empty(void **state)
{
    (void)state;
    char path[512];
    json_t *configs = NULL;
    int k = -1;
    store_path(path, sizeof path, "missing");
    assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_OK);
    assert_int_equal(k, 0);
    assert_int_equal(json_object_size(configs), 0);
    json_decref(configs);
}

static void test_learn_and_floor(void **state)
{
    (void)state;
    char path[512];
    json_t *configs = NULL, *floors;
    int k = 0;
    store_path(path, sizeof path, "learn");
    learn_one(path, "cpu|gpu", "cfg", 0.10);
    learn_one(path, "cpu|gpu", "cfg", 0.30);
    learn_one(path, "other machine", "cfg", 2.0); /* another machine's noise stays its own */
    assert_int_equal(fb_noise_load(path, "cpu|gpu", &configs, &k), FB_OK);
    assert_int_equal(k, 2);
    const json_t *c = json_object_get(configs, "cfg");
    assert_int_equal(json_integer_value(json_object_get(c, "n")), 2);
    assert_float_equal(json_real_value(json_object_get(c, "max")), 0.30, 1e-12);
    assert_float_equal(json_real_value(json_object_get(c, "rms")), 0.2236067977, 1e-9); /* sqrt((.01+.09)/2) */
    floors = fb_noise_floors(configs);
    assert_float_equal(json_real_value(json_object_get(json_object_get(floors, "cfg"), "floor")),
                       FB_NOISE_MARGIN * 0.30, 1e-12);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(floors, "cfg"), "n")), 2);
    json_decref(floors);
    json_decref(configs);
    remove_store(path);
}

/* A configuration's floor is never below the tail of its device's A/A
 * changes: the upper decile over the configurations of one benchmark,
 * backend and device (their largest, in a group of 10 or fewer). Five A/A
 * pairs rarely show a configuration's whole tail. */
static void test_floor_of_the_device_group(void **state)
{
    (void)state;
    char path[512];
    json_t *configs = NULL, *floors, *changes;
    int k = 0;
    store_path(path, sizeof path, "group");
    changes =
        json_pack("{s:f, s:f, s:f, s:f}", "spmv|a|openmp|CPU|double|{}|m|", 0.02, "spmv|b|openmp|CPU|double|{}|m|",
                  0.30, "spmv|c|openmp|CPU|double|{}|m|", 0.10, "spmv|a|opencl|GPU|double|{}|m|", 0.01);
    assert_int_equal(fb_noise_learn(path, "m", changes, NULL), FB_OK);
    json_decref(changes);
    assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_OK);
    floors = fb_noise_floors(configs);
#define FLOOR(key) json_real_value(json_object_get(json_object_get(floors, key), "floor"))
    assert_float_equal(FLOOR("spmv|a|openmp|CPU|double|{}|m|"), FB_NOISE_MARGIN * 0.30, 1e-12); /* the group's */
    assert_float_equal(FLOOR("spmv|b|openmp|CPU|double|{}|m|"), FB_NOISE_MARGIN * 0.30, 1e-12); /* its own */
    assert_float_equal(FLOOR("spmv|a|opencl|GPU|double|{}|m|"), FB_NOISE_MARGIN * 0.01, 1e-12); /* another device */
#undef FLOOR
    json_decref(floors);
    json_decref(configs);
    remove_store(path);
}

/* In a group of 20 the upper decile is the 18th smallest: one odd
 * configuration keeps its own floor without raising everyone's. */
static void test_one_outlier_in_a_large_group(void **state)
{
    (void)state;
    char path[512], key[64];
    json_t *configs = NULL, *floors, *changes = json_object();
    int k = 0;
    store_path(path, sizeof path, "decile");
    for (int i = 0; i < 20; ++i) {
        snprintf(key, sizeof key, "spmv|k%d|openmp|CPU|double|{}|m|", i);
        json_object_set_new(changes, key, json_real(i == 7 ? 0.90 : 0.01 * (i % 5 + 1))); /* 0.01 .. 0.05 */
    }
    assert_int_equal(fb_noise_learn(path, "m", changes, NULL), FB_OK);
    json_decref(changes);
    assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_OK);
    floors = fb_noise_floors(configs);
#define FLOOR(key) json_real_value(json_object_get(json_object_get(floors, key), "floor"))
    assert_float_equal(FLOOR("spmv|k0|openmp|CPU|double|{}|m|"), FB_NOISE_MARGIN * 0.05, 1e-12);
    assert_float_equal(FLOOR("spmv|k7|openmp|CPU|double|{}|m|"), FB_NOISE_MARGIN * 0.90, 1e-12);
#undef FLOOR
    json_decref(floors);
    json_decref(configs);
    remove_store(path);
}

static void test_not_a_store_is_kept(void **state)
{
    (void)state;
    char path[512], back[64] = "";
    json_t *configs = NULL, *changes = json_pack("{s:f}", "cfg", 0.1);
    int k;
    store_path(path, sizeof path, "foreign");
    FILE *f = fopen(path, "w");
    fputs("{\"mine\": 1}\n", f);
    fclose(f);
    assert_int_equal(fb_noise_learn(path, "m", changes, NULL), FB_ERR_INPUT);
    assert_non_null(strstr(fb_error_message(), "not a flowbench noise store"));
    assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_ERR_INPUT);
    f = fopen(path, "r");
    assert_non_null(fgets(back, sizeof back, f));
    fclose(f);
    assert_string_equal(back, "{\"mine\": 1}\n"); /* untouched */
    json_decref(changes);
    remove_store(path);
}

/* A machine entry not as the learner writes it (an empty list for its
 * configurations, a configuration without its count) is refused naming the
 * file and the machine, and the file is kept: learning into it stored
 * nothing and said it had learned them all. */
static void test_bad_machine_entry_is_refused(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"{\"flowbench_noise\": 1, \"machines\": {\"m\": {\"comparisons\": 2, \"configs\": []}}}\n",
         "machine \"m\": \"configs\" is not a non-empty object"},
        {"{\"flowbench_noise\": 1, \"machines\": {\"m\": {\"comparisons\": 2, \"configs\": {}}}}\n",
         "machine \"m\": \"configs\" is not a non-empty object"},
        {"{\"flowbench_noise\": 1, \"machines\": {\"m\": {\"configs\": {\"cfg\": {\"n\": 1, \"max\": 0.1, "
         "\"rms\": 0.1}}}}}\n",
         "machine \"m\": \"comparisons\" is not a count"},
        {"{\"flowbench_noise\": 1, \"machines\": {\"m\": {\"comparisons\": 1, \"configs\": {\"cfg\": {\"max\": "
         "0.1}}}}}\n",
         "machine \"m\": configuration \"cfg\" has no count"},
    };
    char path[512], back[256];
    json_t *configs = NULL, *changes = json_pack("{s:f, s:f}", "cfg", 0.1, "cfg2", 0.2);
    int k;
    size_t stored = 7;
    store_path(path, sizeof path, "bad-entry");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        FILE *f = fopen(path, "w");
        fputs(bad[i][0], f);
        fclose(f);
        assert_int_equal(fb_noise_learn(path, "m", changes, &stored), FB_ERR_INPUT);
        assert_int_equal(stored, 0);
        assert_non_null(strstr(fb_error_message(), path));
        assert_non_null(strstr(fb_error_message(), bad[i][1]));
        assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_ERR_INPUT);
        assert_non_null(strstr(fb_error_message(), bad[i][1]));
        f = fopen(path, "r");
        assert_non_null(fgets(back, sizeof back, f));
        fclose(f);
        assert_string_equal(back, bad[i][0]); /* untouched */
        /* another machine's entry is not this one's business */
        assert_int_equal(fb_noise_load(path, "other", &configs, &k), FB_OK);
        json_decref(configs);
    }
    json_decref(changes);
    remove_store(path);
}

/* Eight learners at once, each with its own configuration: all eight
 * comparisons and configurations are in the store afterwards. */
static void test_concurrent_learners_keep_everything(void **state)
{
    (void)state;
    enum { N = 8 };
    char path[512];
    json_t *configs = NULL;
    int k = 0;
    store_path(path, sizeof path, "concurrent");
    for (int i = 0; i < N; ++i) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char key[16];
            json_t *changes;
            snprintf(key, sizeof key, "cfg%d", i);
            changes = json_pack("{s:f}", key, 0.01 * (i + 1));
            _exit(fb_noise_learn(path, "m", changes, NULL) == FB_OK ? 0 : 1);
        }
    }
    for (int i = 0; i < N; ++i) {
        int st = 0;
        assert_true(wait(&st) > 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(fb_noise_load(path, "m", &configs, &k), FB_OK);
    assert_int_equal(k, N);
    assert_int_equal(json_object_size(configs), N);
    json_decref(configs);
    remove_store(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_store_is_empty),       cmocka_unit_test(test_learn_and_floor),
        cmocka_unit_test(test_floor_of_the_device_group),    cmocka_unit_test(test_one_outlier_in_a_large_group),
        cmocka_unit_test(test_not_a_store_is_kept),          cmocka_unit_test(test_concurrent_learners_keep_everything),
        cmocka_unit_test(test_bad_machine_entry_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
