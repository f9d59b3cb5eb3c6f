/* test_figures.c - the tables behind `flowbench plot` (figures.c): the
 * performance profile's matrices, figure names, the whiskers of bar
 * charts, and the colour map of plot's series, on small results files
 * written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/contention.h"
#include "results/presentation/colours.h"
#include "results/records/triads.h"
#include "results/presentation/figures.h"
#include "results/presentation/plot.h"
#include "results/records/reader.h"

/* ---- a results file built line by line ----------------------------------- */

typedef struct results_file {
    char path[256];
    FILE *f;
} results_file;

static void results_begin(results_file *rf, const char *name, const char *host)
{
    snprintf(rf->path, sizeof rf->path, "/tmp/fb-test-figures-%ld-%s.jsonl", (long)getpid(), name);
    rf->f = fopen(rf->path, "w");
    assert_non_null(rf->f);
    fprintf(
        rf->f,
        "{\"type\":\"header\",\"schema\":1,\"run_id\":\"r1\",\"date\":\"2026-11-22\",\"host\":{\"hostname\":\"%s\"},"
        "\"devices\":[{\"backend\":\"openmp\",\"id\":\"openmp:0\",\"name\":\"CPU\"},"
        "{\"backend\":\"opencl\",\"id\":\"opencl:0.0\",\"name\":\"GPU\"}]}\n",
        host);
}

/* A header whose one device, openmp:0, has the properties `props` (JSON
 * members after its id). */
static void results_begin_device(results_file *rf, const char *name, const char *props)
{
    snprintf(rf->path, sizeof rf->path, "/tmp/fb-test-figures-%ld-%s.jsonl", (long)getpid(), name);
    rf->f = fopen(rf->path, "w");
    assert_non_null(rf->f);
    fprintf(rf->f,
            "{\"type\":\"header\",\"schema\":1,\"run_id\":\"r1\",\"date\":\"2026-11-22\",\"host\":{\"hostname\":"
            "\"host\"},\"devices\":[{\"backend\":\"openmp\",\"id\":\"openmp:0\",\"name\":\"CPU\",%s}]}\n",
            props);
}

typedef struct rec {
    const char *benchmark, *kernel, *device, *precision, *matrix, *suite, *case_, *params;
    const char *extra; /* more fields, raw JSON after a comma */
    double median_s;
    int cache_resident;
    const char *quality; /* stats.quality ("unstable", "contended"), with a quality_why; NULL: none (stable) */
} rec;

/* One usable measurement: samples 0.9, 1 and 1.2 times median_s, GFLOP/s
 * and GB/s from the median as the commands write them. */
static void results_add(results_file *rf, rec r)
{
    const char *device = r.device ? r.device : "opencl:0.0";
    const int omp = strncmp(device, "openmp", 6) == 0;
    double t = r.median_s;
    fprintf(rf->f,
            "{\"type\":\"measurement\",\"schema\":1,\"run_id\":\"r1\",\"benchmark\":\"%s\",\"kernel\":\"%s\","
            "\"backend\":\"%s\",\"device\":\"%s\",\"device_name\":\"%s\",\"precision\":\"%s\",\"params\":%s,"
            "\"status\":\"ok\",\"stats\":{\"samples_s\":[%.9g,%.9g,%.9g],\"n\":3,\"median_s\":%.9g,"
            "\"min_s\":%.9g,\"max_s\":%.9g",
            r.benchmark ? r.benchmark : "spmv", r.kernel, omp ? "openmp" : "opencl", device, omp ? "CPU" : "GPU",
            r.precision ? r.precision : "double", r.params ? r.params : "{}", 0.9 * t, t, 1.2 * t, t, 0.9 * t, 1.2 * t);
    if (r.quality) fprintf(rf->f, ",\"quality\":\"%s\",\"quality_why\":\"why %s\"", r.quality, r.kernel);
    fprintf(rf->f, "},\"flops\":2e6,\"gflops\":%.9g,\"bytes\":1.2e7,\"gbs\":%.9g", 2e6 / t / 1e9, 1.2e7 / t / 1e9);
    if (r.matrix)
        fprintf(rf->f, ",\"matrix\":{\"name\":\"%s\",\"hash\":\"h-%s\"},\"fraction_of_stream\":%.9g", r.matrix,
                r.matrix, 1.2e7 / t / 1e9 / 100);
    if (r.cache_resident) fputs(",\"cache_resident\":true", rf->f);
    if (r.suite) fprintf(rf->f, ",\"suite\":\"%s\"", r.suite);
    if (r.case_) fprintf(rf->f, ",\"case\":\"%s\"", r.case_);
    if (r.extra) fprintf(rf->f, ",%s", r.extra);
    fputs("}\n", rf->f);
}

static fb_results_set *results_load(results_file *rf)
{
    fb_results_set *set = NULL;
    fclose(rf->f);
    if (fb_results_load(rf->path, &set) != FB_OK) fail_msg("%s", fb_error_message());
    unlink(rf->path);
    return set;
}

static const fb_figure *figure_named(const fb_figure_list *list, const char *name)
{
    for (int i = 0; i < list->n; ++i)
        if (strcmp(list->f[i].name, name) == 0) return &list->f[i];
    return NULL;
}

/* The figure's data file as text (at most 64 KiB). */
static char *table_text(const fb_figure *f)
{
    static char buf[1 << 16];
    char path[256];
    snprintf(path, sizeof path, "/tmp/fb-test-figures-%ld-table.csv", (long)getpid());
    assert_int_equal(fb_figure_write(f, path), FB_OK);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    buf[n] = '\0';
    fclose(in);
    unlink(path);
    return buf;
}

/* ---- performance profiles --------------------------------------------------- */

/* Solver b missed matrix m3: the profile is drawn over m1 and m2 only,
 * where both ran, so both curves can reach 1 (before, b's stopped at 2/3). */
static void test_profile_only_matrices_all_solvers_ran(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "profile", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "a", .matrix = "m2", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "a", .matrix = "m3", .median_s = 3e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m1", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m2", .median_s = 1e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_PROFILE, &list), FB_OK);
    assert_int_equal(list.n, 1);
    assert_int_equal(list.f[0].nrows, 2);
    assert_int_equal(list.f[0].ncols, 2);
    assert_non_null(strstr(list.f[0].title, "over 2 matrices all 2 solvers ran on"));
    const char *csv = table_text(&list.f[0]);
    assert_non_null(strstr(csv, "ratio,a @ opencl:0.0\n1,0\n1,0.5\n2,1\n"));
    assert_non_null(strstr(csv, "ratio,b @ opencl:0.0\n1,0\n1,0.5\n2,1\n"));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* heat2d's problems are grids: the profile's title and axes say grids, not
 * matrices. */
static void test_profile_of_grids_says_grids(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "profile-grids", "host");
    const char *grids[] = {"g1", "g2"}, *extra[] = {"\"grid\":{\"name\":\"g1\"}", "\"grid\":{\"name\":\"g2\"}"};
    for (int g = 0; g < 2; ++g) {
        results_add(
            &rf, (rec){.benchmark = "heat2d", .kernel = "a", .matrix = grids[g], .extra = extra[g], .median_s = 1e-3});
        results_add(
            &rf, (rec){.benchmark = "heat2d", .kernel = "b", .matrix = grids[g], .extra = extra[g], .median_s = 2e-3});
    }
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_PROFILE, &list), FB_OK);
    assert_int_equal(list.n, 1);
    assert_non_null(strstr(list.f[0].title, "over 2 grids all 2 solvers ran on"));
    assert_string_equal(list.f[0].xlabel, "grid");
    assert_string_equal(list.f[0].ylabel, "grids");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* One matrix in common is no profile: not drawn, and a note says why. */
static void test_profile_needs_two_common_matrices(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "profile-note", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "a", .matrix = "m2", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m1", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m3", .median_s = 1e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_PROFILE, &list), FB_OK);
    assert_int_equal(list.n, 0);
    assert_int_equal(list.nnotes, 1);
    assert_non_null(strstr(list.notes[0], "only 1 of its 3 matrices were run by all 2 solvers"));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* Solvers sharing no matrix (CSR kernels, BCSR kernels on the block form)
 * are two profiles, each over its own matrices. */
static void test_profile_per_set_of_linked_solvers(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "profile-sets", "host");
    const char *csr[] = {"m1", "m2"}, *block[] = {"m1:block=4", "m2:block=4"};
    for (int i = 0; i < 2; ++i) {
        results_add(&rf, (rec){.kernel = "csr-a", .matrix = csr[i], .case_ = "csr", .median_s = 1e-3});
        results_add(&rf, (rec){.kernel = "csr-b", .matrix = csr[i], .case_ = "csr", .median_s = 2e-3});
        results_add(&rf, (rec){.kernel = "bcsr-a", .matrix = block[i], .case_ = "block", .median_s = 1e-3});
        results_add(&rf, (rec){.kernel = "bcsr-b", .matrix = block[i], .case_ = "block", .median_s = 2e-3});
    }
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_PROFILE, &list), FB_OK);
    assert_int_equal(list.n, 2);
    assert_non_null(figure_named(&list, "profile-spmv-double-csr"));
    assert_non_null(figure_named(&list, "profile-spmv-double-block"));
    for (int i = 0; i < 2; ++i) {
        assert_int_equal(list.f[i].nrows, 2);
        assert_int_equal(list.f[i].ncols, 2);
    }
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- whiskers ----------------------------------------------------------------- */

/* Every "value,lo,hi" triple of a data line: lo <= value <= hi, and the
 * spread is the samples' (0.9 and 1.2 times the median): value / 1.2 and
 * value / 0.9 for a rate. Returns how many triples. */
static int check_triples(const char *line)
{
    int n = 0;
    const char *p = strchr(line, ',');
    while (p && *p == ',') {
        char *end;
        double v = strtod(p + 1, &end), lo = strtod(end + 1, &end), hi = strtod(end + 1, &end);
        if (!isnan(v)) {
            assert_true(lo <= v && v <= hi);
            assert_float_equal(lo, v / 1.2, 1e-4 * v);
            assert_float_equal(hi, v / 0.9, 1e-4 * v);
            n++;
        }
        p = end;
    }
    return n;
}

/* The variants table gives each kernel lo and hi columns, from the samples
 * of the configuration the bar shows (the best of two settings here). */
static void test_variants_whiskers(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "whiskers", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .params = "{\"WG\":64}", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .params = "{\"WG\":128}", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "a", .matrix = "m2", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m1", .median_s = 3e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_VARIANTS, &list), FB_OK);
    assert_int_equal(list.n, 1);
    char *csv = table_text(&list.f[0]);
    char *line = strtok(csv, "\n");
    assert_string_equal(line, "label,a,a lo,a hi,b,b lo,b hi");
    int triples = 0;
    while ((line = strtok(NULL, "\n")))
        triples += check_triples(line);
    assert_int_equal(triples, 3);
    assert_true(fb_figure_has_whiskers(FB_FIG_VARIANTS));
    assert_false(fb_figure_has_whiskers(FB_FIG_SPEEDUP));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* A roofline bar whose data fitted the last-level cache says so in its
 * row and the title: it is no roofline fraction. */
static void test_roofline_marks_cache_resident_rows(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "resident", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "small", .median_s = 1e-5, .cache_resident = 1});
    results_add(&rf, (rec){.kernel = "a", .matrix = "large", .median_s = 2e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_FRACTION, &list), FB_OK);
    assert_int_equal(list.n, 1);
    assert_int_equal(list.f[0].nrows, 2);
    assert_string_equal(list.f[0].rows[0], "small (cache resident)");
    assert_string_equal(list.f[0].rows[1], "large");
    assert_non_null(strstr(list.f[0].title, "cache resident: the data fit the last-level cache"));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- the roofline's roofs ---------------------------------------------------- */

#define CPU_PROPS "\"compute_units\":2,\"clock_mhz\":2000,\"cache_bytes\":33554432"

/* A stream triad record on openmp:0 of n elements per array on a 32 MiB
 * cache: its working set, and whether it fitted the cache and was under
 * 4x it, as fb_stream_record writes them. */
static void stream_triad(results_file *rf, const char *precision, double n, double median_s)
{
    char extra[256], params[64];
    const double ws = 24 * n;
    snprintf(params, sizeof params, "{\"n\":%.0f}", n);
    snprintf(extra, sizeof extra,
             "\"working_set_bytes\":%.0f,\"device_cache_bytes\":33554432,\"cache_resident\":%s,\"cache_reuse\":%s", ws,
             ws <= 33554432 ? "true" : "false", ws < 4.0 * 33554432 ? "true" : "false");
    results_add(rf, (rec){.benchmark = "stream",
                          .kernel = "triad",
                          .device = "openmp:0",
                          .precision = precision,
                          .params = params,
                          .median_s = median_s,
                          .extra = extra});
}

static const fb_figure *roofline_of(fb_results_set *set, fb_figure_list *list)
{
    fb_triads t;
    assert_int_equal(fb_triads_pick(set, &t), FB_OK);
    fb_triads_free(&t);
    assert_int_equal(fb_figures_collect(set, FB_FIG_ROOFLINE, list), FB_OK);
    assert_int_equal(list->n, 1);
    return &list->f[0];
}

/* A cache-resident point gets the cache's roof: the best triad measured
 * within the cache on that device (a stream run with a small --size),
 * never the DRAM-sized one nor another device's; its problem is named
 * cache resident in the key. */
static void test_roofline_cache_roof(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin_device(&rf, "cache-roof", CPU_PROPS);
    results_add(&rf,
                (rec){.kernel = "a", .device = "openmp:0", .matrix = "small", .median_s = 1e-4, .cache_resident = 1});
    results_add(&rf, (rec){.kernel = "a",
                           .device = "openmp:0",
                           .matrix = "large",
                           .median_s = 2e-3,
                           .extra = "\"cache_resident\":false"});
    stream_triad(&rf, "double", 33554432, 1e-3); /* 768 MiB: the DRAM triad, 12 GB/s */
    stream_triad(&rf, "double", 262144, 2e-4);   /* 6 MiB: within the cache, 60 GB/s */
    stream_triad(&rf, "double", 131072, 1e-4);   /* 3 MiB: within it too, 120 GB/s: the best */
    fb_results_set *set = results_load(&rf);
    const fb_figure *f = roofline_of(set, &list);
    assert_float_equal(f->ceiling_gbs, 12, 1e-9);
    assert_int_equal(f->ceiling_reuse, 0);
    assert_float_equal(f->cache_gbs, 120, 1e-9);
    assert_non_null(strstr(f->cache_why, "32.0 MiB last-level cache: stream triad, n = 131072"));
    int marked = 0, large = 0;
    for (int i = 0; i < f->nrows; ++i) {
        marked += !strcmp(f->rows[i], "small (cache resident)");
        large += !strcmp(f->rows[i], "large");
    }
    assert_int_equal(marked + large, 2);
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* The read ceiling's roof: the dot of the triad's stream run, where it
 * is a ceiling of memory (within 0.8 of the triad or above); a dot far
 * below the triad (PoCL's) draws none. */
static void test_roofline_read_roof(void **state)
{
    (void)state;
    const double dot_s[] = {1e-3 * 12.0 / 14.0, 1e-2}, want[] = {14, 0}; /* 14 GB/s; 1.2 GB/s */
    for (int k = 0; k < 2; ++k) {
        results_file rf;
        fb_figure_list list;
        results_begin_device(&rf, k ? "read-roof-none" : "read-roof", CPU_PROPS);
        results_add(&rf, (rec){.kernel = "a",
                               .device = "openmp:0",
                               .matrix = "large",
                               .median_s = 2e-3,
                               .extra = "\"cache_resident\":false"});
        stream_triad(&rf, "double", 33554432, 1e-3); /* 12 GB/s */
        results_add(&rf, (rec){.benchmark = "stream",
                               .kernel = "dot",
                               .device = "openmp:0",
                               .params = "{\"n\":33554432}",
                               .median_s = dot_s[k]});
        fb_results_set *set = results_load(&rf);
        const fb_figure *f = roofline_of(set, &list);
        assert_float_equal(f->ceiling_gbs, 12, 1e-9);
        assert_float_equal(f->read_gbs, want[k], 1e-9);
        fb_figure_list_free(&list);
        fb_results_set_free(set);
    }
}

/* No triad measured within the cache: no cache roof, the point's problem
 * named cache resident in the key instead; a triad that is itself under
 * 4x the cache is said to include cache reuse. */
static void test_roofline_without_cache_triad(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin_device(&rf, "no-cache-roof", CPU_PROPS);
    results_add(&rf,
                (rec){.kernel = "a", .device = "openmp:0", .matrix = "small", .median_s = 1e-4, .cache_resident = 1});
    stream_triad(&rf, "double", 2000000, 4e-3); /* 45.8 MiB: over the cache, under 4x it */
    fb_results_set *set = results_load(&rf);
    const fb_figure *f = roofline_of(set, &list);
    assert_float_equal(f->cache_gbs, 0, 0);
    assert_int_equal(f->ceiling_reuse, 1);
    int marked = 0;
    for (int i = 0; i < f->nrows; ++i)
        marked += !strcmp(f->rows[i], "small (cache resident)");
    assert_int_equal(marked, 1);
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* The CPU's peak from the ISA its header entry names: 2 FMA units of its
 * vector width (AVX-512: 8 doubles), and AVX2 assumed, said so, where the
 * record names none. */
static double cpu_peak(const char *props, const char *precision, char *why, size_t len)
{
    results_file rf;
    fb_figure_list list;
    results_begin_device(&rf, "peak", props);
    results_add(&rf,
                (rec){.kernel = "a", .device = "openmp:0", .matrix = "m", .precision = precision, .median_s = 1e-3});
    stream_triad(&rf, precision, 33554432, 1e-3);
    fb_results_set *set = results_load(&rf);
    const fb_figure *f = roofline_of(set, &list);
    const double peak = f->ceiling_gflops;
    snprintf(why, len, "%s", f->ceiling_why);
    fb_figure_list_free(&list);
    fb_results_set_free(set);
    return peak;
}

static void test_roofline_peak_from_isa(void **state)
{
    (void)state;
    char why[256];
    assert_float_equal(
        cpu_peak(CPU_PROPS ",\"simd\":{\"isa\":\"avx512f\",\"vector_bits\":512}", "double", why, sizeof why),
        2 * 2000 * 32 / 1e3, 1e-9);
    assert_non_null(strstr(why, "32 flop/cycle per core (avx512f, 512-bit vectors: 2 FMA units x 8 lanes"));
    assert_float_equal(
        cpu_peak(CPU_PROPS ",\"simd\":{\"isa\":\"avx2\",\"vector_bits\":256}", "double", why, sizeof why),
        2 * 2000 * 16 / 1e3, 1e-9);
    assert_float_equal(cpu_peak(CPU_PROPS ",\"simd\":{\"isa\":\"sve\",\"vector_bits\":256}", "single", why, sizeof why),
                       2 * 2000 * 32 / 1e3, 1e-9);
    assert_float_equal(
        cpu_peak(CPU_PROPS ",\"simd\":{\"isa\":\"asimd\",\"vector_bits\":128}", "double", why, sizeof why),
        2 * 2000 * 8 / 1e3, 1e-9);
    assert_non_null(strstr(why, "asimd"));
    assert_float_equal(cpu_peak(CPU_PROPS, "double", why, sizeof why), 2 * 2000 * 16 / 1e3, 1e-9);
    assert_non_null(strstr(why, "assumed AVX2"));
    assert_non_null(strstr(why, "the record names no ISA"));
}

/* A problem only OpenMP ran has no speedup: no row (it drew an empty slot
 * between the bars), the others keep their order. */
static void test_speedup_drops_problems_no_device_ran(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "speedup-rows", "host");
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m2", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m3", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m3", .median_s = 2e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_SPEEDUP, &list), FB_OK);
    assert_int_equal(list.n, 1);
    assert_string_equal(table_text(&list.f[0]), "label,opencl:0.0 GPU\nm1,4\nm3,2\n");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- unstable and contended records ----------------------------------------- */

/* A speedup is as trustworthy as the worse of its two records: m2's device
 * record is unstable, m3's baseline contended. The table gives flagged
 * cells a column of their own per device (drawn hatched), so no solid bar
 * rests on them. */
static void test_speedup_flags_untrusted_cells(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "speedup-quality", "host");
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m2", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m2", .median_s = 2e-3, .quality = "unstable"});
    results_add(&rf,
                (rec){.kernel = "k", .device = "openmp:0", .matrix = "m3", .median_s = 4e-3, .quality = "contended"});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m3", .median_s = 4e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_SPEEDUP, &list), FB_OK);
    assert_int_equal(list.n, 1);
    const fb_figure *f = &list.f[0];
    assert_int_equal(fb_figure_flagged(f), 2);
    for (int i = 0; i < f->ncells; ++i) {
        const fb_cell *x = &f->cells[i];
        const char *row = f->rows[x->row];
        assert_non_null(x->rec);
        assert_non_null(x->base);
        assert_int_equal(x->quality, strcmp(row, "m1") == 0   ? FB_QUALITY_STABLE
                                     : strcmp(row, "m2") == 0 ? FB_QUALITY_UNSTABLE
                                                              : FB_QUALITY_CONTENDED);
    }
    assert_string_equal(table_text(f), "label,opencl:0.0 GPU,opencl:0.0 GPU (unstable or contended)\n"
                                       "m1,4,NaN\nm2,NaN,2\nm3,NaN,1\n");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* With no flagged cell the speedup table is as it always was. */
static void test_speedup_table_unchanged_when_stable(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "speedup-stable", "host");
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m1", .median_s = 1e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_SPEEDUP, &list), FB_OK);
    assert_int_equal(fb_figure_flagged(&list.f[0]), 0);
    assert_string_equal(table_text(&list.f[0]), "label,opencl:0.0 GPU\nm1,4\n");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* The best settings are the best stable ones: a faster record whose
 * samples were unstable does not take the cell while a stable one exists,
 * and takes it, flagged, where none does. */
static void test_best_cell_prefers_stable_records(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "speedup-best", "host");
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3});
    results_add(&rf,
                (rec){.kernel = "k", .matrix = "m1", .params = "{\"WG\":64}", .median_s = 1e-3, .quality = "unstable"});
    results_add(&rf, (rec){.kernel = "k", .matrix = "m1", .params = "{\"WG\":128}", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "k", .device = "openmp:0", .matrix = "m2", .median_s = 4e-3});
    results_add(&rf,
                (rec){.kernel = "k", .matrix = "m2", .params = "{\"WG\":64}", .median_s = 1e-3, .quality = "unstable"});
    results_add(
        &rf, (rec){.kernel = "k", .matrix = "m2", .params = "{\"WG\":128}", .median_s = 2e-3, .quality = "contended"});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_SPEEDUP, &list), FB_OK);
    assert_string_equal(table_text(&list.f[0]), "label,opencl:0.0 GPU,opencl:0.0 GPU (unstable or contended)\n"
                                                "m1,2,NaN\nm2,NaN,4\n");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* A roofline bar of an unstable or contended record stands in a row of its
 * own, marked, beside its matrix's trusted bars; the title says what the
 * mark means. A record contended by its environment alone (no stats
 * verdict) is marked too. */
static void test_roofline_marks_untrusted_rows(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    results_begin(&rf, "roofline-quality", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m1", .median_s = 1e-3, .quality = "unstable"});
    results_add(&rf, (rec){.kernel = "a",
                           .matrix = "m2",
                           .median_s = 1e-3,
                           .extra = "\"environment\":{\"contended\":true,\"contended_why\":\"steal\"}"});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_FRACTION, &list), FB_OK);
    assert_int_equal(list.n, 1);
    const fb_figure *f = &list.f[0];
    assert_int_equal(f->nrows, 3);
    assert_string_equal(f->rows[0], "m1");
    assert_string_equal(f->rows[1], "m1 (unstable)");
    assert_string_equal(f->rows[2], "m2 (contended)");
    assert_non_null(strstr(f->title, "unstable or contended: not a figure to trust"));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- names ---------------------------------------------------------------------- */

/* Two precisions and two cases sweeping one kernel on one matrix: the heat
 * maps are told apart by precision and case, not by a number. */
static void test_names_say_precision_and_case(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    const char *precisions[] = {"double", "single"}, *cases[] = {"csr", "occupancy"};
    results_begin(&rf, "names", "host");
    for (int p = 0; p < 2; ++p)
        for (int c = 0; c < 2; ++c)
            for (int x = 1; x <= 2; ++x)
                for (int y = 1; y <= 2; ++y) {
                    char params[64];
                    snprintf(params, sizeof params, "{\"X\":%d,\"Y\":%d}", x, y);
                    results_add(&rf, (rec){.kernel = "k",
                                           .matrix = "M",
                                           .precision = precisions[p],
                                           .case_ = cases[c],
                                           .params = params,
                                           .median_s = 1e-3 * x * y});
                }
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_HEATMAP, &list), FB_OK);
    assert_int_equal(list.n, 4);
    assert_non_null(figure_named(&list, "heatmap-k-opencl-0.0-double-m-csr"));
    assert_non_null(figure_named(&list, "heatmap-k-opencl-0.0-double-m-occupancy"));
    assert_non_null(figure_named(&list, "heatmap-k-opencl-0.0-single-m-csr"));
    assert_non_null(figure_named(&list, "heatmap-k-opencl-0.0-single-m-occupancy"));
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- scaling over ranks ------------------------------------------------------- */

/* A strong study on 1, 2 and 4 ranks of one mesh: three points of one line
 * (runs on several ranks never supersede the one-rank run of the same
 * configuration), speedups as recorded, ranks in numeric order. */
static void test_scaling_lines_over_ranks(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list list;
    static const char *const extras[] = {
        "\"scaling\":{\"mode\":\"strong\",\"ranks\":4,\"speedup\":3.5,\"efficiency\":0.875},\"mpi\":{\"ranks\":4}",
        "\"scaling\":{\"mode\":\"strong\",\"ranks\":1,\"speedup\":1,\"efficiency\":1}",
        "\"scaling\":{\"mode\":\"strong\",\"ranks\":2,\"speedup\":1.8,\"efficiency\":0.9},\"mpi\":{\"ranks\":2}",
    };
    results_begin(&rf, "scaling", "host");
    for (int k = 0; k < 3; ++k)
        results_add(&rf, (rec){.benchmark = "solve",
                               .kernel = "fractional-step",
                               .device = "openmp:0",
                               .matrix = "cavity-l1",
                               .extra = extras[k],
                               .median_s = 1e-2});
    results_add(&rf, (rec){.benchmark = "solve",
                           .kernel = "fractional-step",
                           .device = "openmp:0",
                           .matrix = "m2",
                           .median_s = 1e-2}); /* no study: not drawn */
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_SCALING, &list), FB_OK);
    assert_int_equal(list.n, 1);
    assert_string_equal(list.f[0].name, "scaling-strong-solve");
    assert_string_equal(table_text(&list.f[0]), "ranks,cavity-l1\n1,1\n2,1.8\n4,3.5\n");
    fb_figure_list_free(&list);
    fb_results_set_free(set);
}

/* ---- colours ----------------------------------------------------------------- */

static void assert_distinct_colours(const fb_colour_map *map, const fb_figure *f)
{
    char a[8], b[8];
    for (int i = 0; i < f->ncols; ++i)
        for (int j = i + 1; j < f->ncols; ++j)
            assert_string_not_equal(fb_colour_of(map, f->cols[i], a), fb_colour_of(map, f->cols[j], b));
}

/* Kernel a in the variants and the roofline figure of one file: one
 * colour in both; the series of each figure differ. */
static void test_colours_one_per_label(void **state)
{
    (void)state;
    results_file rf;
    fb_figure_list lists[2];
    fb_colour_map map;
    char x[8], y[8];
    results_begin(&rf, "colours", "host");
    results_add(&rf, (rec){.kernel = "a", .matrix = "m1", .median_s = 1e-3});
    results_add(&rf, (rec){.kernel = "b", .matrix = "m1", .median_s = 2e-3});
    results_add(&rf, (rec){.kernel = "a", .device = "openmp:0", .matrix = "m1", .median_s = 3e-3});
    results_add(&rf, (rec){.kernel = "c", .device = "openmp:0", .matrix = "m1", .median_s = 3e-3});
    fb_results_set *set = results_load(&rf);
    assert_int_equal(fb_figures_collect(set, FB_FIG_VARIANTS, &lists[0]), FB_OK);
    assert_int_equal(fb_figures_collect(set, FB_FIG_FRACTION, &lists[1]), FB_OK);
    assert_int_equal(lists[0].n, 2); /* one per device */
    assert_int_equal(fb_colour_map_build(lists, 2, &map), FB_OK);
    assert_int_equal(map.n, 3);
    const char *first = NULL;
    for (int l = 0; l < 2; ++l)
        for (int i = 0; i < lists[l].n; ++i) {
            const fb_figure *f = &lists[l].f[i];
            assert_distinct_colours(&map, f);
            for (int c = 0; c < f->ncols; ++c)
                if (strcmp(f->cols[c], "a") == 0) {
                    if (!first) first = strcpy(x, fb_colour_of(&map, "a", y));
                    assert_string_equal(fb_colour_of(&map, f->cols[c], y), first);
                }
        }
    assert_non_null(first);
    /* the first label in sorted order takes the palette's first; the others the farthest from it */
    assert_string_equal(fb_colour_of(&map, "a", x), "#1f77b4");
    assert_true(fb_colour_distance(fb_colour_of(&map, "a", x), fb_colour_of(&map, "c", y)) > 50);
    fb_colour_map_free(&map);
    fb_figure_list_free(&lists[0]);
    fb_figure_list_free(&lists[1]);
    fb_results_set_free(set);
}

/* The file of the triad tests: a sweep's triad (larger array), the stream
 * command's, and spmv records on openmp carrying `carried` (1 or 2 figures)
 * and one on a device no stream record measured. */
static fb_results_set *triads_file(results_file *rf, int carried)
{
    results_begin(rf, "triads", "host");
    results_add(rf, (rec){.benchmark = "stream",
                          .kernel = "triad",
                          .device = "openmp:0",
                          .suite = "quick",
                          .params = "{\"n\":1000000}",
                          .median_s = 1e-3});
    results_add(rf, (rec){.benchmark = "stream",
                          .kernel = "triad",
                          .device = "openmp:0",
                          .params = "{\"n\":100000}",
                          .median_s = 2e-3});
    results_add(
        rf, (rec){.kernel = "a", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3, .extra = "\"stream_gbs\":99"});
    results_add(
        rf,
        (rec){.kernel = "a", .device = "opencl:0.0", .matrix = "m1", .median_s = 1e-3, .extra = "\"stream_gbs\":50"});
    if (carried == 2)
        results_add(
            rf,
            (rec){.kernel = "b", .device = "openmp:0", .matrix = "m1", .median_s = 4e-3, .extra = "\"stream_gbs\":77"});
    results_add(rf, (rec){.kernel = "a",
                          .device = "openmp:0",
                          .precision = "single",
                          .matrix = "m1",
                          .median_s = 2e-3,
                          .extra = "\"stream_gbs\":55"});
    return results_load(rf);
}

/* One triad per device (issues 36 and 50): where the records divided by
 * one triad (the stored reference a run's commands share), the report
 * divides by it too, so the terminal, the records and the report agree;
 * the run's stream records are then others. A device no stream record
 * measured takes the triad its record carries; every fraction divides by
 * the device's one, not by the record's own fraction_of_stream. */
static void test_one_triad_per_device(void **state)
{
    (void)state;
    results_file rf;
    fb_triads t;
    fb_results_set *set = triads_file(&rf, 1);
    assert_int_equal(fb_triads_pick(set, &t), FB_OK);
    assert_int_equal(t.n, 2);
    const fb_device_triad *omp = fb_triads_find(&t, "openmp:0"), *gpu = fb_triads_find(&t, "opencl:0.0");
    assert_non_null(omp);
    assert_non_null(gpu);
    assert_float_equal(omp->gbs, 99, 1e-9); /* the one the spmv record divided by */
    assert_true(omp->by_carried);
    assert_non_null(strstr(omp->source, "the one every record divided by"));
    assert_int_equal(omp->others, 3); /* the sweep's triad, the stream command's and the single one */
    assert_null(gpu->rec);
    assert_float_equal(gpu->gbs, 50, 1e-9);
    assert_float_equal(fb_record_fraction(set, &set->records[2]), (1.2e7 / 4e-3 / 1e9) / 99, 1e-9);
    assert_float_equal(fb_record_fraction(set, &set->records[3]), (1.2e7 / 1e-3 / 1e9) / 50, 1e-9);
    /* a single-precision record divides by the single triad it carried */
    assert_float_equal(omp->single_gbs, 55, 1e-9);
    assert_float_equal(fb_record_triad(set, &set->records[4]), 55, 1e-9);
    assert_float_equal(fb_record_fraction(set, &set->records[4]), (1.2e7 / 2e-3 / 1e9) / 55, 1e-9);
    assert_non_null(strstr(omp->source, "single precision: 55.00 GB/s"));
    fb_triads_free(&t);
    fb_results_set_free(set);
}

/* Records that divided by several triads: no one of them is the run's, so
 * the stream command's triad before a sweep's, though the sweep's array is
 * larger and its figure other. */
static void test_several_carried_triads_take_the_stream_commands(void **state)
{
    (void)state;
    results_file rf;
    fb_triads t;
    fb_results_set *set = triads_file(&rf, 2);
    assert_int_equal(fb_triads_pick(set, &t), FB_OK);
    const fb_device_triad *omp = fb_triads_find(&t, "openmp:0");
    assert_non_null(omp);
    assert_false(omp->by_carried);
    assert_float_equal(omp->gbs, 1.2e7 / 2e-3 / 1e9, 1e-9); /* the stream command's, not the sweep's 12 GB/s */
    assert_ptr_equal(omp->rec, &set->records[1]);
    assert_int_equal(omp->others, 4); /* the sweep's triad, the 99 and 77 the spmv records carry, the single 55 */
    assert_float_equal(fb_record_fraction(set, &set->records[2]), (1.2e7 / 4e-3 / 1e9) / omp->gbs, 1e-9);
    fb_triads_free(&t);
    fb_results_set_free(set);
}

/* A figure of 16 series (SpMV's kernels and peers of a default run): no
 * two of its colours look alike. The palette taken in label order gave
 * csr-merge and peer:graphblas two browns, sell and bcsr-warp two
 * purples (issue 36). */
static void test_colours_of_one_figure_stand_apart(void **state)
{
    (void)state;
    static const char *const kernels[] = {"bcsr",          "bcsr-lanes", "bcsr-soa",       "bcsr-vector",
                                          "bcsr-warp",     "csr-merge",  "csr-multirow",   "csr-scalar",
                                          "csr-vector",    "sell",       "peer:graphblas", "peer:viennacl",
                                          "peer:clsparse", "auto",       "heat-jacobi",    "fv-gather"};
    char *labels[16], a[8], b[8];
    fb_figure figure = {.kind = FB_FIG_VARIANTS, .cols = labels, .ncols = 16};
    fb_figure_list list = {&figure, 1, NULL, 0};
    fb_colour_map map;
    for (int i = 0; i < 16; ++i)
        labels[i] = (char *)kernels[i];
    assert_int_equal(fb_colour_map_build(&list, 1, &map), FB_OK);
    for (int i = 0; i < 16; ++i)
        for (int j = i + 1; j < 16; ++j)
            assert_true(fb_colour_distance(fb_colour_of(&map, labels[i], a), fb_colour_of(&map, labels[j], b)) > 12);
    fb_colour_map_free(&map);
}

/* More labels than the palette (40, in figures of 10 overlapping by 5):
 * the series of each figure still differ, and none needs a colour past
 * the palette. */
static void test_colours_beyond_the_palette(void **state)
{
    (void)state;
    char names[40][8], *labels[40];
    fb_figure figures[7];
    fb_figure_list list = {figures, 7, NULL, 0};
    fb_colour_map map;
    char hex[8];
    for (int i = 0; i < 40; ++i) {
        snprintf(names[i], sizeof names[i], "k%02d", i);
        labels[i] = names[i];
    }
    for (int i = 0; i < 7; ++i)
        figures[i] = (fb_figure){.kind = FB_FIG_VARIANTS, .cols = &labels[5 * i], .ncols = 10};
    assert_int_equal(fb_colour_map_build(&list, 1, &map), FB_OK);
    assert_int_equal(map.n, 40);
    for (int i = 0; i < 7; ++i)
        assert_distinct_colours(&map, &figures[i]);
    for (int i = 0; i < map.n; ++i)
        assert_true(map.colour[i] < FB_PALETTE_SIZE);
    assert_int_equal(strlen(fb_colour_of(&map, "k39", hex)), 7);
    fb_colour_map_free(&map);
}

/* A figure is checked by its first and last bytes: a valid SVG over the
 * 64 KiB the check once read whole was refused. */
static void test_large_svg_is_valid(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/fb-test-large-%ld.svg", P_tmpdir, (long)getpid());
    FILE *f = fopen(path, "w");
    fputs("<?xml version=\"1.0\"?>\n<svg width=\"10\">\n", f);
    for (int i = 0; i < 20000; ++i)
        fputs("<path d=\"M1,1 L2,2\"/>\n", f);
    fputs("</svg>\n\n", f);
    fclose(f);
    assert_true(fb_plot_file_valid(path));
    f = fopen(path, "r+");
    assert_int_equal(ftruncate(fileno(f), 300000), 0); /* cut before its end */
    fclose(f);
    assert_false(fb_plot_file_valid(path));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_only_matrices_all_solvers_ran),
        cmocka_unit_test(test_profile_of_grids_says_grids),
        cmocka_unit_test(test_profile_needs_two_common_matrices),
        cmocka_unit_test(test_profile_per_set_of_linked_solvers),
        cmocka_unit_test(test_variants_whiskers),
        cmocka_unit_test(test_roofline_marks_cache_resident_rows),
        cmocka_unit_test(test_speedup_drops_problems_no_device_ran),
        cmocka_unit_test(test_speedup_flags_untrusted_cells),
        cmocka_unit_test(test_speedup_table_unchanged_when_stable),
        cmocka_unit_test(test_best_cell_prefers_stable_records),
        cmocka_unit_test(test_roofline_marks_untrusted_rows),
        cmocka_unit_test(test_roofline_cache_roof),
        cmocka_unit_test(test_roofline_read_roof),
        cmocka_unit_test(test_roofline_without_cache_triad),
        cmocka_unit_test(test_roofline_peak_from_isa),
        cmocka_unit_test(test_colours_of_one_figure_stand_apart),
        cmocka_unit_test(test_one_triad_per_device),
        cmocka_unit_test(test_several_carried_triads_take_the_stream_commands),
        cmocka_unit_test(test_names_say_precision_and_case),
        cmocka_unit_test(test_scaling_lines_over_ranks),
        cmocka_unit_test(test_colours_one_per_label),
        cmocka_unit_test(test_large_svg_is_valid),
        cmocka_unit_test(test_colours_beyond_the_palette),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
