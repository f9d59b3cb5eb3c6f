/* heat2d_dist.c - heat2d on several ranks (heat2d.h, "several ranks";
 * docs/scaling.md). Each rank solves the check transient on its
 * block of the grid, stored with one ghost layer (heat2d.cl, "one rank's
 * block"); every iteration its boundary rows and columns go to its
 * neighbours through the host (packed on the device, copied out,
 * fb_halo, copied in, unpacked) and the max change is reduced over the
 * ranks. Rank 0 then gathers the field and runs the same transient on one
 * device: a Jacobi cell depends only on the previous iterate, so the two
 * must agree bit for bit, iteration counts included.
 *
 * Failures: a phase that may fail on one rank alone (opening a device,
 * uploading, building) ends in agree(), so every rank returns together;
 * one met between collectives (a launch in the iteration loop) ends every
 * rank through fb_comm_abort, since the others already wait for it. */
#include "heat2d.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/hash.h"
#include "core/interrupt.h"
#include "core/kernel_sources.h"

#define EDGE_GROUP 64 /* items per group of the pack and unpack launches */

typedef struct dist_run {
    fb_target *t;
    fb_heat2d_problem *p;
    const fb_heat2d_dist_config *cfg;
    fb_heat2d_block b;
    size_t padded; /* cells of the padded block, (nx + 2) (ny + 2) */
    int nedge;     /* 2 nx + 2 ny: the edge list (heat_edge_at) */
    fb_buffer *dx, *dy, *gx, *gy, *f[3], *edge, *ghost, *partial, *result;
    fb_kernel *update, *reduce, *pack, *unpack;
    fb_launch launch, reduce_launch, edge_launch;
    int groups;
    fb_halo halo;
    double *hv; /* fb_halo's vector: the nedge edge values, then the nedge ghost values */
    int cur;    /* the field holding the last iterate */
    fb_heat2d_rank_times times;
} dist_run;

/* ---- failures ---- */

/* A failure between collectives: the other ranks wait for this one, so
 * all end. Alone, it is an ordinary error return. */
static fb_status die_if(fb_status status)
{
    if (status == FB_OK || fb_comm_size() == 1) return status;
    fprintf(stderr, "flowbench: rank %d of %d (%s): %s\n", fb_comm_rank(), fb_comm_size(), fb_comm_host(),
            fb_error_message());
    fb_comm_abort(fb_status_exit_code(status) ? fb_status_exit_code(status) : 3);
}

/* After a phase each rank ran alone: FB_OK when it succeeded everywhere.
 * Else every rank returns an error; the first rank that failed says why
 * (r->own_error), the others keep quiet, so a failure prints one line. */
static fb_status agree(fb_status mine, fb_heat2d_dist_result *r)
{
    int64_t first = mine != FB_OK ? fb_comm_rank() : fb_comm_size();
    fb_comm_allreduce_i64(&first, 1, FB_COMM_MIN);
    if (first == fb_comm_size()) return FB_OK;
    r->own_error = first == fb_comm_rank();
    if (mine != FB_OK) return mine;
    return fb_error_set(FB_ERR_BACKEND, __FILE__, __LINE__, "rank %lld failed (see its message)", (long long)first);
}

/* ---- the block on the device ---- */

/* The padded field f from row-major doubles of the owned cells (ghosts 0). */
static fb_status field_in(dist_run *s, fb_buffer *f, const double *owned)
{
    fb_status status = FB_OK;
    const fb_heat2d_block *b = &s->b;
    double *v = NULL;
    FB_ALLOC(v, s->padded, "a padded block");
    for (int j = 0; j < b->ny; ++j)
        memcpy(v + (size_t)(j + 1) * (b->nx + 2) + 1, owned + (size_t)j * b->nx, (size_t)b->nx * sizeof *v);
    status = fb_target_write_reals(s->t, s->cfg->base.is_double, f, v, s->padded);
fail:
    free(v);
    return status;
}

/* The owned cells of the padded field f as row-major doubles. */
static fb_status field_out(dist_run *s, fb_buffer *f, double *owned)
{
    fb_status status = FB_OK;
    const fb_heat2d_block *b = &s->b;
    double *v = NULL;
    FB_ALLOC(v, s->padded, "a padded block");
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->base.is_double, f, s->padded, v));
    for (int j = 0; j < b->ny; ++j)
        memcpy(owned + (size_t)j * b->nx, v + (size_t)(j + 1) * (b->nx + 2) + 1, (size_t)b->nx * sizeof *v);
fail:
    free(v);
    return status;
}

/* The exact mode at t = 0 on the owned cells, as the single-device run starts. */
static fb_status initial_field(dist_run *s, fb_buffer *f)
{
    fb_status status = FB_OK;
    const fb_heat2d_block *b = &s->b;
    double *T = NULL;
    FB_ALLOC(T, (size_t)b->nx * b->ny, "the initial block");
    for (int j = 0; j < b->ny; ++j)
        for (int i = 0; i < b->nx; ++i)
            T[(size_t)j * b->nx + i] = fb_heat2d_exact(&s->p->g, b->i0 + i, b->j0 + j, 0);
    FB_CHECK(field_in(s, f, T));
fail:
    free(T);
    return status;
}

static fb_status build(dist_run *s)
{
    fb_status status = FB_OK;
    const char *real = s->cfg->base.is_double ? "double" : "float", *src = FB_HEAT2D_SOURCE;
    char items[16];
    snprintf(items, sizeof items, "%zu", s->launch.local[0] * s->launch.local[1]);
    fb_define upd[] = {{"REAL", real}, {"ORDER", "0"}, {"GROUP_ITEMS", items}}, rd[] = {{"REAL", real}};
    fb_program_spec spec = {src, fb_kernel_source(src), "heat_jacobi_halo", upd, 3, fb_heat2d_host_kernels};
    FB_CHECK(fb_target_build(s->t, &spec, &s->update));
    const char *names[] = {"heat_max_reduce", "heat_halo_pack", "heat_halo_unpack"};
    fb_kernel **out[] = {&s->reduce, &s->pack, &s->unpack};
    for (int k = 0; k < 3; ++k) {
        spec = (fb_program_spec){src, spec.source_text, names[k], rd, 1, fb_heat2d_host_kernels};
        FB_CHECK(fb_target_build(s->t, &spec, out[k]));
    }
fail:
    return status;
}

/* The block's mesh arrays (cut from the global ones), fields and scratch. */
static fb_status allocate(dist_run *s)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    const fb_heat2d_block *b = &s->b;
    const int is_double = s->cfg->base.is_double;
    double *zero = NULL;
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->dx + b->i0, (size_t)b->nx, &s->dx));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->dy + b->j0, (size_t)b->ny, &s->dy));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->gx + b->i0, (size_t)b->nx + 1, &s->gx));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, g->gy + b->j0, (size_t)b->ny + 1, &s->gy));
    /* every field's ghosts start at 0: a wall's stay so */
    FB_ALLOC(zero, s->padded, "a padded block");
    for (int k = 0; k < 3; ++k)
        FB_CHECK(fb_target_upload_reals(s->t, is_double, zero, s->padded, &s->f[k]));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, zero, (size_t)s->nedge, &s->edge));
    FB_CHECK(fb_target_upload_reals(s->t, is_double, zero, (size_t)s->nedge, &s->ghost));
    FB_CHECK(fb_target_alloc(s->t, (size_t)s->groups * fb_real_size(is_double), &s->partial));
    FB_CHECK(fb_target_alloc(s->t, fb_real_size(is_double), &s->result));
    FB_ALLOC(s->hv, 2 * (size_t)s->nedge, "the halo values");
fail:
    free(zero);
    return status;
}

/* fb_halo's lists: to each neighbour the owned cells along the shared
 * side, from it the ghosts beyond that side, both in the edge list's
 * order (along x for rows, y for columns), so both ends list the same
 * cells in the same order: blocks side by side share their cell range. */
static fb_status halo_lists(dist_run *s)
{
    fb_status status = FB_OK;
    const fb_heat2d_block *b = &s->b;
    const int len[4] = {b->nx, b->nx, b->ny, b->ny}, off[4] = {0, b->nx, 2 * b->nx, 2 * b->nx + b->ny};
    fb_halo *h = &s->halo;
    int nk = 0, n = 0;
    for (int side = 0; side < 4; ++side)
        nk += b->nb[side] >= 0;
    FB_ALLOC(h->rank, nk, "halo neighbours");
    FB_ALLOC(h->send_start, nk + 1, "halo lists");
    FB_ALLOC(h->recv_start, nk + 1, "halo lists");
    FB_ALLOC(h->send_idx, s->nedge, "halo lists");
    FB_ALLOC(h->recv_idx, s->nedge, "halo lists");
    for (int side = 0, k = 0; side < 4; ++side) {
        if (b->nb[side] < 0) continue;
        h->rank[k] = b->nb[side];
        h->send_start[k] = h->recv_start[k] = n;
        for (int m = 0; m < len[side]; ++m, ++n)
            h->send_idx[n] = off[side] + m, h->recv_idx[n] = s->nedge + off[side] + m;
        ++k;
        h->send_start[k] = h->recv_start[k] = n;
    }
    h->nneighbours = nk;
    FB_CHECK(fb_halo_prepare(h, 1));
fail:
    return status;
}

static fb_status setup(dist_run *s, fb_heat2d_dist_result *r)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    s->b = fb_heat2d_block_of(&s->cfg->decomp, g->nx, g->ny, fb_comm_rank());
    s->padded = (size_t)(s->b.nx + 2) * (size_t)(s->b.ny + 2);
    s->nedge = 2 * s->b.nx + 2 * s->b.ny;
    FB_CHECK(fb_heat2d_check_point(&s->cfg->base, fb_target_info(s->t)));
    s->launch = r->launch = fb_heat2d_geometry(&s->cfg->base.point, s->b.nx, s->b.ny);
    s->reduce_launch = fb_launch_1d(FB_HEAT2D_REDUCE_ITEMS, FB_HEAT2D_REDUCE_ITEMS);
    s->edge_launch = fb_launch_1d((size_t)s->nedge, EDGE_GROUP);
    s->groups = (int)(s->launch.global[0] / s->launch.local[0] * (s->launch.global[1] / s->launch.local[1]));
    FB_CHECK(allocate(s));
    FB_CHECK(build(s));
    FB_CHECK(halo_lists(s));
fail:
    return status;
}

static void release(dist_run *s)
{
    fb_buffer *all[] = {s->dx,   s->dy,   s->gx,    s->gy,      s->f[0],  s->f[1],
                        s->f[2], s->edge, s->ghost, s->partial, s->result};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i]) fb_target_release(s->t, all[i]);
    fb_halo_free(&s->halo);
    free(s->hv);
    fb_target_close(s->t);
}

/* ---- one iteration ---- */

/* The ghosts of field f from the neighbours (nothing to do alone). */
static fb_status exchange(dist_run *s, fb_buffer *f)
{
    fb_status status = FB_OK;
    if (s->halo.nneighbours == 0) return FB_OK;
    fb_arg pack[] = {fb_arg_i32(s->b.nx), fb_arg_i32(s->b.ny), fb_arg_buffer(f), fb_arg_buffer(s->edge)};
    fb_arg unpack[] = {fb_arg_i32(s->b.nx), fb_arg_i32(s->b.ny), fb_arg_buffer(s->ghost), fb_arg_buffer(f)};
    const size_t n = (size_t)s->nedge;
    double t0 = fb_now();
    FB_CHECK(fb_target_launch(s->t, s->pack, &s->edge_launch, pack, 4, NULL));
    FB_CHECK(fb_target_read_reals(s->t, s->cfg->base.is_double, s->edge, n, s->hv));
    double t1 = fb_now();
    fb_halo_exchange(&s->halo, s->hv, 1);
    double t2 = fb_now();
    FB_CHECK(fb_target_write_reals(s->t, s->cfg->base.is_double, s->ghost, s->hv + n, n));
    FB_CHECK(fb_target_launch(s->t, s->unpack, &s->edge_launch, unpack, 4, NULL));
    FB_CHECK(fb_target_finish(s->t)); /* the ghosts are in before the update is timed */
    s->times.copy_s += (t1 - t0) + (fb_now() - t2);
fail:
    return status;
}

/* One Jacobi iteration f[in] -> f[out] with T^n in f[tn]; *change: the
 * largest over every rank (NaN as infinity, so it never converges);
 * *stop: Ctrl-C on any rank, carried by the same reduction so that every
 * rank stops at the same iteration. */
static fb_status iterate(dist_run *s, int tn, int in, int out, double *change, int *stop)
{
    fb_status status = FB_OK;
    const fb_heat2d_config *cfg = &s->cfg->base;
    FB_CHECK(exchange(s, s->f[in]));
    double t0 = fb_now();
    fb_arg a[] = {fb_arg_i32(s->b.nx),      fb_arg_i32(s->b.ny),      fb_arg_real(cfg->is_double, 1.0 / s->p->dt),
                  fb_arg_buffer(s->dx),     fb_arg_buffer(s->dy),     fb_arg_buffer(s->gx),
                  fb_arg_buffer(s->gy),     fb_arg_buffer(s->f[tn]),  fb_arg_buffer(s->f[in]),
                  fb_arg_buffer(s->f[out]), fb_arg_buffer(s->partial)};
    fb_arg red[] = {fb_arg_i32(s->groups), fb_arg_buffer(s->partial), fb_arg_buffer(s->result)};
    FB_CHECK(fb_target_launch(s->t, s->update, &s->launch, a, 11, NULL));
    FB_CHECK(fb_target_launch(s->t, s->reduce, &s->reduce_launch, red, 3, NULL));
    FB_CHECK(fb_target_read_reals(s->t, cfg->is_double, s->result, 1, change));
    s->times.compute_s += fb_now() - t0;
    double v[2] = {isnan(*change) ? INFINITY : *change, fb_interrupted ? 1.0 : 0.0};
    fb_comm_allreduce(v, 2, FB_COMM_MAX);
    *change = v[0], *stop = v[1] > 0;
fail:
    return status;
}

/* The check transient on the block, timed into s->times. The change is
 * the same on every rank, so every rank stops at the same iteration and a
 * step that does not converge fails on all of them together. */
static fb_status transient(dist_run *s)
{
    fb_status status = FB_OK;
    const double tol = FB_HEAT2D_ITERATION_TOL_EPS * (s->cfg->base.is_double ? DBL_EPSILON : FLT_EPSILON);
    FB_CHECK(die_if(initial_field(s, s->f[0])));
    memset(&s->times, 0, sizeof s->times);
    fb_halo_stats_reset(&s->halo);
    fb_comm_stats_take();
    fb_comm_barrier(); /* start together: the first allreduce would wait for the slowest start */
    double t0 = fb_now(), change = 0;
    int stop = 0;
    s->cur = 0;
    for (int step = 0; step < FB_HEAT2D_CHECK_STEPS; ++step) {
        const int tn = s->cur; /* T^n stays in its field for the step; the iterate cycles through the other two */
        for (int it = 1;; ++it) {
            const int in = s->cur, out = in == tn ? (tn + 1) % 3 : 3 - tn - in;
            FB_CHECK(die_if(iterate(s, tn, in, out, &change, &stop)));
            if (stop) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
            s->cur = out;
            s->times.iterations++;
            if (change <= tol) break;
            if (it == FB_HEAT2D_MAX_ITERATIONS)
                FB_FAIL(FB_ERR_CHECK, "%s on %d ranks: step %d did not converge in %d iterations (max change %.3g)",
                        s->cfg->base.kernel->name, fb_comm_size(), step + 1, it, change);
        }
    }
    s->times.wall_s = fb_now() - t0;
    s->times.halo_s = s->halo.seconds;
    s->times.bytes = (double)s->halo.bytes;
    s->times.messages = (double)s->halo.messages;
    s->times.allreduce_s = fb_comm_stats_take().allreduce_s;
fail:
    return status;
}

/* ---- the runs and the check ---- */

/* repeats timed transients (all: one slot each, r->walls allocated):
 * r->walls and r->repeat (the median one), and that repeat's times in
 * *mine. Fails only where every rank fails (a step that does not converge). */
static fb_status timed_runs(dist_run *s, fb_heat2d_dist_result *r, fb_heat2d_rank_times *all,
                            fb_heat2d_rank_times *mine)
{
    fb_status status = FB_OK;
    const int n = s->cfg->repeats;
    fb_energy_meter *meter = fb_target_energy(s->t);
    long iterations = 0;
    double busy = 0;
    const fb_device_info *d = fb_target_info(s->t);
    fb_contention_begin(&r->env, d->host_cpu ? d->compute_units : 1);
    fb_energy_start(meter); /* over every timed transient, as a kernel's window is over its samples */
    for (int k = 0; k < n; ++k) {
        FB_CHECK(transient(s));
        fb_energy_poll(meter);
        fb_contention_poll(&r->env);
        all[k] = s->times;
        r->walls[k] = s->times.wall_s / s->times.iterations;
        iterations += s->times.iterations, busy += s->times.wall_s;
    }
    fb_energy_stop(meter, iterations, 0, busy, &r->energy);
    fb_contention_end(&r->env);
    FB_CHECK(die_if(fb_energy_sum_ranks(&r->energy, meter, &r->energy_meters))); /* one rank's failure ends all */
    /* a repeat takes as long as its slowest rank */
    fb_comm_allreduce(r->walls, n, FB_COMM_MAX);
    double median = fb_median(r->walls, (size_t)n);
    r->repeat = 0;
    for (int k = 1; k < n; ++k)
        if (fabs(r->walls[k] - median) < fabs(r->walls[r->repeat] - median)) r->repeat = k;
    *mine = all[r->repeat];
    r->iterations = mine->iterations;
fail:
    return status;
}

/* Rank 0: every rank's block into the whole field (row-major). */
static void assemble(const fb_heat2d_dist_config *cfg, const fb_heat2d_grid *g, const double *blocks, double *T)
{
    for (int rank = 0; rank < fb_comm_size(); ++rank) {
        fb_heat2d_block b = fb_heat2d_block_of(&cfg->decomp, g->nx, g->ny, rank);
        for (int j = 0; j < b.ny; ++j)
            memcpy(T + (size_t)(b.j0 + j) * g->nx + b.i0, blocks + (size_t)j * b.nx, (size_t)b.nx * sizeof *T);
        blocks += (size_t)b.nx * b.ny;
    }
}

/* Rank 0: the single-device transient and the comparison, bit for bit. */
static fb_status compare_single(dist_run *s, const double *T, fb_heat2d_dist_result *r)
{
    fb_status status = FB_OK, judged;
    const size_t cells = (size_t)s->p->g.nx * s->p->g.ny;
    double *one = NULL;
    FB_ALLOC(one, cells, "the single-device field");
    judged = fb_heat2d_transient(s->t, s->p, &s->cfg->base, one, &r->single);
    if (judged != FB_OK && judged != FB_ERR_CHECK) FB_CHECK(judged);
    r->checked = 1;
    r->single_iterations = r->single.iterations;
    r->field_hash = fb_hash_bytes(FB_HASH_SEED, T, cells * sizeof *T);
    r->single_hash = fb_hash_bytes(FB_HASH_SEED, one, cells * sizeof *one);
    for (size_t q = 0; q < cells; ++q)
        if (memcmp(&T[q], &one[q], sizeof *T) != 0) {
            r->mismatched_cells++;
            double d = fabs(T[q] - one[q]);
            if (!(d <= r->max_abs_diff)) r->max_abs_diff = d; /* NaN counts as the worst */
        }
    r->identical = r->mismatched_cells == 0 && r->single_iterations == r->iterations;
    if (!r->identical)
        FB_FAIL(FB_ERR_CHECK,
                "%s on %d ranks (%dx%d): not the single-device result: %lld of %zu cells differ (largest %.3g), "
                "%d iterations against %d",
                s->cfg->base.kernel->name, fb_comm_size(), s->cfg->decomp.px, s->cfg->decomp.py, r->mismatched_cells,
                cells, r->max_abs_diff, r->iterations, r->single_iterations);
    status = judged; /* the single-device run's own judgement message, if it failed */
fail:
    free(one);
    return status;
}

/* Gathers the field and every rank's times on rank 0, which checks; the
 * verdict goes back to every rank. */
static fb_status gather_and_check(dist_run *s, const fb_heat2d_rank_times *mine, fb_heat2d_dist_result *r)
{
    fb_status status = FB_OK;
    const fb_heat2d_grid *g = &s->p->g;
    double *owned = NULL, *T = NULL;
    void *blocks = NULL;
    int verdict = FB_OK;
    if (!(owned = malloc((size_t)s->b.nx * s->b.ny * sizeof *owned)))
        FB_CHECK(die_if(fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory for the block")));
    FB_CHECK(die_if(field_out(s, s->f[s->cur], owned)));
    FB_CHECK(die_if(fb_comm_gather(mine, sizeof *mine, 0, (void **)&r->per_rank, NULL)));
    FB_CHECK(die_if(fb_comm_gather(owned, (size_t)s->b.nx * s->b.ny * sizeof *owned, 0, &blocks, NULL)));
    if (fb_comm_rank() == 0) {
        T = malloc((size_t)g->nx * g->ny * sizeof *T);
        if (!T) status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory gathering the field");
        if (status == FB_OK) assemble(s->cfg, g, blocks, T);
        /* the single-device run polls no signal: one ends it (and every rank) at once */
        if (status == FB_OK) status = fb_interrupt_at_once_begin();
        if (status == FB_OK) {
            status = compare_single(s, T, r);
            fb_interrupt_at_once_end();
        }
        verdict = (int)status;
    }
    fb_comm_bcast(&verdict, sizeof verdict, 0);
    if (fb_comm_rank() != 0 && verdict != FB_OK)
        status = fb_error_set((fb_status)verdict, __FILE__, __LINE__, "rank 0: the check failed");
    r->own_error = fb_comm_rank() == 0; /* one verdict: rank 0 says it */
fail:
    free(owned), free(T), free(blocks);
    return status;
}

fb_status fb_heat2d_dist_check_config(const fb_heat2d_config *cfg)
{
    fb_status status = FB_OK;
    if (cfg->kernel->red_black)
        FB_FAIL(FB_ERR_USAGE,
                "%s does not run decomposed: only heat-jacobi does (a red-black iteration would need an exchange "
                "between its colour passes); use --kernel heat-jacobi",
                cfg->kernel->name);
    if (cfg->point.values[FB_HEAT2D_ORDER] != 0)
        FB_FAIL(FB_ERR_USAGE, "%s: ORDER=%d: a decomposed run stores its blocks row-major (ORDER=0) only",
                cfg->kernel->name, cfg->point.values[FB_HEAT2D_ORDER]);
fail:
    return status;
}

fb_status fb_heat2d_dist_run(const char *backend, fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg,
                             fb_heat2d_dist_result *r)
{
    fb_status status = FB_OK;
    dist_run s = {.p = p, .cfg = cfg};
    fb_heat2d_rank_times mine, *all = NULL;
    memset(r, 0, sizeof *r);
    r->ranks = fb_comm_size();
    status = fb_heat2d_dist_check_config(&cfg->base);
    if (status == FB_OK && (long long)cfg->decomp.px * cfg->decomp.py != fb_comm_size())
        status = fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "a %dx%d decomposition on %d ranks", cfg->decomp.px,
                              cfg->decomp.py, fb_comm_size());
    if (status == FB_OK && cfg->repeats < 1)
        status = fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "%d timed transients", cfg->repeats);
    if (status != FB_OK) { /* the same on every rank: rank 0 says it */
        r->own_error = fb_comm_rank() == 0;
        return status;
    }
    status = fb_target_open_for_rank(backend, &s.t);
    if (status == FB_OK) {
        r->device = *fb_target_info(s.t);
        status = setup(&s, r);
    }
    if (status == FB_OK && !(all = calloc((size_t)cfg->repeats, sizeof *all)))
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory for per-repeat times");
    if (status == FB_OK && !(r->walls = calloc((size_t)cfg->repeats, sizeof *r->walls)))
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory for per-repeat times");
    FB_CHECK(agree(status, r));
    status = timed_runs(&s, r, all, &mine);
    if (status != FB_OK) {
        r->own_error = fb_comm_rank() == 0; /* did not converge, or Ctrl-C: every rank at once */
        goto fail;
    }
    snprintf(mine.host, sizeof mine.host, "%s", fb_comm_host());
    snprintf(mine.device, sizeof mine.device, "%s", r->device.id);
    status = gather_and_check(&s, &mine, r);
fail:
    free(all);
    release(&s);
    return status;
}

void fb_heat2d_dist_result_free(fb_heat2d_dist_result *r)
{
    free(r->walls);
    free(r->per_rank);
    json_decref(r->energy_meters);
    r->energy_meters = NULL;
    r->walls = NULL, r->per_rank = NULL;
}
