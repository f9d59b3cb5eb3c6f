/* test_user_kernel.c - a user's kernel file as a kernel of its family
 * (bench/user_kernel.h): the declaration (axes, the template's first; the
 * file read, its hash; the refusals, each naming where), the constraint
 * grammar, the openmp refusal, the global divisor, the families' views,
 * the record's kernel_file; and, where CUDA is built, the example kernels
 * compiled through NVRTC with their defines and a build error naming the
 * user's file and line. Runs on the host: the kernels run on PoCL in
 * tests/e2e/user_kernel.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/record.h"
#include "bench/user_kernel.h"
#include "families.h"
#include "grid/fv_surface.h"
#include "grid/heat2d.h"
#include "spmv/spmv.h"
#ifdef FB_HAVE_CUDA
#include "backends/cuda_compile.h"
#endif

#define EXAMPLE FB_SOURCE_DIR "/cases/examples/csr_unroll.cl"
#define HEAT_EXAMPLE FB_SOURCE_DIR "/cases/examples/heat_jacobi_cells.cl"
#define BAD FB_SOURCE_DIR "/tests/data/kernels/csr_bad.cl"

static const int unroll[] = {1, 2, 4}, rows[] = {1, 2}, wg[] = {64, 128};

/* The example's declaration: csr-scalar's argument list, WG_SIZE given
 * values, UNROLL and ROWS_PER_ITEM its own. */
static fb_user_kernel_decl example(void)
{
    fb_user_kernel_decl d;
    memset(&d, 0, sizeof d);
    d.file.text = EXAMPLE;
    d.name.text = "csr_unroll";
    d.like.text = "csr-scalar";
    d.nparams = 3;
    d.params[0] = (fb_user_param_decl){"UNROLL", unroll, 3, NULL};
    d.params[1] = (fb_user_param_decl){"WG_SIZE", wg, 2, NULL};
    d.params[2] = (fb_user_param_decl){"ROWS_PER_ITEM", rows, 2, NULL};
    d.divisor.text = "ROWS_PER_ITEM";
    return d;
}

static int teardown(void **state)
{
    (void)state;
    fb_user_kernel_forget_all();
    return 0;
}

static fb_status refused(fb_user_kernel_decl d, const char *needle)
{
    int k;
    fb_status st = fb_user_kernel_register(&fb_family_spmv, &d, &k);
    if (!strstr(fb_error_message(), needle)) fail_msg("want '%s' in: %s", needle, fb_error_message());
    return st;
}

/* ---- the declaration ---- */

static void test_example_joins_the_family(void **state)
{
    (void)state;
    fb_user_kernel_decl d = example();
    int before = fb_family_spmv.kernel_count(), k = -1, again = -1;
    assert_int_equal(fb_user_kernel_register(&fb_family_spmv, &d, &k), FB_OK);
    assert_int_equal(k, before);
    assert_int_equal(fb_family_spmv.kernel_count(), before + 1);
    assert_int_equal(fb_family_kernel_find(&fb_family_spmv, "csr_unroll"), k);
    const fb_family_kernel *fk = fb_family_spmv.kernel(k);
    /* the template's axis first, with the user's values; then the user's own */
    assert_int_equal(fk->nparams, 3);
    assert_string_equal(fk->params[0].name, "WG_SIZE");
    assert_int_equal(fk->params[0].def, 64);
    assert_int_equal(fk->params[0].role, FB_ROLE_GROUP_SIZE);
    assert_string_equal(fk->params[1].name, "UNROLL");
    assert_int_equal(fk->params[1].nvalues, 3);
    assert_string_equal(fk->params[2].name, "ROWS_PER_ITEM");
    assert_string_equal(fk->source, EXAMPLE);
    /* the spmv row: the template's geometry, the user's file and name */
    const fb_spmv_kernel_def *row = fb_spmv_kernel_find("csr_unroll");
    assert_non_null(row);
    assert_string_equal(row->kernel, "csr_unroll");
    assert_ptr_equal(row->geometry, fb_spmv_kernel_find("csr-scalar")->geometry);
    assert_non_null(row->source_text);
    assert_non_null(strstr(row->source_text, "__kernel void csr_unroll"));
    assert_string_equal(row->user->hash, fb_user_kernel_at(&fb_family_spmv, 0)->hash);
    assert_int_equal(strlen(row->user->hash), 16);
    /* the same declaration again (a suite's second case) is the same kernel */
    assert_int_equal(fb_user_kernel_register(&fb_family_spmv, &d, &again), FB_OK);
    assert_int_equal(again, k);
    assert_int_equal(fb_family_spmv.kernel_count(), before + 1);
    /* another one under the same name is refused, naming the first */
    d.params[0].nvalues = 2;
    d.params[1].where = "b.suite: line 9";
    d.name.where = "b.suite: line 7";
    assert_int_equal(refused(d, "b.suite: line 7: kernel csr_unroll is declared already (--kernel-file)"),
                     FB_ERR_USAGE);
}

static void test_refusals_name_where(void **state)
{
    (void)state;
    fb_user_kernel_decl d = example();
    d.name.text = "csr-vector";
    assert_int_equal(refused(d, "--kernel: 'csr-vector' is a built-in spmv kernel"), FB_ERR_USAGE);
    d.name.text = "csr_missing";
    assert_int_equal(refused(d, "declares no __kernel csr_missing (its kernels: csr_unroll)"), FB_ERR_USAGE);
    d.name.text = "2bad";
    assert_int_equal(refused(d, "is not the name of a __kernel function"), FB_ERR_USAGE);
    d = example();
    d.like = (fb_user_text_decl){"csr-nothing", "x.suite: line 3"};
    assert_int_equal(refused(d, "x.suite: line 3: spmv has no kernel 'csr-nothing'"), FB_ERR_USAGE);
    d.like.text = "peer:graphblas";
    assert_int_equal(refused(d, "is a library peer"), FB_ERR_USAGE);
    d = example();
    d.params[0].name = "REAL";
    assert_int_equal(refused(d, "REAL is a define the build passes itself"), FB_ERR_USAGE);
    d = example();
    d.params[2].name = "UNROLL";
    assert_int_equal(refused(d, "UNROLL is declared twice"), FB_ERR_USAGE);
    d = example();
    d.divisor.text = "NOT_AN_AXIS";
    assert_int_equal(refused(d, "--global-divisor: 'NOT_AN_AXIS' is not a parameter of csr_unroll"), FB_ERR_USAGE);
    static const int zero[] = {0, 1};
    d = example();
    d.params[2].values = zero;
    assert_int_equal(refused(d, "its values must be at least 1, not 0"), FB_ERR_USAGE);
    d = example();
    d.file.text = FB_SOURCE_DIR "/tests/data/kernels/missing.cl";
    assert_int_equal(refused(d, "--kernel-file: " FB_SOURCE_DIR "/tests/data/kernels/missing.cl: cannot open"),
                     FB_ERR_INPUT);
    d.file.text = FB_SOURCE_DIR "/tests/data/kernels";
    assert_int_equal(refused(d, "kernels: is a directory"), FB_ERR_INPUT);
    /* a newline would start a line of its own in every message naming it */
    d.file.text = "/tmp/a\n#error x.cl";
    assert_int_equal(refused(d, "--kernel-file: the path holds a control character (0x0a)"), FB_ERR_USAGE);
    /* the one rule of a value (params.h) for whoever declares */
    static const int huge[] = {2147483647};
    d = example();
    d.params[0].values = huge;
    d.params[0].nvalues = 1;
    assert_int_equal(refused(d, "UNROLL: 2147483647 is out of range (-1000000000..1000000000)"), FB_ERR_USAGE);
    /* too many axes: csr-scalar's one + 6 */
    static const int one[] = {1};
    static const char *const names[] = {"A1", "A2", "A3", "A4", "A5", "A6"};
    d = example();
    d.divisor.text = NULL;
    d.nparams = 6;
    for (int i = 0; i < 6; ++i)
        d.params[i] = (fb_user_param_decl){names[i], one, 1, NULL};
    assert_int_equal(refused(d, "A6: a kernel has at most 6 parameters"), FB_ERR_USAGE);
    assert_int_equal(fb_user_kernel_count(&fb_family_spmv), 0); /* nothing half-registered */
    /* a family that takes no kernel files */
    d = example();
    int k;
    assert_int_equal(fb_user_kernel_register(fb_family_find("stream"), &d, &k), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "takes no kernel files"));
}

static void test_file_with_a_nul_byte_is_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/fb_user_kernel_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "__kernel void k()\0{}", 20), 20);
    close(fd);
    fb_user_kernel_decl d = example();
    d.file.text = path;
    d.name.text = "k";
    assert_int_equal(refused(d, "holds a NUL byte at offset 17"), FB_ERR_INPUT);
    unlink(path);
}

/* A file that is just `kernel(`: the scan back for the name stops at the
 * keyword (it read the byte before the text), and the keyword is no name. */
static void test_kernel_keyword_alone_names_nothing(void **state)
{
    (void)state;
    char path[] = "/tmp/fb_user_kernel_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "kernel(", 7), 7);
    close(fd);
    fb_user_kernel_decl d = {.file = {path, NULL}, .name = {"k", NULL}};
    assert_int_equal(refused(d, "declares no __kernel k (it declares none)"), FB_ERR_USAGE);
    unlink(path);
}

/* The kernel's name is the identifier before its parameter list, whatever
 * comes between the keyword and it; a kernel named in a comment is none. */
static void test_kernel_name_found_past_attributes(void **state)
{
    (void)state;
    char path[] = "/tmp/fb_user_kernel_XXXXXX";
    const char text[] = "/* __kernel void not_this(int a) */\n"
                        "// kernel void nor_this(int a)\n"
                        "__kernel void FB_LAUNCH_BOUNDS(128) first(const int n, __global float *x) { x[0] = n; }\n"
                        "kernel __attribute__((reqd_work_group_size(64, 1, 1))) void second(int n) {}\n";
    int fd = mkstemp(path), k;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    fb_user_kernel_decl d = {.file = {path, NULL}, .name = {"second", NULL}};
    assert_int_equal(fb_user_kernel_register(&fb_family_spmv, &d, &k), FB_OK);
    d.name.text = "not_this";
    assert_int_equal(refused(d, "(its kernels: first, second)"), FB_ERR_USAGE);
    unlink(path);
}

/* ---- constraints ---- */

static const fb_user_kernel *with_constraints(const char *const *texts, int n)
{
    fb_user_kernel_decl d = example();
    int k;
    d.nconstraints = n;
    for (int i = 0; i < n; ++i)
        d.constraints[i] = (fb_user_text_decl){texts[i], NULL};
    if (fb_user_kernel_register(&fb_family_spmv, &d, &k) != FB_OK) fail_msg("%s", fb_error_message());
    return fb_user_kernel_at(&fb_family_spmv, 0);
}

static fb_device_info device(const char *backend, size_t max_wg)
{
    fb_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.backend, sizeof dev.backend, "%s", backend);
    snprintf(dev.id, sizeof dev.id, "%s:0", backend);
    dev.max_work_group_size = max_wg;
    dev.local_mem_bytes = 65536;
    dev.in_process = !strcmp(backend, "openmp"); /* as the openmp backend says of itself */
    return dev;
}

static void test_constraints_prune_with_the_reason(void **state)
{
    (void)state;
    static const char *const texts[] = {"WG_SIZE % (UNROLL * 16) == 0", "WG_SIZE * real_bytes <= local_mem_bytes / 64",
                                        "WG_SIZE <= max_work_group_size", "2 + 3 * 4 - 14 == 0"};
    const fb_user_kernel *uk = with_constraints(texts, 4);
    fb_device_info cl = device("opencl", 256), unknown = device("opencl", 0);
    fb_param_point p = {{128, 4, 1}}; /* WG_SIZE, UNROLL, ROWS_PER_ITEM */
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_OK);
    p.values[1] = 16; /* 128 % 256 */
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "csr_unroll: constraint 'WG_SIZE % (UNROLL * 16) == 0' does not hold"
                                               " (WG_SIZE=128 UNROLL=16 ROWS_PER_ITEM=1)"));
    p = (fb_param_point){{1024, 1, 1}};
    /* 1024 x 8 bytes > 65536 / 64 in double; 1024 x 4 too */
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 0), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "local_mem_bytes"));
    p = (fb_param_point){{128, 1, 1}};
    cl.max_work_group_size = 64;
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "max_work_group_size"));
    /* a fact the device does not report does not refuse the point */
    assert_int_equal(fb_user_kernel_check(uk, &p, &unknown, 1), FB_OK);
}

/* PoCL reports no sub-group size (0): a constraint dividing by it holds,
 * as docs/kernels.md says, instead of pruning every point as a division
 * by zero. */
static void test_unreported_fact_as_a_divisor_holds(void **state)
{
    (void)state;
    static const char *const texts[] = {"WG_SIZE % subgroup_size == 0"};
    const fb_user_kernel *uk = with_constraints(texts, 1);
    fb_device_info cl = device("opencl", 1024);
    fb_param_point p = {{128, 1, 1}};
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_OK);
    cl.subgroup_size = 48; /* reported: 128 % 48 */
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "does not hold"));
}

static void test_constraint_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"WG_SIZE = 64", "expected a comparison"},
        {"WG_SIZE <= NOPE", "'NOPE' is no parameter of the kernel and no device fact"},
        {"(WG_SIZE <= 64", "expected ')'"},
        {"WG_SIZE <= 64 64", "expected the end"},
        {"<= 64", "expected a number, a name or '('"},
        {"WG_SIZE * 99999999999999 > 0", "a number over 10^12"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fb_user_kernel_decl d = example();
        d.nconstraints = 1;
        d.constraints[0] = (fb_user_text_decl){bad[i].text, "s.suite: line 4"};
        assert_int_equal(refused(d, bad[i].why), FB_ERR_USAGE);
        assert_non_null(strstr(fb_error_message(), "s.suite: line 4: '"));
    }
    /* division by zero is a point's fault, found when it is checked */
    static const char *const div[] = {"WG_SIZE / (UNROLL - 1) >= 1"};
    const fb_user_kernel *uk = with_constraints(div, 1);
    fb_device_info cl = device("opencl", 1024);
    fb_param_point p = {{64, 1, 1}};
    assert_int_equal(fb_user_kernel_check(uk, &p, &cl, 1), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "divides by zero"));
}

static void test_openmp_refuses_a_kernel_file(void **state)
{
    (void)state;
    const fb_user_kernel *uk = with_constraints(NULL, 0);
    fb_device_info omp = device("openmp", 0);
    fb_param_point p = {{64, 1, 1}};
    assert_int_equal(fb_user_kernel_check(uk, &p, &omp, 1), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "the openmp backend has no twin of it; run it on opencl or cuda"));
}

/* ---- geometry, defines, records ---- */

static void test_divisor_divides_the_groups(void **state)
{
    (void)state;
    const fb_user_kernel *uk = with_constraints(NULL, 0);
    fb_param_point p = {{128, 1, 2}};
    fb_launch l = {.dims = 1, .global = {1024, 1, 1}, .local = {128, 1, 1}};
    fb_user_kernel_divide(uk, &p, &l);
    assert_int_equal(l.global[0], 512);
    p.values[2] = 3; /* 4 groups / 3, rounded up */
    fb_user_kernel_divide(uk, &p, &l);
    assert_int_equal(l.global[0], 256);
    fb_define defs[FB_MAX_PARAMS];
    char values[FB_MAX_PARAMS][16];
    /* the user's own axes (the family passes the template's) */
    assert_int_equal(fb_user_kernel_defines(uk, &p, defs, values), 2);
    assert_string_equal(defs[0].name, "UNROLL");
    assert_string_equal(defs[1].name, "ROWS_PER_ITEM");
    assert_string_equal(defs[1].value, "3");
}

static void test_record_names_the_file(void **state)
{
    (void)state;
    const fb_user_kernel *uk = with_constraints(NULL, 0);
    fb_device_info dev = device("opencl", 1024);
    fb_measurement m;
    memset(&m, 0, sizeof m);
    fb_kernel_record k = {.benchmark = "spmv", .kernel = uk->name, .params = json_object(), .m = &m, .user = uk};
    json_t *rec = fb_json_kernel_record(&dev, &k);
    const json_t *f = json_object_get(rec, "kernel_file");
    assert_non_null(f);
    assert_string_equal(json_string_value(json_object_get(f, "path")), EXAMPLE);
    assert_string_equal(json_string_value(json_object_get(f, "hash")), uk->hash);
    assert_string_equal(json_string_value(json_object_get(f, "like")), "csr-scalar");
    assert_string_equal(json_string_value(json_object_get(f, "global_divisor")), "ROWS_PER_ITEM");
    json_decref(rec);
}

/* The grid families list a kernel file after their own, as their
 * template's row: heat2d's reduction and fv-surface's strategy stay. */
static void test_grid_families_take_kernel_files(void **state)
{
    (void)state;
    static const int cells[] = {2, 1};
    fb_user_kernel_decl d = {.file = {HEAT_EXAMPLE, NULL},
                             .name = {"heat_jacobi_cells", NULL},
                             .nparams = 1,
                             .params = {{"CELLS_PER_ITEM", cells, 2, NULL}},
                             .divisor = {"CELLS_PER_ITEM", NULL}};
    int k;
    assert_int_equal(fb_user_kernel_register(&fb_family_heat2d, &d, &k), FB_OK);
    assert_int_equal(k, fb_heat2d_kernel_count);
    const fb_heat2d_kernel_def *h = fb_heat2d_kernel_at(k);
    assert_string_equal(h->kernel, "heat_jacobi_cells");
    assert_int_equal(h->red_black, 0); /* heat-jacobi, the family's first */
    assert_int_equal(h->nparams, 4);
    assert_string_equal(fb_family_heat2d.kernel(k)->params[3].name, "CELLS_PER_ITEM");
    /* fv-surface: like fv-gather, the flux kernel replaced, the strategy kept */
    d = (fb_user_kernel_decl){
        .file = {HEAT_EXAMPLE, NULL}, .name = {"heat_jacobi_cells", NULL}, .like = {"fv-gather", NULL}};
    assert_int_equal(fb_user_kernel_register(&fb_family_fv_surface, &d, &k), FB_OK);
    assert_int_equal(k, FB_FV_KERNEL_COUNT);
    assert_int_equal(fb_fv_kernel_at(k)->strategy, FB_FV_GATHER);
    assert_int_equal(fb_fv_kernel_at(k)->nparams, FB_FV_NPARAMS);
    assert_int_equal(fb_family_fv_surface.kernel_count(), FB_FV_KERNEL_COUNT + 1);
    /* one name per family: the spmv family has none */
    assert_int_equal(fb_family_kernel_find(&fb_family_spmv, "heat_jacobi_cells"), -1);
}

#ifdef FB_HAVE_CUDA
/* The examples compile through NVRTC, as the CUDA backend would build them,
 * with the defines the families pass; a build error names the user's file
 * and line. */
static void test_examples_compile_through_nvrtc(void **state)
{
    (void)state;
    static const fb_define spmv_defs[] = {
        {"REAL", "double"}, {"WG_SIZE", "128"}, {"UNROLL", "4"}, {"ROWS_PER_ITEM", "2"}};
    static const fb_define heat_defs[] = {
        {"REAL", "float"}, {"ORDER", "1"}, {"GROUP_ITEMS", "256"}, {"CELLS_PER_ITEM", "2"}};
    fb_user_kernel_decl d = example();
    int k;
    fb_cuda_image img;
    assert_int_equal(fb_user_kernel_register(&fb_family_spmv, &d, &k), FB_OK);
    const fb_user_kernel *uk = fb_user_kernel_at(&fb_family_spmv, 0);
    fb_program_spec spec = {uk->path, uk->text, uk->name, spmv_defs, 4, NULL};
    if (fb_cuda_compile(&spec, 8, 0, &img, NULL) != FB_OK) fail_msg("%s", fb_error_message());
    fb_cuda_image_free(&img);
    fb_user_kernel_decl h = {.file = {HEAT_EXAMPLE, NULL}, .name = {"heat_jacobi_cells", NULL}};
    assert_int_equal(fb_user_kernel_register(&fb_family_heat2d, &h, &k), FB_OK);
    uk = fb_user_kernel_at(&fb_family_heat2d, 0);
    spec = (fb_program_spec){uk->path, uk->text, uk->name, heat_defs, 4, NULL};
    if (fb_cuda_compile(&spec, 9, 0, &img, NULL) != FB_OK) fail_msg("%s", fb_error_message());
    fb_cuda_image_free(&img);
    fb_user_kernel_decl b = {.file = {BAD, NULL}, .name = {"csr_bad", NULL}};
    assert_int_equal(fb_user_kernel_register(&fb_family_spmv, &b, &k), FB_OK);
    uk = fb_user_kernel_at(&fb_family_spmv, 1);
    spec = (fb_program_spec){uk->path, uk->text, uk->name, spmv_defs, 2, NULL};
    assert_int_equal(fb_cuda_compile(&spec, 8, 0, &img, NULL), FB_ERR_BUILD);
    print_message("build error: %s\n", fb_error_message());
    assert_non_null(strstr(fb_error_message(), "csr_bad.cl(8)"));
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_example_joins_the_family, teardown),
        cmocka_unit_test_teardown(test_refusals_name_where, teardown),
        cmocka_unit_test_teardown(test_file_with_a_nul_byte_is_refused, teardown),
        cmocka_unit_test_teardown(test_kernel_keyword_alone_names_nothing, teardown),
        cmocka_unit_test_teardown(test_kernel_name_found_past_attributes, teardown),
        cmocka_unit_test_teardown(test_constraints_prune_with_the_reason, teardown),
        cmocka_unit_test_teardown(test_unreported_fact_as_a_divisor_holds, teardown),
        cmocka_unit_test_teardown(test_constraint_errors, teardown),
        cmocka_unit_test_teardown(test_openmp_refuses_a_kernel_file, teardown),
        cmocka_unit_test_teardown(test_divisor_divides_the_groups, teardown),
        cmocka_unit_test_teardown(test_record_names_the_file, teardown),
        cmocka_unit_test_teardown(test_grid_families_take_kernel_files, teardown),
#ifdef FB_HAVE_CUDA
        cmocka_unit_test_teardown(test_examples_compile_through_nvrtc, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
