/* heat2d_dist_record.c - rank 0's record of a decomposed heat2d run
 * (heat2d_dist.c; fields in docs/scaling.md): the common kernel
 * record with one sample per timed transient (seconds per iteration, the
 * slowest rank's), the decomposition, the split of an iteration into
 * compute, edge copies, halo messages and the reduction over ranks, every
 * rank's own figures, and the check against one device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/record.h"
#include "heat2d.h"

/* The decomposition's size is part of the configuration: two runs on
 * different rank counts must never read as one configuration measured twice. */
static json_t *params_of(const fb_heat2d_dist_config *cfg, int ranks)
{
    const fb_heat2d_kernel_def *k = cfg->base.kernel;
    json_t *p = fb_json_params(k->params, k->nparams, &cfg->base.point);
    json_object_set_new(p, "RANKS", json_integer(ranks));
    json_object_set_new(p, "PX", json_integer(cfg->decomp.px));
    json_object_set_new(p, "PY", json_integer(cfg->decomp.py));
    return p;
}

/* Work-groups of every rank's update launch (the model counts their partials). */
static long long all_groups(const fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg, int ranks)
{
    long long groups = 0;
    for (int rank = 0; rank < ranks; ++rank) {
        fb_heat2d_block b = fb_heat2d_block_of(&cfg->decomp, p->g.nx, p->g.ny, rank);
        fb_launch l = fb_heat2d_geometry(&cfg->base.point, b.nx, b.ny);
        groups += (long long)(l.global[0] / l.local[0]) * (long long)(l.global[1] / l.local[1]);
    }
    return groups;
}

/* Every rank's block and its seconds and traffic per iteration. */
static json_t *ranks_json(const fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg, const fb_heat2d_dist_result *r)
{
    json_t *a = json_array();
    for (int rank = 0; rank < r->ranks; ++rank) {
        const fb_heat2d_rank_times *t = &r->per_rank[rank];
        const double its = t->iterations > 0 ? t->iterations : 1;
        fb_heat2d_block b = fb_heat2d_block_of(&cfg->decomp, p->g.nx, p->g.ny, rank);
        json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
                                           "rank", rank, "host", t->host, "device", t->device, "i0", b.i0, "nx", b.nx,
                                           "j0", b.j0, "ny", b.ny, "wall_s", t->wall_s / its, "compute_s",
                                           t->compute_s / its, "edge_copy_s", t->copy_s / its, "halo_s",
                                           t->halo_s / its, "allreduce_s", t->allreduce_s / its, "bytes",
                                           t->bytes / its, "messages", t->messages / its));
    }
    return a;
}

/* The hosts the ranks ran on, each once, in rank order. */
static json_t *hosts_json(const fb_heat2d_dist_result *r)
{
    json_t *a = json_array();
    for (int rank = 0; rank < r->ranks; ++rank) {
        int seen = 0;
        for (size_t k = 0; k < json_array_size(a) && !seen; ++k)
            seen = !strcmp(json_string_value(json_array_get(a, k)), r->per_rank[rank].host);
        if (!seen) json_array_append_new(a, json_string(r->per_rank[rank].host));
    }
    return a;
}

/* An iteration split over the ranks: means (they add up to the wall time,
 * the ranks being in step), the spread of compute (load balance), and the
 * traffic of all ranks together. */
static json_t *split_json(const fb_heat2d_dist_result *r)
{
    double sum[5] = {0}, cmax = 0, cmin = INFINITY, bytes = 0, messages = 0;
    for (int rank = 0; rank < r->ranks; ++rank) {
        const fb_heat2d_rank_times *t = &r->per_rank[rank];
        const double its = t->iterations > 0 ? t->iterations : 1;
        const double v[5] = {t->wall_s, t->compute_s, t->copy_s, t->halo_s, t->allreduce_s};
        for (int k = 0; k < 5; ++k)
            sum[k] += v[k] / its / r->ranks;
        cmax = fmax(cmax, t->compute_s / its);
        cmin = fmin(cmin, t->compute_s / its);
        bytes += t->bytes / its, messages += t->messages / its;
    }
    const double wall = r->walls[r->repeat];
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "wall_s", wall, "mean_wall_s",
                     sum[0], "compute_s", sum[1], "compute_max_s", cmax, "compute_min_s", cmin, "load_balance",
                     cmin > 0 ? cmax / cmin : 1.0, "edge_copy_s", sum[2], "halo_s", sum[3], "allreduce_s", sum[4],
                     "exchange_share", sum[0] > 0 ? (sum[2] + sum[3]) / sum[0] : 0.0, "bytes", bytes, "messages",
                     messages);
}

static json_t *check_json(const fb_heat2d_dist_result *r)
{
    const fb_heat2d_result *s = &r->single;
    char field[32], single[32];
    snprintf(field, sizeof field, "%016llx", (unsigned long long)r->field_hash);
    snprintf(single, sizeof single, "%016llx", (unsigned long long)r->single_hash);
    return json_pack("{s:b, s:b, s:I, s:f, s:i, s:i, s:s, s:s, s:f, s:f, s:b, s:f, s:f}", "ok",
                     r->identical && s->checked_ok, "identical_to_single_device", r->identical, "mismatched_cells",
                     (json_int_t)r->mismatched_cells, "max_abs_diff", r->max_abs_diff, "iterations", r->iterations,
                     "single_device_iterations", r->single_iterations, "field_hash", field, "single_device_hash",
                     single, "max_rel_error", s->rel_error, "tolerance", s->tolerance, "single_device_ok",
                     s->checked_ok, "analytic_error", s->analytic_error, "analytic_bound", s->analytic_bound);
}

json_t *fb_heat2d_dist_record(const fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg,
                              const fb_heat2d_dist_result *r)
{
    const fb_heat2d_kernel_def *k = cfg->base.kernel;
    const double cells = (double)p->g.nx * p->g.ny;
    double total = 0;
    for (int i = 0; i < cfg->repeats; ++i)
        total += r->walls[i] * r->iterations;
    fb_measurement m = {.samples = r->walls,
                        .nsamples = cfg->repeats,
                        .stop = FB_STOP_MAX_SAMPLES,
                        .wall_s = total,
                        .energy = r->energy,
                        .env = r->env};
    fb_stats_compute(r->walls, (size_t)cfg->repeats, &m.stats);
    fb_measurement_judge(&m);
    fb_heat2d_model model = fb_heat2d_model_of(k, p->g.nx, p->g.ny, cfg->base.is_double, all_groups(p, cfg, r->ranks));
    fb_kernel_record base = {.benchmark = "heat2d",
                             .kernel = k->name,
                             .is_double = cfg->base.is_double,
                             .params = params_of(cfg, r->ranks),
                             .launch = &r->launch,
                             .flops = model.flops,
                             .bytes = model.min_bytes,
                             .gflops = model.flops / m.stats.median * 1e-9,
                             .gbs = model.min_bytes / m.stats.median * 1e-9,
                             .m = &m};
    json_t *rec = fb_json_kernel_record(&r->device, &base);
    json_object_set_new(rec, "grid", json_deep_copy(p->json));
    json_object_set_new(rec, "ns_per_cell", json_real(m.stats.median / cells * 1e9));
    json_object_set_new(rec, "decomposition",
                        json_pack("{s:i, s:i, s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:f}", "ranks", r->ranks, "px",
                                  cfg->decomp.px, "py", cfg->decomp.py, "kind", cfg->decomp.kind, "hosts",
                                  hosts_json(r), "repeats", cfg->repeats, "reported_repeat", r->repeat + 1, "steps",
                                  FB_HEAT2D_CHECK_STEPS, "iterations", r->iterations, "dt", p->dt));
    json_object_set_new(rec, "per_iteration", split_json(r));
    json_object_set_new(rec, "per_rank", ranks_json(p, cfg, r));
    json_object_set_new(rec, "check", check_json(r));
    json_object_set_new(rec, "status", json_string(r->identical && r->single.checked_ok ? "ok" : "wrong-result"));
    if (json_object_get(rec, "energy") && r->energy_meters)
        json_object_set(json_object_get(rec, "energy"), "meters", r->energy_meters);
    return rec;
}
