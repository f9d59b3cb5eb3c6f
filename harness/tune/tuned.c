/* tuned.c - cached parameters onto a kernel's axes. */
#include "tuned.h"

#include <string.h>

/* The entry names its problem under its family's record key. */
static const char *const problem_keys[] = {"matrix", "grid"};

/* The record's "tuning": which entry (by signature and by device level),
 * how far its signature was, and the device it was tuned on when not this
 * one. */
static fb_status tuning_json(const fb_cache_hit *hit, fb_signature_kind kind, json_t **tuning)
{
    fb_status status = FB_OK;
    const json_t *entry = hit->entry;
    *tuning = json_pack("{s:s, s:s, s:s}", "source", entry ? fb_cache_match_name(hit->match) : "default", "signature",
                        fb_signature_kind_name(kind), "device_match", fb_device_match_name(hit->device));
    if (!*tuning) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the tuning");
    if (entry) json_object_set_new(*tuning, "distance", json_real(hit->distance));
    if (entry && hit->device != FB_DEVICE_EXACT)
        json_object_set(*tuning, "entry_device", json_object_get(entry, "device"));
    for (size_t i = 0; entry && i < sizeof problem_keys / sizeof problem_keys[0]; ++i)
        if (json_object_get(entry, problem_keys[i]))
            json_object_set(*tuning, problem_keys[i], json_object_get(entry, problem_keys[i]));
    if (entry) json_object_set(*tuning, "params", json_object_get(entry, "params"));
    /* where tune's confirmation expects a fresh process's median: only for
     * this device and this problem, not a neighbour's */
    if (entry && hit->match == FB_CACHE_EXACT && hit->device == FB_DEVICE_EXACT &&
        json_array_size(json_object_get(entry, "spread_s")) == 2)
        json_object_set(*tuning, "expected_s", json_object_get(entry, "spread_s"));
fail:
    return status;
}

void fb_tuned_judge(json_t *rec)
{
    const json_t *expected = json_object_get(json_object_get(rec, "tuning"), "expected_s");
    json_t *stats = json_object_get(rec, "stats");
    const double lo = json_number_value(json_array_get(expected, 0)),
                 hi = json_number_value(json_array_get(expected, 1));
    const double median = json_number_value(json_object_get(stats, "median_s"));
    const char *quality = json_string_value(json_object_get(stats, "quality"));
    const char *before = json_string_value(json_object_get(stats, "quality_why"));
    const int stable = quality && !strcmp(quality, "stable");
    char why[1000];
    if (!json_is_array(expected) || !(median > 0) || (median >= lo && median <= hi)) return;
    /* a record flagged already (contended wins) keeps its word and gets this reason too */
    snprintf(why, sizeof why,
             "%.500s%smedian %.4g ms outside the %.4g-%.4g ms tune's confirmation expected of a fresh process on this "
             "device and problem: this process may run in another mode (--processes N measures across processes)",
             !stable && before ? before : "", !stable && before && *before ? "; " : "", median * 1e3, lo * 1e3,
             hi * 1e3);
    if (stable) json_object_set_new(stats, "quality", json_string("unstable"));
    json_object_set_new(stats, "quality_why", json_string(why));
}

fb_status fb_tuned_point(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel,
                         const fb_param_axis *axes, int naxes, int is_double, const fb_signature *sig,
                         fb_param_point *point, json_t **tuning)
{
    fb_status status = FB_OK;
    *tuning = NULL;
    *point = fb_param_default_point(axes, naxes);
    fb_cache_hit hit = fb_cache_find(c, dev, kernel, is_double, sig);
    const json_t *entry = hit.entry, *params = json_object_get(entry, "params");
    for (int i = 0; i < naxes && entry; ++i) {
        const json_t *v = json_object_get(params, axes[i].name);
        if (!json_is_integer(v)) continue;
        point->values[i] = (int)json_integer_value(v); /* within +-1e9: the cache's load checked it */
        if (!fb_param_axis_has(&axes[i], point->values[i]))
            FB_FAIL(FB_ERR_INPUT, "%s: its entry for %s holds %s=%d, which is not in the kernel's space",
                    fb_cache_source(c), kernel, axes[i].name, point->values[i]);
    }
    FB_CHECK(tuning_json(&hit, sig->kind, tuning));
fail:
    return status;
}

/* "NAME=V NAME=V" of a point, "(no parameters)" for none. */
static void point_text(const fb_param_axis *axes, int naxes, const fb_param_point *p, char *buf, size_t len)
{
    size_t used = 0;
    snprintf(buf, len, "%s", naxes ? "" : "(no parameters)");
    for (int i = 0; i < naxes && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", i ? " " : "", axes[i].name, p->values[i]);
}

fb_status fb_tuned_lookup(const char *cache_option, const fb_device_info *dev, const char *kernel,
                          const fb_param_axis *axes, int naxes, int is_double, const fb_signature *sig,
                          fb_param_point *point, json_t **tuning, FILE *say)
{
    fb_status status = FB_OK;
    fb_tuning_cache *cache = NULL;
    char path[1024], text[512], params[512];
    *tuning = NULL;
    fb_cache_path(cache_option, path, sizeof path);
    FB_CHECK(fb_cache_load(path, &cache));
    FB_CHECK(fb_tuned_point(cache, dev, kernel, axes, naxes, is_double, sig, point, tuning));
    json_object_set_new(*tuning, "cache", json_string(path));
    fb_tuning_text(*tuning, text, sizeof text);
    point_text(axes, naxes, point, params, sizeof params);
    if (say) fprintf(say, "--tuned: %s: %s (cache %s)\n", text, params, path);
fail:
    fb_cache_free(cache);
    return status;
}

/* " on the same device under another driver", ...: where the entry was
 * tuned when not on this device. */
static const char *device_words(const json_t *tuning)
{
    const char *m = json_string_value(json_object_get(tuning, "device_match"));
    if (!m || !strcmp(m, "exact")) return "";
    if (!strcmp(m, "device")) return ", on this device under another driver";
    if (!strcmp(m, "architecture")) return ", on another device of this architecture";
    return ", on another device of this vendor and type";
}

void fb_tuning_text(const json_t *tuning, char *buf, size_t len)
{
    const char *source = json_string_value(json_object_get(tuning, "source"));
    const char *kind = json_string_value(json_object_get(tuning, "signature"));
    const char *from = json_string_value(json_object_get(tuning, "matrix"));
    if (!from) from = json_string_value(json_object_get(tuning, "grid"));
    if (!kind) kind = "matrix";
    if (!source || !strcmp(source, "default"))
        snprintf(buf, len, "no tuning cache entry fits: the kernel's defaults");
    else if (!strcmp(source, "exact"))
        snprintf(buf, len, "tuned for this %s signature (%s)%s", kind, from ? from : "?", device_words(tuning));
    else
        snprintf(buf, len, "tuned for the nearest %s signature in the cache (%s)%s", kind, from ? from : "?",
                 device_words(tuning));
}
