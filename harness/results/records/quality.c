/* quality.c - a record's quality from its JSON (quality.h). */
#include "quality.h"

#include <math.h>
#include <stdio.h>
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

/* A contended record stays contended: that is the stronger word. */
void fb_json_judge_processes(json_t *const *records, const double *medians, int n, char *verdict, size_t len)
{
    char why[320];
    const int two = fb_processes_judge(medians, n, why, sizeof why);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; ++i)
        lo = fmin(lo, medians[i]), hi = fmax(hi, medians[i]);
    if (two)
        snprintf(verdict, len, "%s", why);
    else
        snprintf(verdict, len, "one mode across %d processes: medians %.4g-%.4g ms (%.1f%% apart)", n, lo * 1e3,
                 hi * 1e3, lo > 0 ? 100 * (hi / lo - 1) : 0.0);
    json_t *all = json_array();
    for (int i = 0; i < n; ++i)
        json_array_append_new(all, json_real(medians[i]));
    for (int i = 0; i < n; ++i) {
        json_t *rec = records[i], *stats = json_object_get(rec, "stats");
        json_object_set_new(
            rec, "processes",
            json_pack("{s:i, s:i, s:O, s:s}", "index", i + 1, "count", n, "medians_s", all, "verdict", verdict));
        if (two && json_is_object(stats) && !strcmp(fb_json_str(rec, "stats.quality"), "stable")) {
            json_object_set_new(stats, "quality", json_string("unstable"));
            json_object_set_new(stats, "quality_why", json_string(why));
        }
    }
    json_decref(all);
}
