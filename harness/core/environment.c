/* environment.c - the process's side of a record's "environment": the
 * OpenMP settings in force, the CPU governor, the calibration figures, and
 * who chose the wait policy (the decision itself: wait_policy.c). */
#include "contention.h"

#include "files.h"
#include "measure.h"
#include "sysinfo.h"

#include <omp.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern char **environ;

#define REGION_SAMPLES 200
#define REGION_BUDGET_S 0.02 /* the calibration may cost at most this much (a contended spin costs ms a region) */

static json_t *launches; /* device id -> microseconds */

void fb_calibration_set_launch(const char *device_id, double seconds)
{
    if (!launches) launches = json_object();
    json_object_set_new(launches, device_id, json_real(1e6 * seconds));
}

/* The median latency of an empty parallel region over the team OpenMP
 * would use: what a barrier costs here now (microseconds quiet; a
 * thread that lost its core makes it milliseconds). */
static double empty_region_s(int *count)
{
    double t[REGION_SAMPLES], start = fb_now();
    int n = 0;
    for (int w = 0; w < 5; ++w) {
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory");
        }
    }
    while (n < 3 || (n < REGION_SAMPLES && fb_now() - start < REGION_BUDGET_S)) {
        double t0 = fb_now();
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory");
        }
        t[n++] = fb_now() - t0;
    }
    *count = n;
    return fb_median(t, (size_t)n);
}

static const char *proc_bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "unknown";
}

/* Every variable of the environment that starts with one of the two
 * prefixes (the second may be NULL). */
static json_t *variables(const char *prefix, const char *prefix2)
{
    json_t *vars = json_object();
    for (char **e = environ; *e; ++e) {
        if (strncmp(*e, prefix, strlen(prefix)) != 0 && !(prefix2 && strncmp(*e, prefix2, strlen(prefix2)) == 0))
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq || eq - *e >= 64) continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        json_object_set_new(vars, name, json_string(eq + 1));
    }
    return vars;
}

/* Here, beside its report, not in wait_policy.c: that file reads the run
 * queue through contention.c, which reads the calibration here. */
int fb_wait_policy_busy_at_start(void)
{
    const char *d = getenv(FB_WAIT_POLICY_DECISION_VAR);
    return d && *d && strncmp(d, FB_WAIT_POLICY_QUIET, strlen(FB_WAIT_POLICY_QUIET)) != 0;
}

void fb_wait_policy_say_once(FILE *f)
{
    static int said;
    if (said || !fb_wait_policy_busy_at_start()) return;
    said = 1;
    fprintf(f, "note: OpenMP wait policy: %s\n", getenv(FB_WAIT_POLICY_DECISION_VAR));
}

/* OMP_WAIT_POLICY as libgomp reads it: "active" or "passive", any case,
 * blanks around; anything else it ignores (with a warning), keeping its
 * default. NULL when the value is not one it takes. */
static const char *wait_policy_taken(const char *value)
{
    static const char *const policies[] = {"active", "passive"};
    while (isspace((unsigned char)*value))
        ++value;
    for (size_t i = 0; i < 2; ++i) {
        size_t n = strlen(policies[i]);
        if (strncasecmp(value, policies[i], n)) continue;
        const char *rest = value + n;
        while (isspace((unsigned char)*rest))
            ++rest;
        if (!*rest) return policies[i];
    }
    return NULL;
}

/* Who chose the wait policy: the user, flowbench at start, or nobody (the
 * machine was quiet at start: the decision says how it was looked at).
 * The policy is the one in force: a value the runtime ignores is recorded
 * as ignored, not as the user's choice. */
static json_t *wait_policy(void)
{
    const char *value = getenv("OMP_WAIT_POLICY"), *decision = getenv(FB_WAIT_POLICY_DECISION_VAR);
    const char *taken = value ? wait_policy_taken(value) : NULL;
    const char *by = fb_wait_policy_busy_at_start()      ? "flowbench"
                     : taken || getenv("GOMP_SPINCOUNT") ? "user"
                                                         : "default";
    const char *why = strcmp(by, "user") == 0 ? "set in the environment: a user's setting always wins"
                      : decision && *decision ? decision
                      : value ? "OMP_WAIT_POLICY is neither active nor passive: the runtime ignored it and kept its "
                                "default"
                              : "no other runnable work at start, so the runtime's default (spinning) was kept";
    return json_pack("{s:s, s:s, s:s}", "policy",
                     taken   ? taken
                     : value ? "the default (libgomp: spin a while, then sleep): OMP_WAIT_POLICY ignored"
                             : "unset (libgomp: spin a while, then sleep)",
                     "set_by", by, "why", why);
}

/* PoCL's settings in force and who pinned its workers (backends/opencl.c);
 * "why" is null in a process that opened no OpenCL platform. */
static json_t *pocl(void)
{
    const char *why = getenv(FB_POCL_AFFINITY_DECISION_VAR);
    return json_pack("{s:o, s:o}", "variables", variables("POCL_", NULL), "affinity_why",
                     why ? json_string(why) : json_null());
}

static json_t *governor(void)
{
    char path[512], value[64] = "";
    snprintf(path, sizeof path, "%s/cpu0/cpufreq/scaling_governor", fb_cpu_sysfs_root());
    FILE *f = NULL;
    /* a regular file only (files.h): a FIFO in its place would block the run forever */
    if (fb_file_fopen_read_if_exists(path, "the CPU governor", &f) != FB_OK) f = NULL;
    if (f && fgets(value, sizeof value, f)) value[strcspn(value, "\n")] = '\0';
    if (f) fclose(f);
    return *value ? json_string(value) : json_null();
}

static double region_s = -1;
static int regions;

void fb_calibrate_once(void)
{
    if (region_s < 0) region_s = empty_region_s(&regions);
}

/* launch_us is copied: a device opened later adds to it, and a record
 * says what was known when it was written. */
static json_t *calibration(void)
{
    fb_calibrate_once();
    return json_pack("{s:f, s:i, s:o}", "omp_region_us", 1e6 * region_s, "omp_regions", regions, "launch_us",
                     launches ? json_deep_copy(launches) : json_object());
}

json_t *fb_process_environment(void)
{
    json_t *omp = json_pack("{s:i, s:s, s:i, s:o, s:o}", "threads", omp_get_max_threads(), "proc_bind",
                            proc_bind_name(omp_get_proc_bind()), "places", omp_get_num_places(), "wait", wait_policy(),
                            "variables", variables("OMP_", "GOMP_"));
    return json_pack("{s:o, s:o, s:o, s:o}", "openmp", omp, "pocl", pocl(), "governor", governor(), "calibration",
                     calibration());
}
