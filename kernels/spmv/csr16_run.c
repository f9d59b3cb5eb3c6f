/* csr16_run.c - one csr16 configuration: convert the CSR view with the
 * point's BASE_ROWS (timed apart), upload the offsets, bases and wide
 * columns beside the row pointers and values (single precision for the
 * mixed format), build spmv/csr16.cl, measure with the common policy and
 * check y against the CSR reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr16_matrix.h"

typedef struct csr16_run {
    fb_target *t;
    fb_buffer *rowptr, *bases, *offsets, *wide, *values, *x, *y;
    fb_kernel *kernel;
    fb_launch launch;
    fb_arg args[8];
} csr16_run;

fb_status fb_csr16_upload_columns(fb_target *t, const fb_csr16 *M, fb_buffer **bases, fb_buffer **offsets,
                                  fb_buffer **wide)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_target_upload(t, M->bases, (size_t)(M->nbases > 0 ? M->nbases : 1) * sizeof(int), bases));
    FB_CHECK(fb_target_upload(t, M->offsets, (size_t)(M->nnz > 0 ? M->nnz : 1) * sizeof(uint16_t), offsets));
    FB_CHECK(fb_target_upload(t, M->wide, (size_t)(M->wide_entries > 0 ? M->wide_entries : 1) * sizeof(int), wide));
fail:
    return status;
}

static fb_status upload(csr16_run *s, const fb_spmv_matrix *A, const fb_csr16 *M, const fb_spmv_config *cfg,
                        const double *x)
{
    fb_status status = FB_OK;
    const int single_values = !cfg->is_double || cfg->kernel->format->single_values;
    FB_CHECK(fb_target_upload(s->t, A->ptr, ((size_t)A->shape.nrows + 1) * sizeof(int), &s->rowptr));
    FB_CHECK(fb_csr16_upload_columns(s->t, M, &s->bases, &s->offsets, &s->wide));
    FB_CHECK(fb_target_upload_reals(s->t, !single_values, A->values, (size_t)A->shape.nnz, &s->values));
    FB_CHECK(fb_target_upload_reals(s->t, cfg->is_double, x, (size_t)A->shape.ncols, &s->x));
    FB_CHECK(fb_target_alloc(s->t, (size_t)A->shape.nrows * fb_real_size(cfg->is_double), &s->y));
    /* a row no work-item writes fails the check */
    FB_CHECK(fb_target_fill_nan(s->t, cfg->is_double, s->y, (size_t)A->shape.nrows));
    fb_arg args[] = {fb_arg_i32(A->shape.nrows), fb_arg_buffer(s->rowptr), fb_arg_buffer(s->bases),
                     fb_arg_buffer(s->offsets),  fb_arg_buffer(s->wide),   fb_arg_buffer(s->values),
                     fb_arg_buffer(s->x),        fb_arg_buffer(s->y)};
    memcpy(s->args, args, sizeof args);
fail:
    return status;
}

static fb_status sample(void *ctx, double *seconds)
{
    csr16_run *s = ctx;
    return fb_target_launch(s->t, s->kernel, &s->launch, s->args, 8, seconds);
}

static fb_spmv_conversion conversion_of(const fb_csr16 *M)
{
    fb_spmv_conversion c = {.done = 1,
                            .seconds = M->seconds,
                            .stored = M->nnz,
                            .nbases = M->nbases,
                            .base_rows = M->base_rows,
                            .wide_bases = M->wide_bases,
                            .wide_entries = M->wide_entries};
    return c;
}

static void release_all(csr16_run *s)
{
    fb_buffer *all[] = {s->rowptr, s->bases, s->offsets, s->wide, s->values, s->x, s->y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        fb_target_release(s->t, all[i]);
}

fb_status fb_spmv_run_csr16(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    csr16_run s = {.t = t};
    fb_csr16 M;
    double *owned_x = NULL;
    const double *x = NULL;
    memset(&M, 0, sizeof M);
    FB_CHECK(fb_spmv_run_begin(t, A, cfg, &s.launch, out));
    FB_CHECK(fb_csr16_from_csr(A, fb_spmv_axis_value(cfg, "BASE_ROWS", 64), &M));
    out->conversion = conversion_of(&M);
    FB_CHECK(fb_spmv_make_x(A, cfg->x, &owned_x, &x));
    FB_CHECK(upload(&s, A, &M, cfg, x));
    FB_CHECK(fb_spmv_build_kernel(t, cfg, 1, cfg->kernel->source, cfg->kernel->kernel, &s.kernel));
    out->has_resources = fb_target_kernel_resources(t, s.kernel, s.launch.local[0], &out->resources) == FB_OK;
    FB_CHECK(fb_spmv_measure_and_check(t, A, cfg, x, sample, &s, s.y, out));
fail:
    release_all(&s);
    fb_csr16_free(&M);
    free(owned_x);
    return status;
}
