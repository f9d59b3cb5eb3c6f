/* test_nvrtc_compile.c - the device kernel variants (harness/bench/variants.c)
 * compile through NVRTC, after the OpenCL-to-CUDA prelude, for sm_80 and
 * sm_90, on a machine with no GPU and no driver: what the CUDA backend would
 * build on a GPU node is known to compile before it gets there. Also: the
 * compiled image carries the kernel under its OpenCL name (extern "C"), and
 * a compiler error names the .cl file and its own line.
 *
 * By default it compiles each kernel's covering set (nvrtc_cover.h: the
 * default point on both architectures, every value of every axis, every
 * pair of the axes that change code paths); `--full` compiles every
 * variant for both architectures (the ctest label nightly:
 * unit.test_nvrtc_compile.full.K). Either list is compiled one program at a
 * time: the variants of one source at the same defines (a source's
 * kernels) are one NVRTC compile, whose cubin must name each kernel.
 *
 * `test_nvrtc_compile [--full] K N` compiles only the programs i with
 * i % N == K of its list (one shard; ctest runs N of them side by side) and
 * runs the small tests in shard 0 only. No K N: the whole list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_compile.h"
#include "families.h"
#include "nvrtc_cover.h"

static int shard = 0, nshards = 1, full = 0;

static int image_names_kernel(const fb_cuda_image *img, const char *kernel)
{
    size_t len = strlen(kernel);
    for (size_t i = 0; i + len <= img->size; ++i)
        if (memcmp(img->data + i, kernel, len) == 0 && (i + len == img->size || img->data[i + len] == '\0')) return 1;
    return 0;
}

/* One program for one architecture: a cubin that names the kernel of
 * every variant it stands for. */
static void compile_program(const fb_variant *all, const cover_program *prog)
{
    const int major = cover_archs[prog->what.arch][0], minor = cover_archs[prog->what.arch][1];
    const fb_variant *v = &all[prog->what.variant];
    fb_cuda_image img;
    if (fb_cuda_compile(&v->spec, major, minor, &img, NULL) != FB_OK)
        fail_msg("sm_%d%d: %s: %s", major, minor, v->label, fb_error_message());
    assert_true(img.is_cubin);
    assert_true(img.size > 0);
    for (int i = 0; i < prog->nvariants; ++i) {
        const fb_variant *k = &all[prog->variants[i]];
        if (!image_names_kernel(&img, k->spec.kernel_name))
            fail_msg("sm_%d%d: %s: cubin has no symbol %s", major, minor, k->label, k->spec.kernel_name);
    }
    fb_cuda_image_free(&img);
}

static void test_every_variant_compiles(void **state)
{
    (void)state;
    fb_variant *all;
    cover_compile *list;
    cover_program *programs;
    int nvariants = cover_variants_load(&all), ncompiles = cover_compiles(all, nvariants, full, &list);
    int nprograms = cover_programs(all, list, ncompiles, &programs), ok = 0;
    assert_true(nvariants > 50); /* stream + the whole SpMV space: a shrunken list is a bug */
    for (int p = shard; p < nprograms; p += nshards, ++ok)
        compile_program(all, &programs[p]);
    print_message("%d of the %d programs (shard %d of %d) compiled to cubin: %d compiles of %s %d variants x %d "
                  "architectures\n",
                  ok, nprograms, shard, nshards, ncompiles, full ? "all" : "the covering set of the", nvariants,
                  COVER_NARCHS);
    assert_true(ok > 0);
    cover_programs_free(programs, nprograms);
    free(list);
    free(all);
}

static void test_error_names_source_line(void **state)
{
    (void)state;
    const char *broken = "__kernel void broken_kernel(__global float *x)\n{\n    x[0] = ;\n}\n";
    fb_program_spec spec = {"test/broken.cl", broken, "broken_kernel", NULL, 0, NULL};
    fb_cuda_image img;
    char *log = NULL;
    assert_int_equal(fb_cuda_compile(&spec, 9, 0, &img, &log), FB_ERR_BUILD);
    const char *msg = fb_error_message();
    print_message("build error: %s\n", msg);
    assert_non_null(strstr(msg, "test/broken.cl(3)"));
    assert_non_null(strstr(msg, "broken_kernel"));
    assert_non_null(strstr(msg, "sm_90"));
    assert_non_null(log);
    assert_non_null(strstr(log, "error"));
    assert_null(img.data);
    free(log);

    /* After a helper the build path includes, the kernel's own numbering
     * resumes: the same error, one line down. */
    spec.source_text = "#include \"spmv/merge_path.h\"\n"
                       "__kernel void broken_kernel(__global float *x)\n{\n    x[0] = ;\n}\n";
    assert_int_equal(fb_cuda_compile(&spec, 9, 0, &img, NULL), FB_ERR_BUILD);
    print_message("after an include: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "test/broken.cl(4)"));
}

/* A GPU newer than NVRTC knows gets PTX for the newest architecture below. */
static void test_newer_device_gets_ptx(void **state)
{
    (void)state;
    const char *text = "__kernel void k(__global float *x) { x[get_global_id(0)] = 1.0f; }\n";
    fb_program_spec spec = {"test/k.cl", text, "k", NULL, 0, NULL};
    fb_cuda_image img;
    assert_int_equal(fb_cuda_compile(&spec, 99, 9, &img, NULL), FB_OK);
    assert_false(img.is_cubin);
    assert_memory_equal(img.arch, "compute_", 8);
    assert_non_null(strstr(img.data, ".entry k"));
    fb_cuda_image_free(&img);
    /* And one older than any it supports is refused, saying so. */
    assert_int_equal(fb_cuda_compile(&spec, 1, 0, &img, NULL), FB_ERR_UNAVAILABLE);
    assert_non_null(strstr(fb_error_message(), "older than any"));
}

static void test_defines_reach_the_compiler(void **state)
{
    (void)state;
    const char *text = "#ifndef MUST_BE_SET\n#error MUST_BE_SET missing\n#endif\n"
                       "__kernel void k(__global REAL *x) { x[0] = (REAL)MUST_BE_SET; }\n";
    const fb_define defines[] = {{"REAL", "double"}, {"MUST_BE_SET", "3"}};
    fb_program_spec spec = {"test/defines.cl", text, "k", defines, 2, NULL};
    fb_cuda_image img;
    assert_int_equal(fb_cuda_compile(&spec, 8, 0, &img, NULL), FB_OK);
    fb_cuda_image_free(&img);
    spec.ndefines = 1;
    assert_int_equal(fb_cuda_compile(&spec, 8, 0, &img, NULL), FB_ERR_BUILD);
    assert_non_null(strstr(fb_error_message(), "MUST_BE_SET missing"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_every_variant_compiles),
        cmocka_unit_test(test_error_names_source_line),
        cmocka_unit_test(test_newer_device_gets_ptx),
        cmocka_unit_test(test_defines_reach_the_compiler),
    };
    int arg = 1;
    if (arg < argc && strcmp(argv[arg], "--full") == 0) full = 1, ++arg;
    if (argc - arg == 2) {
        shard = atoi(argv[arg]);
        nshards = atoi(argv[arg + 1]);
    }
    if ((argc - arg != 0 && argc - arg != 2) || nshards < 1 || shard < 0 || shard >= nshards) {
        fprintf(stderr, "usage: test_nvrtc_compile [--full] [SHARD NSHARDS] (0 <= SHARD < NSHARDS)\n");
        return 2;
    }
    /* the small tests once, in shard 0 */
    return _cmocka_run_group_tests("nvrtc", all, shard == 0 ? 4 : 1, NULL, NULL);
}
