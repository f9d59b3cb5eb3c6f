/* sell_run.c - one SELL-C-sigma configuration (sell, sell16): convert the
 * CSR view with the point's SLICE_HEIGHT and SIGMA (and sell16's columns to
 * 16-bit offsets; timed apart), upload the slices, build spmv/sell.cl,
 * measure with the common policy and check y against the CSR reference
 * (the kernels write y in the original row order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "sell_matrix.h"

typedef struct sell_run {
    fb_target *t;
    fb_spmv_buffers d; /* ptr: slice pointers, idx/val: the stored entries */
    fb_buffer *perm;
    fb_buffer *bases, *offsets, *wide; /* sell16's columns (then d.idx is not uploaded) */
    fb_kernel *kernel;
    fb_launch launch;
    fb_arg args[11];
    int nargs;
} sell_run;

/* The code-changing axes as -D defines; SIGMA and WG_SIZE change the data
 * and the launch only, so every point of one code shares one program. */
static fb_status build(sell_run *s, const fb_spmv_config *cfg)
{
    const fb_spmv_kernel_def *k = cfg->kernel;
    fb_define defines[FB_MAX_PARAMS + 1];
    char values[FB_MAX_PARAMS + 1][16];
    int n = 0;
    defines[n++] = (fb_define){"REAL", cfg->is_double ? "double" : "float"};
    for (int i = 0; i < k->nparams; ++i) {
        if (k->params[i].launch_only) continue;
        snprintf(values[n], sizeof values[n], "%d", cfg->point.values[i]);
        defines[n] = (fb_define){k->params[i].name, values[n]};
        n++;
    }
    fb_program_spec spec = {k->source, fb_kernel_source(k->source), k->kernel, defines, n, fb_spmv_host_kernels};
    return fb_target_build(s->t, &spec, &s->kernel);
}

/* The slices as a CSR-shaped view, so fb_spmv_upload moves them (and
 * rounds the values for single precision) as it moves every matrix; for
 * sell16 (narrow) its encoded columns instead of the 32-bit ones, which
 * its kernel never reads. */
static fb_status upload(sell_run *s, const fb_sell *S, int narrow, int is_double, const double *x)
{
    fb_status status = FB_OK;
    fb_spmv_matrix slices = {.format = &fb_spmv_csr,
                             .shape = {.nrows = S->nrows,
                                       .ncols = S->ncols,
                                       .nnz = S->stored,
                                       .block = 1,
                                       .nbrows = S->nslices,
                                       .nblocks = S->stored},
                             .ptr = S->slice_ptr,
                             .idx = narrow ? NULL : S->colidx,
                             .values = S->values};
    size_t perm_bytes = (size_t)S->nslices * (size_t)S->C * sizeof(int);
    FB_CHECK(fb_spmv_upload(s->t, &slices, is_double, x, &s->d));
    FB_CHECK(fb_target_upload(s->t, S->perm, perm_bytes, &s->perm));
    if (narrow) FB_CHECK(fb_csr16_upload_columns(s->t, &S->narrow, &s->bases, &s->offsets, &s->wide));
fail:
    return status;
}

static void set_args(sell_run *s, const fb_sell *S)
{
    fb_arg head[] = {fb_arg_i32(S->nslices), fb_arg_i32(S->nrows), fb_arg_i32(S->permuted), fb_arg_buffer(s->d.ptr)};
    fb_arg tail[] = {fb_arg_buffer(s->d.val), fb_arg_buffer(s->perm), fb_arg_buffer(s->d.x), fb_arg_buffer(s->d.y)};
    fb_arg narrow[] = {fb_arg_buffer(s->bases), fb_arg_buffer(s->offsets), fb_arg_buffer(s->wide)};
    fb_arg *a = s->args;
    memcpy(a, head, sizeof head), a += 4;
    if (s->bases)
        memcpy(a, narrow, sizeof narrow), a += 3;
    else
        *a++ = fb_arg_buffer(s->d.idx);
    memcpy(a, tail, sizeof tail), a += 4;
    s->nargs = (int)(a - s->args);
}

static fb_status sample(void *ctx, double *seconds)
{
    sell_run *s = ctx;
    return fb_target_launch(s->t, s->kernel, &s->launch, s->args, s->nargs, seconds);
}

static fb_spmv_conversion conversion_of(const fb_sell *S)
{
    fb_spmv_conversion c = {.done = 1,
                            .seconds = S->seconds,
                            .stored = S->stored,
                            .nslices = S->nslices,
                            .permuted = S->permuted,
                            .padding = fb_sell_padding(S),
                            .nbases = S->narrow.nbases,
                            .base_rows = S->narrow.base_rows,
                            .wide_bases = S->narrow.wide_bases,
                            .wide_entries = S->narrow.wide_entries};
    return c;
}

fb_status fb_spmv_run_sell(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    sell_run s = {.t = t};
    fb_sell S;
    double *owned_x = NULL;
    const double *x = NULL;
    memset(&S, 0, sizeof S);
    FB_CHECK(fb_spmv_run_begin(t, A, cfg, &s.launch, out));
    FB_CHECK(fb_sell_from_csr(A, fb_spmv_axis_value(cfg, "SLICE_HEIGHT", 1), fb_spmv_axis_value(cfg, "SIGMA", 1), &S));
    const int narrow = cfg->kernel->format == &fb_spmv_sell16; /* sell16: its columns as offsets */
    if (narrow) FB_CHECK(fb_sell_narrow_columns(&S));
    out->conversion = conversion_of(&S);
    FB_CHECK(fb_spmv_make_x(A, cfg->x, &owned_x, &x));
    FB_CHECK(upload(&s, &S, narrow, cfg->is_double, x));
    FB_CHECK(build(&s, cfg));
    out->has_resources = fb_target_kernel_resources(t, s.kernel, s.launch.local[0], &out->resources) == FB_OK;
    set_args(&s, &S);
    FB_CHECK(fb_spmv_measure_and_check(t, A, cfg, x, sample, &s, s.d.y, out));
fail:
    fb_spmv_buffers_release(t, &s.d);
    fb_target_release(t, s.perm);
    fb_target_release(t, s.bases);
    fb_target_release(t, s.offsets);
    fb_target_release(t, s.wide);
    fb_sell_free(&S);
    free(owned_x);
    return status;
}
