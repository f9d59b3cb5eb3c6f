/* quality.c - a record's quality from its JSON (quality.h). */
#include "quality.h"

#include <string.h>

#include "reader.h"

fb_quality fb_json_quality(const json_t *rec, const char **why)
{
    const char *name = fb_json_str(rec, "stats.quality"), *text = fb_json_str(rec, "stats.quality_why");
    fb_quality q = FB_QUALITY_STABLE;
    if (strcmp(name, "unstable") == 0) q = FB_QUALITY_UNSTABLE;
    if (strcmp(name, "contended") == 0) q = FB_QUALITY_CONTENDED;
    if (q == FB_QUALITY_STABLE && json_is_true(fb_json_get(rec, "environment.contended"))) {
        q = FB_QUALITY_CONTENDED;
        text = fb_json_str(rec, "environment.contended_why");
    }
    if (why) *why = q == FB_QUALITY_STABLE ? "" : text;
    return q;
}
