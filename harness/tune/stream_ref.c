/* stream_ref.c - the stored stream triad reference (contracts in
 * stream_ref.h). The file: {"flowbench_stream_references": 1, "entries":
 * [{"device": fingerprint, "precision", "n", "gbs", "gbs_min", "gbs_max",
 * "samples", "measured_at"}]}. */
#include "stream_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/files.h"
#include "cache.h"

static int entry_matches(const json_t *e, const char *device, const char *precision, size_t n)
{
    return json_is_object(e) && json_is_string(json_object_get(e, "device")) &&
           !strcmp(json_string_value(json_object_get(e, "device")), device) &&
           json_is_string(json_object_get(e, "precision")) &&
           !strcmp(json_string_value(json_object_get(e, "precision")), precision) &&
           json_integer_value(json_object_get(e, "n")) == (json_int_t)n &&
           json_number_value(json_object_get(e, "gbs")) > 0;
}

/* The entries of the file at path (an empty array when it is absent or
 * unreadable: a cache is rebuilt, not trusted). */
static json_t *load_entries(const char *path)
{
    json_error_t err = {.text = "unable to open"};
    json_t *root = NULL, *entries;
    FILE *f = NULL;
    if (fb_file_fopen_read_if_exists(path, NULL, &f) != FB_OK)
        fprintf(stderr, "warning: %s: it will be replaced\n", fb_error_message());
    if (f) {
        root = json_loadf(f, 0, &err);
        fclose(f);
    }
    entries = json_object_get(root, "entries");
    if (root && !json_is_array(entries))
        fprintf(stderr, "warning: %s is not a stream reference file: it will be replaced\n", path);
    else if (!root && strstr(err.text, "unable to open") == NULL)
        fprintf(stderr, "warning: %s: %s (line %d): it will be replaced\n", path, err.text, err.line);
    entries = json_is_array(entries) ? json_incref(entries) : json_array();
    json_decref(root);
    return entries;
}

static void from_entry(const json_t *e, double now, fb_stream_ref *out)
{
    out->triad.gbs = json_number_value(json_object_get(e, "gbs"));
    out->triad.gbs_min = json_number_value(json_object_get(e, "gbs_min"));
    out->triad.gbs_max = json_number_value(json_object_get(e, "gbs_max"));
    out->triad.samples = (int)json_integer_value(json_object_get(e, "samples"));
    out->triad.n = (size_t)json_integer_value(json_object_get(e, "n"));
    out->measured_at = json_number_value(json_object_get(e, "measured_at"));
    out->age_s = now - out->measured_at;
    out->stored = 1;
}

static fb_status store(json_t *entries, const char *device, const char *precision, const fb_stream_ref *r,
                       const char *path)
{
    fb_status status = FB_OK;
    size_t i;
    json_t *e, *root = NULL;
    json_array_foreach(entries, i, e) if (entry_matches(e, device, precision, r->triad.n))
    {
        json_array_remove(entries, i);
        break;
    }
    json_array_append_new(entries, json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:i, s:f}", "device", device, "precision",
                                             precision, "n", (json_int_t)r->triad.n, "gbs", r->triad.gbs, "gbs_min",
                                             r->triad.gbs_min, "gbs_max", r->triad.gbs_max, "samples", r->triad.samples,
                                             "measured_at", r->measured_at));
    root = json_pack("{s:i, s:O}", "flowbench_stream_references", 1, "entries", entries);
    if (!root) FB_FAIL(FB_ERR_NOMEM, "out of host memory saving the stream reference");
    FB_CHECK(fb_json_file_replace(root, path));
fail:
    json_decref(root);
    return status;
}

fb_status fb_stream_ref_get(fb_target *t, size_t n, int is_double, const char *path, double max_age_s,
                            fb_stream_ref *out)
{
    fb_status status = FB_OK;
    char device[512];
    const char *precision = is_double ? "double" : "single";
    const double now = (double)time(NULL);
    const fb_stream_size size = fb_stream_size_of(fb_target_info(t), is_double, n);
    const size_t elems = size.n;
    json_t *entries = load_entries(path), *e;
    size_t i;
    int fresh = 0;
    fb_device_fingerprint(fb_target_info(t), device, sizeof device);
    json_array_foreach(entries, i, e) if (entry_matches(e, device, precision, elems))
    {
        from_entry(e, now, out);
        fresh = out->age_s >= 0 && out->age_s < max_age_s;
        break;
    }
    if (!fresh) {
        memset(out, 0, sizeof *out);
        FB_CHECK(fb_stream_triad_measure(t, elems, is_double, &out->triad));
        out->measured_at = now;
        FB_CHECK(store(entries, device, precision, out, path));
    }
    out->size = size;
fail:
    json_decref(entries);
    return status;
}

json_t *fb_stream_ref_json(const fb_stream_ref *r, const char *path)
{
    json_t *j =
        json_pack("{s:f, s:f, s:f, s:i, s:I, s:f, s:f, s:s, s:s, s:f}", "gbs", r->triad.gbs, "gbs_min",
                  r->triad.gbs_min, "gbs_max", r->triad.gbs_max, "samples", r->triad.samples, "n",
                  (json_int_t)r->triad.n, "measured_at", r->measured_at, "age_s", r->age_s, "source",
                  r->stored ? "stored" : "measured", "file", path, "working_set_bytes", r->size.working_set_bytes);
    if (j) fb_stream_size_set_json(j, &r->size);
    return j;
}

void fb_stream_ref_default_path(char *buf, size_t len)
{
    const char *given = getenv("FLOWBENCH_STREAM_CACHE");
    char tuning[4096];
    if (given && *given) {
        snprintf(buf, len, "%s", given);
        return;
    }
    fb_cache_default_path(tuning, sizeof tuning);
    char *slash = strrchr(tuning, '/');
    if (slash)
        snprintf(buf, len, "%.*s/stream.json", (int)(slash - tuning), tuning);
    else
        snprintf(buf, len, "flowbench-stream.json");
}
