/* stream_size.c - how long the stream arrays are by default on a device,
 * and what a run of a given length says about DRAM (contracts in
 * stream.h). BabelStream's rule: the three arrays together at least 4x the
 * last-level cache, or the figures include cache reuse. A fixed 2^25 held
 * that on a 32 MiB L3 (24x) but not on a host whose cache is 480 MiB (1.6x). */
#include "stream.h"

#include <stdio.h>

#define MIB (1024.0 * 1024.0)

/* "480.0 MiB", "23.5 GiB" */
static void bytes_text(double bytes, char *buf, size_t len)
{
    if (bytes >= 1024.0 * MIB)
        snprintf(buf, len, "%.1f GiB", bytes / (1024.0 * MIB));
    else
        snprintf(buf, len, "%.1f MiB", bytes / MIB);
}

static double working_set(size_t n, size_t elem) { return 3.0 * (double)n * (double)elem; }

/* The rule's length: the smallest power of two, not under 2^25, whose
 * arrays take 4x the cache; then halved until they fit in half the
 * device's memory. */
static size_t rule_n(const fb_device_info *d, size_t elem)
{
    const double want = FB_STREAM_CACHE_FACTOR * (double)d->cache_bytes;
    const double room = FB_STREAM_MEMORY_SHARE * (double)d->global_mem_bytes;
    size_t n = FB_STREAM_DEFAULT_N;
    while (working_set(n, elem) < want && n < FB_STREAM_MAX_N)
        n *= 2;
    while (d->global_mem_bytes && working_set(n, elem) > room && n > 1024)
        n /= 2;
    return n;
}

fb_stream_size fb_stream_size_of(const fb_device_info *d, int is_double, size_t n)
{
    const size_t elem = fb_real_size(is_double);
    const double cache = (double)d->cache_bytes;
    fb_stream_size s = {.default_n = rule_n(d, elem), .cache_reuse = -1, .resident = -1};
    s.n = n ? n : s.default_n;
    s.working_set_bytes = working_set(s.n, elem);
    if (!d->cache_bytes) return s;
    s.cache_reuse = s.working_set_bytes < FB_STREAM_CACHE_FACTOR * cache;
    s.resident = s.working_set_bytes <= cache;
    s.too_large = working_set(s.default_n, elem) < FB_STREAM_CACHE_FACTOR * cache;
    return s;
}

void fb_stream_size_note(const fb_device_info *d, const fb_stream_size *s, char *buf, size_t len)
{
    char arrays[32], cache[32], memory[32];
    int used;
    buf[0] = '\0';
    if (s->cache_reuse != 1) return;
    bytes_text(s->working_set_bytes, arrays, sizeof arrays);
    bytes_text((double)d->cache_bytes, cache, sizeof cache);
    bytes_text((double)d->global_mem_bytes, memory, sizeof memory);
    used = snprintf(buf, len,
                    "the 3 arrays (%s) are under %dx the %s last-level cache: the figures include cache reuse, not "
                    "DRAM bandwidth",
                    arrays, FB_STREAM_CACHE_FACTOR, cache);
    if (used < 0 || (size_t)used >= len) return;
    if (s->too_large)
        snprintf(buf + used, len - (size_t)used,
                 "; this machine's cache is too large to measure DRAM in its memory (%dx it in 3 arrays is more "
                 "than half of its %s)",
                 FB_STREAM_CACHE_FACTOR, memory);
    else
        snprintf(buf + used, len - (size_t)used, " (the default, n = %zu, measures DRAM)", s->default_n);
}

static json_t *tristate(int v) { return v < 0 ? json_null() : json_boolean(v); }

void fb_stream_size_set_json(json_t *obj, const fb_stream_size *s)
{
    json_object_set_new(obj, "cache_resident", tristate(s->resident));
    json_object_set_new(obj, "cache_reuse", tristate(s->cache_reuse));
}
