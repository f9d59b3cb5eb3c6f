/* test_fake_cuda.c - the CUDA backend's own behaviour on the test suite's
 * fake driver (tests/fake_cuda/: a libcuda.so.1 loaded through the
 * backend's own search by FLOWBENCH_CUDA_DRIVER), where CI has no GPU:
 * its device and properties, open and close with every buffer and context
 * given back, memory that round-trips, out of memory named, module
 * sharing (one compile and one module for the kernels of one source and
 * defines, unloaded with the last of them), a kernel that is not in its
 * source, and the search for the toolkit's libraries. NVRTC is real: the
 * build's. The fake cannot run kernels, so nothing here checks a result
 * of one. Skips (77) where the CUDA backend is not built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/dynlib.h"
#include "backends/target.h"
#include "core/kernel_sources.h"

#ifdef FB_FAKE_CUDA

typedef void (*counts_fn)(int *allocs, int *contexts, int *loaded, int *unloaded, long *launched);

typedef struct fake_counts {
    int allocs, contexts, loaded, unloaded;
    long launched;
} fake_counts;

/* The fake's bookkeeping: the same library the backend opened (dlopen of
 * one path gives one handle). */
static fake_counts counts(void)
{
    fake_counts c;
    void *lib = dlopen(FB_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    counts_fn fn = (counts_fn)dlsym(lib, "fake_cuda_counts");
    assert_non_null(fn);
    fn(&c.allocs, &c.contexts, &c.loaded, &c.unloaded, &c.launched);
    dlclose(lib);
    return c;
}

static const fb_backend_ops *cuda(void)
{
    const fb_backend_ops *ops = fb_backend_find("cuda");
    assert_non_null(ops);
    return ops;
}

static void test_the_fake_device_is_found(void **state)
{
    (void)state;
    char why[256] = "";
    fb_device_info info;
    assert_int_equal(cuda()->probe(why, sizeof why), 1);
    assert_int_equal(cuda()->device_info(0, &info), FB_OK);
    assert_string_equal(info.id, "cuda:0");
    assert_string_equal(info.name, "flowbench fake GPU");
    assert_string_equal(info.device_version, "sm_90");
    assert_int_equal(info.compute_units, 132);
    assert_int_equal(info.cache_bytes, 50 << 20);
}

static void test_open_and_close_give_everything_back(void **state)
{
    (void)state;
    fb_device *dev = NULL;
    fb_buffer *b[3];
    double in[8], out[8];
    const fake_counts before = counts();
    for (int i = 0; i < 8; ++i)
        in[i] = 0.5 * i, out[i] = -1;
    assert_int_equal(cuda()->open(0, &dev), FB_OK);
    for (int i = 0; i < 3; ++i)
        assert_int_equal(cuda()->alloc(dev, sizeof in, &b[i]), FB_OK);
    assert_int_equal(cuda()->copy_in(dev, b[1], in, sizeof in), FB_OK);
    assert_int_equal(cuda()->copy_out(dev, out, b[1], sizeof out), FB_OK);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(counts().allocs, before.allocs + 3);
    assert_int_equal(counts().contexts, before.contexts + 1);
    cuda()->release(dev, b[0]);
    cuda()->close(dev); /* the two still held go with it */
    assert_int_equal(counts().allocs, before.allocs);
    assert_int_equal(counts().contexts, before.contexts);
}

static void test_out_of_memory_is_named(void **state)
{
    (void)state;
    fb_device *dev = NULL;
    fb_buffer *b = NULL;
    assert_int_equal(cuda()->open(0, &dev), FB_OK);
    setenv("FAKE_CUDA_OOM", "1", 1);
    assert_int_equal(cuda()->alloc(dev, 1024, &b), FB_ERR_NOMEM);
    unsetenv("FAKE_CUDA_OOM");
    assert_null(b);
    assert_non_null(strstr(fb_error_message(), "cuMemAlloc"));
    assert_non_null(strstr(fb_error_message(), "CUDA_ERROR_OUT_OF_MEMORY"));
    cuda()->close(dev);
}

static fb_program_spec stream_spec(const char *kernel, const fb_define *defines, int ndefines)
{
    const char *text = fb_kernel_source("stream/stream.cl");
    assert_non_null(text);
    return (fb_program_spec){"stream/stream.cl", text, kernel, defines, ndefines, NULL};
}

/* The kernels of one source and defines are one compile and one module,
 * unloaded with the last of them; other defines are another module. */
static void test_kernels_of_one_source_share_a_module(void **state)
{
    (void)state;
    fb_device *dev = NULL;
    fb_kernel *copy = NULL, *triad = NULL, *single = NULL;
    const fb_define real = {"REAL", "float"};
    const fb_program_spec a = stream_spec("stream_copy", NULL, 0), b = stream_spec("stream_triad", NULL, 0);
    const fb_program_spec c = stream_spec("stream_copy", &real, 1);
    assert_int_equal(cuda()->open(0, &dev), FB_OK);
    const fake_counts before = counts();
    assert_int_equal(cuda()->build(dev, &a, &copy, NULL), FB_OK);
    assert_int_equal(cuda()->build(dev, &b, &triad, NULL), FB_OK);
    assert_int_equal(counts().loaded, before.loaded + 1);
    assert_int_equal(cuda()->build(dev, &c, &single, NULL), FB_OK);
    assert_int_equal(counts().loaded, before.loaded + 2);
    cuda()->release_kernel(dev, copy);
    assert_int_equal(counts().unloaded, before.unloaded); /* triad still holds it */
    cuda()->release_kernel(dev, triad);
    assert_int_equal(counts().unloaded, before.unloaded + 1);
    cuda()->close(dev); /* single's module with the device */
    assert_int_equal(counts().unloaded, before.unloaded + 2);
}

static void test_a_kernel_not_in_its_source_is_a_build_error(void **state)
{
    (void)state;
    fb_device *dev = NULL;
    fb_kernel *k = NULL;
    const fb_program_spec spec = stream_spec("no_such_kernel", NULL, 0);
    assert_int_equal(cuda()->open(0, &dev), FB_OK);
    assert_int_equal(cuda()->build(dev, &spec, &k, NULL), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "no __kernel of that name"));
    cuda()->close(dev);
}

/* The toolkit's libraries: the override first, CUDA_HOME's three layouts,
 * ..., the loader's path last; a library found nowhere names every place. */
static void test_the_toolkit_search(void **state)
{
    (void)state;
    char paths[16][1024], why[1024];
    setenv("FLOWBENCH_CUDA_LIBDIR", "/fb-a", 1);
    setenv("CUDA_HOME", "/fb-b", 1);
    unsetenv("CUDA_PATH");
    const int n = fb_cuda_lib_candidates("libx.so.9", paths, 16);
    assert_true(n >= 5);
    assert_string_equal(paths[0], "/fb-a/libx.so.9");
    assert_string_equal(paths[1], "/fb-b/lib64/libx.so.9");
#if defined(__x86_64__)
    assert_string_equal(paths[2], "/fb-b/targets/x86_64-linux/lib/libx.so.9");
#endif
    assert_string_equal(paths[3], "/fb-b/lib/libx.so.9");
    assert_string_equal(paths[n - 1], "libx.so.9");
    assert_null(fb_cuda_lib_open("libflowbench-absent.so.1", why, sizeof why));
    assert_non_null(strstr(why, "/fb-a/libflowbench-absent.so.1"));
    assert_non_null(strstr(why, "/fb-b/lib64/libflowbench-absent.so.1"));
    assert_non_null(strstr(why, "the loader's path"));
    unsetenv("FLOWBENCH_CUDA_LIBDIR");
    unsetenv("CUDA_HOME");
}

int main(void)
{
    setenv("FLOWBENCH_CUDA_DRIVER", FB_FAKE_CUDA, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_fake_device_is_found),
        cmocka_unit_test(test_open_and_close_give_everything_back),
        cmocka_unit_test(test_out_of_memory_is_named),
        cmocka_unit_test(test_kernels_of_one_source_share_a_module),
        cmocka_unit_test(test_a_kernel_not_in_its_source_is_a_build_error),
        cmocka_unit_test(test_the_toolkit_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("skipped: the CUDA backend is not built (no fake driver)\n");
    return 77;
}

#endif
