/* energy_rapl.c - the host CPU's meter: RAPL package and DRAM energy from
 * the powercap files, and the CPU frequency from cpufreq (energy.h).
 *
 * The powercap interface is plain files, so no library is needed and a
 * test points $FLOWBENCH_POWERCAP_ROOT and $FLOWBENCH_CPUFREQ_ROOT at a tree
 * of its own. Each zone's energy_uj wraps at max_energy_range_uj; every read
 * adds the difference to the last one (plus the range when it went back),
 * so a window survives wraps as long as reads come more often than one wrap
 * (minutes at a server's power: measure.c reads after every sample, at most
 * every FB_ENERGY_POLL_S).
 *
 * Package zones (intel-rapl:P, named package-P) and their DRAM subzones
 * (intel-rapl:P:M named dram) are summed; core and uncore are parts of the
 * package, and psys is the whole platform, so those are left out.
 */
#include "energy_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREQ_READS 32

typedef struct rapl_domain {
    char path[600]; /* .../energy_uj */
    double range_uj, last_uj, total_uj;
} rapl_domain;

typedef struct rapl_impl {
    int ndomains;
    rapl_domain d[FB_ENERGY_DOMAINS_MAX];
    int ncpus;
    char (*freq)[600]; /* .../cpuN/cpufreq/scaling_cur_freq */
} rapl_impl;

static const char *root_of(const char *env, const char *dflt)
{
    const char *r = getenv(env);
    return r && *r ? r : dflt;
}

/* A number from a sysfs file; 0 and errno set when it cannot be read. */
static int read_number(const char *path, double *out)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    int ok = f && fscanf(f, "%llu", &v) == 1;
    if (f) fclose(f);
    if (f && !ok) errno = EINVAL;
    *out = (double)v;
    return ok;
}

static void read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, "\r\n")] = '\0';
    fclose(f);
}

static int cmp_domain(const void *a, const void *b)
{
    return strcmp(((const char(*)[32])a)[0], ((const char(*)[32])b)[0]);
}

/* The zone entry `name` (intel-rapl:P or intel-rapl:P:M) as a domain, or 0. */
static int zone_domain(const char *root, const char *name, char *domain, size_t len)
{
    char path[600], zone[64];
    int p, m;
    snprintf(path, sizeof path, "%s/%s/name", root, name);
    read_line(path, zone, sizeof zone);
    if (sscanf(name, "intel-rapl:%d:%d", &p, &m) == 2) {
        if (strcmp(zone, "dram") != 0) return 0;
        snprintf(domain, len, "dram-%d", p);
        return 1;
    }
    if (sscanf(name, "intel-rapl:%d", &p) != 1 || strncmp(zone, "package", 7) != 0) return 0;
    snprintf(domain, len, "package-%d", p);
    return 1;
}

/* Finds the zones and reads each once (the origin of the window's totals).
 * Returns 0 with the reason in m->unavailable when there is nothing to read. */
static int find_zones(fb_energy_meter *m, rapl_impl *r)
{
    const char *root = root_of("FLOWBENCH_POWERCAP_ROOT", "/sys/class/powercap");
    char names[FB_ENERGY_DOMAINS_MAX][32], entries[FB_ENERGY_DOMAINS_MAX][64];
    int n = 0;
    DIR *dir = opendir(root);
    struct dirent *e;
    if (!dir) {
        snprintf(m->unavailable, sizeof m->unavailable,
                 "RAPL: %s: %s (no powercap interface: virtual machines rarely expose RAPL)", root, strerror(errno));
        return 0;
    }
    while ((e = readdir(dir)) && n < FB_ENERGY_DOMAINS_MAX)
        if (strncmp(e->d_name, "intel-rapl:", 11) == 0 && zone_domain(root, e->d_name, names[n], sizeof names[n]))
            snprintf(entries[n++], sizeof entries[0], "%.63s", e->d_name);
    closedir(dir);
    if (!n) {
        snprintf(m->unavailable, sizeof m->unavailable, "RAPL: no package zone (intel-rapl:N named package-N) in %s",
                 root);
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        rapl_domain *d = &r->d[i];
        char path[600];
        snprintf(d->path, sizeof d->path, "%s/%s/energy_uj", root, entries[i]);
        if (!read_number(d->path, &d->last_uj)) {
            snprintf(m->unavailable, sizeof m->unavailable, "RAPL: %.160s: %s%s", d->path, strerror(errno),
                     errno == EACCES ? " (root only since Linux 5.10; run as root or make energy_uj readable)" : "");
            return 0;
        }
        snprintf(path, sizeof path, "%s/%s/max_energy_range_uj", root, entries[i]);
        if (!read_number(path, &d->range_uj)) d->range_uj = 0; /* no wrap correction */
        snprintf(m->domain[i], sizeof m->domain[i], "%s", names[i]);
    }
    r->ndomains = m->ndomains = n;
    /* a stable order in records: dram-0, package-0, ... (the paths follow) */
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && cmp_domain(m->domain[j - 1], m->domain[j]) > 0; --j) {
            char t[32];
            rapl_domain td = r->d[j];
            memcpy(t, m->domain[j], sizeof t);
            memcpy(m->domain[j], m->domain[j - 1], sizeof t);
            memcpy(m->domain[j - 1], t, sizeof t);
            r->d[j] = r->d[j - 1];
            r->d[j - 1] = td;
        }
    return 1;
}

/* cpuN/cpufreq/scaling_cur_freq of every CPU that has one. */
static fb_status find_cpus(fb_energy_meter *m, rapl_impl *r)
{
    fb_status status = FB_OK;
    const char *root = root_of("FLOWBENCH_CPUFREQ_ROOT", "/sys/devices/system/cpu");
    DIR *dir = opendir(root);
    struct dirent *e;
    int cap = 0, cpu;
    char tail;
    while (dir && (e = readdir(dir))) {
        double khz;
        if (sscanf(e->d_name, "cpu%d%c", &cpu, &tail) != 1) continue;
        if (r->ncpus == cap) {
            char(*grown)[600] = realloc(r->freq, (size_t)(cap = 2 * cap + 16) * sizeof *grown);
            if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing the CPUs' cpufreq files");
            r->freq = grown;
        }
        snprintf(r->freq[r->ncpus], sizeof r->freq[0], "%s/%s/cpufreq/scaling_cur_freq", root, e->d_name);
        if (read_number(r->freq[r->ncpus], &khz)) r->ncpus++;
    }
    if (!r->ncpus)
        snprintf(m->throttle_unavailable, sizeof m->throttle_unavailable,
                 "CPU frequency: no %s/cpu*/cpufreq/scaling_cur_freq (no cpufreq driver: virtual machines often have "
                 "none)",
                 root);
fail:
    if (dir) closedir(dir);
    return status;
}

static void read_rapl(void *impl, fb_energy_sample *s)
{
    rapl_impl *r = impl;
    double sum = 0, khz, mean = 0;
    int ok = r->ndomains > 0, cpus = 0;
    for (int i = 0; i < r->ndomains; ++i) {
        rapl_domain *d = &r->d[i];
        double now;
        if (!read_number(d->path, &now)) {
            ok = 0;
            continue;
        }
        double delta = now - d->last_uj;
        if (delta < 0 && d->range_uj > 0) delta += d->range_uj; /* the counter wrapped */
        d->total_uj += delta;
        d->last_uj = now;
        s->domain_joules[i] = d->total_uj / 1e6; /* divided: whole joules stay exact */
        sum += s->domain_joules[i];
    }
    s->has_joules = ok;
    s->joules = sum;
    /* at most FREQ_READS CPUs, evenly spread: a read costs microseconds, and
     * a node of 256 CPUs read every poll would spend the window reading */
    const int stride = (r->ncpus + FREQ_READS - 1) / FREQ_READS;
    for (int i = 0; i < r->ncpus; i += stride)
        if (read_number(r->freq[i], &khz)) mean += (khz * 1e-3 - mean) / ++cpus;
    s->has_cpu = cpus > 0;
    s->cpu_mhz = mean;
}

static void close_rapl(void *impl)
{
    rapl_impl *r = impl;
    if (!r) return;
    free(r->freq);
    free(r);
}

fb_status fb_energy_open_rapl(fb_energy_meter **out)
{
    fb_status status = FB_OK;
    fb_energy_meter *m = NULL;
    rapl_impl *r = NULL;
    FB_CHECK(fb_energy_meter_new(&m));
    FB_ALLOC(r, 1, "the RAPL meter");
    snprintf(m->source, sizeof m->source, "rapl");
    snprintf(m->id, sizeof m->id, "rapl"); /* every package of the host: one meter per host */
    snprintf(m->method, sizeof m->method, "counter");
    m->min_window_s = FB_ENERGY_RAPL_WINDOW_S;
    m->impl = r;
    m->close_impl = close_rapl;
    m->read = read_rapl;
    find_zones(m, r);
    FB_CHECK(find_cpus(m, r));
    *out = m;
    return FB_OK;
fail:
    if (m && !m->impl) close_rapl(r);
    fb_energy_close(m);
    return status;
}
