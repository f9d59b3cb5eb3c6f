/* sss_run.c - one sss or sss-atomic configuration: convert the CSR view
 * into its triangle (and for sss its CHUNKS chunks; timed apart), upload,
 * build spmv/sss.cl's launches, measure them as one sample with the
 * common policy and check y against the CSR reference.
 *
 * Each sample is up to three launches: sss runs the chunks and then the
 * fix-up of the slots; sss-atomic clears y and then adds into it. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sss_matrix.h"

enum { MOST_ARGS = 11 }; /* spmv_sss's */

/* One launch of a sample: its kernel (NULL: none), geometry and arguments. */
typedef struct sss_launch {
    fb_kernel *kernel;
    fb_launch launch;
    fb_arg args[MOST_ARGS];
    int nargs;
} sss_launch;

typedef struct sss_run {
    fb_target *t;
    fb_buffer *chunk_start, *chunk_slot, *lptr, *lcol, *lval, *diag, *x, *y, *conflict;
    fb_buffer *slot_place, *fix_rows, *fix_ptr;
    sss_launch before, main, after;
} sss_run;

static size_t at_least_one(int64_t n) { return n > 0 ? (size_t)n : 1; }

static fb_status upload_ints(sss_run *s, const int *data, int64_t n, fb_buffer **out)
{
    return fb_target_upload(s->t, data, at_least_one(n) * sizeof(int), out);
}

static void set_args(sss_launch *l, const fb_arg *args, int nargs)
{
    assert(nargs <= MOST_ARGS);
    memcpy(l->args, args, (size_t)nargs * sizeof *args);
    l->nargs = nargs;
}
/* The count from the array itself: a launch's arguments are said once. */
#define SET_ARGS(l, array) set_args(l, array, (int)(sizeof array / sizeof array[0]))

/* What both mappings read: the triangle, the diagonal, x; y filled with
 * NaN, so that a row no work-item writes fails the check. */
static fb_status upload_triangle(sss_run *s, const fb_sss *S, int dbl, const double *x, int ncols)
{
    fb_status status = FB_OK;
    FB_CHECK(upload_ints(s, S->lptr, (int64_t)S->nrows + 1, &s->lptr));
    FB_CHECK(upload_ints(s, S->lcol, S->lower, &s->lcol));
    FB_CHECK(fb_target_upload_reals(s->t, dbl, S->lval, at_least_one(S->lower), &s->lval));
    FB_CHECK(fb_target_upload_reals(s->t, dbl, S->diag, at_least_one(S->nrows), &s->diag));
    FB_CHECK(fb_target_upload_reals(s->t, dbl, x, (size_t)ncols, &s->x));
    FB_CHECK(fb_target_alloc(s->t, at_least_one(S->nrows) * fb_real_size(dbl), &s->y));
    FB_CHECK(fb_target_fill_nan(s->t, dbl, s->y, (size_t)S->nrows));
fail:
    return status;
}

/* sss: the chunks, the slots and the fix-up's lists, and both launches' arguments. */
static fb_status upload_chunks(sss_run *s, const fb_sss *S, int dbl)
{
    fb_status status = FB_OK;
    FB_CHECK(upload_ints(s, S->chunk_start, S->nchunks + 1, &s->chunk_start));
    FB_CHECK(upload_ints(s, S->chunk_slot, S->nchunks + 1, &s->chunk_slot));
    FB_CHECK(fb_target_alloc(s->t, at_least_one(S->conflicts) * fb_real_size(dbl), &s->conflict));
    FB_CHECK(upload_ints(s, S->fix_rows, S->nfix, &s->fix_rows));
    FB_CHECK(upload_ints(s, S->fix_ptr, (int64_t)S->nfix + 1, &s->fix_ptr));
    FB_CHECK(upload_ints(s, S->slot_place, S->conflicts, &s->slot_place));
    fb_arg args[] = {fb_arg_i32(S->nchunks),       fb_arg_buffer(s->chunk_start), fb_arg_buffer(s->chunk_slot),
                     fb_arg_buffer(s->slot_place), fb_arg_buffer(s->lptr),        fb_arg_buffer(s->lcol),
                     fb_arg_buffer(s->lval),       fb_arg_buffer(s->diag),        fb_arg_buffer(s->x),
                     fb_arg_buffer(s->y),          fb_arg_buffer(s->conflict)};
    fb_arg fix[] = {fb_arg_i32(S->nfix), fb_arg_buffer(s->fix_rows), fb_arg_buffer(s->fix_ptr),
                    fb_arg_buffer(s->conflict), fb_arg_buffer(s->y)};
    SET_ARGS(&s->main, args);
    SET_ARGS(&s->after, fix);
fail:
    return status;
}

/* sss-atomic: y cleared, then one item per row adding into it. */
static void atomic_args(sss_run *s, const fb_sss *S)
{
    fb_arg zero[] = {fb_arg_i32(S->nrows), fb_arg_buffer(s->y)};
    fb_arg args[] = {fb_arg_i32(S->nrows),   fb_arg_buffer(s->lptr), fb_arg_buffer(s->lcol), fb_arg_buffer(s->lval),
                     fb_arg_buffer(s->diag), fb_arg_buffer(s->x),    fb_arg_buffer(s->y)};
    SET_ARGS(&s->before, zero);
    SET_ARGS(&s->main, args);
}

static fb_status launch_one(sss_run *s, sss_launch *l, double *seconds)
{
    double t = 0;
    fb_status status = l->kernel ? fb_target_launch(s->t, l->kernel, &l->launch, l->args, l->nargs, &t) : FB_OK;
    *seconds += t;
    return status;
}

/* The sample's launches in order: one time. */
static fb_status sample(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    sss_run *s = ctx;
    *seconds = 0;
    FB_CHECK(launch_one(s, &s->before, seconds));
    FB_CHECK(launch_one(s, &s->main, seconds));
    FB_CHECK(launch_one(s, &s->after, seconds));
fail:
    return status;
}

static fb_spmv_conversion conversion_of(const fb_sss *S, int atomic)
{
    fb_spmv_conversion c = {.done = 1,
                            .seconds = S->seconds,
                            .triangle = 1,
                            .nchunks = atomic ? 0 : S->nchunks,
                            .nfix = S->nfix,
                            .lower = S->lower,
                            .conflicts = S->conflicts};
    return c;
}

/* items work-items in groups of wg. */
static fb_launch items_in_groups(size_t items, size_t wg)
{
    fb_launch l = {.dims = 1, .global = {(items + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}};
    return l;
}

/* The fix-up's group: 128 items (or the device's most), whatever the
 * point's: its group may be a single item, and a fix-up of a million
 * one-item groups would cost more than its sums. */
static size_t fixup_group(const fb_device_info *dev)
{
    const size_t most = dev->max_work_group_size;
    return most && most < 128 ? most : 128;
}

/* Uploads, sets the launches and builds their kernels for the run's mapping. */
static fb_status prepare(sss_run *s, const fb_sss *S, const fb_spmv_config *cfg, const double *x, int ncols)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = cfg->kernel;
    const int atomic = k->format->atomic_adds;
    FB_CHECK(upload_triangle(s, S, cfg->is_double, x, ncols));
    if (atomic) {
        atomic_args(s, S);
        s->before.launch = s->main.launch; /* one item per row, as the product */
        FB_CHECK(fb_spmv_build_kernel(s->t, cfg, 1, k->source, k->fixup_kernel, &s->before.kernel));
    } else {
        FB_CHECK(upload_chunks(s, S, cfg->is_double));
        s->main.launch = items_in_groups((size_t)S->nchunks, s->main.launch.local[0]); /* CHUNKS=0: the run's */
        s->after.launch = items_in_groups((size_t)S->nfix, fixup_group(fb_target_info(s->t)));
        if (S->nfix > 0) FB_CHECK(fb_spmv_build_kernel(s->t, cfg, 1, k->source, k->fixup_kernel, &s->after.kernel));
    }
    FB_CHECK(fb_spmv_build_kernel(s->t, cfg, 1, k->source, k->kernel, &s->main.kernel));
fail:
    return status;
}

static void release_all(sss_run *s)
{
    fb_buffer *all[] = {s->chunk_start, s->chunk_slot, s->lptr,     s->lcol,     s->lval,    s->diag,
                        s->x,           s->y,          s->conflict, s->fix_rows, s->fix_ptr, s->slot_place};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        fb_target_release(s->t, all[i]);
}

fb_status fb_spmv_run_sss(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    sss_run s = {.t = t};
    fb_sss S;
    double *owned_x = NULL;
    const double *x = NULL;
    const int atomic = cfg->kernel->format->atomic_adds;
    memset(&S, 0, sizeof S);
    FB_CHECK(fb_spmv_run_begin(t, A, cfg, &s.main.launch, out));
    /* sss-atomic converts into one chunk: the triangle, no slots */
    const int chunks = atomic ? 1 : fb_sss_chunks(fb_spmv_axis_value(cfg, "CHUNKS", 0), fb_target_info(t));
    FB_CHECK(fb_sss_from_csr(A, chunks, &S));
    out->conversion = conversion_of(&S, atomic);
    FB_CHECK(fb_spmv_make_x(A, cfg->x, &owned_x, &x));
    FB_CHECK(prepare(&s, &S, cfg, x, A->shape.ncols));
    out->launch = s.main.launch;
    out->has_resources = fb_target_kernel_resources(t, s.main.kernel, s.main.launch.local[0], &out->resources) == FB_OK;
    FB_CHECK(fb_spmv_measure_and_check(t, A, cfg, x, sample, &s, s.y, out));
fail:
    release_all(&s);
    fb_sss_free(&S);
    free(owned_x);
    return status;
}
