/* family.c - the registry of benchmark families the sweep runner knows.
 * A new family adds one line to `families` (and defines its fb_family). */
#include "family.h"

#include <stdio.h>
#include <string.h>

static const fb_family *const families[] = {
    &fb_family_spmv,
    &fb_family_fv_surface,
    &fb_family_heat2d,
};

int fb_family_count(void) { return (int)(sizeof families / sizeof families[0]); }

const fb_family *fb_family_at(int i) { return i >= 0 && i < fb_family_count() ? families[i] : NULL; }

const fb_family *fb_family_find(const char *name)
{
    for (int i = 0; i < fb_family_count(); ++i)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

int fb_family_kernel_find(const fb_family *f, const char *name)
{
    for (int i = 0; i < f->kernel_count(); ++i)
        if (strcmp(f->kernel(i)->name, name) == 0) return i;
    return -1;
}

void fb_family_point_text(const fb_family_kernel *k, const fb_param_point *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < k->nparams; ++i)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%d", i ? " " : "", k->params[i].name, p->values[i]);
}

void fb_family_mark_stop(json_t *rec, double abandon_above_s)
{
    const char *stop = json_string_value(json_object_get(json_object_get(rec, "stats"), "stop"));
    const char *st = json_string_value(json_object_get(rec, "status"));
    char reason[160];
    if (!stop || !st || strcmp(st, "ok")) return;
    if (!strcmp(stop, "abandoned")) {
        snprintf(reason, sizeof reason, "first sample over %.4g ms (abandon_factor x the best of this kernel)",
                 abandon_above_s * 1e3);
        json_object_set_new(rec, "status", json_string("abandoned"));
        json_object_set_new(rec, "reason", json_string(reason));
    } else if (!strcmp(stop, "timeout")) {
        json_object_set_new(rec, "status", json_string("timeout"));
        json_object_set_new(rec, "reason", json_string("timeout_s passed; the samples taken are kept"));
    }
}
