/* sysinfo.c - reads /proc, sysfs and uname; every field degrades to
 * "unknown"/0 rather than failing, since results must still be written. */
#include "sysinfo.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void cpuinfo_field(const char *key, char *out, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(out, len, "unknown");
    if (!f) return;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
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
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fgets(buf, sizeof buf, f)) {
            size_t b = parse_cache_size(buf);
            if (b > best) best = b;
        }
        fclose(f);
    }
    return best;
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
    info->memory_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    if (uname(&u) == 0)
        snprintf(info->os, sizeof info->os, "%.24s %.64s %.24s", u.sysname, u.release, u.machine);
    else
        snprintf(info->os, sizeof info->os, "unknown");
}

void fb_utc_now(char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
