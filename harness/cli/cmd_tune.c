/* cmd_tune.c - `flowbench tune`: searches one kernel's parameter space on
 * one problem (a matrix for spmv, a grid for heat2d and fv-surface) and
 * backend through its family's descriptor, reports the best point against
 * the kernel's default and the other variants, and stores it in the
 * tuning cache under the problem's signature. With --replay it searches a
 * recorded exhaustive sweep instead, to measure how close a strategy gets
 * and with how many evaluations. The solver's kernels (--case CASE
 * --kernel ns: the family ns) are searched the same way, each point a
 * whole run of the case (harness/solver/ns_family_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "cli.h"
#include "param_space.h"
#include "../solver/ns_family_run.h"
#include "../results/gate/compare.h"
#include "../results/records/reader.h"
#include "../tune/cache.h"
#include "../tune/tune.h"
#include "user_kernel_cli.h"
#include "ns/ns_kernels.h"
#include "spmv/spmv.h"
#include "tune_confirm.h"
#include "tune_prior.h"

/* A search measures many points: each is sampled shorter and to a looser
 * spread than a single measurement (--budget, --spread). */
#define BUDGET_S 0.5
#define SPREAD_PCT 2

/* A search of the solver's kernels runs at most this many whole solver
 * runs unless --evals or --param says otherwise. */
#define MAX_SOLVER_RUNS 200

static const fb_option options[] = {
    {"family", "F", "spmv (default), heat2d, fv-surface or ns (the solver's kernels, on --case)", 0},
    {"matrix", "SRC", "spmv: matrix file or gen: spec (required)", 0},
    {"grid", "SPEC", "heat2d: grid:NXxNY[:stretch=S], fv-surface: grid:NXxNYxNZ (required)", 0},
    {"case", "CASE", "the solver's kernels (--kernel ns) on cavity, ethier-steinman or ahmed, a whole run per point",
     0},
    {"level", "L", "--case: refinement level (default 0)", 0},
    {"cube", "N", "--case cavity, ethier-steinman: the cube of N x N x N nodes instead of a level", 0},
    {"mesh", "FILE", "--case ahmed: the gmsh mesh", 0},
    {"steps", "N", "--case: time steps per point (default: to the case's end time)", 0},
    {"param", "NAME=V1,V2,...",
     "--case: the values of a solver axis to search (default: every declared value); with --kernel-file: a "
     "parameter of the file's kernel and the values to search",
     1},
    {"kernel", "K", "kernel to tune (required; flowbench spmv --list, grid --list; ns with --case)", 0},
    {"backend", "B", "backend[:device] (default openmp; --case: opencl or cuda, required)", 0},
    {"precision", "P", "double or single (default double)", 0},
    {"strategy", "S", "exhaustive, random or anneal (default anneal; --case: exhaustive, as solve --tune)", 0},
    {"evals", "N",
     "evaluations at most (default: exhaustive all, others a quarter of the space); a measured search that did "
     "not run the default point runs it last",
     0},
    {"seed", "N", "seed of random and anneal (default 1)", 0},
    {"abandon", "K", "stop sampling a point after one sample K x slower than the best (default 4, 0 never)", 0},
    FB_CLI_MEASURE_OPTIONS(BUDGET_S, SPREAD_PCT),
    {"out", "FILE", "append every evaluation's record to this JSON Lines file", 0},
    {"cache", "FILE",
     "tuning cache (default $FLOWBENCH_TUNING_CACHE, else $FLOWBENCH_CACHE_DIR/tuning.json, else "
     "~/.cache/flowbench/tuning.json)",
     0},
    {"no-cache", NULL, "do not store the best point", 0},
    {"no-variants", NULL, "do not measure the other variants for comparison", 0},
    FB_CLI_OPTION_CONFIRM,
    FB_CLI_OPTION_MEASURE_POINT,
    {"replay", "FILE", "take costs from a recorded sweep of this kernel instead of measuring", 0},
    {"seeds", "N", "with --replay: repeat the search for N seeds; how often it got within 5%, where it ended", 0},
    FB_CLI_USER_KERNEL_OPTIONS,
    {"start", "S", "anneal's first point: prior (the prior's prediction when one fits; the default) or default", 0},
    {"prior", "FILE", "the start-point prior (default tuning-prior.json beside the cache)", 0},
    {"header", "FILE.h", "tune export: write the cache as a C header with its own lookup", 0},
    {"json", "FILE", "tune export: write the cache as the versioned JSON database (docs/tuning-db.schema.json)", 0},
    {"fit-prior", NULL, "fit a prior to the SWEEP.jsonl files given and write it (--prior), instead of tuning", 0},
    {NULL, NULL, NULL, 0},
};

typedef struct tune_cli {
    fb_tune_request rq;
    char cache_path[1024];
    const char *problem; /* the --matrix or --grid spec, or the solver's case as a spec (solver_spec) */
    char solver_spec[1200];
    fb_search_space space; /* the solver's axes as --param narrows them */
    int seeds;
    fb_results_set *replay;
    fb_tune_start start;
} tune_cli;

/* The command that lists a family's kernels and axes. */
static const char *list_hint(const fb_family *f)
{
    return strcmp(f->problem_key, "grid") == 0 ? "flowbench grid --list" : "flowbench spmv --list";
}

/* A family's problem option is named after its record's problem key:
 * --matrix SRC for spmv, --grid SPEC for heat2d and fv-surface. */
static const char *problem_metavar(const fb_family *f) { return strcmp(f->problem_key, "grid") == 0 ? "SPEC" : "SRC"; }

static fb_status read_measure(const fb_parsed *args, fb_tune_request *rq)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_cli_measure(args, BUDGET_S, SPREAD_PCT, &rq->measure));
    FB_CHECK(fb_cli_double(args, "abandon", 4.0, &rq->abandon_factor));
    if (rq->abandon_factor != 0 && rq->abandon_factor <= 1) FB_FAIL(FB_ERR_USAGE, "--abandon must be above 1 (or 0)");
fail:
    return status;
}

/* dflt: the strategy without --strategy (anneal; the solver: exhaustive). */
static fb_status read_search(const fb_parsed *args, fb_strategy dflt, fb_search_options *s, int *seeds)
{
    fb_status status = FB_OK;
    int seed = 1;
    s->strategy = dflt;
    if (fb_cli_value(args, "strategy")) FB_CHECK(fb_strategy_parse(fb_cli_value(args, "strategy"), &s->strategy));
    FB_CHECK(fb_cli_int(args, "evals", 0, &s->budget));
    FB_CHECK(fb_cli_int(args, "seed", seed, &seed));
    FB_CHECK(fb_cli_int(args, "seeds", 1, seeds));
    s->seed = (uint64_t)seed;
    if (*seeds < 1) FB_FAIL(FB_ERR_USAGE, "--seeds must be at least 1");
    if (*seeds > 1 && !fb_cli_value(args, "replay"))
        FB_FAIL(FB_ERR_USAGE, "--seeds needs --replay (measuring N searches is a sweep)");
fail:
    return status;
}

/* The solver's family: its problem is --case, its one kernel "ns". */
static int is_solver(const fb_family *f) { return strcmp(f->name, "ns") == 0; }

/* The family of --family; without it the solver's when --case or --kernel
 * ns asks for it, else spmv. */
static fb_status read_family(const fb_parsed *args, const fb_family **out)
{
    fb_status status = FB_OK;
    const char *kernel = fb_cli_value(args, "kernel");
    const int solver = fb_cli_value(args, "case") || (kernel && !strcmp(kernel, "ns"));
    const char *name = fb_cli_value(args, "family") ? fb_cli_value(args, "family") : solver ? "ns" : "spmv";
    *out = fb_family_find(name);
    if (!*out || !fb_family_sweepable(*out))
        FB_FAIL(FB_ERR_USAGE, "--family: '%s' is not a family tune searches (spmv, heat2d, fv-surface, ns)", name);
fail:
    return status;
}

/* tune's options that mean nothing to a solver point (a whole run of the
 * case, timed per step, in double), each refused with that reason. */
static fb_status check_solver_options(const fb_parsed *args)
{
    fb_status status = FB_OK;
    static const char *const measuring[] = {"min-samples", "max-samples", "spread", "budget", "abandon", NULL};
    static const char *const other[] = {"matrix", "grid", "precision", "replay", "seeds", NULL};
    const char *given, *backend = fb_cli_value(args, "backend");
    const char *kernel = fb_cli_value(args, "kernel");
    if (!fb_cli_value(args, "case"))
        FB_FAIL(FB_ERR_USAGE, "tune: the solver's kernels (ns) are tuned on a case: --case CASE [--level L | "
                              "--cube N] --kernel ns --backend opencl|cuda");
    if (!kernel || strcmp(kernel, "ns") != 0)
        FB_FAIL(FB_ERR_USAGE, "tune --case: give --kernel ns (the solver's kernels are tuned together, one point for "
                              "all of them; flowbench solve --list)");
    if ((given = fb_cli_first_given(args, measuring)))
        FB_FAIL(FB_ERR_USAGE, "--%s is not for --case: each solver point is a whole run, timed per step (--steps N)",
                given);
    if ((given = fb_cli_first_given(args, other)))
        FB_FAIL(FB_ERR_USAGE, "--%s is not for --case (the solver tunes in double on its case's mesh)", given);
    if (!backend || !strncmp(backend, "openmp", 6))
        FB_FAIL(FB_ERR_USAGE, "tune --case: give --backend opencl or cuda (on openmp the solver runs its kernels at "
                              "the OpenMP baseline's one point)");
fail:
    return status;
}

/* The options that belong to the solver (--case) and to the other family's
 * problem, refused with what the family takes instead. */
static fb_status check_problem_options(const fb_parsed *args, const fb_family *f)
{
    fb_status status = FB_OK;
    static const char *const solver_only[] = {"case", "level", "cube", "mesh", "steps", NULL};
    const char *given = fb_cli_first_given(args, solver_only);
    const int grid = strcmp(f->problem_key, "grid") == 0;
    if (is_solver(f)) return check_solver_options(args);
    if (fb_cli_value(args, "case"))
        FB_FAIL(FB_ERR_USAGE, "--case is for the solver's kernels (--kernel ns), not --family %s", f->name);
    if (fb_cli_value(args, "param") && !fb_cli_value(args, "kernel-file"))
        FB_FAIL(FB_ERR_USAGE,
                "--param declares the axes of a kernel file (--kernel-file FILE) or the solver's (--case CASE "
                "--kernel ns); %s's own kernels are searched over their declared space",
                f->name);
    if (given)
        FB_FAIL(FB_ERR_USAGE, "--%s is for the solver's kernels (--case CASE --kernel ns), not %s", given, f->name);
    if (grid && fb_cli_value(args, "matrix"))
        FB_FAIL(FB_ERR_USAGE, "--matrix is for --family spmv; %s tunes on --grid SPEC", f->name);
    if (!grid && fb_cli_value(args, "grid"))
        FB_FAIL(FB_ERR_USAGE,
                "--grid is for the grid families (--family heat2d or fv-surface); %s tunes on --matrix SRC", f->name);
fail:
    return status;
}

/* The solver's problem: the case (--case, --level, --cube, --steps,
 * --mesh) as the ns family's spec, and the points --param leaves (every
 * declared value of an axis it does not name). */
static fb_status read_solver_problem(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    int level = -1, cube = 0, steps = 0;
    FB_CHECK(fb_cli_int(args, "level", -1, &level));
    FB_CHECK(fb_cli_int(args, "cube", 0, &cube));
    FB_CHECK(fb_cli_int(args, "steps", 0, &steps));
    if (fb_cli_value(args, "steps") && steps < 1) FB_FAIL(FB_ERR_USAGE, "--steps: must be at least 1");
    fb_ns_problem_spec(c->solver_spec, sizeof c->solver_spec, fb_cli_value(args, "case"), level, cube, steps,
                       fb_cli_value(args, "mesh"));
    c->problem = c->solver_spec;
    FB_CHECK(
        fb_cli_param_space(args, fb_ns_axes, FB_NS_NAXES, 1, 1, "the solver", "flowbench solve --list", &c->space));
    c->rq.space = &c->space;
fail:
    return status;
}

/* Each solver point is a whole run: a search of more than
 * MAX_SOLVER_RUNS runs is refused unless --evals caps it or --param
 * narrows the axes. */
static fb_status check_solver_runs(const fb_parsed *args, const tune_cli *c)
{
    fb_status status = FB_OK;
    const int n = fb_search_space_size(&c->space), quarter = n / 4 + (n % 4 != 0);
    if (c->rq.search.budget > 0 || fb_cli_value(args, "param")) return FB_OK;
    if (c->rq.search.strategy == FB_STRATEGY_EXHAUSTIVE && n > MAX_SOLVER_RUNS)
        FB_FAIL(FB_ERR_USAGE,
                "tune: the solver's axes have %d points, more than %d solver runs: narrow them with --param "
                "NAME=V1,V2 (or cap the runs with --evals N)",
                n, MAX_SOLVER_RUNS);
    if (c->rq.search.strategy != FB_STRATEGY_EXHAUSTIVE && quarter > MAX_SOLVER_RUNS)
        FB_FAIL(FB_ERR_USAGE,
                "--strategy %s: a quarter of the solver's %d points is %d solver runs, more than %d: give --evals N "
                "or narrow the axes with --param NAME=V1,V2",
                fb_strategy_name(c->rq.search.strategy), n, quarter, MAX_SOLVER_RUNS);
fail:
    return status;
}

static fb_status read_options(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    const char *kernel = fb_cli_value(args, "kernel");
    FB_CHECK(read_family(args, &c->rq.family));
    const fb_family *f = c->rq.family;
    c->rq.progress = stderr;
    FB_CHECK(check_problem_options(args, f));
    c->problem = fb_cli_value(args, f->problem_key);
    if (is_solver(f)) FB_CHECK(read_solver_problem(args, c));
    if ((!c->problem || !kernel) && !fb_cli_value(args, "family"))
        FB_FAIL(FB_ERR_USAGE, "tune: --%s %s and --kernel K are required", f->problem_key, problem_metavar(f));
    if (!c->problem || !kernel)
        FB_FAIL(FB_ERR_USAGE, "tune --family %s: --%s %s and --kernel K are required", f->name, f->problem_key,
                problem_metavar(f));
    /* --kernel-file: its kernel joins the family; the solver's --param narrows its own axes */
    FB_CHECK(fb_cli_user_kernel(args, f, !is_solver(f), NULL));
    if ((c->rq.kernel = fb_family_kernel_find(f, kernel)) < 0)
        FB_FAIL(FB_ERR_USAGE, "--kernel: unknown kernel '%s' of %s (see %s)", kernel, f->name, list_hint(f));
    if (f->kernel(c->rq.kernel)->nparams == 0) /* one point: nothing to search, nothing to cache */
        FB_FAIL(FB_ERR_USAGE,
                "tune: %s has no parameters, so there is nothing to tune (flowbench %s --kernel %s measures it)",
                kernel, strcmp(f->name, "spmv") ? "grid" : "spmv", kernel);
    FB_CHECK(fb_cli_precision(args, &c->rq.is_double));
    FB_CHECK(read_measure(args, &c->rq));
    FB_CHECK(read_search(args, is_solver(f) ? FB_STRATEGY_EXHAUSTIVE : FB_STRATEGY_ANNEAL, &c->rq.search, &c->seeds));
    if (is_solver(f) && !fb_cli_value(args, "measure-point")) FB_CHECK(check_solver_runs(args, c));
    fb_cache_path(fb_cli_value(args, "cache"), c->cache_path, sizeof c->cache_path);
fail:
    return status;
}

/* The point's parameters, or "(no parameters)" for a peer. */
static void point_text(const fb_family_kernel *k, const fb_param_point *p, char *buf, size_t len)
{
    fb_family_point_text(k, p, buf, len);
    if (!k->nparams) snprintf(buf, len, "(no parameters)");
}

/* ---- the report ---- */

static void print_best(const tune_cli *c, const fb_tune_outcome *o)
{
    const fb_family_kernel *k = c->rq.family->kernel(c->rq.kernel);
    const fb_search_result *s = &o->search;
    char params[512];
    printf("tune %s on %s, %s, %s: %s, %d of %d points evaluated (%d pruned)\n", k->name, fb_target_info(c->rq.t)->id,
           c->rq.is_double ? "double" : "single", c->problem, fb_strategy_name(c->rq.search.strategy), s->evaluations,
           s->space_size, s->pruned);
    if (c->start.json) printf("  start: %s\n", c->start.text);
    if (!isfinite(s->best_cost)) {
        printf("  no point ran successfully\n");
        return;
    }
    point_text(k, &s->best, params, sizeof params);
    printf("  best: %s  %.4f ms", params, s->best_cost * 1e3);
    if (o->best_record) printf(", %.3f GB/s, checked", fb_json_num(o->best_record, "gbs"));
    printf("\n");
}

/* The default point's time: from the search history (a measured tune
 * always has it, tune.h), else from the replay now. */
static fb_status default_cost(const tune_cli *c, const fb_tune_outcome *o, const fb_param_point *start, double *seconds)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    const fb_search_eval *seen = fb_search_result_find(&o->search, start);
    if (seen) {
        *seconds = seen->cost;
        return FB_OK;
    }
    FB_CHECK(fb_tune_measure(&c->rq, c->rq.kernel, start, seconds, &rec));
fail:
    json_decref(rec);
    return status;
}

/* A record's samples (seconds) into a new array; *n their count. */
static double *samples_of(const json_t *rec, int *n)
{
    const json_t *a = json_object_get(json_object_get(rec, "stats"), "samples_s");
    double *v = malloc((json_array_size(a) + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < json_array_size(a); ++i)
        v[(*n)++] = json_number_value(json_array_get(a, i));
    return v;
}

/* Whether the best's gain over the default is beyond the measurement
 * noise: the default measured again beside the best's record, their
 * samples judged as compare judges two runs (a Mann-Whitney U test and a
 * change of at least 5%, compare.h). A 1.05x from one pair of medians may
 * be noise; this says which. */
static fb_status noise_verdict(const tune_cli *c, const fb_tune_outcome *o, const fb_param_point *def, char *buf,
                               size_t len)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    double t;
    int nd = 0, nb = 0;
    snprintf(buf, len, "%s", "");
    if (!o->best_record) return FB_OK; /* --replay: no samples */
    FB_CHECK(fb_tune_measure(&c->rq, c->rq.kernel, def, &t, &rec));
    double *d = samples_of(rec, &nd), *b = samples_of(o->best_record, &nb);
    fb_compare_options opt = fb_compare_defaults();
    if (d && b && nd && nb) {
        fb_comparison v = fb_compare_samples(d, nd, b, nb, 0, &opt);
        snprintf(buf, len, " (%s: the default measured again, %d vs %d samples, Mann-Whitney p %.2g)",
                 v.verdict == FB_FASTER ? "a gain beyond the noise"
                                        : "not a gain this evidence shows, which needs p < 0.01 and 5%",
                 nd, nb, v.test.p);
    }
    free(d);
    free(b);
fail:
    json_decref(rec);
    return status;
}

static fb_status print_versus_default(const tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    double def = NAN;
    char params[512], verdict[200] = "";
    fb_search_space space;
    fb_tune_space(c->rq.family->kernel(c->rq.kernel), &space);
    FB_CHECK(default_cost(c, o, &space.start, &def));
    point_text(c->rq.family->kernel(c->rq.kernel), &space.start, params, sizeof params);
    if (isfinite(def) && def > o->search.best_cost)
        FB_CHECK(noise_verdict(c, o, &space.start, verdict, sizeof verdict));
    if (isfinite(def))
        printf("  default %s: %.4f ms; the best is %.2fx faster%s\n", params, def * 1e3, def / o->search.best_cost,
               verdict);
    else
        printf("  default %s: %s\n", params, isnan(def) ? "cannot run here (pruned)" : "failed");
fail:
    return status;
}

static fb_status print_versus_variants(const tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    const fb_family *f = c->rq.family;
    printf("  other variants at their defaults:");
    for (int k = 0; k < f->kernel_count(); ++k) {
        fb_search_space space;
        json_t *rec = NULL;
        double t;
        if (k == c->rq.kernel) continue;
        fb_tune_space(f->kernel(k), &space);
        FB_CHECK(fb_tune_measure(&c->rq, k, &space.start, &t, &rec));
        json_decref(rec);
        if (isfinite(t))
            printf("\n    %-18s %.4f ms (the best is %.2fx faster)", f->kernel(k)->name, t * 1e3,
                   t / o->search.best_cost);
    }
    printf("\n");
fail:
    return status;
}

/* ---- the cache ---- */

/* The search's best, its runner-ups and the default measured again in
 * fresh processes (tune_confirm.h); stored, unless --no-cache, is what
 * that confirms: the winner, or the default kept. */
static fb_status confirm_and_store(const fb_parsed *args, const tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    fb_confirm_outcome confirmed;
    fb_search_space space;
    int rounds = 0, wanted = 0, size = 0;
    memset(&confirmed, 0, sizeof confirmed);
    FB_CHECK(fb_tune_cli_confirm_wanted(args, &rounds, &wanted));
    if (!wanted) return FB_OK;
    fb_tune_space(c->rq.family->kernel(c->rq.kernel), &space);
    FB_CHECK(
        fb_tune_cli_confirm(args, &c->rq, o, c->rq.space ? &c->rq.space->start : &space.start, rounds, &confirmed));
    if (fb_cli_flag(args, "no-cache")) goto fail;
    FB_CHECK(fb_tune_store(&c->rq, o, &confirmed, c->cache_path, &size));
    printf("  stored in %s (%d entries)%s\n", c->cache_path, size,
           confirmed.significant ? "" : ": the default, as the answer for this problem");
fail:
    fb_confirm_free(&confirmed);
    return status;
}

/* ---- replay: how close a strategy gets over many seeds ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Where the seeds' searches ended: each distinct best point, how many
 * seeds ended there, and its cost against the optimum. A noisy recording
 * flatters its own optimum (the least of many noisy costs), so
 * scripts/tune-verify.sh times these points against it again. */
typedef struct replay_end {
    fb_param_point point;
    int seeds;
    double ratio;
} replay_end;

static void tally_end(replay_end *ends, int *nends, const fb_param_point *p, double ratio)
{
    for (int i = 0; i < *nends; ++i)
        if (!memcmp(&ends[i].point, p, sizeof *p)) {
            ends[i].seeds++;
            return;
        }
    ends[(*nends)++] = (replay_end){*p, 1, ratio};
}

/* Most seeds first, then the better point: one order on every platform. */
static int more_seeds_first(const void *a, const void *b)
{
    const replay_end *x = a, *y = b;
    if (x->seeds != y->seeds) return (y->seeds > x->seeds) - (y->seeds < x->seeds);
    if (x->ratio != y->ratio) return (x->ratio > y->ratio) - (x->ratio < y->ratio);
    return memcmp(&x->point, &y->point, sizeof x->point);
}

static void print_ends(const tune_cli *c, replay_end *ends, int nends)
{
    const fb_family_kernel *k = c->rq.family->kernel(c->rq.kernel);
    char params[512];
    qsort(ends, (size_t)nends, sizeof *ends, more_seeds_first);
    for (int i = 0; i < nends; ++i) {
        point_text(k, &ends[i].point, params, sizeof params);
        printf("  ends: %s in %d seeds (%.3fx)\n", params, ends[i].seeds, ends[i].ratio);
    }
}

static fb_status replay_seeds(tune_cli *c, double optimum)
{
    fb_status status = FB_OK;
    double *ratio = NULL, evals = 0;
    replay_end *ends = NULL;
    int within = 0, nends = 0;
    FB_ALLOC(ratio, c->seeds, "replay ratios");
    FB_ALLOC(ends, c->seeds, "replay end points");
    c->rq.progress = NULL;
    for (int i = 0; i < c->seeds; ++i) {
        fb_tune_outcome o;
        fb_search_options base = c->rq.search;
        c->rq.search.seed = base.seed + (uint64_t)i;
        status = fb_tune_run(&c->rq, &o);
        c->rq.search = base;
        ratio[i] = o.search.best_cost / optimum;
        evals += o.search.evaluations;
        if (status == FB_OK) tally_end(ends, &nends, &o.search.best, ratio[i]);
        fb_tune_outcome_free(&o);
        FB_CHECK(status);
        within += ratio[i] <= 1.05;
    }
    qsort(ratio, (size_t)c->seeds, sizeof *ratio, compare_doubles);
    printf("  replay over %d seeds: %.1f evaluations on average; within 5%% of the optimum in %d (%.0f%%);"
           " median %.3fx, worst %.3fx the optimum\n",
           c->seeds, evals / c->seeds, within, 100.0 * within / c->seeds, ratio[c->seeds / 2], ratio[c->seeds - 1]);
    print_ends(c, ends, nends);
fail:
    free(ends);
    free(ratio);
    return status;
}

/* The optimum of the recorded sweep (every point of the space). */
static fb_status replay_optimum(tune_cli *c, double *optimum)
{
    fb_status status;
    fb_tune_outcome o;
    fb_tune_request ex = c->rq;
    ex.search.strategy = FB_STRATEGY_EXHAUSTIVE;
    ex.search.budget = 0;
    ex.progress = NULL;
    status = fb_tune_run(&ex, &o);
    *optimum = o.search.best_cost;
    if (status == FB_OK) {
        char params[512];
        point_text(c->rq.family->kernel(c->rq.kernel), &o.search.best, params, sizeof params);
        printf("  recorded optimum: %.4f ms over %d evaluable points of %d: %s\n", *optimum * 1e3, o.search.evaluations,
               o.search.space_size, params);
    }
    fb_tune_outcome_free(&o);
    return status;
}

/* ---- the command ---- */

static fb_status open_inputs(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    const char *backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    FB_CHECK(read_options(args, c));
    if (!fb_cli_flag(args, "no-cache") && !fb_cli_value(args, "replay"))
        FB_CHECK(fb_cache_check(c->cache_path)); /* stored into after the search: refused before it */
    if (fb_cli_value(args, "replay")) FB_CHECK(fb_results_load(fb_cli_value(args, "replay"), &c->replay));
    c->rq.replay = c->replay;
    FB_CHECK(c->rq.family->problem_open(c->problem, &c->rq.problem));
    FB_CHECK(fb_target_open(backend, &c->rq.t));
    FB_CHECK(fb_tune_prior_start(args, c->cache_path, &c->rq, &c->start)); /* a bad prior: before --out is begun */
    if (fb_cli_value(args, "out") && !c->replay)
        FB_CHECK(fb_results_open(fb_cli_value(args, "out"), "tune", fb_target_info(c->rq.t), 1, &c->rq.out));
fail:
    return status;
}

static fb_status report(const fb_parsed *args, tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    print_best(c, o);
    if (!isfinite(o->search.best_cost))
        FB_FAIL(FB_ERR_CHECK, "tune: no point of %s ran successfully", c->rq.family->kernel(c->rq.kernel)->name);
    FB_CHECK(print_versus_default(c, o));
    if (!fb_cli_flag(args, "no-variants") && c->rq.family->kernel_count() > 1) FB_CHECK(print_versus_variants(c, o));
    if (c->replay) {
        double optimum;
        FB_CHECK(replay_optimum(c, &optimum));
        printf("  this search: %.3fx the optimum\n", o->search.best_cost / optimum);
        if (c->seeds > 1) FB_CHECK(replay_seeds(c, optimum));
    } else if (o->best_record) {
        FB_CHECK(confirm_and_store(args, c, o));
    }
fail:
    return status;
}

/* ---- tune merge and tune export ---- */

static int is(const fb_parsed *args, const char *verb)
{
    return args->npositional > 0 && strcmp(args->positional[0], verb) == 0;
}

/* `tune merge OUT IN...` or `tune export [--cache FILE] --header FILE.h | --json
 * FILE`: the tuning cache merged across nodes and shipped (tune/cache.h). */
static int db_wanted(const fb_parsed *args) { return is(args, "merge") || is(args, "export"); }

/* The options of a search mean nothing to merge and export: refused, not ignored. */
static fb_status only_options(const fb_parsed *args, const char *const *allowed)
{
    fb_status status = FB_OK;
    for (int i = 0; i < args->noptions; ++i) {
        int ok = 0;
        for (const char *const *a = allowed; *a; ++a)
            ok |= strcmp(args->options[i].name, *a) == 0;
        if (args->count[i] && !ok)
            FB_FAIL(FB_ERR_USAGE, "tune %s: --%s does not apply (see flowbench tune --help)", args->positional[0],
                    args->options[i].name);
    }
fail:
    return status;
}

static fb_status run_merge(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_cache_merge_counts n = {0};
    FB_CHECK(only_options(args, (const char *const[]){NULL}));
    if (args->npositional < 3) FB_FAIL(FB_ERR_USAGE, "tune merge: usage: tune merge OUT IN... (at least one IN)");
    const char *out = args->positional[1];
    for (int i = 2; i < args->npositional; ++i) {
        const fb_named_file input = {"IN", args->positional[i]}, output = {"OUT", out};
        if (strcmp(args->positional[i], out) == 0 || fb_files_check_distinct("tune merge", &input, 1, &output, 1))
            FB_FAIL(FB_ERR_USAGE, "tune merge: %s is both the output and an input (the output's entries are kept)",
                    args->positional[i]);
    }
    FB_CHECK(fb_cache_merge_files(out, args->positional + 2, args->npositional - 2, stdout, &n));
    printf("merged %d cache%s into %s: %d added, %d replaced by a faster point, %d kept\n", args->npositional - 2,
           args->npositional == 3 ? "" : "s", out, n.added, n.replaced, n.kept);
fail:
    return status;
}

static fb_status run_export(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_tuning_cache *c = NULL;
    char path[1024];
    const char *header = fb_cli_value(args, "header"), *json = fb_cli_value(args, "json");
    FB_CHECK(only_options(args, (const char *const[]){"cache", "header", "json", NULL}));
    if (args->npositional != 1) FB_FAIL(FB_ERR_USAGE, "tune export takes no files: --cache FILE names the cache");
    if (!header == !json) FB_FAIL(FB_ERR_USAGE, "tune export: give one of --header FILE.h or --json FILE");
    fb_cache_path(fb_cli_value(args, "cache"), path, sizeof path);
    /* the same file by any spelling (./c.json, an absolute path, the
     * default cache's) is the cache itself: never overwritten */
    const fb_named_file input = {"--cache", path}, output = {header ? "--header" : "--json", header ? header : json};
    FB_CHECK(fb_files_check_distinct("tune export", &input, 1, &output, 1));
    /* a missing cache is a mistyped --cache, not an empty one to ship */
    if (access(path, F_OK) != 0)
        FB_FAIL(FB_ERR_INPUT, "tune export: %s: no tuning cache there (%s)", path,
                fb_cli_value(args, "cache") ? "check --cache" : "tune stores one; --cache FILE names another");
    FB_CHECK(fb_cache_load(path, &c));
    FB_CHECK(header ? fb_cache_export_header(c, header) : fb_cache_export_json(c, json));
    printf("exported %d entries of %s to %s\n", fb_cache_size(c), path, header ? header : json);
fail:
    fb_cache_free(c);
    return status;
}

static int db_run(const fb_parsed *args)
{
    fb_status status = is(args, "merge") ? run_merge(args) : run_export(args);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

/* ---- the command ---- */

/* What tune reads and writes: --out is none of its inputs, nor the cache
 * it stores the best point in (fb_cli_check_files). */
static fb_status check_files(const fb_parsed *args)
{
    static const char *const inputs[] = {"matrix", "kernel-file", "prior", "replay", NULL};
    char cache[1024];
    fb_cache_path(fb_cli_value(args, "cache"), cache, sizeof cache);
    const fb_named_file stored = {fb_cli_value(args, "cache") ? "--cache" : "the tuning cache", cache};
    int writes_cache = !fb_cli_flag(args, "no-cache") && !fb_cli_value(args, "replay");
    return fb_cli_check_files(args, "tune", inputs, (const char *const[]){"out", NULL}, NULL, 0, &stored, writes_cache);
}

static int run_tune(const fb_parsed *args)
{
    fb_status status = FB_OK;
    tune_cli c;
    fb_tune_outcome o;
    if (db_wanted(args)) return db_run(args);
    if (fb_cli_flag(args, "fit-prior") || args->npositional) return fb_tune_prior_fit(args);
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    FB_CHECK(check_files(args));
    FB_CHECK(open_inputs(args, &c));
    if (fb_cli_value(args, "measure-point")) {
        FB_CHECK(fb_tune_cli_measure_point(args, &c.rq));
        goto fail;
    }
    fprintf(stderr, "tuning %s (%s)...\n", c.rq.family->kernel(c.rq.kernel)->name,
            c.replay ? "costs from the recorded sweep" : "each point measured and checked");
    FB_CHECK(fb_tune_run(&c.rq, &o));
    FB_CHECK(report(args, &c, &o));
fail:
    fb_tune_outcome_free(&o);
    fb_results_close(c.rq.out);
    fb_target_close(c.rq.t);
    if (c.rq.problem) c.rq.family->problem_close(c.rq.problem);
    fb_results_set_free(c.replay);
    fb_tune_start_free(&c.start);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

const fb_command fb_cmd_tune = {
    .name = "tune",
    .summary = "search one kernel's parameter space on one problem; store the best in the tuning cache",
    .usage = "tune --matrix SRC --kernel K [--backend B] [--strategy S] [--evals N] [--start prior|default] "
             "[--prior FILE] [--replay FILE [--seeds N]]\n"
             "       tune --family heat2d|fv-surface --grid SPEC --kernel K [--backend B] [--strategy S] ...\n"
             "       tune --case CASE [--level L | --cube N] --kernel ns --backend opencl|cuda [--param NAME=V1,V2]... "
             "[--steps N] [--strategy S] [--evals N]\n"
             "       tune --fit-prior SWEEP.jsonl... [--prior FILE]\n"
             "       tune merge OUT IN...\n"
             "       tune export [--cache FILE] --header FILE.h | --json FILE",
    .description = "Searches the kernel's declared parameter space (flowbench spmv --list, grid --list)\n"
                   "on one problem of its family: --matrix SRC for spmv (the default --family),\n"
                   "--grid SPEC for heat2d and fv-surface. Strategies: exhaustive (every point, the\n"
                   "paper's start-up brute force), random (--evals points) or anneal (simulated\n"
                   "annealing over neighbouring values from the default; --evals by default a\n"
                   "quarter of the space). Every point is measured (--budget seconds of sampling)\n"
                   "and checked; points the device or the problem cannot take are pruned without\n"
                   "compiling and do not count. Prints the best point, its speedup over the\n"
                   "kernel's default and over the other variants at their defaults, and stores it\n"
                   "in the tuning cache under (device fingerprint, kernel, precision, the problem's\n"
                   "signature: a matrix's, or a grid's nx, ny, nz and stretch) for spmv, grid and\n"
                   "sweep --tuned. --replay FILE takes each point's cost from a recorded sweep\n"
                   "(nothing runs, nothing is cached) to study a strategy.\n"
                   "\n"
                   "--case CASE --kernel ns (the family ns) tunes the solver's device kernels on\n"
                   "opencl or cuda: each point is a whole run of the case (--steps N per run, else\n"
                   "to its end time) checked against the OpenMP baseline's u and p, over the --param\n"
                   "lists (an axis not named: every declared value); exhaustive by default, random\n"
                   "and anneal search the same points, --evals N caps the runs. The best correct\n"
                   "point is stored under kernel \"ns\" and the mesh's signature for solve --tuned.\n"
                   "\n"
                   "anneal starts from the prior's prediction for the matrix when a prior fits\n"
                   "(--start prior), else from the kernel's default (--start default): the point\n"
                   "best on the nearest recorded matrices of the kernel (rows, entries per row and\n"
                   "their spread, block size). --fit-prior SWEEP.jsonl... fits the prior to\n"
                   "recorded sweeps and writes it to --prior FILE (default tuning-prior.json beside\n"
                   "the cache). With --replay the replayed matrix is left out of the prior.\n"
                   "\n"
                   "tune merge OUT IN... merges the tuning caches of many nodes into OUT (made if\n"
                   "missing; under its lock): for each device, kernel, precision and signature the\n"
                   "point of the smallest median stays, with \"from\" naming its file, and every\n"
                   "disagreement is printed. tune export writes the cache (--cache) as a C header\n"
                   "(--header: C11 and C++17, flowbench_tuned(device, arch, vendor, type, kernel,\n"
                   "precision, size) returns the -D defines of the nearest device and problem size,\n"
                   "or NULL) or as a versioned JSON database (--json). --tuned falls back from this\n"
                   "device and driver to the same device under another driver, the same\n"
                   "architecture, the same vendor and type, then the defaults, and says which\n"
                   "(docs/tuning.md, \"Shipping your settings\").",
    .options = options,
    .min_positional = 0,
    .max_positional = 1024, /* --fit-prior's sweeps */
    .run = run_tune,
};
