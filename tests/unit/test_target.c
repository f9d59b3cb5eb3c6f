/* test_target.c - backend registry, spec parsing, method checks, the build
 * cache and define rendering, on the always-present openmp backend; the
 * program text the device compilers read (preludes, #line, includes); the
 * size of a cold-cache flush (flush_size.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/flush_size.h"
#include "backends/target.h"
#include "core/kernel_sources.h"
#include "stream/stream.h"

static void test_registry_lists_three_backends(void **state)
{
    (void)state;
    assert_int_equal(fb_backend_count(), 3);
    assert_string_equal(fb_backend_at(0)->name, "openmp");
    assert_non_null(fb_backend_find("opencl"));
    assert_non_null(fb_backend_find("cuda"));
    assert_null(fb_backend_find("vulkan"));
    for (int i = 0; i < fb_backend_count(); ++i) {
        const fb_backend_ops *ops = fb_backend_at(i);
        char why[256] = "";
        fb_target *t = NULL;
        assert_non_null(ops->probe);
        if (ops->device_info) {
            assert_int_equal(fb_backend_check_methods(ops), FB_OK);
            continue;
        }
        /* not compiled in: only a probe, which says so, and opening it says why */
        assert_int_equal(ops->probe(why, sizeof why), 0);
        assert_non_null(strstr(why, "not built"));
        assert_int_equal(fb_target_open(ops->name, &t), FB_ERR_UNAVAILABLE);
        assert_null(t);
        assert_non_null(strstr(fb_error_message(), "not built"));
    }
}

static void test_missing_method_named(void **state)
{
    (void)state;
    fb_backend_ops partial = fb_backend_openmp;
    partial.name = "partial";
    partial.flush_cache = NULL;
    assert_int_equal(fb_backend_check_methods(&partial), FB_ERR_UNAVAILABLE);
    assert_non_null(strstr(fb_error_message(), "partial"));
    assert_non_null(strstr(fb_error_message(), "flush_cache"));
    partial.probe = NULL;
    assert_int_equal(fb_backend_check_methods(&partial), FB_ERR_UNAVAILABLE);
    assert_non_null(strstr(fb_error_message(), "probe"));
}

static void test_spec_parsing(void **state)
{
    (void)state;
    fb_target *t = NULL;
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    assert_string_equal(fb_target_info(t)->id, "openmp:0");
    fb_target_close(t);
    assert_int_equal(fb_target_open("openmp:0", &t), FB_OK);
    fb_target_close(t);
    assert_int_equal(fb_target_open("openmp:1", &t), FB_ERR_UNAVAILABLE);
    assert_null(t);
    assert_int_equal(fb_target_open("vulkan", &t), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "vulkan"));
    assert_int_equal(fb_target_open(":0", &t), FB_ERR_USAGE);
    assert_int_equal(fb_target_open("openmp:zz", &t), FB_ERR_UNAVAILABLE);
}

static void test_build_cache_and_launch(void **state)
{
    (void)state;
    fb_target *t = NULL;
    fb_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    int cached, compiled;
    const char *src = fb_kernel_source("stream/stream.cl");
    assert_non_null(src);
    fb_define dbl[] = {{"REAL", "double"}}, flt[] = {{"REAL", "float"}};
    fb_program_spec spec = {"stream/stream.cl", src, "stream_triad", dbl, 1, fb_stream_host_kernels};
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    assert_int_equal(fb_target_build(t, &spec, &k1), FB_OK);
    assert_int_equal(fb_target_build(t, &spec, &k2), FB_OK);
    spec.defines = flt;
    assert_int_equal(fb_target_build(t, &spec, &k3), FB_OK);
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 1);
    assert_int_equal(compiled, 2);
    assert_ptr_equal(k1, k2);
    assert_ptr_not_equal(k1, k3);

    /* triad a = b + 0.4 c on 1000 doubles, checked element by element. */
    enum { N = 1000 };
    double b[N], c[N], a[N];
    for (int i = 0; i < N; ++i) {
        b[i] = i;
        c[i] = 2.0 * i;
    }
    fb_buffer *A, *B, *C;
    assert_int_equal(fb_target_alloc(t, sizeof a, &A), FB_OK);
    assert_int_equal(fb_target_alloc(t, sizeof b, &B), FB_OK);
    assert_int_equal(fb_target_alloc(t, sizeof c, &C), FB_OK);
    assert_int_equal(fb_target_copy_in(t, B, b, sizeof b), FB_OK);
    assert_int_equal(fb_target_copy_in(t, C, c, sizeof c), FB_OK);
    fb_arg args[] = {fb_arg_buffer(A), fb_arg_buffer(B), fb_arg_buffer(C), fb_arg_real(1, 0.4), fb_arg_i32(N)};
    fb_launch l = fb_launch_1d(N, 256);
    assert_int_equal(l.global[0], 1024);
    double secs = -1;
    assert_int_equal(fb_target_launch(t, k1, &l, args, 5, &secs), FB_OK);
    assert_true(secs >= 0);
    assert_int_equal(fb_target_copy_out(t, a, A, sizeof a), FB_OK);
    for (int i = 0; i < N; ++i)
        assert_float_equal(a[i], b[i] + 0.4 * c[i], 0);
    /* Wrong argument count is a launch error, not a crash. */
    assert_int_equal(fb_target_launch(t, k1, &l, args, 4, NULL), FB_ERR_LAUNCH);
    /* Geometry that is not a multiple of the work-group is refused. */
    fb_launch bad = {.dims = 1, .global = {1000, 1, 1}, .local = {256, 1, 1}};
    assert_int_equal(fb_target_launch(t, k1, &bad, args, 5, NULL), FB_ERR_LAUNCH);
    assert_int_equal(fb_target_flush_cache(t), FB_OK);
    fb_target_close(t); /* frees the buffers still held */
}

static void test_unknown_host_kernel(void **state)
{
    (void)state;
    fb_target *t = NULL;
    fb_kernel *k = NULL;
    fb_program_spec spec = {"x.cl", "", "no_such_kernel", NULL, 0, fb_stream_host_kernels};
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    assert_int_equal(fb_target_build(t, &spec, &k), FB_ERR_UNAVAILABLE);
    assert_non_null(strstr(fb_error_message(), "no_such_kernel"));
    fb_target_close(t);
}

static void test_defines_render(void **state)
{
    (void)state;
    char out[64];
    fb_define d[] = {{"REAL", "float"}, {"USE_LDG", NULL}, {"WG", "128"}};
    assert_int_equal(fb_defines_render(d, 3, out, sizeof out), FB_OK);
    assert_string_equal(out, "-DREAL=float -DUSE_LDG -DWG=128");
    assert_string_equal(fb_defines_get(d, 3, "WG"), "128");
    assert_string_equal(fb_defines_get(d, 3, "USE_LDG"), "");
    assert_null(fb_defines_get(d, 3, "NOPE"));
    fb_define evil[] = {{"X", "1 -DY=2"}};
    assert_int_equal(fb_defines_render(evil, 1, out, sizeof out), FB_ERR_INPUT);
    char tiny[8];
    assert_int_equal(fb_defines_render(d, 3, tiny, sizeof tiny), FB_ERR_NOMEM);
}

/* common.cl, then the kernel, each under a #line naming it; an #include
 * expanded from the kernel sources as its own file, the includer's
 * numbering resumed after it; a missing file named with the includer's
 * file and line. */
static void test_program_text(void **state)
{
    (void)state;
    char *text = NULL;
    const char *kernel = "/* line 1 */\n#include \"spmv/merge_path.h\"\nint after;\n";
    assert_int_equal(fb_kernel_program_text(NULL, "test/k.cl", kernel, &text), FB_OK);
    const char *own = strstr(text, "#line 1 \"test/k.cl\"\n/* line 1 */\n");
    const char *helper = strstr(text, "#line 1 \"spmv/merge_path.h\"\n");
    const char *resumed = strstr(text, "#line 3 \"test/k.cl\"\nint after;\n");
    assert_memory_equal(text, "#line 1 \"common.cl\"\n", 20);
    assert_non_null(strstr(text, "#define REAL double"));
    assert_true(own && helper && resumed && own < helper && helper < resumed);
    assert_non_null(strstr(helper, "FB_INLINE int merge_path_rows("));
    free(text);

    assert_int_equal(fb_kernel_program_text("cuda/opencl_to_cuda.h", "test/k.cl", "int x;", &text), FB_OK);
    assert_memory_equal(text, "#line 1 \"cuda/opencl_to_cuda.h\"\n", 32);
    assert_non_null(strstr(text, "#line 1 \"common.cl\"\n"));
    free(text);

    /* a name cannot end its directive and start a line: '"' and '\\' escaped, a newline in octal */
    assert_int_equal(fb_kernel_program_text(NULL, "a\"b\\c\n#error x", "int x;\n", &text), FB_OK);
    assert_non_null(strstr(text, "#line 1 \"a\\\"b\\\\c\\012#error x\"\nint x;\n"));
    assert_null(strstr(text, "\n#error"));
    free(text);

    const char *missing = "int x;\n  #  include \"grid/no_such.h\" /* spaced */\n";
    assert_int_equal(fb_kernel_program_text(NULL, "test/k.cl", missing, &text), FB_ERR_BUILD);
    assert_null(text);
    assert_non_null(strstr(fb_error_message(), "test/k.cl:2: #include \"grid/no_such.h\": no such kernel source"));
}

static void write_file(const char *path, const char *a, const char *b)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(a, f);
    fputs(b, f);
    fclose(f);
}

/* FLOWBENCH_KERNEL_DIR serves the prelude and included files too; the
 * prelude is part of a build's cache key; an include cycle is an error. */
static void test_program_text_from_kernel_dir(void **state)
{
    (void)state;
    const char *prelude = fb_kernel_source("common.cl"), *src = fb_kernel_source("stream/stream.cl");
    assert_true(prelude && src);
    char dir[] = "/tmp/fb-test-XXXXXX", prelude_path[64], loop_path[64], *text = NULL;
    assert_non_null(mkdtemp(dir));
    snprintf(prelude_path, sizeof prelude_path, "%s/common.cl", dir);
    snprintf(loop_path, sizeof loop_path, "%s/loop.h", dir);
    write_file(prelude_path, prelude, "/* edited prelude */\n");
    write_file(loop_path, "#include \"loop.h\"\n", "");

    fb_target *t = NULL;
    fb_kernel *k = NULL;
    int cached = -1, compiled = -1;
    const fb_define dbl[] = {{"REAL", "double"}};
    const fb_program_spec spec = {"stream/stream.cl", src, "stream_triad", dbl, 1, fb_stream_host_kernels};
    assert_int_equal(fb_target_open("openmp", &t), FB_OK);
    assert_int_equal(fb_target_build(t, &spec, &k), FB_OK);
    setenv("FLOWBENCH_KERNEL_DIR", dir, 1);
    assert_int_equal(fb_target_build(t, &spec, &k), FB_OK); /* same kernel text, other prelude */
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 0);
    assert_int_equal(compiled, 2);
    fb_target_close(t);

    assert_int_equal(fb_kernel_program_text(NULL, "test/k.cl", "int x;\n", &text), FB_OK);
    assert_non_null(strstr(text, "/* edited prelude */"));
    free(text);
    assert_int_equal(fb_kernel_program_text(NULL, "test/k.cl", "#include \"loop.h\"\n", &text), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "loop.h:1: #include \"loop.h\": includes nested deeper than 8"));
    unsetenv("FLOWBENCH_KERNEL_DIR");
    unlink(prelude_path);
    unlink(loop_path);
    rmdir(dir);
}

#define MIB ((size_t)1 << 20)

/* The NVIDIA OpenCL driver's 4.1 MiB for a 50 MiB L2: CUDA's L2 when CUDA
 * sees the device, else 256 MiB; other vendors keep their reported cache. */
static void test_flush_size_rule(void **state)
{
    (void)state;
    const char *why = NULL;
    size_t reported = 4352 * 1024, l2 = 50 * MIB;
    assert_int_equal(fb_flush_bytes("NVIDIA Corporation", reported, l2, 0, &why), 100 * MIB);
    assert_non_null(strstr(why, "CUDA"));
    assert_int_equal(fb_flush_bytes("NVIDIA Corporation", reported, 0, 0, &why), 256 * MIB);
    assert_non_null(strstr(why, "256 MiB"));
    assert_true(fb_flush_bytes("NVIDIA Corporation", reported, 0, 0, NULL) > 2 * l2);
    /* a small L2 seen by CUDA still flushes the 64 MiB floor */
    assert_int_equal(fb_flush_bytes("NVIDIA Corporation", reported, 6 * MIB, 0, NULL), 64 * MIB);
    /* PoCL and other vendors: twice the reported cache, at least 64 MiB */
    assert_int_equal(fb_flush_bytes("AuthenticAMD", 256 * MIB, 0, 0, NULL), 512 * MIB);
    assert_int_equal(fb_flush_bytes("AuthenticAMD", 32 * MIB, 0, 0, NULL), 64 * MIB);
    assert_int_equal(fb_flush_bytes("Advanced Micro Devices, Inc.", 0, 0, 0, NULL), 64 * MIB);
    /* capped by the largest buffer, rounded down to a multiple of 64 */
    assert_int_equal(fb_flush_bytes("NVIDIA Corporation", reported, 0, 100 * MIB + 5, &why), 100 * MIB);
    assert_non_null(strstr(why, "largest buffer"));
    /* no CUDA device of an unknown name (and none at all where CUDA is not built) */
    assert_int_equal(fb_cuda_l2_of("no such GPU"), 0);
    assert_int_equal(fb_cuda_l2_of(""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_lists_three_backends),
        cmocka_unit_test(test_flush_size_rule),
        cmocka_unit_test(test_missing_method_named),
        cmocka_unit_test(test_spec_parsing),
        cmocka_unit_test(test_build_cache_and_launch),
        cmocka_unit_test(test_unknown_host_kernel),
        cmocka_unit_test(test_defines_render),
        cmocka_unit_test(test_program_text),
        cmocka_unit_test(test_program_text_from_kernel_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
