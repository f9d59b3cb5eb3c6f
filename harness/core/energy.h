/* energy.h - energy, power, clocks and throttling around a measurement.
 *
 * A meter reads one device's energy source: NVML on an NVIDIA GPU
 * (energy_nvml.c: the board's energy counter, or its power reading
 * integrated where the counter is missing; SM and memory clocks,
 * temperature, throttle reasons), RAPL on this host's CPU (energy_rapl.c:
 * package and DRAM energy through the powercap files, and the CPU
 * frequency from cpufreq for the throttle rule). The measurement policy
 * (measure.c) starts it after the warm-ups, polls it after every timed
 * sample and stops it after the last, and, where joules can be read and the
 * samples took less than the source's minimum window, repeats the launch
 * until the window is reached (the counters' resolution; docs/measurement.md
 * says why each minimum). Where nothing can be read (no driver, no RAPL, no
 * permission, a virtual machine) opening still succeeds: the meter is
 * unavailable with one reason, which each record carries once
 * ("energy": {"source": "none", "unavailable": REASON}), and nothing is
 * repeated, so no time is added.
 *
 * A measurement is *throttled* when NVML reported a power, thermal or
 * hardware slowdown reason while the GPU was busy, or the SM clock read
 * below the applications clock, or the mean CPU frequency moved by more
 * than FB_ENERGY_CPU_FREQ_BOUND during the window. compare marks a verdict
 * on a throttled record (SLOWER*, docs/plots-and-compare.md).
 */
#ifndef FB_ENERGY_H
#define FB_ENERGY_H

#include <jansson.h>

#include "status.h"

/* RAPL zones one meter sums (package and DRAM zones: a 32-socket host has
 * 64); a host with more has no joules rather than a sum of some of them. */
#define FB_ENERGY_DOMAINS_MAX 64
/* Minimum windows (seconds) and how to override them: docs/measurement.md. */
#define FB_ENERGY_NVML_WINDOW_S 1.0
#define FB_ENERGY_RAPL_WINDOW_S 0.1
#define FB_ENERGY_WINDOW_ENV "FLOWBENCH_ENERGY_WINDOW"
/* The mean CPU frequency may move this much (relative) before a window is throttled. */
#define FB_ENERGY_CPU_FREQ_BOUND 0.10
/* Polls closer together than this read nothing (a read costs tens of microseconds). */
#define FB_ENERGY_POLL_S 0.01

typedef struct fb_energy_meter fb_energy_meter;

typedef enum fb_energy_state {
    FB_ENERGY_NONE = 0,    /* no meter took part: the record gets no energy object */
    FB_ENERGY_UNAVAILABLE, /* a meter, but no joules: `unavailable` says why */
    FB_ENERGY_MEASURED
} fb_energy_state;

/* What a meter saw over one window. */
typedef struct fb_energy_reading {
    fb_energy_state state;
    char source[8];        /* "nvml", "rapl", "none" */
    char unavailable[320]; /* why no joules (FB_ENERGY_UNAVAILABLE) */
    char method[16];       /* "counter" or "power-integral" */
    double joules, window_s, min_window_s;
    double busy_s;         /* the runs' own times inside the window */
    long runs, extra_runs; /* timed runs in the window; of them, repeated only to fill it */
    int ndomains;          /* RAPL: package-N, dram-N */
    char domain[FB_ENERGY_DOMAINS_MAX][32];
    double domain_joules[FB_ENERGY_DOMAINS_MAX];
    int has_sm, has_mem, has_app_sm; /* GPU clocks, MHz, over the reads while busy */
    double sm_mhz_min, sm_mhz_max, mem_mhz_min, mem_mhz_max, app_sm_mhz;
    int has_temp;
    double temp_c_start, temp_c_max;
    int has_cpu; /* the mean CPU frequency over the reads, MHz */
    double cpu_mhz_min, cpu_mhz_max;
    int has_reasons;
    unsigned long long reasons; /* NVML clock (throttle) reason bits seen */
    int has_gpu_procs;          /* NVML: the most processes with a compute context on the GPU seen in the window */
    int gpu_procs_max;
    int throttle_checked; /* 0: nothing to judge by (the record says null) */
    int throttled;
    char throttle_why[200];         /* what flagged it */
    char throttle_unavailable[320]; /* why nothing could be checked */
} fb_energy_reading;

/* The host CPU: RAPL package and DRAM energy from the powercap files
 * ($FLOWBENCH_POWERCAP_ROOT, default /sys/class/powercap) and the CPU
 * frequency ($FLOWBENCH_CPUFREQ_ROOT, default /sys/devices/system/cpu). */
fb_status fb_energy_open_rapl(fb_energy_meter **out);

/* An NVIDIA GPU by its PCI bus id ("0000:65:00.0"), through NVML loaded at
 * run time ($FLOWBENCH_NVML_LIB, default libnvidia-ml.so.1). */
fb_status fb_energy_open_nvml(const char *pci_bus_id, fb_energy_meter **out);

/* A meter that reads nothing, with this reason. */
fb_status fb_energy_unavailable(const char *reason, fb_energy_meter **out);

/* 1 when joules can be read; else 0 and *why says why. */
int fb_energy_available(const fb_energy_meter *m, const char **why);

/* Which meter this is on its host ("nvml:0000:65:00.0", "rapl"; "" for
 * none): processes whose meters have the same id on one host read the
 * same joules (fb_energy_sum counts them once). */
const char *fb_energy_meter_id(const fb_energy_meter *m);

/* Several processes' readings as one (a run on several MPI ranks): r[i]
 * is process i's reading and meter[i] its meter's "HOST/ID". Processes
 * that share a meter (ranks on one GPU, ranks on one host's RAPL) count
 * once, by the lowest one's reading, and distinct meters' joules add up;
 * the window is the longest. A process without joules makes the total
 * unavailable, naming it; a throttled one makes it throttled, naming it.
 * *meters (when meters is not NULL): [{"meter", "ranks", "joules"}], what
 * was summed. */
void fb_energy_sum(const fb_energy_reading *r, const char *const *meter, int n, fb_energy_reading *total,
                   json_t **meters);

/* Collective (comm.h): this rank's reading *energy of its meter m, with
 * every rank's, as one on every rank (fb_energy_sum over "HOST/ID"
 * meters, so ranks on two hosts never share one). *meters: what was
 * summed, for the record's energy.meters (the caller releases it). */
fb_status fb_energy_sum_ranks(fb_energy_reading *energy, const fb_energy_meter *m, json_t **meters);

/* "" when the meter can judge throttling; else why not. */
const char *fb_energy_throttle_unavailable(const fb_energy_meter *m);

/* The window a measurement is extended to ($FLOWBENCH_ENERGY_WINDOW
 * seconds, else the source's own minimum); 0 when joules cannot be read. */
double fb_energy_min_window(const fb_energy_meter *m);

/* One line on the meter for a user: "nvml energy counter, window >= 1 s"
 * or "unavailable: REASON". */
void fb_energy_describe(const fb_energy_meter *m, char *buf, size_t len);

/* Around a window; all are no-ops on a NULL meter. poll reads at most once
 * per FB_ENERGY_POLL_S; stop reads once more and fills *out (runs: timed
 * runs in the window, extra_runs: those repeated to fill it, busy_s: their
 * summed times). */
void fb_energy_start(fb_energy_meter *m);
void fb_energy_poll(fb_energy_meter *m);
void fb_energy_stop(fb_energy_meter *m, long runs, long extra_runs, double busy_s, fb_energy_reading *out);

/* A reading that says why there is none (the meter took no part). */
void fb_energy_reading_unavailable(fb_energy_reading *r, const char *source, const char *reason);

/* Names of the NVML reason bits in r->reasons, comma-separated. */
void fb_energy_reason_names(unsigned long long reasons, char *buf, size_t len);

/* The record's "energy" object (docs/results.md): source, joules, window,
 * power, joules per run, gflop_per_j (flops_per_run > 0), clocks,
 * temperature, throttle reasons, "throttled"; or {"source": "none",
 * "unavailable": REASON, ...}. NULL for FB_ENERGY_NONE. */
json_t *fb_energy_json(const fb_energy_reading *r, double flops_per_run);

void fb_energy_close(fb_energy_meter *m);

#endif
