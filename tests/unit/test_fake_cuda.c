/* test_fake_cuda.c - the CUDA backend's own behaviour without a GPU, through
 * the fake driver of tests/fake_cuda/ (FLOWBENCH_CUDA_DRIVER, set before the
 * first CUDA call): what `devices` shows, open and close giving back every
 * buffer, event and context, bytes round-tripping, a failed allocation
 * named, kernels of one program sharing one module and the module unloaded
 * with the last of them, the loader's search order and its message, and a
 * sticky fault losing the context. The fake runs no kernel, so nothing here
 * checks a result. Skipped (77) where the CUDA backend is not built. */
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

#ifdef FB_HAVE_CUDA

typedef struct counts {
    int allocs, contexts, loaded, unloaded, events;
    long launches;
} counts;

static void (*fake_counts)(int *, int *, int *, int *, long *);
static int (*fake_live_events)(void);

/* What the fake driver holds now. */
static counts now(void)
{
    counts c;
    fake_counts(&c.allocs, &c.contexts, &c.loaded, &c.unloaded, &c.launches);
    c.events = fake_live_events();
    return c;
}

static fb_program_spec stream_spec(const char *kernel, const fb_define *defines, int ndefines)
{
    const char *text = fb_kernel_source("stream/stream.cl");
    assert_non_null(text);
    return (fb_program_spec){"stream/stream.cl", text, kernel, defines, ndefines, NULL};
}

static fb_target *open_cuda(void)
{
    fb_target *t = NULL;
    if (fb_target_open("cuda", &t) != FB_OK) fail_msg("fb_target_open(cuda): %s", fb_error_message());
    return t;
}

/* What `flowbench devices` lists: one device, the fake's, sm_90. */
static void test_devices(void **state)
{
    (void)state;
    char why[256] = "";
    const fb_backend_ops *ops = fb_backend_find("cuda");
    assert_non_null(ops);
    assert_int_equal(ops->probe(why, sizeof why), 1);
    fb_device_info info;
    assert_int_equal(ops->device_info(0, &info), FB_OK);
    assert_string_equal(info.id, "cuda:0");
    assert_string_equal(info.name, "flowbench fake GPU");
    assert_string_equal(info.device_version, "sm_90");
    assert_string_equal(info.driver_version, "CUDA driver API 13.0");
    assert_string_equal(info.pci_bus_id, "0000:65:00.0");
    assert_int_equal(info.compute_units, 132);
    assert_int_equal(info.max_work_group_size, 1024);
    assert_int_equal(info.local_mem_bytes, 48 << 10);
    assert_int_equal(info.cache_bytes, 50 << 20);
    assert_int_equal(info.subgroup_size, 32);
    assert_true(info.global_mem_bytes == (size_t)80 << 30);
    assert_int_equal(ops->device_info(1, &info), FB_ERR_UNAVAILABLE);
    assert_non_null(strstr(fb_error_message(), "no device 1 (1 found)"));
}

/* Three buffers, each a different pattern in and the same out; close gives
 * back what the caller still held, the events and the primary context. */
static void test_open_close(void **state)
{
    (void)state;
    enum { BYTES = 4096 };
    fb_buffer *b[3] = {NULL};
    unsigned char in[3][BYTES], out[BYTES];
    fb_target *t = open_cuda();
    counts open = now();
    assert_int_equal(open.contexts, 1);
    assert_int_equal(open.events, 2); /* the start and stop of timed launches */
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < BYTES; ++j)
            in[i][j] = (unsigned char)(j * (i + 3) + i);
        assert_int_equal(fb_target_alloc(t, BYTES, &b[i]), FB_OK);
        assert_int_equal(fb_target_copy_in(t, b[i], in[i], BYTES), FB_OK);
    }
    assert_int_equal(now().allocs, open.allocs + 3);
    for (int i = 0; i < 3; ++i) {
        memset(out, 0, sizeof out);
        assert_int_equal(fb_target_copy_out(t, out, b[i], BYTES), FB_OK);
        assert_memory_equal(out, in[i], BYTES);
    }
    fb_target_release(t, b[1]);
    assert_int_equal(now().allocs, open.allocs + 2);
    fb_buffer *empty = NULL; /* an empty array is valid; the driver refuses 0 bytes */
    assert_int_equal(fb_target_alloc(t, 0, &empty), FB_OK);
    assert_int_equal(fb_target_copy_in(t, empty, in[0], 0), FB_OK);
    assert_int_equal(fb_target_flush_cache(t), FB_OK); /* its buffer, 2 x the L2, allocated at first use */
    assert_int_equal(now().allocs, open.allocs + 4);
    fb_target_close(t); /* b[0], b[2], empty and the flush buffer are close()'s to free */
    counts closed = now();
    assert_int_equal(closed.allocs, 0);
    assert_int_equal(closed.contexts, 0);
    assert_int_equal(closed.events, 0);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    fb_target *t = open_cuda();
    fb_buffer *b = NULL;
    int before = now().allocs;
    setenv("FAKE_CUDA_OOM", "1", 1);
    fb_status st = fb_target_alloc(t, 1 << 20, &b);
    unsetenv("FAKE_CUDA_OOM");
    assert_int_equal(st, FB_ERR_NOMEM);
    print_message("out of memory: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "cuMemAlloc"));
    assert_non_null(strstr(fb_error_message(), "CUDA_ERROR_OUT_OF_MEMORY"));
    assert_null(b);
    assert_int_equal(now().allocs, before);
    assert_int_equal(fb_target_alloc(t, 1 << 20, &b), FB_OK); /* the fault is gone with the variable */
    fb_target_close(t);
    assert_int_equal(now().allocs, 0);
}

/* A launch of a built kernel through the backend; the fake refuses one
 * whose module was unloaded (CUDA_ERROR_INVALID_HANDLE). */
static void launch_ok(const fb_backend_ops *ops, fb_device *dev, fb_kernel *fill, fb_buffer *x)
{
    const fb_arg args[] = {fb_arg_buffer(x), fb_arg_real(0, 1.0), fb_arg_i32(256)};
    const fb_launch launch = fb_launch_1d(256, 64);
    if (ops->launch(dev, fill, &launch, args, 3, NULL) != FB_OK) fail_msg("launch: %s", fb_error_message());
}

/* Kernels of one source and defines are one module, unloaded with the last
 * of them; other defines are another module; a name the source lacks is a
 * build error that leaves the shared module loaded, or unloads its own. */
static void test_module_sharing(void **state)
{
    (void)state;
    fb_target *t = open_cuda();
    const fb_backend_ops *ops = fb_target_ops(t);
    fb_target_close(t);
    fb_device *dev = NULL;
    fb_buffer *x = NULL;
    fb_kernel *triad = NULL, *fill = NULL, *fill_double = NULL, *none = NULL;
    const fb_define single[] = {{"REAL", "float"}}, twice[] = {{"REAL", "double"}};
    fb_program_spec triad_spec = stream_spec("stream_triad", single, 1),
                    fill_spec = stream_spec("stream_fill", single, 1);
    fb_program_spec double_spec = stream_spec("stream_fill", twice, 1), none_spec = stream_spec("no_such", single, 1);
    assert_int_equal(ops->open(0, &dev), FB_OK);
    assert_int_equal(ops->alloc(dev, 256 * sizeof(float), &x), FB_OK);
    counts c0 = now();
    assert_int_equal(ops->build(dev, &triad_spec, &triad, NULL), FB_OK);
    assert_int_equal(ops->build(dev, &fill_spec, &fill, NULL), FB_OK);
    assert_int_equal(now().loaded, c0.loaded + 1);
    assert_int_equal(ops->build(dev, &none_spec, &none, NULL), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "no_such: build failed: no __kernel of that name"));
    assert_null(none);
    assert_int_equal(now().unloaded, c0.unloaded); /* the failed kernel shared the live module */
    ops->release_kernel(dev, triad);
    assert_int_equal(now().unloaded, c0.unloaded);
    launch_ok(ops, dev, fill, x); /* its module is still loaded */
    ops->release_kernel(dev, fill);
    assert_int_equal(now().unloaded, c0.unloaded + 1);
    assert_int_equal(ops->build(dev, &double_spec, &fill_double, NULL), FB_OK);
    assert_int_equal(ops->build(dev, &fill_spec, &fill, NULL), FB_OK);
    assert_int_equal(now().loaded, c0.loaded + 3);
    ops->release_kernel(dev, fill_double);
    launch_ok(ops, dev, fill, x);
    ops->release_kernel(dev, fill);
    assert_int_equal(ops->build(dev, &none_spec, &none, NULL), FB_ERR_BUILD); /* alone: its module goes with it */
    counts c1 = now();
    assert_int_equal(c1.loaded, c0.loaded + 4);
    assert_int_equal(c1.unloaded, c0.unloaded + 4);
    assert_int_equal(c1.launches, c0.launches + 2);
    ops->close(dev);
    assert_int_equal(now().allocs, 0);
}

/* The same kernels through the target's cache: one compile each, close
 * unloads every module. */
static void test_target_build(void **state)
{
    (void)state;
    fb_target *t = open_cuda();
    const fb_define single[] = {{"REAL", "float"}};
    fb_program_spec triad_spec = stream_spec("stream_triad", single, 1),
                    fill_spec = stream_spec("stream_fill", single, 1);
    fb_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    counts c0 = now();
    int cached = -1, compiled = -1;
    assert_int_equal(fb_target_build(t, &triad_spec, &k1), FB_OK);
    assert_int_equal(fb_target_build(t, &fill_spec, &k2), FB_OK);
    assert_int_equal(fb_target_build(t, &triad_spec, &k3), FB_OK);
    assert_ptr_equal(k1, k3);
    fb_target_build_counts(t, &cached, &compiled);
    assert_int_equal(cached, 1);
    assert_int_equal(compiled, 2);
    assert_int_equal(now().loaded, c0.loaded + 1);
    fb_kernel_resources r;
    assert_int_equal(fb_target_kernel_resources(t, k1, 256, &r), FB_OK);
    assert_int_equal(r.registers, 32);
    assert_int_equal(r.max_group_items, 1024);
    assert_int_equal(r.groups_per_unit, 8);
    assert_true(r.occupancy == 1.0);
    fb_target_close(t);
    counts c1 = now();
    assert_int_equal(c1.unloaded, c0.unloaded + 1);
    assert_int_equal(c1.loaded, c1.unloaded);
}

static void restore(const char *name, const char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
}

/* The toolkit's libraries: the override, CUDA_HOME's three layouts, ...,
 * the loader's path last; one found nowhere is said with every place. */
static void test_loader_search(void **state)
{
    (void)state;
    static const char *const names[] = {"FLOWBENCH_CUDA_LIBDIR", "CUDA_HOME", "CUDA_PATH"};
    char *saved[3], paths[16][1024], why[4096] = "";
    for (int i = 0; i < 3; ++i)
        saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
    setenv("FLOWBENCH_CUDA_LIBDIR", "/a", 1);
    setenv("CUDA_HOME", "/b", 1);
    unsetenv("CUDA_PATH");
    int n = fb_cuda_lib_candidates("libx.so.1", paths, 16);
    assert_true(n >= 5);
    assert_string_equal(paths[0], "/a/libx.so.1");
    assert_string_equal(paths[1], "/b/lib64/libx.so.1");
#if defined(__x86_64__)
    assert_string_equal(paths[2], "/b/targets/x86_64-linux/lib/libx.so.1");
    assert_string_equal(paths[n - 2], "/usr/local/cuda/targets/x86_64-linux/lib/libx.so.1");
#endif
    assert_string_equal(paths[3], "/b/lib/libx.so.1");
    assert_string_equal(paths[n - 3], "/usr/local/cuda/lib64/libx.so.1");
    assert_string_equal(paths[n - 1], "libx.so.1");                     /* the loader's path */
    assert_int_equal(fb_cuda_lib_candidates("libx.so.1", paths, 2), 2); /* no room: the first two */

    assert_null(fb_cuda_lib_open("libflowbench-nosuch.so.7", why, sizeof why));
    print_message("not found: %s\n", why);
    assert_non_null(strstr(why, "libflowbench-nosuch.so.7 not loadable"));
    assert_non_null(strstr(why, "/a/libflowbench-nosuch.so.7"));
    assert_non_null(strstr(why, "/b/lib64/libflowbench-nosuch.so.7"));
    assert_non_null(strstr(why, "the loader's path"));
    for (int i = 0; i < 3; ++i) {
        restore(names[i], saved[i]);
        free(saved[i]);
    }
}

/* The driver from FLOWBENCH_CUDA_DRIVER alone: a file that is not there is
 * said with its path, never replaced by another driver. */
static void test_driver_search(void **state)
{
    (void)state;
    char why[2048] = "";
    setenv("FLOWBENCH_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    void *lib = fb_cuda_driver_open(why, sizeof why);
    setenv("FLOWBENCH_CUDA_DRIVER", FB_FAKE_CUDA, 1);
    assert_null(lib);
    print_message("no driver: %s\n", why);
    assert_non_null(strstr(why, "$FLOWBENCH_CUDA_DRIVER not loadable"));
    assert_non_null(strstr(why, "tried /nonexistent/libcuda.so.1"));
    assert_null(strstr(why, "the loader's path"));
    lib = fb_cuda_driver_open(why, sizeof why);
    assert_ptr_equal(lib, dlopen(FB_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD)); /* the fake, already loaded */
}

/* Last, as it loses this process's context for good: a kernel's illegal
 * address surfaces at the next wait, named, and every later call says the
 * context was lost to it rather than failing on its own account. */
static void test_sticky_error(void **state)
{
    (void)state;
    fb_target *t = open_cuda();
    const fb_define single[] = {{"REAL", "float"}};
    fb_program_spec spec = stream_spec("stream_fill", single, 1);
    fb_kernel *fill = NULL;
    fb_buffer *x = NULL;
    char sticky[24];
    assert_int_equal(fb_target_build(t, &spec, &fill), FB_OK);
    assert_int_equal(fb_target_alloc(t, 256 * sizeof(float), &x), FB_OK);
    snprintf(sticky, sizeof sticky, "%ld", now().launches + 1);
    setenv("FAKE_CUDA_STICKY_LAUNCH", sticky, 1);
    const fb_arg args[] = {fb_arg_buffer(x), fb_arg_real(0, 1.0), fb_arg_i32(256)};
    const fb_launch launch = fb_launch_1d(256, 64);
    double seconds = 0;
    fb_status st = fb_target_launch(t, fill, &launch, args, 3, &seconds);
    unsetenv("FAKE_CUDA_STICKY_LAUNCH");
    assert_int_equal(st, FB_ERR_LAUNCH);
    print_message("the fault: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "kernel stream_fill: cuEventSynchronize failed: "
                                               "CUDA_ERROR_ILLEGAL_ADDRESS (700); the context is lost"));
    fb_buffer *y = NULL;
    assert_int_equal(fb_target_alloc(t, 64, &y), FB_ERR_BACKEND);
    print_message("after it: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "the context was lost to an earlier error (cuda: kernel stream_fill: "
                                               "cuEventSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700))"));
    assert_int_equal(fb_target_finish(t), FB_ERR_BACKEND);
    assert_non_null(strstr(fb_error_message(), "the context was lost"));
    fb_target_close(t);
}

#endif /* FB_HAVE_CUDA */

int main(void)
{
#ifndef FB_HAVE_CUDA
    printf("skipped: the CUDA backend is not built\n"); /* ctest: SKIP_RETURN_CODE */
    return 77;
#else
    char why[1024] = "";
    setenv("FLOWBENCH_CUDA_DRIVER", FB_FAKE_CUDA, 1);
    unsetenv("FAKE_CUDA_NO_DEVICE"), unsetenv("FAKE_CUDA_OOM"), unsetenv("FAKE_CUDA_STICKY_LAUNCH");
    unsetenv("FAKE_CUDA_COUNTER");
    if (fb_backend_find("cuda")->probe(why, sizeof why) != 1) {
        fprintf(stderr, "the fake driver %s gives no device: %s\n", FB_FAKE_CUDA, why);
        return 1;
    }
    void *fake = dlopen(FB_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD); /* the backend's handle */
    fake_counts = fake ? (void (*)(int *, int *, int *, int *, long *))dlsym(fake, "fake_cuda_counts") : NULL;
    fake_live_events = fake ? (int (*)(void))dlsym(fake, "fake_cuda_live_events") : NULL;
    if (!fake_counts || !fake_live_events) {
        fprintf(stderr, "%s: not loaded by the backend, or without its counts\n", FB_FAKE_CUDA);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),       cmocka_unit_test(test_open_close),
        cmocka_unit_test(test_out_of_memory), cmocka_unit_test(test_module_sharing),
        cmocka_unit_test(test_target_build),  cmocka_unit_test(test_loader_search),
        cmocka_unit_test(test_driver_search), cmocka_unit_test(test_sticky_error), /* last: it loses the context */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
