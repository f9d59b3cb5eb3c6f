/* cmd_tune.c - `flowbench tune`: searches one kernel's parameter space on
 * one matrix and backend, reports the best point against the kernel's
 * default and the other variants, and stores it in the tuning cache.
 * With --replay it searches a recorded exhaustive sweep instead, to
 * measure how close a strategy gets and with how many evaluations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "../results/reader.h"
#include "../tune/cache.h"
#include "../tune/tune.h"
#include "spmv/spmv.h"
#include "tune_prior.h"

/* A search measures many points: each is sampled shorter and to a looser
 * spread than a single measurement (--budget, --spread). */
#define BUDGET_S 0.5
#define SPREAD_PCT 2

static const fb_option options[] = {
    {"matrix", "SRC", "matrix file or gen: spec (required)", 0},
    {"kernel", "K", "kernel to tune (required; flowbench spmv --list)", 0},
    {"backend", "B", "backend[:device] (default openmp)", 0},
    {"precision", "P", "double or single (default double)", 0},
    {"strategy", "S", "exhaustive, random or anneal (default anneal)", 0},
    {"evals", "N", "evaluations at most (default: exhaustive all, others a quarter of the space)", 0},
    {"seed", "N", "seed of random and anneal (default 1)", 0},
    {"abandon", "K", "stop sampling a point after one sample K x slower than the best (default 4, 0 never)", 0},
    FB_CLI_MEASURE_OPTIONS(BUDGET_S, SPREAD_PCT),
    {"out", "FILE", "append every evaluation's record to this JSON Lines file", 0},
    {"cache", "FILE", "tuning cache (default $FLOWBENCH_TUNING_CACHE or ~/.cache/flowbench/tuning.json)", 0},
    {"no-cache", NULL, "do not store the best point", 0},
    {"no-variants", NULL, "do not measure the other variants for comparison", 0},
    {"replay", "FILE", "take costs from a recorded sweep of this kernel instead of measuring", 0},
    {"seeds", "N", "with --replay: repeat the search for N seeds and report how often it gets within 5%", 0},
    {"start", "S", "anneal's first point: prior (the prior's prediction when one fits; the default) or default", 0},
    {"prior", "FILE", "the start-point prior (default tuning-prior.json beside the cache)", 0},
    {"fit-prior", NULL, "fit a prior to the SWEEP.jsonl files given and write it (--prior), instead of tuning", 0},
    {NULL, NULL, NULL, 0},
};

typedef struct tune_cli {
    fb_tune_request rq;
    char cache_path[1024];
    const char *matrix;
    int seeds;
    fb_results_set *replay;
    fb_tune_start start;
} tune_cli;

static fb_status read_measure(const fb_parsed *args, fb_tune_request *rq)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_cli_measure(args, BUDGET_S, SPREAD_PCT, &rq->measure));
    FB_CHECK(fb_cli_double(args, "abandon", 4.0, &rq->abandon_factor));
    if (rq->abandon_factor != 0 && rq->abandon_factor <= 1) FB_FAIL(FB_ERR_USAGE, "--abandon must be above 1 (or 0)");
fail:
    return status;
}

static fb_status read_search(const fb_parsed *args, fb_search_options *s, int *seeds)
{
    fb_status status = FB_OK;
    int seed = 1;
    s->strategy = FB_STRATEGY_ANNEAL;
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

static fb_status read_options(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    const char *kernel = fb_cli_value(args, "kernel"), *prec = fb_cli_value(args, "precision");
    c->rq.family = &fb_family_spmv; /* the cache signature reads matrix fields (issue 21: every family) */
    c->rq.progress = stderr;
    c->matrix = fb_cli_value(args, "matrix");
    if (!c->matrix || !kernel) FB_FAIL(FB_ERR_USAGE, "tune: --matrix SRC and --kernel K are required");
    if (!strcmp(kernel, "ns") || !strncmp(kernel, "ns_", 3)) /* a family of its own, tuned as a whole solver run */
        FB_FAIL(FB_ERR_USAGE, "tune: the solver's kernels (ns) are tuned by flowbench solve CASE --backend "
                              "opencl|cuda --tune [--param NAME=V1,V2]");
    if ((c->rq.kernel = fb_family_kernel_find(c->rq.family, kernel)) < 0)
        FB_FAIL(FB_ERR_USAGE, "--kernel: unknown kernel '%s' (see flowbench spmv --list)", kernel);
    if (c->rq.family->kernel(c->rq.kernel)->nparams == 0) /* one point: nothing to search, nothing to cache */
        FB_FAIL(FB_ERR_USAGE,
                "tune: %s has no parameters, so there is nothing to tune (flowbench spmv --kernel %s "
                "measures it)",
                kernel, kernel);
    if (prec && strcmp(prec, "double") && strcmp(prec, "single"))
        FB_FAIL(FB_ERR_USAGE, "--precision: '%s' is not double or single", prec);
    c->rq.is_double = !prec || !strcmp(prec, "double");
    FB_CHECK(read_measure(args, &c->rq));
    FB_CHECK(read_search(args, &c->rq.search, &c->seeds));
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
           c->rq.is_double ? "double" : "single", c->matrix, fb_strategy_name(c->rq.search.strategy), s->evaluations,
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

/* The default point's time: from the search history, else measured now. */
static fb_status default_cost(const tune_cli *c, const fb_tune_outcome *o, const fb_param_point *start, double *seconds)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    for (int i = 0; i < o->search.nhistory; ++i)
        if (!memcmp(&o->search.history[i].point, start, sizeof *start)) {
            *seconds = o->search.history[i].cost;
            return FB_OK;
        }
    FB_CHECK(fb_tune_measure(&c->rq, c->rq.kernel, start, seconds, &rec));
fail:
    json_decref(rec);
    return status;
}

static fb_status print_versus_default(const tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    double def = NAN;
    char params[512];
    fb_search_space space;
    fb_tune_space(c->rq.family->kernel(c->rq.kernel), &space);
    FB_CHECK(default_cost(c, o, &space.start, &def));
    point_text(c->rq.family->kernel(c->rq.kernel), &space.start, params, sizeof params);
    if (isfinite(def))
        printf("  default %s: %.4f ms; the best is %.2fx faster\n", params, def * 1e3, def / o->search.best_cost);
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

static fb_status store_best(const tune_cli *c, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    int size = 0;
    const json_t *matrix = c->rq.family->problem_json(c->rq.problem);
    fb_signature sig;
    char device[1024], date[32];
    time_t now = time(NULL);
    json_t *entry = NULL;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FB_CHECK(fb_signature_from_json(matrix, &sig));
    fb_device_fingerprint(fb_target_info(c->rq.t), device, sizeof device);
    entry = json_pack("{s:s, s:s, s:s, s:o, s:O, s:f, s:f, s:s, s:s, s:i, s:i, s:s}", "device", device, "kernel",
                      c->rq.family->kernel(c->rq.kernel)->name, "precision", c->rq.is_double ? "double" : "single",
                      "signature", fb_signature_json(&sig), "params", json_object_get(o->best_record, "params"),
                      "median_s", o->search.best_cost, "gbs", fb_json_num(o->best_record, "gbs"), "matrix",
                      fb_json_str(matrix, "name"), "strategy", fb_strategy_name(c->rq.search.strategy), "evaluations",
                      o->search.evaluations, "space_size", o->search.space_size, "date", date);
    if (!entry) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the cache entry");
    FB_CHECK(fb_cache_store(c->cache_path, entry, &size));
    printf("  stored in %s (%d entries)\n", c->cache_path, size);
fail:
    json_decref(entry);
    return status;
}

/* ---- replay: how close a strategy gets over many seeds ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static fb_status replay_seeds(tune_cli *c, double optimum)
{
    fb_status status = FB_OK;
    double *ratio = NULL, evals = 0;
    int within = 0;
    FB_ALLOC(ratio, c->seeds, "replay ratios");
    c->rq.progress = NULL;
    for (int i = 0; i < c->seeds; ++i) {
        fb_tune_outcome o;
        fb_search_options base = c->rq.search;
        c->rq.search.seed = base.seed + (uint64_t)i;
        status = fb_tune_run(&c->rq, &o);
        c->rq.search = base;
        ratio[i] = o.search.best_cost / optimum;
        evals += o.search.evaluations;
        fb_tune_outcome_free(&o);
        FB_CHECK(status);
        within += ratio[i] <= 1.05;
    }
    qsort(ratio, (size_t)c->seeds, sizeof *ratio, compare_doubles);
    printf("  replay over %d seeds: %.1f evaluations on average; within 5%% of the optimum in %d (%.0f%%);"
           " median %.3fx, worst %.3fx the optimum\n",
           c->seeds, evals / c->seeds, within, 100.0 * within / c->seeds, ratio[c->seeds / 2], ratio[c->seeds - 1]);
fail:
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
    printf("  recorded optimum: %.4f ms over %d evaluable points of %d\n", *optimum * 1e3, o.search.evaluations,
           o.search.space_size);
    fb_tune_outcome_free(&o);
    return status;
}

/* ---- the command ---- */

static fb_status open_inputs(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    const char *backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    FB_CHECK(read_options(args, c));
    if (fb_cli_value(args, "replay")) FB_CHECK(fb_results_load(fb_cli_value(args, "replay"), &c->replay));
    c->rq.replay = c->replay;
    FB_CHECK(c->rq.family->problem_open(c->matrix, &c->rq.problem));
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
    if (!fb_cli_flag(args, "no-variants")) FB_CHECK(print_versus_variants(c, o));
    if (c->replay) {
        double optimum;
        FB_CHECK(replay_optimum(c, &optimum));
        printf("  this search: %.3fx the optimum\n", o->search.best_cost / optimum);
        if (c->seeds > 1) FB_CHECK(replay_seeds(c, optimum));
    } else if (!fb_cli_flag(args, "no-cache") && o->best_record) {
        FB_CHECK(store_best(c, o));
    }
fail:
    return status;
}

static int run_tune(const fb_parsed *args)
{
    fb_status status = FB_OK;
    tune_cli c;
    fb_tune_outcome o;
    if (fb_cli_flag(args, "fit-prior") || args->npositional) return fb_tune_prior_fit(args);
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    FB_CHECK(open_inputs(args, &c));
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
    return status == FB_OK ? 0 : fb_cli_report(status);
}

const fb_command fb_cmd_tune = {
    .name = "tune",
    .summary = "search one kernel's parameter space on one matrix; store the best in the tuning cache",
    .usage = "tune --matrix SRC --kernel K [--backend B] [--strategy S] [--evals N] [--start prior|default] "
             "[--prior FILE] [--replay FILE [--seeds N]] | tune --fit-prior SWEEP.jsonl... [--prior FILE]",
    .description = "Searches the kernel's declared parameter space (flowbench spmv --list) with a\n"
                   "strategy: exhaustive (every point, the paper's start-up brute force), random\n"
                   "(--evals points) or anneal (simulated annealing over neighbouring values from\n"
                   "the default; --evals by default a quarter of the space). Every point is measured\n"
                   "(--budget seconds of sampling) and checked; points the device or the matrix\n"
                   "cannot take are pruned without compiling and do not count. Prints the best\n"
                   "point, its speedup over the kernel's default and over the other variants at\n"
                   "their defaults, and stores it in the tuning cache under (device fingerprint,\n"
                   "kernel, precision, matrix signature) for spmv/sweep --tuned. --replay FILE takes\n"
                   "each point's cost from a recorded sweep (nothing runs, nothing is cached) to\n"
                   "study a strategy.\n\n"
                   "anneal starts from the prior's prediction for the matrix when a prior fits\n"
                   "(--start prior), else from the kernel's default (--start default): the point\n"
                   "best on the nearest recorded matrices of the kernel (rows, entries per row and\n"
                   "their spread, block size). --fit-prior SWEEP.jsonl... fits the prior to\n"
                   "recorded sweeps and writes it to --prior FILE (default tuning-prior.json beside\n"
                   "the cache). With --replay the replayed matrix is left out of the prior.",
    .options = options,
    .min_positional = 0,
    .max_positional = 1024, /* --fit-prior's sweeps */
    .run = run_tune,
};
