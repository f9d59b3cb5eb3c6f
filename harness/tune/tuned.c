/* tuned.c - cached parameters onto a kernel's axes. */
#include "tuned.h"

#include <stdio.h>
#include <string.h>

fb_status fb_tuned_point(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel,
                         const fb_param_axis *axes, int naxes, int is_double, const json_t *matrix,
                         fb_param_point *point, json_t **tuning)
{
    fb_status status = FB_OK;
    char device[1024];
    fb_signature sig;
    fb_cache_match match = FB_CACHE_NONE;
    const json_t *entry, *params;
    *tuning = NULL;
    for (int i = 0; i < naxes; ++i)
        point->values[i] = axes[i].def;
    FB_CHECK(fb_signature_from_json(matrix, &sig));
    fb_device_fingerprint(dev, device, sizeof device);
    entry = fb_cache_lookup(c, device, kernel, is_double, &sig, &match);
    params = json_object_get(entry, "params");
    for (int i = 0; i < naxes && entry; ++i) {
        const json_t *v = json_object_get(params, axes[i].name);
        if (json_is_integer(v)) point->values[i] = (int)json_integer_value(v);
    }
    *tuning = json_pack("{s:s}", "source", entry ? fb_cache_match_name(match) : "default");
    if (entry) {
        json_object_set(*tuning, "matrix", json_object_get(entry, "matrix"));
        json_object_set(*tuning, "params", (json_t *)params);
    }
fail:
    return status;
}

void fb_tuning_text(const json_t *tuning, char *buf, size_t len)
{
    const char *source = json_string_value(json_object_get(tuning, "source"));
    const char *from = json_string_value(json_object_get(tuning, "matrix"));
    if (!source || !strcmp(source, "default"))
        snprintf(buf, len, "no tuning cache entry fits: the kernel's defaults");
    else if (!strcmp(source, "exact"))
        snprintf(buf, len, "tuned for this matrix signature (%s)", from ? from : "?");
    else
        snprintf(buf, len, "tuned for the nearest signature in the cache (%s)", from ? from : "?");
}
