/* solve_run.c - see solve_run.h. */
#include "solve_run.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comm.h"
#include "../core/energy.h"
#include "../results/records/results.h"
#include "../tune/tuned.h"
#include "case_run.h"
#include "ns_device.h"
#include "ns_family_run.h"
#include "output.h"
#include "solve_peer.h"
#include "solve_ranks.h"

static int on_device(const fb_target *t) { return fb_solve_on_device(fb_target_info(t)); }

static fb_case_loop loop_of(const fb_solve_request *o)
{
    return (fb_case_loop){.steps = o->steps, .t_end = o->t_end, .quiet = o->quiet};
}

/* One backend's run on the case (case_run.h), --tuned's answer and the
 * peer's comparison. */
typedef struct solve_run {
    fb_case_run r;
    fb_target *t;
    json_t *tuning;
    fb_solve_peer_outcome *peer;
    double stream_gbs;
} solve_run;

/* The peer's table and part of the record, then --vtk and --profiles of
 * fields (the run's own, or on several ranks the gathered whole) and the
 * record. */
static fb_status write_outputs(const fb_solve_request *o, const fb_solve_case *c, const solve_run *s,
                               const fb_ns *fields, FILE *table)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_solve_peer_report(s->peer, &s->r.ns, s->r.rec, table));
    if (o->vtk) FB_CHECK(fb_solve_write_vtk(o->vtk, c, fields));
    if (o->profiles) FB_CHECK(fb_solve_write_profiles(o->profiles, c, fields));
    FB_CHECK(o->sinks.emit_record(o->sinks.ctx, fb_target_info(s->t), s->r.rec));
fail:
    return status;
}

/* What runs where, once set up (on several ranks: rank 0's device). */
static void announce(const fb_solve_request *o, const fb_solve_case *c, const solve_run *s)
{
    const fb_device_info *d = fb_target_info(s->t);
    const int ranks = fb_comm_size();
    char params[256];
    if (o->quiet) return;
    fb_family_point_text(fb_family_find("ns")->kernel(0), &s->r.point, params, sizeof params);
    if (ranks > 1 && on_device(s->t))
        fprintf(stderr, "solve %s: %d nodes on %d ranks, each on its device (rank 0: %s, %s), %s\n", c->name,
                c->mesh.nnodes, ranks, d->id, d->name, params);
    else if (ranks > 1)
        fprintf(stderr, "solve %s: %d nodes on %d ranks, %d threads each\n", c->name, c->mesh.nnodes, ranks,
                omp_get_max_threads());
    else if (on_device(s->t))
        fprintf(stderr, "solve %s: %d nodes, %d edges, %d boundary faces; %s (%s), %s\n", c->name, c->mesh.nnodes,
                s->r.ns.E.nedges, c->bnd.nfaces, d->id, d->name, params);
    else
        fprintf(stderr, "solve %s: %d nodes, %d edges, %d boundary faces; %d threads\n", c->name, c->mesh.nnodes,
                s->r.ns.E.nedges, c->bnd.nfaces, omp_get_max_threads());
}

/* --tuned: the cached point for the device and the case's mesh (its
 * edges set up), or the defaults; said on stderr as `spmv --tuned` does. */
static fb_status tuned_point(const fb_solve_request *o, solve_run *s, fb_param_point *point)
{
    fb_signature sig;
    fb_ns_mesh_signature(&s->r.ns, &sig);
    return fb_tuned_lookup(o->cache, fb_target_info(s->t), "ns", fb_ns_axes, FB_NS_NAXES, 1, &sig, point, &s->tuning,
                           stderr);
}

/* --tuned, once the device is open with CG_SPMV != 0: the SpMV kernel's
 * cached point for the pressure matrix, looked up as `spmv --tuned` looks
 * up any matrix's (the kernel's name, double, the matrix's signature),
 * set on the device, and kept in tuning.spmv. */
static fb_status tuned_spmv(const fb_solve_request *o, solve_run *s)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = fb_ns_device_spmv_kernel(&s->r.ns);
    json_t *matrix = NULL, *spmv = NULL;
    fb_param_point point;
    fb_signature sig;
    char text[512];
    if (!k) return FB_OK;
    FB_CHECK(fb_ns_pressure_matrix_record(&s->r.ns, &matrix, &sig));
    FB_CHECK(
        fb_tuned_lookup(o->cache, fb_target_info(s->t), k->name, k->params, k->nparams, 1, &sig, &point, &spmv, NULL));
    FB_CHECK(fb_ns_device_set_spmv_point(&s->r.ns, &point));
    json_object_set_new(spmv, "kernel", json_string(k->name));
    fb_tuning_text(spmv, text, sizeof text);
    fprintf(stderr, "--tuned: the CG's SpMV %s: %s\n", k->name, text);
    json_object_set(s->tuning, "spmv", spmv);
fail:
    json_decref(spmv);
    json_decref(matrix);
    return status;
}

static fb_status prepare(const fb_solve_request *o, fb_solve_case *c, solve_run *s)
{
    fb_status status = FB_OK;
    fb_param_point asked = o->point;
    FB_CHECK(o->sinks.stream_triad(o->sinks.ctx, s->t, &s->stream_gbs));
    FB_CHECK(fb_case_run_init(&s->r, c));
    if (o->tuned) FB_CHECK(tuned_point(o, s, &asked));
    FB_CHECK(fb_case_run_open(&s->r, s->t, &asked));
    if (o->tuned) FB_CHECK(tuned_spmv(o, s));
    if (o->kernel_times) fb_ns_device_time_kernels(&s->r.ns);
    announce(o, c, s);
fail:
    return status;
}

typedef struct kernel_time {
    const char *name;
    long calls;
    double total_s;
} kernel_time;

static int longest_first(const void *a, const void *b)
{
    const kernel_time *x = a, *y = b;
    return (x->total_s < y->total_s) - (x->total_s > y->total_s);
}

/* --kernel-times: the kernels by their total time, each as a share of the
 * steps' time. */
static void print_kernel_times(FILE *f, const json_t *times, const fb_solve_log *log)
{
    kernel_time *rows = malloc((json_object_size(times) + 1) * sizeof *rows);
    int n = 0;
    double steps_s = 0;
    const char *name;
    const json_t *t;
    if (!rows) return; /* the record holds the times */
    for (int k = 0; k < log->n; ++k)
        steps_s += log->steps[k].t_step1 + log->steps[k].t_step2 + log->steps[k].t_step3;
    json_object_foreach((json_t *)times, name, t)
    {
        const double total = json_number_value(json_object_get(t, "total_s"));
        rows[n++] = (kernel_time){name, (long)json_integer_value(json_object_get(t, "calls")), total};
    }
    qsort(rows, (size_t)n, sizeof *rows, longest_first);
    fprintf(f, "\nkernel times (each launch waited for), %d steps, %.1f ms of steps:\n", log->n, steps_s * 1e3);
    fprintf(f, "  %-20s %8s %12s %10s %7s\n", "kernel", "calls", "total ms", "mean us", "share");
    for (int i = 0; i < n; ++i)
        fprintf(f, "  %-20s %8ld %12.2f %10.1f %6.1f%%\n", rows[i].name, rows[i].calls, rows[i].total_s * 1e3,
                rows[i].calls ? rows[i].total_s / rows[i].calls * 1e6 : 0.0,
                steps_s > 0 ? 100.0 * rows[i].total_s / steps_s : 0.0);
    free(rows);
}

/* Runs the case on s->t, prints its table and leaves its record, with
 * its "speedup" over base where one is given (a comparison's later rows).
 * Returns FB_OK, FB_ERR_CHECK (the watch stopped it; s->r.reason says
 * why; the record is still written) or another error. */
static fb_status run_one(const fb_solve_request *o, fb_solve_case *c, solve_run *s, const fb_solve_row *base)
{
    fb_status status = FB_OK;
    const fb_case_loop loop = loop_of(o);
    FILE *table = o->as_json ? stderr : stdout;
    fb_case_run *r = &s->r;
    FB_CHECK(prepare(o, c, s));
    FB_CHECK(fb_case_run_steps(r, &loop, s->t));
    FB_CHECK(fb_case_run_finish(r, c, s->t, s->stream_gbs));
    if (s->tuning) json_object_set(r->rec, "tuning", s->tuning);
    if (base) {
        fb_solve_row mine;
        fb_solve_row_of(&mine, &r->ns, &r->log, fb_target_info(s->t), s->stream_gbs);
        json_object_set_new(r->rec, "speedup", fb_solve_speedup_json(base, &mine));
    }
    fb_solve_print_table(table, c, &r->ns, &r->log, fb_target_info(s->t), s->stream_gbs, r->rss_setup, r->validation);
    json_t *times = fb_ns_device_kernel_times(&r->ns);
    if (times) print_kernel_times(table, times, &r->log);
    if (times) json_object_set_new(r->rec, "kernel_times", times);
    if (r->ended == FB_OK) FB_CHECK(fb_solve_peer_compare(o->peer, &r->ns, s->t, &s->peer));
    FB_CHECK(write_outputs(o, c, s, &r->ns, table));
    status = r->ended;
fail:
    return status;
}

static void free_run(solve_run *s)
{
    json_decref(s->tuning);
    fb_solve_peer_outcome_free(s->peer);
    fb_case_run_free(&s->r);
    fb_target_close(s->t);
    memset(s, 0, sizeof *s);
}

/* A rank's part on its backend: its own uploads (the first rank that fails
 * says why and ends the run: solve_ranks.h), then the warm-up step, which
 * exchanges, all together. */
static fb_status open_rank_device(const fb_solve_request *o, solve_run *s)
{
    fb_solve_ranks_own(fb_case_run_open(&s->r, s->t, &o->point));
    return fb_ns_device_warm_up(&s->r.ns, on_device(s->t) ? &s->r.log.setup_s : NULL);
}

/* The case on P ranks, each its part of the mesh (solve_ranks.h) on its
 * threads or its device: rank 0 measures the triad, gathers the fields,
 * validates, prints the table and writes the record; the others compute
 * their part and stay silent. */
fb_status fb_solve_run_ranks(const fb_solve_request *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const int root = fb_comm_rank() == 0;
    solve_run s;
    fb_ns_dist d;
    fb_ns whole;
    json_t *mpi = NULL, *meters = NULL;
    fb_solve_request mine = *o;
    memset(&s, 0, sizeof s), memset(&d, 0, sizeof d), memset(&whole, 0, sizeof whole);
    mine.quiet = o->quiet || !root;
    fb_case_loop loop = loop_of(&mine);
    loop.interrupted = fb_solve_ranks_interrupted;
    fb_solve_ranks_own(fb_target_open_for_rank(o->backends[0], &s.t));
    s.stream_gbs = -1;
    if (root) status = o->sinks.stream_triad(o->sinks.ctx, s.t, &s.stream_gbs);
    FB_CHECK(fb_solve_ranks_agree(status));
    FB_CHECK(fb_solve_ranks_setup(c, &s.r.ns, &d));
    FB_CHECK(open_rank_device(&mine, &s));
    s.r.rss_setup = fb_rss_bytes();
    announce(&mine, c, &s);
    FB_CHECK(fb_case_run_steps(&s.r, &loop, s.t));
    /* the ranks' meters as one; a rank that fails here alone ends every rank */
    fb_solve_ranks_own(fb_energy_sum_ranks(&s.r.log.energy, fb_target_energy(s.t), &meters));
    FB_CHECK(fb_ns_device_download(&s.r.ns, on_device(s.t) ? &s.r.log.download_s : NULL));
    FB_CHECK(fb_solve_ranks_gather(c, &s.r.ns, &whole));
    if (s.r.ended == FB_OK) fb_solve_ranks_own(fb_solve_peer_compare(o->peer, &s.r.ns, s.t, &s.peer));
    mpi = fb_solve_ranks_json(&s.r.ns, &s.r.log);
    if (root) {
        FILE *table = o->as_json ? stderr : stdout;
        whole.dev = s.r.ns.dev; /* lent, so the record and the table name the device and its point */
        FB_CHECK(fb_case_run_record(&s.r, c, &whole, s.t, s.stream_gbs));
        json_object_set(s.r.rec, "mpi", mpi);
        if (json_object_get(s.r.rec, "energy")) json_object_set(json_object_get(s.r.rec, "energy"), "meters", meters);
        fb_solve_print_table(table, c, &whole, &s.r.log, fb_target_info(s.t), s.stream_gbs, s.r.rss_setup,
                             s.r.validation);
        fb_solve_ranks_print(table, mpi);
        FB_CHECK(write_outputs(o, c, &s, &whole, table));
    }
    status = s.r.ended;
    if (status != FB_OK) fb_error_set(status, __FILE__, __LINE__, "%s", s.r.reason);
fail:
    whole.dev = NULL; /* s.r.ns's, freed with it */
    json_decref(mpi);
    json_decref(meters);
    fb_ns_free(&whole);
    free_run(&s);
    fb_ns_dist_free(&d);
    return status;
}

static int faster_first(const void *a, const void *b)
{
    const fb_search_eval *x = a, *y = b;
    if (isnan(x->cost) != isnan(y->cost)) return isnan(x->cost) ? 1 : -1;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

/* The points that ran, by median time per step (failed and wrong last). */
static void print_table(FILE *f, const fb_solve_case *c, const fb_tune_request *rq, const fb_search_result *res)
{
    fb_search_eval *rows = malloc((size_t)(res->nhistory + 1) * sizeof *rows);
    char text[256];
    if (!rows) return; /* the records and progress lines already hold the numbers */
    memcpy(rows, res->history, (size_t)res->nhistory * sizeof *rows);
    qsort(rows, (size_t)res->nhistory, sizeof *rows, faster_first);
    fprintf(f, "solve %s on %s: %d points by median time per step (each checked against the OpenMP baseline)\n",
            c->name, fb_target_info(rq->t)->id, res->nhistory);
    for (int i = 0; i < res->nhistory; ++i) {
        fb_family_point_text(rq->family->kernel(0), &rows[i].point, text, sizeof text);
        if (isfinite(rows[i].cost))
            fprintf(f, "  %-60s %10.3f ms/step  ok\n", text, rows[i].cost * 1e3);
        else
            fprintf(f, "  %-60s %10s          %s\n", text, "-",
                    isnan(rows[i].cost) ? "pruned" : "failed or wrong (its record says why)");
    }
    free(rows);
}

static fb_status open_sweep(const fb_solve_request *o, fb_solve_case *c, fb_tune_request *rq)
{
    fb_status status = FB_OK;
    const fb_case_loop loop = loop_of(o); /* quiet: read_plan quiets a sweep */
    rq->family = fb_family_find("ns");
    rq->is_double = 1;
    rq->search = (fb_search_options){.strategy = FB_STRATEGY_EXHAUSTIVE, .seed = 1};
    rq->space = &o->space;
    rq->progress = stderr;
    FB_CHECK(fb_target_open(o->backends[0], &rq->t));
    FB_CHECK(fb_ns_problem_of_case(c, &loop, &rq->problem));
    if (o->out) FB_CHECK(fb_results_open(o->out, "solve", fb_target_info(rq->t), 1, &rq->out));
    fprintf(stderr,
            "solve %s: %s %d point%s of the device kernels on %s, each a run of the case checked against the OpenMP "
            "baseline\n",
            c->name, o->tune ? "tuning over" : "sweeping", fb_search_space_size(&o->space),
            fb_search_space_size(&o->space) == 1 ? "" : "s", fb_target_info(rq->t)->id);
fail:
    return status;
}

/* Every point of the --param lists (tune.h, exhaustive), a record each in
 * --out; the table; with --tune the fastest correct point stored. Ctrl-C
 * stops the run in progress: exit 130, nothing stored. */
fb_status fb_solve_run_sweep(const fb_solve_request *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    fb_tune_request rq;
    fb_tune_outcome out;
    FILE *f = o->as_json ? stderr : stdout;
    memset(&rq, 0, sizeof rq), memset(&out, 0, sizeof out);
    FB_CHECK(open_sweep(o, c, &rq));
    status = fb_tune_run(&rq, &out);
    if (status == FB_ERR_INTERRUPTED) /* fb_comm_report says only "interrupted": what was kept is said here */
        fprintf(stderr, "solve %s: interrupted after %d points%s\n", c->name, out.search.nhistory,
                o->tune ? "; nothing stored in the tuning cache" : "");
    FB_CHECK(status);
    print_table(f, c, &rq, &out.search);
    if (!isfinite(out.search.best_cost))
        FB_FAIL(FB_ERR_CHECK, "solve %s: no point of the sweep ran correctly", c->name);
    if (o->tune) FB_CHECK(o->sinks.store_best(o->sinks.ctx, &rq, &out, f));
fail:
    fb_tune_outcome_free(&out);
    fb_results_close(rq.out);
    if (rq.problem) rq.family->problem_close(rq.problem);
    fb_target_close(rq.t);
    return status;
}

/* Opens backend k, or says why not: with --compare an absent backend is
 * left out (1 = skip), else its absence is the error. */
static fb_status open_backend(const fb_solve_request *o, int k, fb_target **t, int *skip)
{
    fb_status status = fb_target_open(o->backends[k], t);
    *skip = 0;
    if (status == FB_ERR_UNAVAILABLE && o->compare) {
        fprintf(stderr, "solve: %s left out of the comparison: %s\n", o->backends[k], fb_error_message());
        *skip = 1;
        return FB_OK;
    }
    return status;
}

/* The comparison's outcome so far: the first backend that failed to run
 * (it is the command's error) and the first whose watch stopped it. */
typedef struct solve_failures {
    fb_status error;
    char error_text[1100], check_text[1100];
} solve_failures;

/* Backend k's run: its row, or its failure noted. With several backends a
 * backend that cannot open or run is said and the others go on, so that
 * one driver's fault (NVIDIA's OpenCL compiler on ns.cl, say) cannot take
 * the other devices' rows with it; the command still fails. */
static fb_status run_backend(const fb_solve_request *o, fb_solve_case *c, int k, solve_run *s, fb_solve_row *rows,
                             int *nrows, solve_failures *f)
{
    int skip = 0;
    fb_status status = open_backend(o, k, &s->t, &skip);
    if (status == FB_OK && !skip) {
        s->stream_gbs = -1;
        status = run_one(o, c, s, o->nbackends > 1 ? fb_solve_baseline(rows, *nrows) : NULL);
    }
    if (status == FB_ERR_CHECK && !f->check_text[0])
        snprintf(f->check_text, sizeof f->check_text, "%s%s%s", o->nbackends > 1 ? fb_target_info(s->t)->id : "",
                 o->nbackends > 1 ? ": " : "", s->r.reason);
    if ((status == FB_OK || status == FB_ERR_CHECK) && !skip)
        fb_solve_row_of(&rows[(*nrows)++], &s->r.ns, &s->r.log, fb_target_info(s->t), s->stream_gbs);
    if (status != FB_OK && status != FB_ERR_CHECK && status != FB_ERR_INTERRUPTED && o->nbackends > 1) {
        fprintf(stderr, "solve: --backend %s: %s; the comparison goes on without it\n", o->backends[k],
                fb_error_message());
        if (f->error == FB_OK)
            f->error = status, snprintf(f->error_text, sizeof f->error_text, "--backend %s failed: %s", o->backends[k],
                                        fb_error_message());
        status = FB_OK;
    }
    free_run(s);
    return status == FB_ERR_CHECK ? FB_OK : status;
}

fb_status fb_solve_run_backends(const fb_solve_request *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    solve_run s;
    fb_solve_row rows[FB_SOLVE_MAX_BACKENDS];
    solve_failures failures;
    int nrows = 0;
    memset(&s, 0, sizeof s);
    memset(&failures, 0, sizeof failures);
    for (int k = 0; k < o->nbackends; ++k)
        FB_CHECK(run_backend(o, c, k, &s, rows, &nrows, &failures));
    if (o->nbackends > 1 && nrows > 0) fb_solve_print_comparison(o->as_json ? stderr : stdout, c, rows, nrows);
    if (failures.error != FB_OK) FB_FAIL(failures.error, "solve %s: %s", c->name, failures.error_text);
    if (failures.check_text[0]) FB_FAIL(FB_ERR_CHECK, "solve %s: %s", c->name, failures.check_text);
fail:
    free_run(&s);
    return status;
}
