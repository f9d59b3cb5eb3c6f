/* solve_tune.c - see solve_tune.h. */
#include "solve_tune.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/record.h"
#include "../core/measure.h"
#include "../solver/ns_device.h"
#include "../results/results.h"
#include "../tune/cache.h"
#include "../tune/tuned.h"

/* The tolerances of unit.test_solver_device (tests/unit/test_solver_device.c):
 * relative L2 of u and p between two runs of the same steps. Reductions
 * summed in another order may stop the CG one iteration apart; a wrong
 * kernel is orders of magnitude further off. */
#define U_TOLERANCE 1e-6
#define P_TOLERANCE 1e-4

#define LIST_HINT "flowbench solve --list"

/* ---- the plan: --param lists, --tune, --tuned ---------------------------- */

typedef struct axis_list {
    int n, v[FB_PARAM_MAX_LIST];
} axis_list;

static int axis_index(const char *name)
{
    for (int a = 0; a < FB_NS_NAXES; ++a)
        if (!strcmp(fb_ns_axes[a].name, name)) return a;
    return -1;
}

/* "NAME=V1,V2,..." into lists[axis] under the rule spmv, grid and suites
 * share (fb_cli_param_list); the last --param of an axis wins, as it
 * always did for single values. */
static fb_status read_list(const char *text, axis_list *lists, int *given)
{
    fb_status status = FB_OK;
    char name[64];
    axis_list list = {0};
    FB_CHECK(fb_cli_param_list(text, name, sizeof name, list.v, &list.n));
    int a = axis_index(name);
    if (a < 0) FB_FAIL(FB_ERR_USAGE, "--param: the solver has no parameter %s (see %s)", name, LIST_HINT);
    given[a] = 1;
    lists[a] = list;
fail:
    return status;
}

/* A swept value must be one the axis declares: the sweep and the cache
 * cover the declared space, as `tune` does for the other families. */
static fb_status check_declared(const axis_list *lists, const int *given)
{
    fb_status status = FB_OK;
    for (int a = 0; a < FB_NS_NAXES; ++a)
        for (int k = 0; given[a] && k < lists[a].n; ++k) {
            int ok = 0;
            for (int j = 0; j < fb_ns_axes[a].nvalues; ++j)
                ok |= fb_ns_axes[a].values[j] == lists[a].v[k];
            if (!ok)
                FB_FAIL(FB_ERR_USAGE, "--param: %s=%d is not one of the axis's values (see %s)", fb_ns_axes[a].name,
                        lists[a].v[k], LIST_HINT);
        }
fail:
    return status;
}

/* Axes no --param names: every value when --tune sweeps the whole space,
 * else the default. */
static long fill_lists(axis_list *lists, const int *given, int whole_space)
{
    long count = 1;
    for (int a = 0; a < FB_NS_NAXES; ++a) {
        if (!given[a] && whole_space) {
            lists[a].n = fb_ns_axes[a].nvalues;
            memcpy(lists[a].v, fb_ns_axes[a].values, sizeof fb_ns_axes[a].values);
        } else if (!given[a]) {
            lists[a].n = 1;
            lists[a].v[0] = fb_ns_axes[a].def;
        }
        count *= lists[a].n;
    }
    return count;
}

/* The cross product, last axis fastest; the default point moved to the
 * front, so it is the reference the others are compared with. */
static fb_status cross_product(const axis_list *lists, long count, fb_solve_plan *plan)
{
    fb_status status = FB_OK;
    const fb_param_point def = fb_ns_default_point();
    FB_ALLOC(plan->points, count, "the solver's sweep points");
    for (long i = 0; i < count; ++i) {
        long rest = i;
        plan->points[i] = def;
        for (int a = FB_NS_NAXES - 1; a >= 0; --a) {
            plan->points[i].values[a] = lists[a].v[rest % lists[a].n];
            rest /= lists[a].n;
        }
        if (!memcmp(&plan->points[i], &def, sizeof def) && i > 0) {
            memmove(plan->points + 1, plan->points, (size_t)i * sizeof *plan->points);
            plan->points[0] = def;
        }
    }
    plan->npoints = (int)count;
fail:
    return status;
}

/* Set by `tune --case` (fb_solve_tune_search); plain solve runs its plan in order. */
static fb_search_options tune_search = {.strategy = FB_STRATEGY_EXHAUSTIVE, .budget = 0, .seed = 1};

void fb_solve_tune_search(const fb_search_options *search) { tune_search = *search; }

/* The most runs a sweep of count points makes: the budget of an
 * exhaustive one, else fb_search's rule (search.h: a quarter, at least 4). */
static int runs_of(const fb_search_options *search, long count)
{
    int n = count < INT_MAX ? (int)count : INT_MAX;
    if (search->budget > 0) return search->budget < n ? search->budget : n;
    if (search->strategy == FB_STRATEGY_EXHAUSTIVE) return n;
    int quarter = n / 4 + (n % 4 != 0), at_least = n < 4 ? n : 4;
    return quarter > at_least ? quarter : at_least;
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The lists as a search space: values ascending, as search.h's
 * neighbourhoods want; it starts at the default point where the lists hold
 * it, else at each list's smallest value. */
static void search_space(const axis_list *lists, fb_search_space *space)
{
    memset(space, 0, sizeof *space);
    space->naxes = FB_NS_NAXES;
    for (int a = 0; a < FB_NS_NAXES; ++a) {
        space->nvalues[a] = lists[a].n;
        memcpy(space->values[a], lists[a].v, (size_t)lists[a].n * sizeof lists[a].v[0]);
        qsort(space->values[a], (size_t)lists[a].n, sizeof lists[a].v[0], ascending);
        space->start.values[a] = space->values[a][0];
        for (int k = 0; k < lists[a].n; ++k)
            if (lists[a].v[k] == fb_ns_axes[a].def) space->start.values[a] = fb_ns_axes[a].def;
    }
}

static fb_status check_runs(const fb_solve_plan *plan, long count, int nparams)
{
    fb_status status = FB_OK;
    if (!plan->tune || nparams || plan->search.budget || plan->runs <= FB_SOLVE_MAX_TUNE_POINTS) return FB_OK;
    if (plan->search.strategy == FB_STRATEGY_EXHAUSTIVE)
        FB_FAIL(FB_ERR_USAGE,
                "--tune: the solver's axes have %ld points, more than %d solver runs: narrow them with "
                "--param NAME=V1,V2 (tune --case: or cap the runs with --evals N)",
                count, FB_SOLVE_MAX_TUNE_POINTS);
    FB_FAIL(FB_ERR_USAGE,
            "--strategy %s: a quarter of the solver's %ld points is %d solver runs, more than %d: give --evals N or "
            "narrow the axes with --param NAME=V1,V2",
            fb_strategy_name(plan->search.strategy), count, plan->runs, FB_SOLVE_MAX_TUNE_POINTS);
fail:
    return status;
}

static fb_status read_points(const fb_parsed *args, fb_solve_plan *plan)
{
    fb_status status = FB_OK;
    axis_list lists[FB_NS_NAXES];
    int given[FB_NS_NAXES] = {0};
    const char *const *params;
    int nparams = fb_cli_values(args, "param", &params);
    memset(lists, 0, sizeof lists);
    for (int i = 0; i < nparams; ++i)
        FB_CHECK(read_list(params[i], lists, given));
    long count = fill_lists(lists, given, plan->tune && !nparams);
    plan->sweep = plan->tune || count > 1;
    if (plan->sweep) FB_CHECK(check_declared(lists, given));
    plan->search = tune_search;
    plan->runs = runs_of(&plan->search, count);
    FB_CHECK(check_runs(plan, count, nparams));
    FB_CHECK(cross_product(lists, count, plan));
    search_space(lists, &plan->space);
fail:
    return status;
}

/* The combinations that make no sense, each refused in one line. */
static fb_status check_modes(const fb_parsed *args, const char *const *backends, int nbackends, int compare,
                             const fb_solve_plan *plan)
{
    fb_status status = FB_OK;
    int host = compare, device = compare;
    const char *const *params;
    int nparams = fb_cli_values(args, "param", &params);
    for (int i = 0; i < nbackends; ++i) {
        int is_host = strncmp(backends[i], "openmp", 6) == 0;
        host |= is_host, device |= !is_host;
    }
    if (fb_cli_value(args, "cache") && !plan->tune && !plan->tuned)
        FB_FAIL(FB_ERR_USAGE, "--cache is for --tune (written) and --tuned (read)");
    if (plan->tune && plan->tuned) FB_FAIL(FB_ERR_USAGE, "--tune and --tuned exclude each other");
    if (plan->tuned && nparams) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    if (nparams && !device)
        FB_FAIL(FB_ERR_USAGE, "--param is for the device backends (opencl, cuda); openmp runs the solver's kernels "
                              "at the OpenMP baseline's one point (docs/solver.md)");
    if ((plan->tuned || plan->tune) && host)
        FB_FAIL(FB_ERR_USAGE,
                "--%s is for the device backends (opencl, cuda): openmp runs the solver's kernels at the "
                "OpenMP baseline's one point (docs/solver.md)",
                plan->tune ? "tune" : "tuned");
fail:
    return status;
}

static fb_status check_sweep(const fb_parsed *args, int nbackends, int compare)
{
    fb_status status = FB_OK;
    if (compare || nbackends != 1)
        FB_FAIL(FB_ERR_USAGE, "solve: a sweep (--param lists, --tune) runs on one --backend, opencl or cuda");
    if (fb_cli_value(args, "vtk") || fb_cli_value(args, "profiles"))
        FB_FAIL(FB_ERR_USAGE,
                "solve: --vtk and --profiles take one run, not a sweep (each point would overwrite them)");
fail:
    return status;
}

fb_status fb_solve_plan_read(const fb_parsed *args, const char *const *backends, int nbackends, int compare,
                             fb_solve_plan *plan)
{
    fb_status status = FB_OK;
    memset(plan, 0, sizeof *plan);
    plan->tune = fb_cli_flag(args, "tune");
    plan->tuned = fb_cli_flag(args, "tuned");
    plan->quiet = fb_cli_flag(args, "quiet");
    plan->as_json = fb_cli_flag(args, "json");
    fb_cache_path(fb_cli_value(args, "cache"), plan->cache, sizeof plan->cache);
    snprintf(plan->out, sizeof plan->out, "%s", fb_cli_value(args, "out") ? fb_cli_value(args, "out") : "");
    FB_CHECK(check_modes(args, backends, nbackends, compare, plan));
    if (plan->tune) FB_CHECK(fb_cache_check(plan->cache)); /* stored into after the sweep: refused before it */
    FB_CHECK(read_points(args, plan));
    if (plan->sweep) FB_CHECK(check_sweep(args, nbackends, compare));
    return FB_OK;
fail:
    fb_solve_plan_free(plan);
    return status;
}

void fb_solve_plan_free(fb_solve_plan *plan)
{
    free(plan->points);
    plan->points = NULL;
    plan->npoints = 0;
}

void fb_solve_point_text(const fb_param_point *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < FB_NS_NAXES && used < len; ++a)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", a ? " " : "", fb_ns_axes[a].name, p->values[a]);
}

/* ---- the mesh's signature ------------------------------------------------ */

/* The mesh record fb_signature_from_json reads as a mesh signature: nodes,
 * directed edges and neighbours per node, what the kernels' parameters
 * trade off (a work-item per node walking its edge row: parallelism, work
 * per item, balance). Cells are left out: the kernels never see a cell,
 * the edge operators were built from them once. The statistics are taken
 * of the pressure matrix's rows (neighbours + the diagonal) and turned
 * into degrees by fb_mesh_signature_of_rows, as entries stored by older
 * versions (that matrix's signature) are read, so both agree to the bit
 * on the same mesh. */
static json_t *mesh_signature_record(const fb_solve_case *c, const fb_ns *ns)
{
    const int n = ns->E.n;
    double sum = 0, sum2 = 0, max = 0;
    char name[64];
    for (int i = 0; i < n; ++i) {
        double len = ns->E.rowptr[i + 1] - ns->E.rowptr[i] + 1;
        sum += len, sum2 += len * len, max = fmax(max, len);
    }
    double mean = n ? sum / n : 0, var = n ? fmax(sum2 / n - mean * mean, 0) : 0;
    fb_mesh_signature m = fb_mesh_signature_of_rows(n, (long long)ns->E.nedges + n, mean, sqrt(var), max);
    fb_solve_problem_name(c, name, sizeof name);
    return json_pack("{s:s, s:s, s:I, s:I, s:{s:f, s:f, s:f}}", "name", name, "source", c->source, "nodes",
                     (json_int_t)m.nodes, "edges", (json_int_t)m.edges, "degree", "mean", m.degree_mean, "stddev",
                     m.degree_stddev, "max", m.degree_max);
}

/* ---- --tuned ------------------------------------------------------------- */

fb_status fb_solve_tuned_point(const fb_solve_plan *plan, const fb_device_info *d, const fb_solve_case *c,
                               const fb_ns *ns, fb_param_point *point, json_t **tuning)
{
    fb_status status = FB_OK;
    fb_tuning_cache *cache = NULL;
    json_t *mesh = mesh_signature_record(c, ns);
    char text[512], params[256];
    fb_signature sig;
    *tuning = NULL;
    if (!mesh) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the mesh");
    FB_CHECK(fb_signature_from_json(mesh, &sig)); /* the solver is no family yet (issue 35): its record, read back */
    FB_CHECK(fb_cache_load(plan->cache, &cache));
    FB_CHECK(fb_tuned_point(cache, d, "ns", fb_ns_axes, FB_NS_NAXES, 1, &sig, point, tuning));
    json_object_set_new(*tuning, "cache", json_string(plan->cache));
    fb_tuning_text(*tuning, text, sizeof text);
    fb_solve_point_text(point, params, sizeof params);
    fprintf(stderr, "--tuned: %s on %s: %s (cache %s)\n", text, d->id, params, plan->cache);
fail:
    json_decref(mesh);
    fb_cache_free(cache);
    return status;
}

/* --tuned with CG_SPMV: the SpMV kernel's own point for the pressure
 * matrix, looked up as `spmv --tuned` looks up any matrix's (the kernel's
 * name, double, the matrix's signature), set on the open device, and kept
 * in tuning.spmv. */
fb_status fb_solve_tuned_spmv(const fb_solve_plan *plan, const fb_device_info *d, fb_ns *ns, json_t *tuning)
{
    fb_status status = FB_OK;
    const fb_spmv_kernel_def *k = fb_ns_device_spmv_kernel(ns);
    fb_tuning_cache *cache = NULL;
    json_t *matrix = NULL, *spmv = NULL;
    fb_param_point point;
    fb_signature sig;
    char text[512];
    if (!k) return FB_OK;
    FB_CHECK(fb_ns_pressure_matrix_record(ns, &matrix));
    FB_CHECK(fb_signature_from_json(matrix, &sig));
    FB_CHECK(fb_cache_load(plan->cache, &cache));
    FB_CHECK(fb_tuned_point(cache, d, k->name, k->params, k->nparams, 1, &sig, &point, &spmv));
    FB_CHECK(fb_ns_device_set_spmv_point(ns, &point));
    json_object_set_new(spmv, "kernel", json_string(k->name));
    fb_tuning_text(spmv, text, sizeof text);
    fprintf(stderr, "--tuned: the CG's SpMV %s: %s\n", k->name, text);
    if (tuning) json_object_set(tuning, "spmv", spmv);
fail:
    json_decref(spmv);
    json_decref(matrix);
    fb_cache_free(cache);
    return status;
}

/* ---- the sweep ----------------------------------------------------------- */

typedef enum row_state { ROW_OK, ROW_WRONG, ROW_FAILED } row_state;

typedef struct sweep_row {
    fb_param_point point;
    row_state state;
    int noted; /* fb_solve_sweep_note was called */
    double ms, its, gbs, du, dp;
    char why[200];
} sweep_row;

struct fb_solve_sweep {
    const fb_solve_plan *plan;
    sweep_row *rows, *current;
    int nrows, cap;
    double *u0, *p0; /* the first correct run's fields: the reference */
    size_t n;
    char device[1024];   /* the device's fingerprint (cache.h) */
    fb_device_info info; /* the device the points ran on ("" id until the first ran) */
    json_t *mesh;        /* the signature record */
    json_t *best_rec;    /* the fastest correct point's record (--tune) */
    double best_ms;
};

/* ||a - b|| / ||b||, as unit.test_solver_device measures it. */
static double rel_l2(const double *a, const double *b, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; ++i)
        d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

static fb_status keep_reference(fb_solve_sweep *sw, const fb_ns *ns)
{
    fb_status status = FB_OK;
    sw->n = (size_t)ns->E.n;
    FB_ALLOC(sw->u0, 3 * sw->n, "the sweep's reference velocity");
    FB_ALLOC(sw->p0, sw->n, "the sweep's reference pressure");
    memcpy(sw->u0, ns->u, 3 * sw->n * sizeof *sw->u0);
    memcpy(sw->p0, ns->p, sw->n * sizeof *sw->p0);
fail:
    return status;
}

json_t *fb_solve_sweep_search_part(const fb_solve_sweep *sw)
{
    const fb_search_options *s = &sw->plan->search;
    if (!sw->plan->tune) return NULL;
    return json_pack("{s:s, s:I, s:i, s:i}", "strategy", fb_strategy_name(s->strategy), "seed", (json_int_t)s->seed,
                     "budget", s->budget, "evaluation", sw->nrows);
}

/* Keeps a copy of rec while its row is the fastest correct one. */
static fb_status keep_best_record(fb_solve_sweep *sw, const sweep_row *r, const json_t *rec)
{
    fb_status status = FB_OK;
    if (!sw->plan->tune || !rec || r->state != ROW_OK || (sw->best_rec && !(r->ms < sw->best_ms))) return FB_OK;
    json_decref(sw->best_rec);
    sw->best_rec = json_deep_copy(rec);
    if (!sw->best_rec) FB_FAIL(FB_ERR_NOMEM, "out of host memory keeping the best record");
    sw->best_ms = r->ms;
fail:
    return status;
}

fb_status fb_solve_sweep_note(fb_solve_sweep *sw, const fb_device_info *d, const fb_solve_case *c, const fb_ns *ns,
                              const fb_solve_log *log, const json_t *rec)
{
    fb_status status = FB_OK;
    sweep_row *r = sw->current;
    fb_solve_summary s;
    fb_solve_summarize(log, ns, &s);
    r->noted = 1;
    r->ms = s.step_time_median * 1e3, r->its = s.its_mean, r->gbs = s.gbs;
    if (!sw->mesh) {
        sw->mesh = mesh_signature_record(c, ns);
        if (!sw->mesh) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the mesh");
        fb_device_fingerprint(d, sw->device, sizeof sw->device);
        sw->info = *d;
    }
    if (!sw->u0) FB_CHECK(keep_reference(sw, ns));
    r->du = rel_l2(ns->u, sw->u0, 3 * sw->n);
    r->dp = rel_l2(ns->p, sw->p0, sw->n);
    r->state = r->du <= U_TOLERANCE && r->dp <= P_TOLERANCE ? ROW_OK : ROW_WRONG;
    FB_CHECK(keep_best_record(sw, r, rec));
fail:
    return status;
}

static void print_plan(const fb_solve_plan *plan, const fb_solve_case *c)
{
    char text[256], what[200];
    const fb_param_point def = fb_ns_default_point();
    const int in_order = plan->search.strategy == FB_STRATEGY_EXHAUSTIVE;
    const fb_param_point *first = in_order ? &plan->points[0] : &plan->space.start;
    const char *verb = plan->tune ? "tuning over" : "sweeping";
    fb_solve_point_text(first, text, sizeof text);
    if (!in_order)
        snprintf(what, sizeof what, "%s search (seed %llu) of at most %d runs over %d points",
                 fb_strategy_name(plan->search.strategy), (unsigned long long)plan->search.seed, plan->runs,
                 plan->npoints);
    else if (plan->runs < plan->npoints)
        snprintf(what, sizeof what, "%s the first %d of %d points", verb, plan->runs, plan->npoints);
    else
        snprintf(what, sizeof what, "%s %d point%s", verb, plan->npoints, plan->npoints == 1 ? "" : "s");
    fprintf(stderr,
            "solve %s: %s of the device kernels, each a run of the case on the same mesh; u and p compared with the "
            "first, %s%s\n",
            c->name, what, text, memcmp(first, &def, sizeof def) ? "" : " (the defaults)");
}

static void print_progress(const fb_solve_plan *plan, int i, const sweep_row *r, double seconds)
{
    char text[256];
    if (plan->quiet) return;
    fb_solve_point_text(&r->point, text, sizeof text);
    fprintf(stderr, "  [%d/%d] %s: ", i + 1, plan->runs, text);
    if (r->state == ROW_FAILED)
        fprintf(stderr, "failed: %s", r->why);
    else
        fprintf(stderr, "%.3f ms/step, %.1f CG its, u %.2g p %.2g%s", r->ms, r->its, r->du, r->dp,
                r->state == ROW_WRONG ? " WRONG" : "");
    fprintf(stderr, " (%.1f s)\n", seconds);
}

/* Failed points sort last, then by time per step. */
static int by_time(const void *a, const void *b)
{
    const sweep_row *x = a, *y = b;
    if ((x->state == ROW_FAILED) != (y->state == ROW_FAILED)) return x->state == ROW_FAILED ? 1 : -1;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

static void print_table(FILE *f, const fb_solve_sweep *sw, const fb_solve_case *c)
{
    char text[256];
    sweep_row *rows = malloc((size_t)sw->nrows * sizeof *rows);
    if (!rows || !sw->nrows) { /* the records and progress lines already hold the numbers */
        free(rows);
        return;
    }
    memcpy(rows, sw->rows, (size_t)sw->nrows * sizeof *rows);
    qsort(rows, (size_t)sw->nrows, sizeof *rows, by_time);
    fprintf(f, "solve %s on %s: %d points by median time per step (u, p: relative L2 to the first point)\n", c->name,
            sw->info.id[0] ? sw->info.id : "?", sw->nrows);
    fprintf(f, "  %-48s %10s %8s %9s %9s  %s\n", "point", "ms/step", "CG its", "u", "p", "check");
    for (int i = 0; i < sw->nrows; ++i) {
        const sweep_row *r = &rows[i];
        fb_solve_point_text(&r->point, text, sizeof text);
        if (r->state == ROW_FAILED)
            fprintf(f, "  %-48s %10s %8s %9s %9s  failed: %s\n", text, "-", "-", "-", "-", r->why);
        else
            fprintf(f, "  %-48s %10.3f %8.1f %9.2g %9.2g  %s\n", text, r->ms, r->its, r->du, r->dp,
                    r->state == ROW_WRONG ? "wrong (never chosen)" : "ok");
    }
    free(rows);
}

static const sweep_row *fastest(const fb_solve_sweep *sw)
{
    const sweep_row *best = NULL;
    for (int i = 0; i < sw->nrows; ++i)
        if (sw->rows[i].state == ROW_OK && (!best || sw->rows[i].ms < best->ms)) best = &sw->rows[i];
    return best;
}

static fb_status store_best(const fb_solve_sweep *sw, const sweep_row *best, FILE *f)
{
    fb_status status = FB_OK;
    int size = 0;
    fb_signature sig;
    char date[32], text[256];
    time_t now = time(NULL);
    json_t *entry = NULL;
    int valid = 0;
    for (int i = 0; i < sw->nrows; ++i)
        valid += sw->rows[i].state == ROW_OK;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FB_CHECK(fb_signature_from_json(sw->mesh, &sig));
    entry = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:s, s:s, s:i, s:i, s:s}", "device", sw->device,
                      "kernel", "ns", "family", "ns", "precision", "double", "signature", fb_signature_json(&sig),
                      "params", fb_json_params(fb_ns_axes, FB_NS_NAXES, &best->point), "median_s", best->ms * 1e-3,
                      "gbs", best->gbs, "matrix", json_string_value(json_object_get(sw->mesh, "name")), "strategy",
                      fb_strategy_name(sw->plan->search.strategy), "evaluations", valid, "space_size",
                      sw->plan->npoints, "date", date);
    if (!entry) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the cache entry");
    FB_CHECK(fb_cache_set_device(entry, &sw->info));
    FB_CHECK(fb_cache_store(sw->plan->cache, entry, &size));
    fb_solve_point_text(&best->point, text, sizeof text);
    fprintf(f, "  best: %s, %.3f ms/step; stored in %s (%d entries)\n", text, best->ms, sw->plan->cache, size);
fail:
    json_decref(entry);
    return status;
}

/* Errors that every other point would meet as well end the sweep; the
 * others (the point refused by the device, a build or launch error, the
 * watch) mark the point failed. */
static int ends_sweep(fb_status s)
{
    return s == FB_ERR_UNAVAILABLE || s == FB_ERR_NOMEM || s == FB_ERR_IO || s == FB_ERR_INPUT ||
           s == FB_ERR_INTERRUPTED;
}

/* The best point's record once more in --out, its "search" part marked
 * best with the evaluations and points (tune.c's append_best): a file of
 * a search's runs says which won. */
static fb_status append_best_record(const fb_solve_sweep *sw)
{
    fb_status status = FB_OK;
    fb_results *out = NULL;
    json_t *search = json_object_get(sw->best_rec, "search");
    if (!*sw->plan->out || !search) return FB_OK;
    json_object_set_new(search, "best", json_true());
    json_object_set_new(search, "evaluations", json_integer(sw->nrows));
    json_object_set_new(search, "space_size", json_integer(sw->plan->npoints));
    FB_CHECK(fb_results_open(sw->plan->out, "solve", &sw->info, 1, &out));
    FB_CHECK(fb_results_append(out, sw->best_rec));
fail:
    fb_results_close(out);
    return status;
}

static void sweep_free(fb_solve_sweep *sw)
{
    json_decref(sw->best_rec);
    free(sw->rows);
    free(sw->u0);
    free(sw->p0);
    json_decref(sw->mesh);
}

/* Runs point as the sweep's next row (*row): FB_OK with the row ok, wrong
 * or failed (with why), or the error that ends the sweep (ends_sweep). */
static fb_status run_row(fb_solve_sweep *sw, const fb_param_point *point, fb_solve_point_fn run, void *ctx,
                         const sweep_row **row)
{
    fb_status status = FB_OK;
    if (sw->nrows == sw->cap) { /* a search never runs more than plan->runs; this keeps it safe if one did */
        sweep_row *grown = realloc(sw->rows, 2 * (size_t)sw->cap * sizeof *grown);
        if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory growing the sweep's table");
        sw->rows = grown, sw->cap *= 2;
    }
    sweep_row *r = sw->current = &sw->rows[sw->nrows++];
    const double start = fb_now();
    memset(r, 0, sizeof *r);
    r->point = *point;
    fb_status st = run(ctx, &r->point, sw);
    if (st == FB_ERR_INTERRUPTED) --sw->nrows; /* its record says "interrupted"; the table keeps whole runs */
    if (ends_sweep(st)) return st;
    if (st != FB_OK || !r->noted) r->state = ROW_FAILED;
    if (st != FB_OK) snprintf(r->why, sizeof r->why, "%s", fb_error_message());
    print_progress(sw->plan, sw->nrows - 1, r, fb_now() - start);
    *row = r;
fail:
    return status;
}

/* Runs the first plan->runs points in order; *stopped = 1 after Ctrl-C. */
static fb_status run_points(fb_solve_sweep *sw, fb_solve_point_fn run, void *ctx, int *stopped)
{
    fb_status status = FB_OK;
    const sweep_row *r;
    for (int i = 0; i < sw->plan->runs && status == FB_OK && !fb_interrupted; ++i)
        status = run_row(sw, &sw->plan->points[i], run, ctx, &r);
    *stopped = fb_interrupted || status == FB_ERR_INTERRUPTED;
    return *stopped ? FB_OK : status;
}

typedef struct search_ctx {
    fb_solve_sweep *sw;
    fb_solve_point_fn run;
    void *ctx;
} search_ctx;

/* search.h's cost of a point: its time per step, INFINITY when it failed
 * or was wrong (so it is never the best). */
static fb_status search_cost(void *vctx, const fb_param_point *point, double *cost)
{
    fb_status status = FB_OK;
    search_ctx *x = vctx;
    const sweep_row *r = NULL;
    if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
    FB_CHECK(run_row(x->sw, point, x->run, x->ctx, &r));
    *cost = r->state == ROW_OK ? r->ms * 1e-3 : INFINITY;
fail:
    return status;
}

/* Runs the points random or anneal picks (fb_search); *stopped as above. */
static fb_status search_points(fb_solve_sweep *sw, fb_solve_point_fn run, void *ctx, int *stopped)
{
    search_ctx x = {sw, run, ctx};
    fb_search_result result;
    fb_status status = fb_search(&sw->plan->space, &sw->plan->search, search_cost, &x, &result);
    fb_search_result_free(&result);
    *stopped = fb_interrupted || status == FB_ERR_INTERRUPTED;
    return *stopped ? FB_OK : status;
}

fb_status fb_solve_sweep_run(const fb_solve_plan *plan, const fb_solve_case *c, fb_solve_point_fn run, void *ctx)
{
    fb_status status = FB_OK;
    fb_solve_sweep sw = {.plan = plan};
    FILE *f = plan->as_json ? stderr : stdout;
    int stopped = 0;
    sw.cap = plan->runs > 0 ? plan->runs : 1;
    FB_ALLOC(sw.rows, sw.cap, "the sweep's table");
    print_plan(plan, c);
    if (plan->search.strategy == FB_STRATEGY_EXHAUSTIVE)
        FB_CHECK(run_points(&sw, run, ctx, &stopped));
    else
        FB_CHECK(search_points(&sw, run, ctx, &stopped));
    print_table(f, &sw, c);
    if (stopped) { /* fb_cli_report says only "interrupted": what was kept is said here */
        fprintf(stderr, "solve %s: interrupted after %d of %d points%s\n", c->name, sw.nrows, plan->runs,
                plan->tune ? "; nothing stored in the tuning cache" : "");
        FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
    }
    const sweep_row *best = fastest(&sw);
    if (!best) FB_FAIL(FB_ERR_CHECK, "solve %s: no point of the sweep ran correctly", c->name);
    if (plan->tune) FB_CHECK(store_best(&sw, best, f));
    if (plan->tune) FB_CHECK(append_best_record(&sw));
fail:
    sweep_free(&sw);
    return status;
}
