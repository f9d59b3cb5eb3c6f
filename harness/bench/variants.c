/* variants.c - the sink the families' variant enumerators emit into, and
 * the point walk they share. Parameters that only change the launch
 * geometry (fb_param_axis.launch_only) do not make new variants. */
#include "variants.h"

#include <stdio.h>
#include <string.h>

#include "../core/kernel_sources.h"

const char *const fb_variant_reals[2] = {"double", "float"};

const fb_device_info fb_variant_generic_gpu = {.max_work_group_size = 1024, .local_mem_bytes = 48 * 1024};

void fb_variant_define(fb_variant *v, const char *name, const char *value)
{
    int slot = v->spec.ndefines++;
    snprintf(v->values[slot], sizeof v->values[slot], "%s", value);
    v->defines[slot].name = name;
    v->defines[slot].value = v->values[slot];
}

void fb_variant_begin(fb_variant *v, const char *source, const char *kernel, const char *real)
{
    memset(v, 0, sizeof *v);
    v->spec.source_name = source;
    v->spec.source_text = fb_kernel_source(source);
    v->spec.kernel_name = kernel;
    v->spec.defines = v->defines;
    fb_variant_define(v, "REAL", real);
}

void fb_variant_define_point(fb_variant *v, const fb_param_axis *axes, int naxes, const fb_param_point *p)
{
    char num[16];
    for (int i = 0; i < naxes; ++i) {
        if (axes[i].launch_only) continue;
        snprintf(num, sizeof num, "%d", p->values[i]);
        fb_variant_define(v, axes[i].name, num);
    }
}

static void finish_label(fb_variant *v)
{
    int n = snprintf(v->label, sizeof v->label, "%s/%s", v->spec.source_name, v->spec.kernel_name);
    for (int i = 0; i < v->spec.ndefines && n < (int)sizeof v->label; ++i)
        n += snprintf(v->label + n, sizeof v->label - (size_t)n, " %s=%s", v->defines[i].name, v->defines[i].value);
}

int fb_variant_emit(fb_variant_sink *sink, const fb_variant *v)
{
    if (sink->seen++ == sink->target) {
        *sink->out = *v;
        sink->out->spec.defines = sink->out->defines;
        for (int i = 0; i < v->spec.ndefines; ++i) {
            sink->out->defines[i].name = v->defines[i].name;
            sink->out->defines[i].value = sink->out->values[i];
        }
        finish_label(sink->out);
        return 1;
    }
    return 0;
}

int fb_variant_next_point(const fb_param_axis *axes, int naxes, int *pos, fb_param_point *p)
{
    for (int i = 0; i < naxes; ++i) {
        if (axes[i].launch_only) continue;
        if (++pos[i] < axes[i].nvalues) {
            p->values[i] = axes[i].values[pos[i]];
            return 1;
        }
        pos[i] = 0;
        p->values[i] = axes[i].values[0];
    }
    return 0;
}

int fb_variant_first_point(const fb_param_axis *axes, int naxes, int *pos, fb_param_point *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < naxes; ++i) {
        pos[i] = 0;
        p->values[i] = axes[i].launch_only ? axes[i].def : axes[i].values[0];
    }
    return 1;
}
