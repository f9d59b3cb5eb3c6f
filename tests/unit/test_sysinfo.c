/* test_sysinfo.c - the host facts the stream size and the roofline's peak
 * rest on (core/sysinfo.h), on planted machines: a fake /proc
 * ($FLOWBENCH_PROC_ROOT: cpuinfo, meminfo, the SVE vector length) and a
 * fake /sys/devices/system/cpu ($FLOWBENCH_CPUFREQ_ROOT: the cache sizes),
 * read through the openmp device and its header entry too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/target.h"
#include "core/sysinfo.h"
#include "results/records/results.h"

static char root[256];

static void write_file(const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        mkdir(dir, 0700);
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    unlink(path);
}

/* An x86 host whose L3 is 480 MiB (the VM of the defect) with 64 GiB. */
static int setup(void **state)
{
    (void)state;
    char path[300];
    snprintf(root, sizeof root, "/tmp/fb-sysinfo-XXXXXX");
    assert_non_null(mkdtemp(root));
    write_file("sys/cpu0/cache/index0/size", "48K\n");
    write_file("sys/cpu0/cache/index1/size", "32K\n");
    write_file("sys/cpu0/cache/index2/size", "2048K\n");
    write_file("sys/cpu0/cache/index3/size", "491520K\n");
    write_file("proc/meminfo", "MemTotal:       67108864 kB\nMemFree:         1000 kB\n");
    write_file("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Planted Xeon\n"
                               "cpu MHz\t\t: 2100.000\nflags\t\t: fpu sse sse2 avx fma avx2 avx512f avx512dq\n\n");
    snprintf(path, sizeof path, "%s/proc", root);
    setenv("FLOWBENCH_PROC_ROOT", path, 1);
    snprintf(path, sizeof path, "%s/sys", root);
    setenv("FLOWBENCH_CPUFREQ_ROOT", path, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    unsetenv("FLOWBENCH_PROC_ROOT");
    unsetenv("FLOWBENCH_CPUFREQ_ROOT");
    return 0;
}

static void test_planted_cache_memory_and_cpu(void **state)
{
    (void)state;
    fb_host_info h;
    fb_host_info_get(&h);
    assert_int_equal(h.llc_bytes, (size_t)480 << 20);
    assert_int_equal(h.memory_bytes, (size_t)64 << 30);
    assert_string_equal(h.cpu_model, "Planted Xeon");
    assert_string_equal(h.simd, "avx512f");
    assert_int_equal(h.simd_bits, 512);
    assert_string_equal(h.simd_source, "avx512f in /proc/cpuinfo flags");
}

/* The widest ISA of the flags wins; a flag is a whole word ("avx512fx" or
 * "xavx2" are none of them). */
static void expect_x86(const char *flags, const char *isa, int bits)
{
    char text[512];
    fb_host_info h;
    snprintf(text, sizeof text, "processor\t: 0\nflags\t\t: %s\n\n", flags);
    write_file("proc/cpuinfo", text);
    fb_host_info_get(&h);
    assert_string_equal(h.simd, isa);
    assert_int_equal(h.simd_bits, bits);
}

static void test_x86_isa_from_flags(void **state)
{
    (void)state;
    expect_x86("fpu sse sse2 avx fma avx2", "avx2", 256);
    expect_x86("fpu sse sse2 avx fma", "avx2", 256); /* FMA3: 256-bit FMA */
    expect_x86("fpu sse sse2", "sse2", 128);
    expect_x86("fpu sse sse2 avx512fx xavx2", "sse2", 128);
    expect_x86("fpu", "", 0);
}

/* aarch64 names its ISA in "Features": SVE with the kernel's default
 * vector length where it gives one (bytes), else 128 bits assumed, and
 * NEON (asimd) 128. */
static void test_aarch64_isa_from_features(void **state)
{
    (void)state;
    fb_host_info h;
    write_file("proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd evtstrm aes sve sve2\nCPU part\t: 0xd40\n\n");
    write_file("proc/sys/abi/sve_default_vector_length", "32\n");
    fb_host_info_get(&h);
    assert_string_equal(h.simd, "sve");
    assert_int_equal(h.simd_bits, 256);
    assert_non_null(strstr(h.simd_source, "sve_default_vector_length"));
    remove_file("proc/sys/abi/sve_default_vector_length");
    fb_host_info_get(&h);
    assert_int_equal(h.simd_bits, 128);
    assert_non_null(strstr(h.simd_source, "128 bits assumed"));
    write_file("proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n\n");
    fb_host_info_get(&h);
    assert_string_equal(h.simd, "asimd");
    assert_int_equal(h.simd_bits, 128);
}

/* The openmp device is the planted host: its cache, memory and ISA, and
 * the header's device entry carries the ISA the roofline reads. */
static void test_openmp_device_and_header(void **state)
{
    (void)state;
    fb_device_info d;
    write_file("proc/cpuinfo", "processor\t: 0\nmodel name\t: Planted Xeon\nflags\t\t: sse2 avx2 avx512f\n\n");
    assert_int_equal(fb_backend_find("openmp")->device_info(0, &d), FB_OK);
    assert_int_equal(d.cache_bytes, (size_t)480 << 20);
    assert_int_equal(d.global_mem_bytes, (size_t)64 << 30);
    assert_string_equal(d.simd, "avx512f");
    json_t *j = fb_json_device(&d);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "simd"), "isa")), "avx512f");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "simd"), "vector_bits")), 512);
    json_decref(j);
    d.simd[0] = '\0'; /* a GPU: no "simd" */
    j = fb_json_device(&d);
    assert_null(json_object_get(j, "simd"));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planted_cache_memory_and_cpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_x86_isa_from_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aarch64_isa_from_features, setup, teardown),
        cmocka_unit_test_setup_teardown(test_openmp_device_and_header, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
