/* stream_ref.c - the stored stream triad reference (contracts in
 * stream_ref.h). The file: {"flowbench_stream_references": 1, "entries":
 * [{"device": fingerprint, "precision", "n", "gbs", "gbs_min", "gbs_max",
 * "read_gbs", "samples", "measured_at", "quality": "stable", "environment":
 * {"host", "run_queue_wait_fraction", "other_runnable_max",
 * "load_before"}}]}: only stable triads are written, and an entry without
 * "quality" or "read_gbs" (written before they were kept) is measured
 * again. */
#include "stream_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/files.h"
#include "../../core/json_file.h"
#include "quality.h"
#include "reader.h"

static int entry_matches(const json_t *e, const char *device, const char *precision, size_t n)
{
    return json_is_object(e) && json_is_string(json_object_get(e, "device")) &&
           !strcmp(json_string_value(json_object_get(e, "device")), device) &&
           json_is_string(json_object_get(e, "precision")) &&
           !strcmp(json_string_value(json_object_get(e, "precision")), precision) &&
           json_integer_value(json_object_get(e, "n")) == (json_int_t)n &&
           json_number_value(json_object_get(e, "gbs")) > 0;
}

/* Only a triad stored stable is a reference: an entry written before
 * quality was kept may have been measured under load (one was, at 17.04
 * GB/s against 27.96 quiet, and divided every fraction for an hour). */
static int entry_stable(const json_t *e)
{
    const json_t *q = json_object_get(e, "quality");
    return json_is_string(q) && !strcmp(json_string_value(q), "stable") &&
           json_number_value(json_object_get(e, "read_gbs")) > 0;
}

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
    const json_t *env = json_object_get(e, "environment");
    memset(out, 0, sizeof *out);
    out->triad.gbs = json_number_value(json_object_get(e, "gbs"));
    out->triad.gbs_min = json_number_value(json_object_get(e, "gbs_min"));
    out->triad.gbs_max = json_number_value(json_object_get(e, "gbs_max"));
    out->triad.read_gbs = json_number_value(json_object_get(e, "read_gbs"));
    out->triad.samples = (int)json_integer_value(json_object_get(e, "samples"));
    out->triad.n = (size_t)json_integer_value(json_object_get(e, "n"));
    out->triad.quality = FB_QUALITY_STABLE;
    out->triad.wait_fraction = json_is_number(json_object_get(env, "run_queue_wait_fraction"))
                                   ? json_number_value(json_object_get(env, "run_queue_wait_fraction"))
                                   : -1;
    out->triad.others_max = (int)json_integer_value(json_object_get(env, "other_runnable_max"));
    /* a cache folder shared by the nodes of a cluster holds other hosts' triads of the same device */
    const char *host = json_string_value(json_object_get(env, "host"));
    snprintf(out->triad.host, sizeof out->triad.host, "%s", host ? host : "");
    out->triad.load = json_is_number(json_object_get(env, "load_before"))
                          ? json_number_value(json_object_get(env, "load_before"))
                          : -1;
    out->measured_at = json_number_value(json_object_get(e, "measured_at"));
    out->age_s = now - out->measured_at;
    out->stored = 1;
}

static json_t *number_or_null(double v, int known) { return known ? json_real(v) : json_null(); }

/* The machine the triad was measured on, as much as the judgement needs. */
static json_t *environment_json(const fb_stream_triad *t)
{
    return json_pack("{s:s, s:o, s:i, s:o}", "host", t->host, "run_queue_wait_fraction",
                     number_or_null(t->wait_fraction, t->wait_fraction >= 0), "other_runnable_max", t->others_max,
                     "load_before", number_or_null(t->load, t->load >= 0));
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
    json_array_append_new(entries,
                          json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:i, s:f, s:s, s:o}", "device", device,
                                    "precision", precision, "n", (json_int_t)r->triad.n, "gbs", r->triad.gbs, "gbs_min",
                                    r->triad.gbs_min, "gbs_max", r->triad.gbs_max, "read_gbs", r->triad.read_gbs,
                                    "samples", r->triad.samples, "measured_at", r->measured_at, "quality", "stable",
                                    "environment", environment_json(&r->triad)));
    root = json_pack("{s:i, s:O}", "flowbench_stream_references", 1, "entries", entries);
    if (!root) FB_FAIL(FB_ERR_NOMEM, "out of host memory saving the stream reference");
    FB_CHECK(fb_json_file_replace(root, path));
fail:
    json_decref(root);
    return status;
}

/* The stored stable entry of the key, or NULL. */
static const json_t *stored_entry(const json_t *entries, const char *device, const char *precision, size_t n)
{
    size_t i;
    const json_t *e;
    json_array_foreach(entries, i, e) if (entry_matches(e, device, precision, n) && entry_stable(e)) return e;
    return NULL;
}

/* Whether a new triad replaces the stored one: stable only, and better,
 * or the stored one is past its age (the machine may have changed). */
static int worth_keeping(const fb_stream_triad *t, const json_t *stored, double now, double max_age_s)
{
    if (t->quality != FB_QUALITY_STABLE) return 0;
    if (!stored) return 1;
    const double age = now - json_number_value(json_object_get(stored, "measured_at"));
    return !(age >= 0 && age < max_age_s) || t->gbs > json_number_value(json_object_get(stored, "gbs"));
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
    json_t *entries = load_entries(path);
    const json_t *stored;
    fb_stream_ref measured;
    fb_device_fingerprint(fb_target_info(t), device, sizeof device);
    stored = stored_entry(entries, device, precision, elems);
    if (stored) from_entry(stored, now, out);
    if (stored && out->age_s >= 0 && out->age_s < max_age_s) goto fail; /* fresh: used as it is */
    memset(&measured, 0, sizeof measured);
    FB_CHECK(fb_stream_triad_measure(t, elems, is_double, &measured.triad));
    measured.measured_at = now;
    if (worth_keeping(&measured.triad, stored, now, max_age_s))
        FB_CHECK(store(entries, device, precision, &measured, path));
    /* a contended or unstable triad divides nothing a stable one can: the
     * stored one, old as it is, says more about this machine */
    if (measured.triad.quality == FB_QUALITY_STABLE || !stored) {
        *out = measured;
    } else {
        out->passed_over = measured.triad;
        out->has_passed_over = 1;
    }
fail:
    out->size = size;
    json_decref(entries);
    return status;
}

fb_status fb_stream_ref_offer(fb_target *t, const fb_stream_triad *triad, int is_double, const char *path,
                              double max_age_s, char *said, size_t len)
{
    fb_status status = FB_OK;
    char device[512];
    const char *precision = is_double ? "double" : "single";
    const double now = (double)time(NULL);
    json_t *entries = load_entries(path);
    const json_t *stored;
    fb_stream_ref r;
    fb_device_fingerprint(fb_target_info(t), device, sizeof device);
    stored = stored_entry(entries, device, precision, triad->n);
    if (triad->quality != FB_QUALITY_STABLE) {
        snprintf(said, len, "not stored as the reference (%s: %s)", fb_quality_name(triad->quality),
                 triad->quality_why);
    } else if (!worth_keeping(triad, stored, now, max_age_s)) {
        snprintf(said, len, "not stored: the stored reference %.2f GB/s (%.0f s old) is better",
                 json_number_value(json_object_get(stored, "gbs")),
                 now - json_number_value(json_object_get(stored, "measured_at")));
    } else {
        memset(&r, 0, sizeof r);
        r.triad = *triad, r.measured_at = now;
        FB_CHECK(store(entries, device, precision, &r, path));
        snprintf(said, len, "stored as the reference triad in %s", path);
    }
fail:
    json_decref(entries);
    return status;
}

json_t *fb_stream_ref_json(const fb_stream_ref *r, const char *path)
{
    json_t *j = json_pack("{s:f, s:f, s:f, s:i, s:I, s:f, s:f, s:s, s:s, s:s, s:o, s:o, s:f}", "gbs", r->triad.gbs,
                          "gbs_min", r->triad.gbs_min, "gbs_max", r->triad.gbs_max, "samples", r->triad.samples, "n",
                          (json_int_t)r->triad.n, "measured_at", r->measured_at, "age_s", r->age_s, "source",
                          r->stored ? "stored" : "measured", "file", path, "quality", fb_quality_name(r->triad.quality),
                          "quality_why", r->triad.quality_why[0] ? json_string(r->triad.quality_why) : json_null(),
                          "environment", environment_json(&r->triad), "working_set_bytes", r->size.working_set_bytes);
    if (j) fb_stream_size_set_json(j, &r->size);
    if (j) json_object_set_new(j, "read_gbs", number_or_null(r->triad.read_gbs, r->triad.read_gbs > 0));
    if (j && r->has_passed_over)
        json_object_set_new(j, "passed_over",
                            json_pack("{s:f, s:s, s:s}", "gbs", r->passed_over.gbs, "quality",
                                      fb_quality_name(r->passed_over.quality), "why", r->passed_over.quality_why));
    return j;
}

double fb_stream_ref_max_age(void)
{
    const char *given = getenv("FLOWBENCH_STREAM_MAX_AGE");
    return given ? atof(given) : FB_STREAM_REF_MAX_AGE_S;
}

void fb_stream_ref_default_path(char *buf, size_t len)
{
    fb_cache_sibling_path("FLOWBENCH_STREAM_CACHE", "stream.json", "flowbench-stream.json", buf, len);
}
