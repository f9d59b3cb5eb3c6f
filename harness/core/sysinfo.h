/* sysinfo.h - facts about the host, for the openmp device and result headers. */
#ifndef FB_SYSINFO_H
#define FB_SYSINFO_H

#include <stddef.h>
#include <stdio.h>

#include "status.h"

typedef struct fb_host_info {
    char hostname[128];
    char cpu_model[128];
    char cpu_vendor[64];
    int logical_cpus;    /* online CPUs */
    int omp_threads;     /* omp_get_max_threads() */
    double cpu_mhz;      /* as /proc/cpuinfo reports it (may be the current clock) */
    size_t llc_bytes;    /* largest cache level's size, 0 if unknown */
    size_t memory_bytes; /* physical memory (MemTotal) */
    char os[128];        /* uname sysname release machine */
    /* The widest vector ISA /proc/cpuinfo reports, for the roofline's
     * peak: "avx512f", "avx2" (or FMA3), "sse2", "sve", "asimd"; "" when
     * it names none. simd_bits is its vector width (SVE: the kernel's
     * default vector length, else 128 assumed), simd_source says where
     * both come from. */
    char simd[16];
    int simd_bits;
    char simd_source[128];
} fb_host_info;

void fb_host_info_get(fb_host_info *info);

/* $FLOWBENCH_PROC_ROOT, else "/proc": what every reader of /proc reads
 * (the tests plant machines there). */
const char *fb_proc_root(void);

/* $FLOWBENCH_CPUFREQ_ROOT, else "/sys/devices/system/cpu": the CPUs'
 * sysfs tree (governor, caches; the tests plant it). */
const char *fb_cpu_sysfs_root(void);

/* fopen(fb_proc_root()/rel, "r"), or NULL. */
FILE *fb_proc_open(const char *rel);

/* ISO 8601 UTC time now, e.g. "2026-11-22T13:42:16Z". */
void fb_utc_now(char *out, size_t len);

/* Seconds since 1970 as "YYYY-MM-DDTHH:MM:SSZ", or as "Ns" when no year
 * up to 9999 holds them. */
void fb_utc_text(long long seconds, char *out, size_t len);

/* A time given by a user (option `what`): seconds since 1970, or an ISO
 * 8601 UTC time YYYY-MM-DD[THH:MM:SS[Z]], from 1970 to the end of 9999;
 * FB_ERR_USAGE naming what otherwise. */
fb_status fb_utc_parse(const char *text, const char *what, long long *when);

#endif
