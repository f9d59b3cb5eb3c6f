/* energy_rapl.c - the host CPU's meter: RAPL package and DRAM energy from
 * the powercap files, and the CPU frequency from cpufreq (energy.h).
 *
 * The powercap interface is plain files, so no library is needed and a
 * test points $FLOWBENCH_POWERCAP_ROOT and $FLOWBENCH_CPUFREQ_ROOT at a tree
 * of its own. Each zone's energy_uj wraps at max_energy_range_uj; every read
 * adds the difference to the last one (plus the range when it went back),
 * so a window survives wraps as long as reads come more often than one wrap
 * (minutes at a server's power: measure.c reads after every sample, at most
 * every FB_ENERGY_POLL_S). A counter that goes back with no range to
 * unwrap it at leaves its window without joules (the reason in the record),
 * never with a negative count. Only regular files are read, as sysfs
 * attributes are: anything else in the tree is refused, naming it.
 *
 * Package zones (intel-rapl:P, named package-P) and their DRAM subzones
 * (intel-rapl:P:M named dram) are summed; core and uncore are parts of the
 * package, and psys is the whole platform, so those are left out.
 */
#include "energy_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FREQ_READS 32
/* read_text's answer for a path that is there but is not a regular file. */
#define NOT_REGULAR (-1)

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

/* A zone that counts: its domain (package-P, dram-P) and its entry. */
typedef struct rapl_zone {
    char domain[32], entry[64];
} rapl_zone;

static const char *root_of(const char *env, const char *dflt)
{
    const char *r = getenv(env);
    return r && *r ? r : dflt;
}

/* The first line of a sysfs file into buf: 0, or why not (an errno value,
 * or NOT_REGULAR). Only regular files are read, as every sysfs attribute
 * is one: a FIFO planted in a tree ($FLOWBENCH_POWERCAP_ROOT) blocked the
 * meter forever. Opened with O_NONBLOCK, so that opening one cannot block
 * before the check. */
static int read_text(const char *path, char *buf, size_t len)
{
    struct stat st;
    ssize_t n = 0;
    int err = 0, fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    buf[0] = '\0';
    if (fd < 0) return errno;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (!S_ISREG(st.st_mode))
        err = NOT_REGULAR;
    else if ((n = read(fd, buf, len - 1)) < 0)
        err = errno;
    close(fd);
    if (err) return err;
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

static const char *read_error(int err) { return err == NOT_REGULAR ? "not a regular file" : strerror(err); }

/* A number from a sysfs file: 0, or why not (read_text's, or EINVAL). */
static int read_number(const char *path, double *out)
{
    char text[64];
    unsigned long long v = 0;
    int err = read_text(path, text, sizeof text);
    *out = 0;
    if (err) return err;
    if (sscanf(text, "%llu", &v) != 1) return EINVAL;
    *out = (double)v;
    return 0;
}

static int cmp_zone(const void *a, const void *b)
{
    return strcmp(((const rapl_zone *)a)->domain, ((const rapl_zone *)b)->domain);
}

/* The zone entry `name` (intel-rapl:P or intel-rapl:P:M) as a domain, or 0. */
static int zone_domain(const char *root, const char *name, char *domain, size_t len)
{
    char path[600], zone[64];
    int p, m;
    snprintf(path, sizeof path, "%s/%s/name", root, name);
    if (read_text(path, zone, sizeof zone)) return 0;
    if (sscanf(name, "intel-rapl:%d:%d", &p, &m) == 2) {
        if (strcmp(zone, "dram") != 0) return 0;
        snprintf(domain, len, "dram-%d", p);
        return 1;
    }
    if (sscanf(name, "intel-rapl:%d", &p) != 1 || strncmp(zone, "package", 7) != 0) return 0;
    snprintf(domain, len, "package-%d", p);
    return 1;
}

/* Every zone that counts in dir, all counted, the first `room` kept. */
static int list_zones(DIR *dir, const char *root, rapl_zone *z, int room)
{
    struct dirent *e;
    rapl_zone one;
    int n = 0;
    while ((e = readdir(dir)))
        if (strncmp(e->d_name, "intel-rapl:", 11) == 0 && zone_domain(root, e->d_name, one.domain, sizeof one.domain)) {
            snprintf(one.entry, sizeof one.entry, "%.63s", e->d_name);
            if (n < room) z[n] = one;
            n++;
        }
    return n;
}

/* Reads zone i once (the origin of the window's totals) and its range.
 * Returns 0 with the reason in m->unavailable when it cannot be read. */
static int open_zone(fb_energy_meter *m, rapl_impl *r, const char *root, const rapl_zone *z, int i)
{
    rapl_domain *d = &r->d[i];
    char path[600];
    int err;
    snprintf(d->path, sizeof d->path, "%s/%s/energy_uj", root, z->entry);
    if ((err = read_number(d->path, &d->last_uj))) {
        snprintf(m->unavailable, sizeof m->unavailable, "RAPL: %.160s: %s%s", d->path, read_error(err),
                 err == EACCES ? " (root only since Linux 5.10; run as root or make energy_uj readable)" : "");
        return 0;
    }
    snprintf(path, sizeof path, "%s/%s/max_energy_range_uj", root, z->entry);
    if ((err = read_number(path, &d->range_uj)) == NOT_REGULAR) {
        snprintf(m->unavailable, sizeof m->unavailable, "RAPL: %.160s: not a regular file", path);
        return 0;
    }
    if (err) d->range_uj = 0; /* no wrap correction: a counter that goes back leaves its window without joules */
    snprintf(m->domain[i], sizeof m->domain[i], "%.31s", z->domain);
    return 1;
}

/* Finds the zones and reads each once. Every zone is summed, in the order
 * of their domain names (dram-0, package-0, ...: records and paths follow
 * it, whatever order readdir gives); a host with more than
 * FB_ENERGY_DOMAINS_MAX has no joules, as a sum of some would undercount
 * it. Returns 0 with the reason in m->unavailable when there is nothing
 * to read. */
static int find_zones(fb_energy_meter *m, rapl_impl *r)
{
    const char *root = root_of("FLOWBENCH_POWERCAP_ROOT", "/sys/class/powercap");
    rapl_zone z[FB_ENERGY_DOMAINS_MAX];
    int n;
    DIR *dir = opendir(root);
    if (!dir) {
        snprintf(m->unavailable, sizeof m->unavailable,
                 "RAPL: %s: %s (no powercap interface: virtual machines rarely expose RAPL)", root, strerror(errno));
        return 0;
    }
    n = list_zones(dir, root, z, FB_ENERGY_DOMAINS_MAX);
    closedir(dir);
    if (!n) {
        snprintf(m->unavailable, sizeof m->unavailable, "RAPL: no package zone (intel-rapl:N named package-N) in %s",
                 root);
        return 0;
    }
    if (n > FB_ENERGY_DOMAINS_MAX) {
        snprintf(m->unavailable, sizeof m->unavailable,
                 "RAPL: %d package and DRAM zones in %.200s, more than the %d one meter sums (some alone would "
                 "undercount the host)",
                 n, root, FB_ENERGY_DOMAINS_MAX);
        return 0;
    }
    qsort(z, (size_t)n, sizeof *z, cmp_zone);
    for (int i = 0; i < n; ++i)
        if (!open_zone(m, r, root, &z[i], i)) return 0;
    r->ndomains = m->ndomains = n;
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
        int err;
        if (sscanf(e->d_name, "cpu%d%c", &cpu, &tail) != 1) continue;
        if (r->ncpus == cap) {
            char(*grown)[600] = realloc(r->freq, (size_t)(cap = 2 * cap + 16) * sizeof *grown);
            if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing the CPUs' cpufreq files");
            r->freq = grown;
        }
        snprintf(r->freq[r->ncpus], sizeof r->freq[0], "%s/%s/cpufreq/scaling_cur_freq", root, e->d_name);
        if (!(err = read_number(r->freq[r->ncpus], &khz))) r->ncpus++;
        if (err == NOT_REGULAR) { /* not sysfs: none of the tree is trusted */
            snprintf(m->throttle_unavailable, sizeof m->throttle_unavailable,
                     "CPU frequency: %.250s: not a regular file", r->freq[r->ncpus]);
            r->ncpus = 0;
            goto fail;
        }
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

/* Adds what a zone counted since its last read. A counter that went back
 * wrapped at its range; with no range, or back by more than it, what it
 * counted is unknown: nothing is added and the sample says why, so the
 * window holding this read has no joules rather than negative ones. */
static void advance(rapl_domain *d, double now, fb_energy_sample *s)
{
    double delta = now - d->last_uj;
    if (delta < 0 && d->range_uj > 0) delta += d->range_uj; /* the counter wrapped */
    if (delta < 0 && !s->joules_invalid[0])
        snprintf(s->joules_invalid, sizeof s->joules_invalid,
                 "RAPL: %.150s went back from %llu to %llu uJ, more than its max_energy_range_uj (%llu, 0: none) "
                 "explains: the window's joules are unknown",
                 d->path, (unsigned long long)d->last_uj, (unsigned long long)now, (unsigned long long)d->range_uj);
    d->total_uj += delta > 0 ? delta : 0;
    d->last_uj = now;
}

static void read_rapl(void *impl, fb_energy_sample *s)
{
    rapl_impl *r = impl;
    double sum = 0, khz, mean = 0;
    int ok = r->ndomains > 0, cpus = 0;
    for (int i = 0; i < r->ndomains; ++i) {
        rapl_domain *d = &r->d[i];
        double now;
        if (read_number(d->path, &now)) {
            ok = 0;
            continue;
        }
        advance(d, now, s);
        s->domain_joules[i] = d->total_uj / 1e6; /* divided: whole joules stay exact */
        sum += s->domain_joules[i];
    }
    s->has_joules = ok;
    s->joules = sum;
    /* at most FREQ_READS CPUs, evenly spread: a read costs microseconds, and
     * a node of 256 CPUs read every poll would spend the window reading */
    const int stride = (r->ncpus + FREQ_READS - 1) / FREQ_READS;
    for (int i = 0; i < r->ncpus; i += stride)
        if (!read_number(r->freq[i], &khz)) mean += (khz * 1e-3 - mean) / ++cpus;
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
