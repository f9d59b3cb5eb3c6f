/* sysinfo.c - reads /proc, sysfs and uname; every field degrades to
 * "unknown"/0 rather than failing, since results must still be written.
 * $FLOWBENCH_PROC_ROOT replaces /proc and $FLOWBENCH_CPUFREQ_ROOT
 * /sys/devices/system/cpu, as for the contention and energy readers: the
 * tests plant a machine's cache, memory and vector ISA that way. */
#include "sysinfo.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

const char *fb_proc_root(void)
{
    const char *r = getenv("FLOWBENCH_PROC_ROOT");
    return r && *r ? r : "/proc";
}

const char *fb_cpu_sysfs_root(void)
{
    const char *r = getenv("FLOWBENCH_CPUFREQ_ROOT");
    return r && *r ? r : "/sys/devices/system/cpu";
}

FILE *fb_proc_open(const char *rel)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", fb_proc_root(), rel);
    return fopen(path, "r");
}

/* The first "key : value" line of /proc/cpuinfo; x86's flags line runs to
 * two thousand characters, hence the line's size. */
static void cpuinfo_field(const char *key, char *out, size_t len)
{
    FILE *f = fb_proc_open("cpuinfo");
    char line[8192];
    snprintf(out, len, "unknown");
    if (!f) return;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':')) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* Parses sysfs cache sizes such as "32768K" or "32M". */
static size_t parse_cache_size(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s) return 0;
    if (*end == 'K')
        v *= 1024.0;
    else if (*end == 'M')
        v *= 1024.0 * 1024.0;
    return (size_t)v;
}

static size_t largest_cache_bytes(void)
{
    size_t best = 0;
    for (int idx = 0; idx < 8; ++idx) {
        char path[1100], buf[64];
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/size", fb_cpu_sysfs_root(), idx);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(buf, sizeof buf, f)) {
            size_t b = parse_cache_size(buf);
            if (b > best) best = b;
        }
        fclose(f);
    }
    return best;
}

/* MemTotal of /proc/meminfo, else the pages sysconf counts. */
static size_t memory_bytes(void)
{
    FILE *f = fb_proc_open("meminfo");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb > 0) return (size_t)kb * 1024;
    return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
}

static int has_word(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ' || p[-1] == '\t') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t')) return 1;
    return 0;
}

/* SVE's vector length as the kernel gives new processes (bytes), else 0. */
static int sve_default_bits(void)
{
    FILE *f = fb_proc_open("sys/abi/sve_default_vector_length");
    int bytes = 0;
    if (f && fscanf(f, "%d", &bytes) != 1) bytes = 0;
    if (f) fclose(f);
    return bytes > 0 ? 8 * bytes : 0;
}

/* The widest vector ISA the CPU reports (x86 "flags", aarch64
 * "Features"), its width, and where the width comes from. */
static void simd_get(fb_host_info *info)
{
    static const struct {
        const char *flag, *isa;
        int bits;
    } x86[] = {{"avx512f", "avx512f", 512}, {"avx2", "avx2", 256}, {"fma", "avx2", 256}, {"sse2", "sse2", 128}};
    char flags[8192];
    cpuinfo_field("flags", flags, sizeof flags);
    for (size_t i = 0; i < sizeof x86 / sizeof *x86; ++i)
        if (has_word(flags, x86[i].flag)) {
            snprintf(info->simd, sizeof info->simd, "%s", x86[i].isa);
            info->simd_bits = x86[i].bits;
            snprintf(info->simd_source, sizeof info->simd_source, "%s in /proc/cpuinfo flags", x86[i].flag);
            return;
        }
    cpuinfo_field("Features", flags, sizeof flags);
    if (has_word(flags, "sve")) {
        const int bits = sve_default_bits();
        snprintf(info->simd, sizeof info->simd, "sve");
        info->simd_bits = bits ? bits : 128;
        snprintf(info->simd_source, sizeof info->simd_source, "%s",
                 bits ? "sve in /proc/cpuinfo Features, its length from /proc/sys/abi/sve_default_vector_length"
                      : "sve in /proc/cpuinfo Features; the kernel gives no vector length: 128 bits assumed");
    } else if (has_word(flags, "asimd")) {
        snprintf(info->simd, sizeof info->simd, "asimd");
        info->simd_bits = 128;
        snprintf(info->simd_source, sizeof info->simd_source, "asimd (NEON) in /proc/cpuinfo Features");
    }
}

void fb_host_info_get(fb_host_info *info)
{
    char mhz[64];
    struct utsname u;
    memset(info, 0, sizeof *info);
    if (gethostname(info->hostname, sizeof info->hostname - 1) != 0)
        snprintf(info->hostname, sizeof info->hostname, "unknown");
    cpuinfo_field("model name", info->cpu_model, sizeof info->cpu_model);
    cpuinfo_field("vendor_id", info->cpu_vendor, sizeof info->cpu_vendor);
    cpuinfo_field("cpu MHz", mhz, sizeof mhz);
    info->cpu_mhz = atof(mhz);
    info->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    info->omp_threads = omp_get_max_threads();
    info->llc_bytes = largest_cache_bytes();
    info->memory_bytes = memory_bytes();
    simd_get(info);
    if (uname(&u) == 0)
        snprintf(info->os, sizeof info->os, "%.24s %.64s %.24s", u.sysname, u.release, u.machine);
    else
        snprintf(info->os, sizeof info->os, "unknown");
}

void fb_utc_text(long long seconds, char *out, size_t len)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    /* a time no calendar year holds (a damaged or hand-made value) is
     * shown as the number it is, never handed to strftime unchecked */
    if ((long long)t != seconds || !gmtime_r(&t, &tm) || tm.tm_year > 9999 - 1900)
        snprintf(out, len, "%llds", seconds);
    else
        strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void fb_utc_now(char *out, size_t len) { fb_utc_text((long long)time(NULL), out, len); }

#define FB_UTC_LAST 253402300799LL /* 9999-12-31T23:59:59Z */

fb_status fb_utc_parse(const char *text, const char *what, long long *when)
{
    fb_status status = FB_OK;
    struct tm tm = {0};
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end != text && *end == '\0') {
        /* a time no calendar holds (1e17 s) would be stored and break every
         * reader of the series */
        if (errno || v < 0 || v > FB_UTC_LAST)
            FB_FAIL(FB_ERR_USAGE, "%s: %s is outside 0 .. %lld (1970 to the end of 9999)", what, text,
                    (long long)FB_UTC_LAST);
        *when = v;
        return FB_OK;
    }
    end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end) end = strptime(text, "%Y-%m-%d", &tm);
    if (!end || (*end && strcmp(end, "Z") != 0) || tm.tm_year < 70)
        FB_FAIL(FB_ERR_USAGE, "%s: '%s' is not seconds since 1970 nor YYYY-MM-DDTHH:MM:SSZ (from 1970)", what, text);
    *when = (long long)timegm(&tm);
fail:
    return status;
}
