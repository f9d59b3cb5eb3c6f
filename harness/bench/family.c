/* family.c - helpers over one family descriptor (the registry of every
 * family is kernels/families.c). */
#include "family.h"

#include <stdio.h>
#include <string.h>

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
        snprintf(reason, sizeof reason,
                 "the fastest of its first %d samples over %.4g ms (abandon_factor x the best of this kernel)",
                 FB_ABANDON_SAMPLES, abandon_above_s * 1e3);
        json_object_set_new(rec, "status", json_string("abandoned"));
        json_object_set_new(rec, "reason", json_string(reason));
    } else if (!strcmp(stop, "timeout")) {
        json_object_set_new(rec, "status", json_string("timeout"));
        json_object_set_new(rec, "reason", json_string("timeout_s passed; the samples taken are kept"));
    }
}

const fb_param_axis *fb_family_axis_with_role(const fb_family *f, int k, fb_axis_role role)
{
    if (k < 0 || k >= f->kernel_count()) return NULL;
    const fb_family_kernel *fk = f->kernel(k);
    for (int i = 0; i < fk->nparams; ++i)
        if (fk->params[i].role == role) return &fk->params[i];
    return NULL;
}

double fb_family_hang_limit_s(const fb_family *f, double timeout_s, double budget_s)
{
    const double rule = timeout_s > 0 ? 2.0 * timeout_s + 10.0 : 60.0 + 4.0 * budget_s;
    return f->run_seconds > rule ? f->run_seconds : rule;
}

int fb_family_sweepable(const fb_family *f) { return f->run != NULL; }

int fb_family_is_grid(const fb_family *f) { return f->problem_key && strcmp(f->problem_key, "grid") == 0; }
