/* families.c - the registry: one line per family. */
#include "families.h"

#include <string.h>

#include "grid/fv_surface.h"
#include "grid/heat2d.h"
#include "ns/ns_kernels.h"
#include "spmv/spmv.h"
#include "stream/stream.h"

static const fb_family *families[] = {
    &fb_family_stream, &fb_family_spmv, &fb_family_fv_surface, &fb_family_heat2d, &fb_family_ns,
};

int fb_family_count(void) { return (int)(sizeof families / sizeof families[0]); }

const fb_family *fb_family_at(int i) { return i >= 0 && i < fb_family_count() ? families[i] : NULL; }

const fb_family *fb_family_find(const char *name)
{
    for (int i = 0; i < fb_family_count(); ++i)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

int fb_family_replace(const fb_family *f)
{
    for (int i = 0; i < fb_family_count(); ++i)
        if (strcmp(families[i]->name, f->name) == 0) {
            families[i] = f;
            return 0;
        }
    return -1;
}

static void enumerate(fb_variant_sink *sink)
{
    for (int i = 0; i < fb_family_count(); ++i)
        if (families[i]->variants && families[i]->variants(sink)) return;
}

int fb_variant_count(void)
{
    fb_variant_sink sink = {.target = -1};
    enumerate(&sink);
    return sink.seen;
}

fb_status fb_variant_get(int i, fb_variant *v)
{
    fb_status status = FB_OK;
    fb_variant_sink sink = {.target = i, .out = v};
    if (i < 0) FB_FAIL(FB_ERR_USAGE, "no kernel variant %d", i);
    enumerate(&sink);
    if (sink.seen <= i) FB_FAIL(FB_ERR_USAGE, "no kernel variant %d (there are %d)", i, sink.seen);
    if (!v->spec.source_text) FB_FAIL(FB_ERR_INPUT, "kernel source %s is not embedded", v->spec.source_name);
fail:
    return status;
}
