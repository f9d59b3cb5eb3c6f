/* variants.c - enumerates the device kernel variants of every family: each
 * distinct program text x defines a run could build. Parameters that only
 * change the launch geometry (fb_param_axis.launch_only) do not make new
 * variants. Points are filtered by each kernel's own constraints against a
 * generic CUDA-class device (1024 work-items per group, 48 KiB of static
 * local memory), so every listed variant is one a GPU sweep could pick. */
#include "variants.h"

#include <stdio.h>
#include <string.h>

#include "../core/kernel_sources.h"
#include "fv_surface.h"
#include "heat2d.h"
#include "spmv/spmv_kernels.h"

static const char *const stream_kernels[] = {"stream_copy", "stream_mul", "stream_add", "stream_triad",
                                             "stream_fill"};
static const char *const reals[] = {"double", "float"};

#define NSTREAM ((int)(sizeof stream_kernels / sizeof stream_kernels[0]))
#define NREAL 2
#define MAX_BLOCK 8

struct fb_variant_sink {
    int target; /* index wanted, or -1 to count */
    int seen;
    fb_variant *out;
};
typedef fb_variant_sink variant_sink;

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

static int stream_variants(variant_sink *sink)
{
    fb_variant v;
    for (int k = 0; k < NSTREAM; ++k)
        for (int r = 0; r < NREAL; ++r) {
            fb_variant_begin(&v, "stream/stream.cl", stream_kernels[k], reals[r]);
            if (fb_variant_emit(sink, &v)) return 1;
        }
    return 0;
}

static const fb_device_info generic_gpu = {.max_work_group_size = 1024, .local_mem_bytes = 48 * 1024};

/* Advances the point over the code-changing axes; 0 when done. */
static int next_point(const fb_spmv_kernel_def *k, int *pos, fb_param_point *p)
{
    for (int i = 0; i < k->nparams; ++i) {
        if (k->params[i].launch_only) continue;
        if (++pos[i] < k->params[i].nvalues) {
            p->values[i] = k->params[i].values[pos[i]];
            return 1;
        }
        pos[i] = 0;
        p->values[i] = k->params[i].values[0];
    }
    return 0;
}

static int first_point(const fb_spmv_kernel_def *k, int *pos, fb_param_point *p)
{
    *p = fb_spmv_default_point(k);
    for (int i = 0; i < k->nparams; ++i) {
        pos[i] = 0;
        if (!k->params[i].launch_only) p->values[i] = k->params[i].values[0];
    }
    return 1;
}

static int spmv_point_variants(variant_sink *sink, const fb_spmv_kernel_def *k, const char *kernel_name, int block,
                               const char *real)
{
    int pos[FB_MAX_PARAMS];
    fb_param_point p;
    char why[256], num[16];
    fb_spmv_shape shape = {.nrows = 1024, .ncols = 1024, .nnz = 8192, .block = block, .nbrows = 1024,
                           .nblocks = 8192, .real_bytes = strcmp(real, "double") == 0 ? 8 : 4};
    for (int more = first_point(k, pos, &p); more; more = next_point(k, pos, &p)) {
        if (!k->allowed(&p, &generic_gpu, &shape, why, sizeof why)) continue;
        fb_variant v;
        fb_variant_begin(&v, k->source, kernel_name, real);
        for (int i = 0; i < k->nparams; ++i) {
            if (k->params[i].launch_only) continue;
            snprintf(num, sizeof num, "%d", p.values[i]);
            fb_variant_define(&v, k->params[i].name, num);
        }
        if (k->format != FB_FORMAT_CSR) {
            snprintf(num, sizeof num, "%d", block);
            fb_variant_define(&v, "BLOCK_SIZE", num);
        }
        if (fb_variant_emit(sink, &v)) return 1;
    }
    return 0;
}

static int spmv_variants(variant_sink *sink)
{
    for (int i = 0; i < fb_spmv_kernel_count; ++i) {
        const fb_spmv_kernel_def *k = &fb_spmv_kernels[i];
        int max_block = k->format == FB_FORMAT_CSR ? 1 : MAX_BLOCK;
        for (int r = 0; r < NREAL; ++r)
            for (int b = 1; b <= max_block; ++b) {
                if (spmv_point_variants(sink, k, k->kernel, b, reals[r])) return 1;
                if (k->fixup_kernel && b == 1 && spmv_point_variants(sink, k, k->fixup_kernel, b, reals[r]))
                    return 1;
            }
    }
    return 0;
}

/* Each family's enumerator, in a fixed order so variant numbers are stable
 * within a build. A new family adds its fb_<family>_variants here. */
static int (*const enumerators[])(fb_variant_sink *) = {
    stream_variants,
    spmv_variants,
    fb_fv_surface_variants,
    fb_heat2d_variants,
};

static void enumerate(variant_sink *sink)
{
    for (size_t i = 0; i < sizeof enumerators / sizeof enumerators[0]; ++i)
        if (enumerators[i](sink)) return;
}

int fb_variant_count(void)
{
    variant_sink sink = {.target = -1};
    enumerate(&sink);
    return sink.seen;
}

fb_status fb_variant_get(int i, fb_variant *v)
{
    fb_status status = FB_OK;
    variant_sink sink = {.target = i, .out = v};
    if (i < 0) FB_FAIL(FB_ERR_USAGE, "no kernel variant %d", i);
    enumerate(&sink);
    if (sink.seen <= i) FB_FAIL(FB_ERR_USAGE, "no kernel variant %d (there are %d)", i, sink.seen);
    if (!v->spec.source_text) FB_FAIL(FB_ERR_INPUT, "kernel source %s is not embedded", v->spec.source_name);
fail:
    return status;
}
