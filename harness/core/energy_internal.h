/* energy_internal.h - what a meter's source fills in (energy_rapl.c,
 * energy_nvml.c) and the generic window logic in energy.c reads. Private
 * to harness/core/energy*.c. */
#ifndef FB_ENERGY_INTERNAL_H
#define FB_ENERGY_INTERNAL_H

#include "energy.h"

/* One read of a source. Joules are cumulative from the source's own origin
 * (a wrapping counter is unwrapped by its source). */
typedef struct fb_energy_sample {
    double t; /* fb_now() */
    int has_joules;
    double joules;
    double domain_joules[FB_ENERGY_DOMAINS_MAX];
    int has_watts;
    double watts;
    int has_sm, has_mem;
    double sm_mhz, mem_mhz;
    int has_temp;
    double temp_c;
    int has_reasons;
    unsigned long long reasons;
    int has_cpu;
    double cpu_mhz;
    int has_procs; /* NVML: processes with a compute context on the GPU, this one included */
    unsigned procs;
    char joules_invalid[320]; /* why the joules since the previous read are unknown; "" when known */
} fb_energy_sample;

struct fb_energy_meter {
    char source[8];                 /* "nvml", "rapl", "none" */
    char id[80];                    /* which meter on this host: "nvml:BUS_ID", "rapl"; "" for none */
    char method[16];                /* "counter", "power-integral" */
    char unavailable[320];          /* why no joules; "" when they can be read */
    char throttle_unavailable[320]; /* why no throttle check; "" when one runs */
    double min_window_s;            /* the source's own */
    double app_sm_mhz;              /* NVML: the applications SM clock; 0 unknown */
    int ndomains;
    char domain[FB_ENERGY_DOMAINS_MAX][32];
    void (*read)(void *impl, fb_energy_sample *s);
    void (*close_impl)(void *impl);
    void *impl;
    /* the window in progress */
    int running;
    fb_energy_sample first, last;
    double integral_j; /* trapezoids of the power reads */
    double last_poll;
    fb_energy_reading r;
    char window_invalid[320]; /* the first joules_invalid read in the window: it has no joules */
};

/* A meter with no source yet (source "none", nothing readable). */
fb_status fb_energy_meter_new(fb_energy_meter **out);

/* NVML reason bits that are throttling: power cap, hardware slowdown,
 * thermal slowdowns, power brake. */
#define FB_NVML_REASON_IDLE 0x1ULL
#define FB_NVML_THROTTLING_REASONS (0x4ULL | 0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL)

#endif
