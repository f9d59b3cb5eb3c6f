/* test_device_backend.c BACKEND - one device backend (opencl or cuda) through
 * the common interface, on its device 0 (PoCL's CPU device in CI for opencl;
 * a GPU for cuda): stream_triad in both precisions checked element by
 * element against a serial twin, build failures, the build cache, device
 * properties, and the backend's own limits (oversized buffers, bad
 * arguments, work-groups too large, cache flush). Every test skips, printing
 * why, when the backend has no device, as cuda does on CI. The few words
 * that differ between backends' messages are in the table below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/target.h"
#include "core/kernel_sources.h"

#define N 1000 /* not a multiple of the work-group: the tail guard runs */
#define WG 64
#define PAD 24 /* global = 1024: items N..N+PAD-1 must write nothing */
#define SCALAR 0.4
#define SENTINEL -7.0

typedef struct backend_words {
    const char *name;
    const char *version_word; /* in device_version */
    const char *arg_size;     /* the error for a float passed where a double is taken */
    const char *broken_line;  /* how the compiler names line 3 of test/broken.cl */
    const char *later_line;   /* and line 4 */
} backend_words;

static const backend_words all_words[] = {
    {"opencl", "OpenCL", "CL_INVALID_ARG_SIZE", "test/broken.cl:3:", "test/broken.cl:4:"},
    {"cuda", "sm_", "the parameter takes 4 bytes", "test/broken.cl(3)", "test/broken.cl(4)"},
};

static const backend_words *words; /* the backend under test, from argv[1] */

static const char *const broken_source = "__kernel void broken_kernel(__global float *x)\n"
                                         "{\n"
                                         "    x[0] = ;\n"
                                         "}\n";

/* The same error on line 4, after a helper the build path includes. */
static const char *const broken_after_include = "#include \"spmv/merge_path.h\"\n"
                                                "__kernel void broken_kernel(__global float *x)\n"
                                                "{\n"
                                                "    x[0] = ;\n"
                                                "}\n";

/* Opens device 0 of the backend, or skips the test saying why there is none. */
static fb_target *open_or_skip(void)
{
    char why[256] = "";
    const fb_backend_ops *ops = fb_backend_find(words->name);
    assert_non_null(ops);
    if (ops->probe(why, sizeof why) <= 0) {
        print_message("skipped: no %s device: %s\n", words->name, why);
        skip();
        return NULL;
    }
    fb_target *t = NULL;
    if (fb_target_open(words->name, &t) != FB_OK) fail_msg("fb_target_open(%s): %s", words->name, fb_error_message());
    return t;
}

static fb_program_spec stream_spec(const char *kernel, const fb_define *defines, int ndefines)
{
    const char *text = fb_kernel_source("stream/stream.cl");
    assert_non_null(text);
    return (fb_program_spec){"stream/stream.cl", text, kernel, defines, ndefines, NULL};
}

/* Host arrays in either precision, read and written as double. */
static void put(void *a, int i, double v, int is_double)
{
    if (is_double)
        ((double *)a)[i] = v;
    else
        ((float *)a)[i] = (float)v;
}

static double get(const void *a, int i, int is_double)
{
    return is_double ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* Serial twin of stream_triad, in the kernel's precision. The device may
 * contract b + s*c into an fma (OpenCL C allows it), hence a few ulps. */
static void check_triad(const void *a, const void *b, const void *c, int is_double)
{
    const double eps = is_double ? 2.220446049250313e-16 : 1.1920929e-7;
    for (int i = 0; i < N; ++i) {
        double bi = get(b, i, is_double), ci = get(c, i, is_double);
        double want = is_double ? bi + SCALAR * ci : (double)((float)bi + (float)SCALAR * (float)ci);
        double got = get(a, i, is_double);
        double tol = 4 * eps * (fabs(bi) + fabs(SCALAR * ci));
        if (fabs(got - want) > tol) fail_msg("triad[%d] = %.17g, want %.17g (tolerance %.3g)", i, got, want, tol);
    }
    for (int i = N; i < N + PAD; ++i)
        if (get(a, i, is_double) != SENTINEL) fail_msg("triad wrote a[%d] past n = %d", i, N);
}

static void run_triad(int is_double)
{
    fb_target *t = open_or_skip();
    const fb_define defines[] = {{"REAL", is_double ? "double" : "float"}};
    fb_program_spec spec = stream_spec("stream_triad", defines, 1);
    fb_kernel *k = NULL;
    if (is_double && !fb_target_info(t)->double_support) {
        assert_int_equal(fb_target_build(t, &spec, &k), FB_ERR_UNAVAILABLE);
        assert_non_null(strstr(fb_error_message(), "device has no double precision"));
        print_message("skipped: %s has no double precision\n", fb_target_info(t)->id);
        fb_target_close(t);
        skip();
        return;
    }
    size_t elem = is_double ? sizeof(double) : sizeof(float);
    size_t bytes = (N + PAD) * elem;
    void *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    assert_true(a && b && c);
    for (int i = 0; i < N + PAD; ++i) {
        put(a, i, SENTINEL, is_double);
        put(b, i, 1.0 + 0.1 * (i % 97), is_double);
        put(c, i, 2.0 - 0.003 * i, is_double);
    }
    fb_buffer *da = NULL, *db = NULL, *dc = NULL;
    assert_int_equal(fb_target_build(t, &spec, &k), FB_OK);
    assert_int_equal(fb_target_alloc(t, bytes, &da), FB_OK);
    assert_int_equal(fb_target_alloc(t, bytes, &db), FB_OK);
    assert_int_equal(fb_target_alloc(t, bytes, &dc), FB_OK);
    assert_int_equal(fb_target_copy_in(t, da, a, bytes), FB_OK);
    assert_int_equal(fb_target_copy_in(t, db, b, bytes), FB_OK);
    assert_int_equal(fb_target_copy_in(t, dc, c, bytes), FB_OK);

    const fb_arg args[] = {fb_arg_buffer(da), fb_arg_buffer(db), fb_arg_buffer(dc), fb_arg_real(is_double, SCALAR),
                           fb_arg_i32(N)};
    fb_launch launch = fb_launch_1d(N, WG);
    assert_int_equal(launch.global[0], N + PAD);
    double seconds = -1;
    fb_status st = fb_target_launch(t, k, &launch, args, 5, &seconds);
    if (st != FB_OK) fail_msg("launch: %s", fb_error_message());
    assert_true(seconds > 0 && seconds < 10);
    assert_int_equal(fb_target_finish(t), FB_OK);

    memset(a, 0, bytes);
    assert_int_equal(fb_target_copy_out(t, a, da, bytes), FB_OK);
    check_triad(a, b, c, is_double);
    print_message("%s %s triad n=%d: %.3g s (device events)\n", fb_target_info(t)->id, is_double ? "double" : "float",
                  N, seconds);

    fb_target_release(t, da);
    fb_target_release(t, db);
    fb_target_release(t, dc);
    free(a);
    free(b);
    free(c);
    fb_target_close(t);
}

static void test_triad_double(void **state)
{
    (void)state;
    run_triad(1);
}

static void test_triad_float(void **state)
{
    (void)state;
    run_triad(0);
}

static void test_device_info(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    const fb_device_info *info = fb_target_info(t);
    print_message("%s: %s | %s | %s | driver %s | %s | %d CUs, %d MHz, wg %zu, cache %zu B, fp64 %d, sub-group %d\n",
                  info->id, info->name, info->vendor, info->device_version, info->driver_version, info->runtime_version,
                  info->compute_units, info->clock_mhz, info->max_work_group_size, info->cache_bytes,
                  info->double_support, info->subgroup_size);
    assert_string_equal(info->backend, words->name);
    assert_memory_equal(info->id, words->name, strlen(words->name));
    assert_int_equal(info->id[strlen(words->name)], ':');
    assert_true(info->name[0] && info->vendor[0] && info->device_version[0] && info->driver_version[0]);
    assert_non_null(strstr(info->device_version, words->version_word));
    assert_true(info->runtime_version[0]);
    assert_true(info->compute_units > 0);
    assert_true(info->max_work_group_size > 0);
    assert_true(info->max_work_item_sizes[0] > 0);
    assert_true(info->global_mem_bytes > 0);
    assert_true(info->local_mem_bytes > 0);
    assert_true(info->double_support == 0 || info->double_support == 1);
    if (strcmp(words->name, "cuda") == 0) {
        assert_true(info->cc_major >= 3);
        assert_int_equal(info->subgroup_size, 32);
        assert_int_equal(info->double_support, 1);
    } else {
        assert_int_equal(info->cc_major, 0);
    }
    /* PoCL has no sub-groups: it must say 0, not a width a kernel could rely on (docs/kernels.md, csr-vector). */
    if (strstr(info->runtime_version, "Portable Computing Language")) assert_int_equal(info->subgroup_size, 0);

    /* The id devices prints opens the same device. */
    char spec[48];
    snprintf(spec, sizeof spec, "%s", info->id);
    fb_target *again = NULL;
    assert_int_equal(fb_target_open(spec, &again), FB_OK);
    assert_string_equal(fb_target_info(again)->name, info->name);
    fb_target_close(again);
    fb_target_close(t);
}

static void test_build_error_names_kernel(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    fb_program_spec spec = {"test/broken.cl", broken_source, "broken_kernel", NULL, 0, NULL};
    fb_kernel *k = NULL;
    assert_int_equal(fb_target_build(t, &spec, &k), FB_ERR_BUILD);
    const char *msg = fb_error_message();
    print_message("build error: %s\n", msg);
    assert_non_null(strstr(msg, "broken_kernel"));
    assert_non_null(strstr(msg, "test/broken.cl"));
    assert_non_null(strstr(msg, "build failed"));
    assert_null(k);
    /* The kernel is compiled after the prelude (common.cl), and PoCL compiles
     * a temporary copy; the message names ours, with its own line, through
     * the #line directives of the program text, as NVRTC's does. Likewise
     * after an included helper: numbering resumes in the kernel's file. */
    int names_lines =
        strcmp(words->name, "cuda") == 0 || strstr(fb_target_info(t)->runtime_version, "Portable Computing Language");
    if (names_lines) assert_non_null(strstr(msg, words->broken_line));
    fb_program_spec later = {"test/broken.cl", broken_after_include, "broken_kernel", NULL, 0, NULL};
    assert_int_equal(fb_target_build(t, &later, &k), FB_ERR_BUILD);
    print_message("after an include: %s\n", fb_error_message());
    if (names_lines) assert_non_null(strstr(fb_error_message(), words->later_line));

    /* An include the kernel sources lack is a build error naming the line. */
    fb_program_spec missing_include = {
        "test/broken.cl", "\n#include \"spmv/no_such.h\"\n", "broken_kernel", NULL, 0, NULL};
    assert_int_equal(fb_target_build(t, &missing_include, &k), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "test/broken.cl:2: #include \"spmv/no_such.h\": no such kernel source"));

    /* A kernel name the source lacks is a build error too, named. */
    fb_program_spec missing = stream_spec("no_such_kernel", NULL, 0);
    assert_int_equal(fb_target_build(t, &missing, &k), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "no_such_kernel"));

    /* Failed builds are not cached. */
    int cached = -1, compiled = -1;
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 0);
    assert_int_equal(compiled, 0);
    fb_target_close(t);
}

/* The backend hands the whole compiler log to callers that ask for it. */
static void test_build_log(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    const fb_backend_ops *ops = fb_target_ops(t);
    fb_target_close(t);
    fb_device *dev = NULL;
    assert_int_equal(ops->open(0, &dev), FB_OK);
    fb_program_spec spec = {"test/broken.cl", broken_source, "broken_kernel", NULL, 0, NULL};
    fb_kernel *k = NULL;
    char *log = NULL;
    assert_int_equal(ops->build(dev, &spec, &k, &log), FB_ERR_BUILD);
    assert_non_null(log);
    assert_non_null(strstr(log, "error"));
    free(log);
    ops->close(dev);
}

static void test_build_cache(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    const fb_define single[] = {{"REAL", "float"}};
    const fb_define twice[] = {{"REAL", "float"}, {"EXTRA", NULL}};
    fb_program_spec spec = stream_spec("stream_triad", single, 1);
    fb_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    int cached = -1, compiled = -1;
    assert_int_equal(fb_target_build(t, &spec, &k1), FB_OK);
    assert_int_equal(fb_target_build(t, &spec, &k2), FB_OK);
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 1);
    assert_int_equal(compiled, 1);
    assert_ptr_equal(k1, k2);

    fb_program_spec other = stream_spec("stream_triad", twice, 2);
    assert_int_equal(fb_target_build(t, &other, &k3), FB_OK);
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 1);
    assert_int_equal(compiled, 2);
    assert_ptr_not_equal(k1, k3);
    fb_target_close(t);
}

/* stream_fill(x, value, n) through the backend's own calls, checked. */
static void fill_and_check(const fb_backend_ops *ops, fb_device *dev, fb_kernel *fill, int is_double, double value)
{
    const size_t elem = is_double ? sizeof(double) : sizeof(float);
    double host[N] = {0};
    fb_buffer *x = NULL;
    assert_int_equal(ops->alloc(dev, N * elem, &x), FB_OK);
    const fb_arg args[] = {fb_arg_buffer(x), fb_arg_real(is_double, value), fb_arg_i32(N)};
    const fb_launch launch = fb_launch_1d(N, WG);
    double seconds = 0;
    if (ops->launch(dev, fill, &launch, args, 3, &seconds) != FB_OK) fail_msg("launch: %s", fb_error_message());
    assert_int_equal(ops->finish(dev), FB_OK);
    assert_int_equal(ops->copy_out(dev, host, x, N * elem), FB_OK);
    for (int i = 0; i < N; ++i)
        if (get(host, i, is_double) != value) fail_msg("fill[%d] = %g, want %g", i, get(host, i, is_double), value);
    ops->release(dev, x);
}

/* Kernels of one source and defines share one program (built once: the
 * solver's twenty kernels of ns.cl); released in any order, the ones left
 * still run, and other defines are another program (a float fill is not
 * the double one's). */
static void test_program_shared(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    const fb_backend_ops *ops = fb_target_ops(t);
    const int doubles = fb_target_info(t)->double_support;
    fb_target_close(t);
    fb_device *dev = NULL;
    assert_int_equal(ops->open(0, &dev), FB_OK);
    const fb_define real[] = {{"REAL", doubles ? "double" : "float"}}, single[] = {{"REAL", "float"}};
    fb_program_spec triad = stream_spec("stream_triad", real, 1), fill = stream_spec("stream_fill", real, 1);
    fb_program_spec fill_single = stream_spec("stream_fill", single, 1);
    fb_kernel *kt = NULL, *kf = NULL, *kfs = NULL;
    assert_int_equal(ops->build(dev, &triad, &kt, NULL), FB_OK);
    assert_int_equal(ops->build(dev, &fill, &kf, NULL), FB_OK);
    assert_int_equal(ops->build(dev, &fill_single, &kfs, NULL), FB_OK);
    ops->release_kernel(dev, kt); /* the program's first kernel goes first */
    fill_and_check(ops, dev, kf, doubles, 2.5);
    fill_and_check(ops, dev, kfs, 0, -1.25);
    ops->release_kernel(dev, kf);
    fill_and_check(ops, dev, kfs, 0, 3.0);
    ops->close(dev);
}

/* The runtime's word on a built kernel (docs/results.md, kernel_resources):
 * CUDA gives registers and occupancy, OpenCL the work-group info. */
static void test_kernel_resources(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    const fb_define defines[] = {{"REAL", "float"}};
    fb_program_spec spec = stream_spec("stream_triad", defines, 1);
    fb_kernel *k = NULL;
    fb_kernel_resources r;
    assert_int_equal(fb_target_build(t, &spec, &k), FB_OK);
    assert_int_equal(fb_target_kernel_resources(t, k, 256, &r), FB_OK);
    print_message("%s stream_triad: %d registers, %zu B private, %zu B local, max group %zu, multiple %zu, "
                  "%d groups/CU, occupancy %.2f\n",
                  fb_target_info(t)->id, r.registers, r.private_bytes, r.local_bytes, r.max_group_items,
                  r.group_multiple, r.groups_per_unit, r.occupancy);
    assert_true(r.max_group_items >= 256);
    assert_true(r.group_multiple >= 1);
    assert_int_equal(r.local_bytes, 0); /* the kernel declares no __local */
    if (strcmp(words->name, "cuda") == 0) {
        assert_true(r.registers > 0);
        assert_true(r.groups_per_unit > 0);
        assert_true(r.occupancy > 0 && r.occupancy <= 1.0);
    }
    fb_target_close(t);
}

/* Limits and misuse, straight through the table: each fails with the status
 * and the names the caller needs, and close() frees what is still held. */
static void test_backend_limits(void **state)
{
    (void)state;
    fb_target *t = open_or_skip();
    size_t max_wg = fb_target_info(t)->max_work_group_size;
    const fb_define single[] = {{"REAL", "float"}};
    fb_program_spec spec = stream_spec("stream_fill", single, 1);
    fb_kernel *k = NULL;
    fb_buffer *empty = NULL, *huge = NULL, *x = NULL;
    assert_int_equal(fb_target_build(t, &spec, &k), FB_OK);

    assert_int_equal(fb_target_alloc(t, 0, &empty), FB_OK);
    assert_int_equal(fb_target_copy_in(t, empty, "", 0), FB_OK);
    assert_int_equal(fb_target_alloc(t, SIZE_MAX / 2, &huge), FB_ERR_NOMEM);
    assert_non_null(strstr(fb_error_message(), "is larger than the device's"));
    assert_null(huge);

    float host[16] = {0};
    assert_int_equal(fb_target_alloc(t, sizeof host, &x), FB_OK);
    assert_int_not_equal(fb_target_copy_in(t, x, host, 2 * sizeof host), FB_OK);

    fb_launch launch = fb_launch_1d(16, 16);
    fb_arg too_few[] = {fb_arg_buffer(x), fb_arg_real(0, 1.0)};
    assert_int_equal(fb_target_launch(t, k, &launch, too_few, 2, NULL), FB_ERR_LAUNCH);
    assert_non_null(strstr(fb_error_message(), "stream_fill"));

    fb_arg wrong_precision[] = {fb_arg_buffer(x), fb_arg_real(1, 1.0), fb_arg_i32(16)};
    assert_int_equal(fb_target_launch(t, k, &launch, wrong_precision, 3, NULL), FB_ERR_LAUNCH);
    print_message("float passed for double: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), words->arg_size));

    fb_arg args[] = {fb_arg_buffer(x), fb_arg_real(0, 3.0), fb_arg_i32(16)};
    fb_launch too_wide = fb_launch_1d(2 * max_wg, 2 * max_wg);
    assert_int_equal(fb_target_launch(t, k, &too_wide, args, 3, NULL), FB_ERR_LAUNCH);
    print_message("oversized work-group: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "stream_fill"));

    assert_int_equal(fb_target_launch(t, k, &launch, args, 3, NULL), FB_OK);
    assert_int_equal(fb_target_flush_cache(t), FB_OK);
    assert_int_equal(fb_target_flush_cache(t), FB_OK);
    assert_int_equal(fb_target_copy_out(t, host, x, sizeof host), FB_OK);
    for (int i = 0; i < 16; ++i)
        assert_float_equal(host[i], 3.0f, 0);
    /* empty and x are left for close() to free. */
    fb_target_close(t);
}

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof all_words / sizeof all_words[0]; ++i)
        if (strcmp(argv[1], all_words[i].name) == 0) words = &all_words[i];
    if (!words) {
        fprintf(stderr, "usage: test_device_backend opencl|cuda\n");
        return 2;
    }
    char why[256] = "";
    if (fb_backend_find(words->name)->probe(why, sizeof why) <= 0) {
        printf("skipped: %s: %s\n", words->name, why[0] ? why : "no device"); /* ctest: SKIP_RETURN_CODE */
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_info),    cmocka_unit_test(test_triad_double),
        cmocka_unit_test(test_triad_float),    cmocka_unit_test(test_build_error_names_kernel),
        cmocka_unit_test(test_build_log),      cmocka_unit_test(test_build_cache),
        cmocka_unit_test(test_backend_limits), cmocka_unit_test(test_kernel_resources),
        cmocka_unit_test(test_program_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
