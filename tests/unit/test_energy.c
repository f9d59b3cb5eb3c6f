/* test_energy.c - the energy meters without the hardware: NVML through the
 * fake library (tests/fake_nvml/, loaded by FLOWBENCH_NVML_LIB through the
 * meter's own dlopen) with scripted counters, RAPL and cpufreq through a
 * powercap tree in a temporary folder; the joules, power, GFLOP/J, the
 * wrap-around and the throttle flag checked exactly; the paths where nothing
 * can be read say why, once; the measurement policy extends a short window
 * only where joules can be read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/record.h"
#include "core/contention.h"
#include "core/energy.h"
#include "core/measure.h"

#define BUS "0000:65:00.0"

static void clear_env(void)
{
    static const char *const names[] = {"FAKE_NVML_MJ_START",      "FAKE_NVML_MJ_PER_CALL",  "FAKE_NVML_NO_ENERGY",
                                        "FAKE_NVML_POWER_MW",      "FAKE_NVML_SM_MHZ",       "FAKE_NVML_MEM_MHZ",
                                        "FAKE_NVML_APP_SM_MHZ",    "FAKE_NVML_TEMP_C",       "FAKE_NVML_THROTTLE",
                                        "FAKE_NVML_BUS_ID",        "FAKE_NVML_INIT_FAIL",    "FLOWBENCH_ENERGY_WINDOW",
                                        "FLOWBENCH_POWERCAP_ROOT", "FLOWBENCH_CPUFREQ_ROOT", "FAKE_NVML_PROCS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        unsetenv(names[i]);
    setenv("FLOWBENCH_NVML_LIB", FB_FAKE_NVML, 1);
}

static int setup(void **state)
{
    (void)state;
    clear_env();
    return 0;
}

/* The fake's own counters, from the instance the meter loads too. */
static int live_inits(void)
{
    void *lib = dlopen(FB_FAKE_NVML, RTLD_NOW);
    int (*f)(void) = lib ? (int (*)(void))dlsym(lib, "fake_nvml_live_inits") : NULL;
    int n = f ? f() : -1;
    if (lib) dlclose(lib);
    return n;
}

static unsigned long long energy_reads(void)
{
    void *lib = dlopen(FB_FAKE_NVML, RTLD_NOW);
    unsigned long long (*f)(void) = lib ? (unsigned long long (*)(void))dlsym(lib, "fake_nvml_energy_reads") : NULL;
    unsigned long long n = f ? f() : 0;
    if (lib) dlclose(lib);
    return n;
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static fb_energy_meter *open_fake(void)
{
    fb_energy_meter *m = NULL;
    assert_int_equal(fb_energy_open_nvml(BUS, &m), FB_OK);
    assert_non_null(m);
    return m;
}

/* ---- NVML ------------------------------------------------------------- */

static void test_nvml_counter_arithmetic(void **state)
{
    fb_energy_reading r;
    const char *why;
    (void)state;
    setenv("FAKE_NVML_MJ_PER_CALL", "2500", 1);
    fb_energy_meter *m = open_fake();
    assert_true(fb_energy_available(m, &why));
    assert_true(fb_energy_min_window(m) == FB_ENERGY_NVML_WINDOW_S);
    assert_int_equal(live_inits(), 1);
    fb_energy_start(m);
    fb_energy_stop(m, 10, 4, 0.5, &r);
    /* two reads (start, stop): the counter rose by 2500 mJ once */
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_string_equal(r.source, "nvml");
    assert_string_equal(r.method, "counter");
    assert_true(r.joules == 2.5);
    assert_int_equal(r.runs, 10);
    assert_int_equal(r.extra_runs, 4);
    assert_true(r.window_s >= 0);
    json_t *j = fb_energy_json(&r, 1e9); /* 1 GFLOP per run: 10 GFLOP over 2.5 J */
    assert_true(json_real_value(json_object_get(j, "joules_per_run")) == 0.25);
    assert_true(json_real_value(json_object_get(j, "gflop_per_j")) == 4.0);
    if (r.window_s > 0) assert_true(json_real_value(json_object_get(j, "avg_power_w")) == 2.5 / r.window_s);
    assert_true(json_real_value(json_object_get(json_object_get(j, "clocks"), "sm_mhz_min")) == 1980);
    assert_true(json_real_value(json_object_get(json_object_get(j, "clocks"), "mem_mhz_max")) == 2619);
    assert_true(json_real_value(json_object_get(json_object_get(j, "temperature_c"), "max")) == 45);
    assert_true(json_is_false(json_object_get(j, "throttled")));
    assert_int_equal(json_array_size(json_object_get(j, "throttle_reasons")), 0);
    /* a window shorter than the counter's minimum says so */
    assert_non_null(strstr(json_string_value(json_object_get(j, "note")), "shorter than the 1 s"));
    json_decref(j);
    fb_energy_close(m);
    assert_int_equal(live_inits(), 0); /* every nvmlInit_v2 has its nvmlShutdown */
}

static void test_nvml_power_reason_throttles(void **state)
{
    fb_energy_reading r;
    (void)state;
    setenv("FAKE_NVML_THROTTLE", "0x4", 1); /* SW power cap */
    fb_energy_meter *m = open_fake();
    fb_energy_start(m);
    fb_energy_stop(m, 5, 0, 0.1, &r);
    assert_true(r.throttle_checked);
    assert_true(r.throttled);
    assert_non_null(strstr(r.throttle_why, "sw_power_cap"));
    json_t *j = fb_energy_json(&r, 0);
    assert_true(json_is_true(json_object_get(j, "throttled")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(j, "throttle_reasons"), 0)), "sw_power_cap");
    assert_null(json_object_get(j, "gflop_per_j")); /* no flops known */
    json_decref(j);
    fb_energy_close(m);
}

static void test_nvml_idle_and_applications_clock_do_not_throttle(void **state)
{
    fb_energy_reading r;
    (void)state;
    /* idle between launches and clocks held at the applications setting are no slowdown */
    setenv("FAKE_NVML_THROTTLE", "0x3", 1);
    setenv("FAKE_NVML_SM_MHZ", "210", 1); /* an idle clock, read while idle: not counted */
    fb_energy_meter *m = open_fake();
    fb_energy_start(m);
    fb_energy_stop(m, 5, 0, 0.1, &r);
    assert_true(r.throttle_checked);
    assert_false(r.throttled);
    assert_false(r.has_sm);
    char names[128];
    fb_energy_reason_names(r.reasons, names, sizeof names);
    assert_string_equal(names, "applications_clocks_setting");
    fb_energy_close(m);
}

static void test_nvml_clock_below_applications_clock_throttles(void **state)
{
    fb_energy_reading r;
    (void)state;
    setenv("FAKE_NVML_SM_MHZ", "1410", 1);
    setenv("FAKE_NVML_APP_SM_MHZ", "1980", 1);
    fb_energy_meter *m = open_fake();
    fb_energy_start(m);
    fb_energy_stop(m, 5, 0, 0.1, &r);
    assert_true(r.throttled);
    assert_non_null(strstr(r.throttle_why, "1410 MHz, below the applications clock 1980 MHz"));
    fb_energy_close(m);
}

static void test_nvml_power_integral_without_counter(void **state)
{
    fb_energy_reading r;
    (void)state;
    setenv("FAKE_NVML_NO_ENERGY", "1", 1);
    setenv("FAKE_NVML_POWER_MW", "250000", 1);
    fb_energy_meter *m = open_fake();
    assert_true(fb_energy_available(m, NULL));
    fb_energy_start(m);
    pause_ms(15);
    fb_energy_poll(m);
    pause_ms(15);
    fb_energy_stop(m, 3, 0, 0.02, &r);
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_string_equal(r.method, "power-integral");
    assert_true(r.window_s >= 0.03);
    assert_true(fabs(r.joules - 250.0 * r.window_s) <= 1e-9 * r.joules); /* constant 250 W */
    fb_energy_close(m);
}

static void test_nvml_unavailable_paths_say_why(void **state)
{
    fb_energy_meter *m = NULL;
    const char *why;
    (void)state;
    setenv("FLOWBENCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(fb_energy_open_nvml(BUS, &m), FB_OK);
    assert_false(fb_energy_available(m, &why));
    assert_non_null(strstr(why, "NVML: /nonexistent/libnvidia-ml.so.1 not loadable"));
    assert_true(fb_energy_min_window(m) == 0); /* nothing to extend */
    fb_energy_reading r;
    fb_energy_start(m);
    fb_energy_stop(m, 5, 0, 0.1, &r);
    json_t *j = fb_energy_json(&r, 1e9);
    /* the reason once: no joules, no second copy as throttle_unavailable */
    assert_string_equal(json_string_value(json_object_get(j, "source")), "none");
    assert_string_equal(json_string_value(json_object_get(j, "unavailable")), why);
    assert_true(json_is_null(json_object_get(j, "throttled")));
    assert_null(json_object_get(j, "joules"));
    assert_null(json_object_get(j, "throttle_unavailable"));
    json_decref(j);
    fb_energy_close(m);

    clear_env();
    setenv("FAKE_NVML_INIT_FAIL", "1", 1);
    assert_int_equal(fb_energy_open_nvml(BUS, &m), FB_OK);
    assert_false(fb_energy_available(m, &why));
    assert_string_equal(why, "NVML: nvmlInit_v2 failed: Driver Not Loaded");
    fb_energy_close(m);

    clear_env();
    assert_int_equal(fb_energy_open_nvml("0000:01:00.0", &m), FB_OK);
    assert_false(fb_energy_available(m, &why));
    assert_string_equal(why, "NVML: no GPU at PCI bus id 0000:01:00.0: Not Found");
    fb_energy_close(m);
    assert_int_equal(live_inits(), 0);
}

/* ---- the measurement policy with a meter --------------------------------- */

static int calls;

static fb_status quick_sample(void *ctx, double *seconds)
{
    (void)ctx;
    calls++;
    *seconds = 1e-3;
    return FB_OK;
}

static fb_status no_flush(void *ctx)
{
    (void)ctx;
    return FB_OK;
}

static fb_measure_config three_samples(fb_energy_meter *m)
{
    fb_measure_config cfg = fb_measure_defaults();
    cfg.warmups = 1;
    cfg.min_samples = cfg.max_samples = 3;
    cfg.energy = m;
    return cfg;
}

static void test_measure_fills_the_window(void **state)
{
    fb_measurement out;
    (void)state;
    setenv("FLOWBENCH_ENERGY_WINDOW", "0.03", 1);
    setenv("FAKE_NVML_MJ_PER_CALL", "7", 1);
    fb_energy_meter *m = open_fake();
    fb_measure_config cfg = three_samples(m);
    const unsigned long long reads_before = energy_reads();
    calls = 0;
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, NULL, NULL, &out), FB_OK);
    const fb_energy_reading *r = &out.energy;
    assert_int_equal(out.nsamples, 3);
    assert_int_equal(r->state, FB_ENERGY_MEASURED);
    assert_true(r->window_s >= 0.03);
    assert_true(r->extra_runs > 0);
    assert_int_equal(r->runs, 3 + r->extra_runs);
    assert_int_equal(calls, 1 + 3 + r->extra_runs); /* warm-up, samples, the window's repeats */
    assert_true(fabs(r->busy_s - 1e-3 * (double)r->runs) <= 1e-9 * r->busy_s);
    /* joules: the counter's rise between the first and the last of its reads */
    const double want = 7e-3 * (double)(energy_reads() - reads_before - 1);
    assert_true(want > 0 && fabs(r->joules - want) <= 1e-9 * want);
    fb_measurement_free(&out);
    fb_energy_close(m);
}

/* Another process with a compute context on the GPU (NVML's process
 * list) makes the measurement contended and says how many; the measuring
 * process alone does not. */
static void test_other_gpu_processes_are_contention(void **state)
{
    fb_measurement out;
    char why[256];
    (void)state;
    setenv("FLOWBENCH_ENERGY_WINDOW", "0.01", 1);
    setenv("FLOWBENCH_PROC_ROOT", "/nonexistent", 1); /* the GPU's processes alone: this machine may be busy */
    fb_energy_meter *m = open_fake();
    fb_measure_config cfg = three_samples(m);
    cfg.cpu_threads = 1;
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, NULL, NULL, &out), FB_OK);
    assert_int_equal(out.env.gpu_others, 0);
    assert_int_equal(fb_contention_judge(&out.env, why, sizeof why), 0);
    fb_measurement_free(&out);
    setenv("FAKE_NVML_PROCS", "3", 1);
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, NULL, NULL, &out), FB_OK);
    assert_int_equal(out.env.gpu_others, 2);
    assert_int_equal(out.quality, FB_QUALITY_CONTENDED);
    assert_non_null(strstr(out.quality_why, "2 other processes with a compute context on the GPU (NVML)"));
    json_t *env = fb_environment_json(&out.env);
    assert_int_equal(json_integer_value(json_object_get(env, "gpu_other_processes")), 2);
    json_decref(env);
    fb_measurement_free(&out);
    fb_energy_close(m);
    unsetenv("FLOWBENCH_PROC_ROOT");
}

static void test_measure_adds_nothing_without_joules(void **state)
{
    fb_measurement out;
    fb_energy_meter *m = NULL;
    (void)state;
    setenv("FLOWBENCH_POWERCAP_ROOT", "/nonexistent/powercap", 1);
    setenv("FLOWBENCH_CPUFREQ_ROOT", "/nonexistent/cpu", 1);
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    fb_measure_config cfg = three_samples(m);
    calls = 0;
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, NULL, NULL, &out), FB_OK);
    assert_int_equal(calls, 4); /* nothing repeated */
    assert_int_equal(out.energy.state, FB_ENERGY_UNAVAILABLE);
    assert_int_equal(out.energy.extra_runs, 0);
    json_t *j = fb_energy_json(&out.energy, 1e6);
    assert_non_null(strstr(json_string_value(json_object_get(j, "unavailable")),
                           "RAPL: /nonexistent/powercap: No such file or directory"));
    assert_non_null(strstr(json_string_value(json_object_get(j, "throttle_unavailable")),
                           "CPU frequency: no /nonexistent/cpu/cpu*/cpufreq/scaling_cur_freq"));
    assert_true(json_is_null(json_object_get(j, "throttled")));
    json_decref(j);
    fb_measurement_free(&out);

    /* cold mode: the flushes would be in the window, so none is measured */
    cfg.cold = 1;
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, no_flush, NULL, &out), FB_OK);
    assert_int_equal(out.energy.state, FB_ENERGY_UNAVAILABLE);
    assert_non_null(strstr(out.energy.unavailable, "--cold"));
    fb_measurement_free(&out);
    fb_energy_close(m);

    /* no meter: no energy object at all */
    cfg = three_samples(NULL);
    assert_int_equal(fb_measure(&cfg, quick_sample, NULL, NULL, NULL, &out), FB_OK);
    assert_int_equal(out.energy.state, FB_ENERGY_NONE);
    assert_null(fb_energy_json(&out.energy, 1));
    fb_measurement_free(&out);
}

static void test_record_carries_energy(void **state)
{
    fb_measurement m;
    (void)state;
    memset(&m, 0, sizeof m);
    m.energy.state = FB_ENERGY_MEASURED;
    snprintf(m.energy.source, sizeof m.energy.source, "rapl");
    snprintf(m.energy.method, sizeof m.energy.method, "counter");
    m.energy.joules = 2.0, m.energy.window_s = 0.5, m.energy.runs = 8;
    json_t *rec = json_object();
    fb_json_set_energy(rec, &m, 5e8); /* 8 x 0.5 GFLOP over 2 J */
    assert_true(json_real_value(json_object_get(json_object_get(rec, "energy"), "gflop_per_j")) == 2.0);
    assert_true(json_real_value(json_object_get(json_object_get(rec, "energy"), "avg_power_w")) == 4.0);
    json_decref(rec);
}

/* ---- RAPL and cpufreq from a tree of files --------------------------------- */

typedef struct tree {
    char root[256], pc[300], cpu[300];
} tree;

static void put(const char *dir, const char *file, const char *text)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void put_zone(tree *t, const char *zone, const char *name, const char *uj, const char *range)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", t->pc, zone);
    assert_int_equal(mkdir(dir, 0700), 0);
    put(dir, "name", name);
    put(dir, "energy_uj", uj);
    if (range) put(dir, "max_energy_range_uj", range);
}

static void set_uj(tree *t, const char *zone, const char *uj)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", t->pc, zone);
    put(dir, "energy_uj", uj);
}

static void set_cpu_khz(tree *t, int cpu, const char *khz)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/cpu%d/cpufreq", t->cpu, cpu);
    put(dir, "scaling_cur_freq", khz);
}

static void make_tree(tree *t, int cpus)
{
    char dir[400];
    snprintf(t->root, sizeof t->root, "/tmp/fb-energy-XXXXXX");
    assert_non_null(mkdtemp(t->root));
    snprintf(t->pc, sizeof t->pc, "%s/powercap", t->root);
    snprintf(t->cpu, sizeof t->cpu, "%s/cpu", t->root);
    assert_int_equal(mkdir(t->pc, 0700), 0);
    assert_int_equal(mkdir(t->cpu, 0700), 0);
    for (int c = 0; c < cpus; ++c) {
        snprintf(dir, sizeof dir, "%s/cpu%d", t->cpu, c);
        assert_int_equal(mkdir(dir, 0700), 0);
        snprintf(dir, sizeof dir, "%s/cpu%d/cpufreq", t->cpu, c);
        assert_int_equal(mkdir(dir, 0700), 0);
        set_cpu_khz(t, c, "3000000");
    }
    setenv("FLOWBENCH_POWERCAP_ROOT", t->pc, 1);
    setenv("FLOWBENCH_CPUFREQ_ROOT", t->cpu, 1);
}

static void remove_tree(tree *t)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->root);
    assert_int_equal(system(cmd), 0);
}

static void test_rapl_package_and_dram(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    (void)state;
    make_tree(&t, 2);
    put_zone(&t, "intel-rapl:0", "package-0\n", "1000000\n", "262143328850\n");
    put_zone(&t, "intel-rapl:0:0", "core\n", "5\n", NULL); /* part of the package: not added */
    put_zone(&t, "intel-rapl:0:1", "dram\n", "2000\n", "65712999613\n");
    put_zone(&t, "intel-rapl:1", "psys\n", "7\n", NULL); /* the platform: not added */
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    assert_true(fb_energy_available(m, NULL));
    assert_true(fb_energy_min_window(m) == FB_ENERGY_RAPL_WINDOW_S);
    fb_energy_start(m);
    set_uj(&t, "intel-rapl:0", "4000000\n");
    set_uj(&t, "intel-rapl:0:0", "999999\n");
    set_uj(&t, "intel-rapl:0:1", "502000\n");
    set_cpu_khz(&t, 1, "2900000"); /* mean 2950 MHz: 1.7%, under the bound */
    fb_energy_stop(m, 4, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_true(r.joules == 3.5); /* 3 J package + 0.5 J DRAM */
    assert_int_equal(r.ndomains, 2);
    assert_string_equal(r.domain[0], "dram-0");
    assert_true(r.domain_joules[0] == 0.5);
    assert_string_equal(r.domain[1], "package-0");
    assert_true(r.domain_joules[1] == 3.0);
    assert_true(r.has_cpu);
    assert_true(r.cpu_mhz_min == 2950 && r.cpu_mhz_max == 3000);
    assert_true(r.throttle_checked);
    assert_false(r.throttled);
    json_t *j = fb_energy_json(&r, 0);
    assert_true(json_real_value(json_object_get(json_object_get(j, "domains"), "package-0")) == 3.0);
    assert_true(json_real_value(json_object_get(j, "joules_per_run")) == 3.5 / 4);
    json_decref(j);
    fb_energy_close(m);
    remove_tree(&t);
}

static void test_rapl_wraparound(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    (void)state;
    make_tree(&t, 1);
    put_zone(&t, "intel-rapl:0", "package-0\n", "999000\n", "1000000\n");
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    fb_energy_start(m);
    set_uj(&t, "intel-rapl:0", "500\n"); /* wrapped: 1000 uJ to the range, then 500 */
    pause_ms(15);
    fb_energy_poll(m);
    set_uj(&t, "intel-rapl:0", "998000\n"); /* and on, below the range again */
    fb_energy_stop(m, 1, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_true(fabs(r.joules - (1500.0 + 997500.0) * 1e-6) < 1e-12);
    fb_energy_close(m);
    remove_tree(&t);
}

/* A counter that goes back with no max_energy_range_uj to unwrap it at
 * gave -3 J, "measured": the window has no joules, saying why, and the
 * next window counts again. */
static void test_rapl_counter_going_back_has_no_joules(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    (void)state;
    make_tree(&t, 1);
    put_zone(&t, "intel-rapl:0", "package-0\n", "5000000\n", NULL);
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    fb_energy_start(m);
    set_uj(&t, "intel-rapl:0", "1000000\n"); /* back 4 J, at a poll inside the window */
    pause_ms(15);
    fb_energy_poll(m);
    set_uj(&t, "intel-rapl:0", "2000000\n");
    fb_energy_stop(m, 1, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_UNAVAILABLE);
    assert_non_null(strstr(r.unavailable, "intel-rapl:0/energy_uj went back from 5000000 to 1000000 uJ, more than its "
                                          "max_energy_range_uj (0, 0: none) explains"));
    json_t *j = fb_energy_json(&r, 0);
    assert_null(json_object_get(j, "joules"));
    assert_string_equal(json_string_value(json_object_get(j, "source")), "none");
    json_decref(j);
    fb_energy_start(m);
    set_uj(&t, "intel-rapl:0", "3500000\n");
    fb_energy_stop(m, 1, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_true(r.joules == 1.5);
    fb_energy_close(m);
    remove_tree(&t);
}

/* Twelve packages (the limit was 8, kept in readdir order, the rest left
 * out without a word): every zone, in the order of their names; a host
 * with more zones than a meter sums has no joules, saying so. */
static void test_rapl_every_zone_in_name_order(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    char zone[32], name[32];
    const char *why;
    (void)state;
    make_tree(&t, 1);
    for (int p = 0; p < 12; ++p) {
        snprintf(zone, sizeof zone, "intel-rapl:%d", p);
        snprintf(name, sizeof name, "package-%d\n", p);
        put_zone(&t, zone, name, "1000000\n", NULL);
    }
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    fb_energy_start(m);
    for (int p = 0; p < 12; ++p) {
        snprintf(zone, sizeof zone, "intel-rapl:%d", p);
        set_uj(&t, zone, "2000000\n"); /* 1 J each */
    }
    fb_energy_stop(m, 1, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_MEASURED);
    assert_int_equal(r.ndomains, 12);
    assert_true(r.joules == 12);
    assert_string_equal(r.domain[0], "package-0");
    for (int i = 1; i < r.ndomains; ++i)
        assert_true(strcmp(r.domain[i - 1], r.domain[i]) < 0);
    fb_energy_close(m);
    for (int p = 12; p <= FB_ENERGY_DOMAINS_MAX; ++p) {
        snprintf(zone, sizeof zone, "intel-rapl:%d", p);
        snprintf(name, sizeof name, "package-%d\n", p);
        put_zone(&t, zone, name, "1000000\n", NULL);
    }
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    assert_false(fb_energy_available(m, &why));
    snprintf(name, sizeof name, "RAPL: %d package and DRAM zones", FB_ENERGY_DOMAINS_MAX + 1);
    assert_non_null(strstr(why, name));
    fb_energy_close(m);
    remove_tree(&t);
}

static void put_fifo(const char *dir, const char *file)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
}

/* A FIFO where a counter, a frequency or the governor belongs blocked the
 * meter (and the run) forever: each is refused at once, naming it. alarm:
 * a read that blocks fails the test instead of hanging it. */
static void test_rapl_refuses_what_is_not_a_regular_file(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    char dir[400], want[700];
    const char *why;
    (void)state;
    alarm(10);
    make_tree(&t, 2);
    put_zone(&t, "intel-rapl:0", "package-0\n", "1000000\n", NULL);
    snprintf(dir, sizeof dir, "%s/intel-rapl:0", t.pc);
    put_fifo(dir, "energy_uj");
    snprintf(dir, sizeof dir, "%s/cpu1/cpufreq", t.cpu);
    put_fifo(dir, "scaling_cur_freq");
    snprintf(dir, sizeof dir, "%s/cpu0/cpufreq", t.cpu);
    put_fifo(dir, "scaling_governor");
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    assert_false(fb_energy_available(m, &why));
    snprintf(want, sizeof want, "RAPL: %s/intel-rapl:0/energy_uj: not a regular file", t.pc);
    assert_string_equal(why, want);
    snprintf(want, sizeof want, "CPU frequency: %s/cpu1/cpufreq/scaling_cur_freq: not a regular file", t.cpu);
    assert_string_equal(fb_energy_throttle_unavailable(m), want);
    fb_energy_close(m);
    json_t *env = fb_process_environment();
    assert_true(json_is_null(json_object_get(env, "governor")));
    json_decref(env);
    alarm(0);
    remove_tree(&t);
}

static void test_cpu_frequency_change_throttles(void **state)
{
    tree t;
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    (void)state;
    make_tree(&t, 2);
    assert_int_equal(fb_energy_open_rapl(&m), FB_OK);
    const char *why;
    assert_false(fb_energy_available(m, &why)); /* no zone in the tree */
    assert_non_null(strstr(why, "RAPL: no package zone"));
    assert_string_equal(fb_energy_throttle_unavailable(m), "");
    fb_energy_start(m);
    set_cpu_khz(&t, 0, "2000000");
    set_cpu_khz(&t, 1, "2000000"); /* 3000 -> 2000 MHz: 33% */
    fb_energy_stop(m, 1, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_UNAVAILABLE);
    assert_true(r.throttle_checked);
    assert_true(r.throttled);
    assert_non_null(strstr(r.throttle_why, "from 3000 to 2000 MHz"));
    json_t *j = fb_energy_json(&r, 0);
    assert_true(json_is_true(json_object_get(j, "throttled")));
    assert_true(json_real_value(json_object_get(json_object_get(j, "clocks"), "cpu_mhz_min")) == 2000);
    json_decref(j);
    fb_energy_close(m);
    remove_tree(&t);
}

static void test_unavailable_meter(void **state)
{
    fb_energy_meter *m = NULL;
    fb_energy_reading r;
    char text[400];
    (void)state;
    assert_int_equal(fb_energy_unavailable("no energy source for opencl:0.0", &m), FB_OK);
    fb_energy_describe(m, text, sizeof text);
    assert_string_equal(text, "unavailable: no energy source for opencl:0.0");
    fb_energy_start(m);
    fb_energy_poll(m);
    fb_energy_stop(m, 3, 0, 0.01, &r);
    assert_int_equal(r.state, FB_ENERGY_UNAVAILABLE);
    json_t *j = fb_energy_json(&r, 1);
    assert_int_equal(json_object_size(j), 3); /* source, unavailable, throttled: null */
    json_decref(j);
    fb_energy_close(m);
}

/* ---- several ranks' readings as one (fb_energy_sum) ---- */

/* A measured reading as a meter would leave it: J joules over W seconds,
 * SM clocks LO..HI, checked for throttling and not throttled. */
static fb_energy_reading measured(const char *source, double joules, double window_s, double lo, double hi)
{
    fb_energy_reading r;
    memset(&r, 0, sizeof r);
    r.state = FB_ENERGY_MEASURED;
    snprintf(r.source, sizeof r.source, "%s", source);
    snprintf(r.method, sizeof r.method, "counter");
    r.joules = joules;
    r.window_s = window_s;
    r.min_window_s = 1;
    r.runs = 20;
    r.has_sm = 1;
    r.sm_mhz_min = lo;
    r.sm_mhz_max = hi;
    r.throttle_checked = 1;
    r.ndomains = 1;
    snprintf(r.domain[0], sizeof r.domain[0], "package-0");
    r.domain_joules[0] = joules;
    return r;
}

static void assert_ranks(json_t *meter, const char *name, int first, int count)
{
    assert_string_equal(json_string_value(json_object_get(meter, "meter")), name);
    json_t *ranks = json_object_get(meter, "ranks");
    assert_int_equal(json_array_size(ranks), count);
    for (int i = 0; i < count; ++i)
        assert_int_equal(json_integer_value(json_array_get(ranks, i)), first + i);
}

static void test_sum_counts_a_shared_meter_once(void **state)
{
    /* 4 ranks: 0 and 1 on one GPU of host a, 2 and 3 on one GPU of host b;
     * each pair's readings are the same device's joules, seen twice */
    const fb_energy_reading r[] = {measured("nvml", 100, 2.0, 1900, 1980), measured("nvml", 101, 2.1, 1900, 1980),
                                   measured("nvml", 60, 1.5, 1700, 1980), measured("nvml", 61, 1.6, 1800, 1980)};
    const char *meter[] = {"a/nvml:0000:65:00.0", "a/nvml:0000:65:00.0", "b/nvml:0000:65:00.0", "b/nvml:0000:65:00.0"};
    fb_energy_reading t;
    json_t *meters = NULL;
    (void)state;
    fb_energy_sum(r, meter, 4, &t, &meters);
    assert_int_equal(t.state, FB_ENERGY_MEASURED);
    assert_true(t.joules == 160);   /* rank 0's and rank 2's, not all four (322) */
    assert_true(t.window_s == 2.0); /* the longest of the counted */
    assert_string_equal(t.source, "nvml");
    assert_true(t.sm_mhz_min == 1700 && t.sm_mhz_max == 1980);
    assert_int_equal(t.ndomains, 0); /* two hosts' package-0 are two packages */
    assert_true(t.throttle_checked && !t.throttled);
    assert_int_equal(json_array_size(meters), 2);
    assert_ranks(json_array_get(meters, 0), "a/nvml:0000:65:00.0", 0, 2);
    assert_ranks(json_array_get(meters, 1), "b/nvml:0000:65:00.0", 2, 2);
    assert_true(json_real_value(json_object_get(json_array_get(meters, 1), "joules")) == 60);
    json_decref(meters);

    /* one meter for every rank: the reading is rank 0's, domains and all */
    const char *one[] = {"a/rapl", "a/rapl"};
    fb_energy_sum(r, one, 2, &t, NULL);
    assert_true(t.joules == 100 && t.window_s == 2.0);
    assert_int_equal(t.ndomains, 1);
    assert_true(t.domain_joules[0] == 100);
}

static void test_sum_names_the_rank_without_joules_or_throttled(void **state)
{
    fb_energy_reading r[3] = {measured("rapl", 10, 1, 0, 0), measured("rapl", 12, 1, 0, 0),
                              measured("nvml", 5, 1, 0, 0)};
    const char *meter[] = {"a/rapl", "b/rapl", "b/nvml:0000:65:00.0"};
    fb_energy_reading t;
    json_t *meters = NULL;
    (void)state;
    /* distinct meters of two kinds add up, as a "mixed" source */
    fb_energy_sum(r, meter, 3, &t, NULL);
    assert_true(t.joules == 27);
    assert_string_equal(t.source, "mixed");
    /* a throttled rank throttles the run, named */
    r[2].throttled = 1;
    snprintf(r[2].throttle_why, sizeof r[2].throttle_why, "the GPU reported sw_power_cap");
    r[2].has_reasons = 1;
    r[2].reasons = 0x4;
    fb_energy_sum(r, meter, 3, &t, NULL);
    assert_true(t.throttled && t.throttle_checked);
    assert_string_equal(t.throttle_why, "rank 2: the GPU reported sw_power_cap");
    assert_true(t.reasons == 0x4);
    /* a rank that could not judge throttling leaves the run unjudged, named */
    r[1].throttle_checked = 0;
    snprintf(r[1].throttle_unavailable, sizeof r[1].throttle_unavailable, "CPU frequency: no cpufreq");
    fb_energy_sum(r, meter, 3, &t, NULL);
    assert_false(t.throttle_checked);
    assert_string_equal(t.throttle_unavailable, "rank 1: CPU frequency: no cpufreq");
    /* a rank without joules makes the total unavailable, named; the meters still say who was where */
    fb_energy_reading_unavailable(&r[1], "none", "RAPL: /sys/class/powercap: No such file or directory");
    fb_energy_sum(r, meter, 3, &t, &meters);
    assert_int_equal(t.state, FB_ENERGY_UNAVAILABLE);
    assert_string_equal(t.unavailable, "rank 1: RAPL: /sys/class/powercap: No such file or directory");
    assert_int_equal(json_array_size(meters), 3);
    assert_null(json_object_get(json_array_get(meters, 1), "joules"));
    json_decref(meters);
    /* a rank with no meter at all (a reading never started) says so, as source none */
    memset(&r[2], 0, sizeof r[2]);
    r[1] = r[0];
    fb_energy_sum(r, meter, 3, &t, NULL);
    assert_int_equal(t.state, FB_ENERGY_UNAVAILABLE);
    assert_string_equal(t.source, "none");
    assert_string_equal(t.unavailable, "rank 2: no energy meter");
}

static void test_meter_ids(void **state)
{
    fb_energy_meter *m = NULL;
    (void)state;
    m = open_fake();
    assert_string_equal(fb_energy_meter_id(m), "nvml:" BUS);
    fb_energy_close(m);
    assert_int_equal(fb_energy_unavailable("none here", &m), FB_OK);
    assert_string_equal(fb_energy_meter_id(m), "");
    fb_energy_close(m);
    assert_string_equal(fb_energy_meter_id(NULL), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_nvml_counter_arithmetic, setup),
        cmocka_unit_test_setup(test_nvml_power_reason_throttles, setup),
        cmocka_unit_test_setup(test_nvml_idle_and_applications_clock_do_not_throttle, setup),
        cmocka_unit_test_setup(test_nvml_clock_below_applications_clock_throttles, setup),
        cmocka_unit_test_setup(test_nvml_power_integral_without_counter, setup),
        cmocka_unit_test_setup(test_nvml_unavailable_paths_say_why, setup),
        cmocka_unit_test_setup(test_measure_fills_the_window, setup),
        cmocka_unit_test_setup(test_other_gpu_processes_are_contention, setup),
        cmocka_unit_test_setup(test_measure_adds_nothing_without_joules, setup),
        cmocka_unit_test_setup(test_record_carries_energy, setup),
        cmocka_unit_test_setup(test_rapl_package_and_dram, setup),
        cmocka_unit_test_setup(test_rapl_wraparound, setup),
        cmocka_unit_test_setup(test_rapl_counter_going_back_has_no_joules, setup),
        cmocka_unit_test_setup(test_rapl_every_zone_in_name_order, setup),
        cmocka_unit_test_setup(test_rapl_refuses_what_is_not_a_regular_file, setup),
        cmocka_unit_test_setup(test_cpu_frequency_change_throttles, setup),
        cmocka_unit_test_setup(test_unavailable_meter, setup),
        cmocka_unit_test_setup(test_sum_counts_a_shared_meter_once, setup),
        cmocka_unit_test_setup(test_sum_names_the_rank_without_joules_or_throttled, setup),
        cmocka_unit_test_setup(test_meter_ids, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
