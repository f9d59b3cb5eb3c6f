/* stream_used.c - the references a process divided by (stream_used.h). */
#include "stream_used.h"

#include <stdio.h>
#include <string.h>

#include "bench/record.h"

enum { MAX_REFS = 8 };
static struct {
    char id[64];
    json_t *ref;
} used_refs[MAX_REFS];
static int nused_refs;

void fb_stream_used_keep(const char *device_id, json_t *ref)
{
    for (int i = 0; i < nused_refs; ++i)
        if (!strcmp(used_refs[i].id, device_id)) {
            json_decref(used_refs[i].ref);
            used_refs[i].ref = ref;
            return;
        }
    if (nused_refs == MAX_REFS) {
        json_decref(ref);
        return;
    }
    snprintf(used_refs[nused_refs].id, sizeof used_refs[nused_refs].id, "%s", device_id);
    used_refs[nused_refs++].ref = ref;
}

static const json_t *reference_of(const char *id)
{
    for (int i = 0; i < nused_refs; ++i)
        if (!strcmp(used_refs[i].id, id)) return used_refs[i].ref;
    return NULL;
}

double fb_stream_used_read_gbs(const fb_device_info *d)
{
    return json_number_value(json_object_get(reference_of(d->id), "read_gbs"));
}

/* An unstable or contended reference is said beside any cache note: both
 * hold. */
static void note_unstable_reference(const json_t *ref, json_t *rec)
{
    const char *quality = json_string_value(json_object_get(ref, "quality"));
    if (!quality || !strcmp(quality, "stable")) return;
    const char *before = json_string_value(json_object_get(rec, "roofline_note"));
    char note[1200];
    snprintf(note, sizeof note, "%.500s%sthe stream triad it divides by was %s (%.300s): not a reference to trust",
             before ? before : "", before ? "; " : "", quality, json_string_value(json_object_get(ref, "quality_why")));
    json_object_set_new(rec, "roofline_note", json_string(note));
}

const char *fb_stream_used_judge(const fb_device_info *d, json_t *rec)
{
    if (!(json_number_value(json_object_get(rec, "stream_gbs")) > 0)) return NULL;
    const json_t *ref = reference_of(d->id);
    if (ref) json_object_set_new(rec, "stream_reference", json_deep_copy(ref));
    fb_json_judge_roofline(rec, d->cache_bytes);
    note_unstable_reference(ref, rec);
    return json_string_value(json_object_get(rec, "roofline_note"));
}
