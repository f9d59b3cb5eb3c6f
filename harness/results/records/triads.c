/* triads.c - one stream triad per device (triads.h). */
#include "triads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const fb_record *r, const char *path) { return fb_json_str(r->json, path); }

static int is_triad(const fb_record *r)
{
    return !r->superseded && fb_record_usable(r) && strcmp(str(r, "benchmark"), "stream") == 0 &&
           strcmp(str(r, "kernel"), "triad") == 0 && fb_json_num(r->json, "gbs") > 0;
}

/* Whether triad a is to be the device's rather than b (b may be NULL):
 * the stream command's, then double, then the larger array, then the later. */
static int triad_better(const fb_record *a, const fb_record *b)
{
    if (!b) return 1;
    const int sa = !json_object_get(a->json, "suite"), sb = !json_object_get(b->json, "suite");
    if (sa != sb) return sa;
    const int da = !strcmp(str(a, "precision"), "double"), db = !strcmp(str(b, "precision"), "double");
    if (da != db) return da;
    const double na = fb_json_num(a->json, "params.n"), nb = fb_json_num(b->json, "params.n");
    if (na != nb) return na > nb;
    return 1; /* records come in load order: the later wins */
}

/* The device's entry, added when new; NULL when out of memory. Devices
 * are few: a linear search, and the array grown one at a time. */
static fb_device_triad *entry_of(fb_triads *t, const fb_record *r)
{
    const char *device = str(r, "device");
    for (int i = 0; i < t->n; ++i)
        if (!strcmp(t->t[i].device, device)) return &t->t[i];
    fb_device_triad *grown = realloc(t->t, (size_t)(t->n + 1) * sizeof *grown);
    if (!grown) return NULL;
    t->t = grown;
    fb_device_triad *e = &t->t[t->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->device, sizeof e->device, "%s", device);
    snprintf(e->device_name, sizeof e->device_name, "%s", str(r, "device_name"));
    e->others_min = INFINITY;
    e->others_max = -INFINITY;
    return e;
}

static void note_value(fb_device_triad *e, double gbs)
{
    char key[32];
    snprintf(key, sizeof key, "%.6g", gbs);
    if (!e->values) e->values = json_object();
    if (e->values) json_object_set_new(e->values, key, json_real(gbs));
}

/* The distinct figures other than the one taken. */
static void count_others(fb_device_triad *e)
{
    const char *key;
    json_t *v;
    char taken[32];
    snprintf(taken, sizeof taken, "%.6g", e->gbs);
    json_object_foreach(e->values, key, v)
    {
        if (!strcmp(key, taken)) continue;
        e->others++;
        e->others_min = fmin(e->others_min, json_number_value(v));
        e->others_max = fmax(e->others_max, json_number_value(v));
    }
}

/* Pass 1: the measured triads, the best kept, the rest counted. */
static fb_status pick_measured(const fb_results_set *set, fb_triads *t)
{
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!is_triad(r)) continue;
        fb_device_triad *e = entry_of(t, r);
        if (!e) return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory picking the triads");
        note_value(e, fb_json_num(r->json, "gbs"));
        if (!triad_better(r, e->rec)) continue;
        e->rec = r;
        e->gbs = fb_json_num(r->json, "gbs");
    }
    return FB_OK;
}

/* Pass 2: every carried figure noted; a device no stream record measured
 * takes the triad its latest record carries. */
static fb_status pick_carried(const fb_results_set *set, fb_triads *t)
{
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const double carried = fb_json_num(r->json, "stream_gbs");
        char key[32];
        if (r->superseded || !(carried > 0)) continue;
        fb_device_triad *e = entry_of(t, r);
        if (!e) return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory picking the triads");
        note_value(e, carried);
        if (!e->rec) e->gbs = carried, e->carrier = r;
        /* a sweep divides by its own stream study (its suite's stream_n): the
         * commands of a run share the stored reference */
        if (json_object_get(r->json, "suite")) continue;
        snprintf(key, sizeof key, "%.6g", carried);
        const int single = !strcmp(str(r, "precision"), "single"); /* a single-precision triad is its own */
        json_t **seen = single ? &e->carried_single : &e->carried;
        if (!*seen) *seen = json_object();
        if (*seen) json_object_set_new(*seen, key, json_real(carried));
        if (!single) e->carrier = r;
    }
    return FB_OK;
}

/* Pass 3: where every record of a device outside a sweep divided by one
 * triad (the stored reference every command of a run reuses), the report
 * divides by that one too, so the terminal, the records and the report
 * agree; a stream
 * record of the run that measured another figure is then one of the
 * others. Records that carried several figures leave pass 1's choice. */
static void prefer_carried(fb_triads *t)
{
    for (int i = 0; i < t->n; ++i) {
        fb_device_triad *e = &t->t[i];
        if (e->carried_single && json_object_size(e->carried_single) == 1)
            e->single_gbs = json_number_value(json_object_iter_value(json_object_iter(e->carried_single)));
        if (!e->carried || json_object_size(e->carried) != 1) continue;
        e->gbs = json_number_value(json_object_iter_value(json_object_iter(e->carried)));
        e->by_carried = 1;
    }
}

/* Whether the triad includes cache reuse (its 3 arrays under 4x the
 * last-level cache: no DRAM triad), as its stream record or the carrier's
 * stream_reference says. */
static int includes_cache_reuse(const fb_device_triad *e)
{
    const json_t *of = e->rec && !e->by_carried ? e->rec->json : json_object_get(e->carrier->json, "stream_reference");
    return json_is_true(json_object_get(of, "cache_reuse"));
}

static void describe(const fb_results_set *set, fb_device_triad *e)
{
    char where[160];
    size_t n;
    const fb_record *r = e->rec && !e->by_carried ? e->rec : e->carrier;
    fb_record_where(set, r, where, sizeof where);
    if (r == e->rec)
        snprintf(e->source, sizeof e->source, "%s triad, %s%.160s, %.16s, n = %.0f",
                 json_object_get(r->json, "suite") ? "sweep's" : "stream", set->nfiles > 1 ? "" : "line ", where,
                 str(r, "precision"), fb_json_num(r->json, "params.n"));
    else
        snprintf(e->source, sizeof e->source, "%scarried by %.32s %s%.160s (%.32s: %.200s)",
                 e->rec ? "the one every record divided by, " : "", str(r, "benchmark"), set->nfiles > 1 ? "" : "line ",
                 where, *str(r, "stream_reference.source") ? str(r, "stream_reference.source") : "no stream record",
                 *str(r, "stream_reference.file") ? str(r, "stream_reference.file") : "its own run");
    n = strlen(e->source);
    if (e->single_gbs > 0)
        snprintf(e->source + n, sizeof e->source - n, "; single precision: %.2f GB/s, the one its records divided by",
                 e->single_gbs);
    n = strlen(e->source);
    if (includes_cache_reuse(e))
        snprintf(e->source + n, sizeof e->source - n,
                 "; includes cache reuse (3 arrays under 4x the last-level "
                 "cache): no DRAM triad");
}

/* The device's single-precision records divide by the single triad they
 * carried (fb_record_triad reads "DEVICE|single" first). */
static fb_status set_single(fb_results_set *set, const fb_device_triad *e)
{
    fb_status status = FB_OK;
    char key[80];
    if (!(e->single_gbs > 0)) return FB_OK;
    snprintf(key, sizeof key, "%s|single", e->device);
    if (json_object_set_new(set->device_triad, key, json_real(e->single_gbs)))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory picking the triads");
fail:
    return status;
}

fb_status fb_triads_pick(fb_results_set *set, fb_triads *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    FB_CHECK(pick_measured(set, out));
    FB_CHECK(pick_carried(set, out));
    prefer_carried(out);
    json_decref(set->device_triad);
    if (!(set->device_triad = json_object())) FB_FAIL(FB_ERR_NOMEM, "out of host memory picking the triads");
    for (int i = 0; i < out->n; ++i) {
        describe(set, &out->t[i]);
        count_others(&out->t[i]);
        if (json_object_set_new(set->device_triad, out->t[i].device, json_real(out->t[i].gbs)))
            FB_FAIL(FB_ERR_NOMEM, "out of host memory picking the triads");
        FB_CHECK(set_single(set, &out->t[i]));
    }
fail:
    return status;
}

const fb_device_triad *fb_triads_find(const fb_triads *t, const char *device)
{
    for (int i = 0; i < t->n; ++i)
        if (!strcmp(t->t[i].device, device)) return &t->t[i];
    return NULL;
}

void fb_triads_free(fb_triads *t)
{
    for (int i = 0; i < t->n; ++i)
        json_decref(t->t[i].values), json_decref(t->t[i].carried), json_decref(t->t[i].carried_single);
    free(t->t);
    memset(t, 0, sizeof *t);
}
