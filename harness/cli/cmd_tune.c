/* cmd_tune.c - `flowbench tune`: searches one kernel's parameter space on
 * one problem (a matrix for spmv, a grid for heat2d and fv-surface) and
 * backend through its family's descriptor, reports the best point against
 * the kernel's default and the other variants, and stores it in the
 * tuning cache under the problem's signature. With --replay it searches a
 * recorded exhaustive sweep instead, to measure how close a strategy gets
 * and with how many evaluations. The solver's kernels (--case CASE
 * --kernel ns: the family ns) are searched the same way, each point a
 * whole run of the case (harness/solver/ns_family_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../results/records/reader.h"
#include "../tune/cache.h"
#include "../tune/tune.h"
#include "user_kernel_cli.h"
#include "tune_confirm.h"
#include "tune_case.h"
#include "tune_db.h"
#include "tune_prior.h"
#include "../tune/findings.h"

/* A search measures many points: each is sampled shorter and to a looser
 * spread than a single measurement (--budget, --spread). */
#define BUDGET_S 0.5
#define SPREAD_PCT 2

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
    {"strategy", "S", "exhaustive, random, anneal or bayes (default anneal; --case: exhaustive, as solve --tune)", 0},
    {"evals", "N",
     "evaluations at most (default: exhaustive all, others a quarter of the space); a measured search that did "
     "not run the default point runs it last",
     0},
    {"seed", "N", "seed of random, anneal and bayes (default 1)", 0},
    {"objective", "O",
     "what the search minimises: time (default), energy (joules per run), edp (energy x time), or time,energy "
     "(minimise time, print the Pareto front of time and energy); energy needs a device that measures it",
     0},
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
    {"start", "S",
     "anneal's and bayes' first point: prior (the prior's prediction when one fits; the default) or default", 0},
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
    return fb_family_is_grid(f) ? "flowbench grid --list" : "flowbench spmv --list";
}

/* A family's problem option is named after its record's problem key:
 * --matrix SRC for spmv, --grid SPEC for heat2d and fv-surface. */
static const char *problem_metavar(const fb_family *f) { return fb_family_is_grid(f) ? "SPEC" : "SRC"; }

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

/* The options that belong to the solver (--case) and to the other family's
 * problem, refused with what the family takes instead. */
static fb_status check_problem_options(const fb_parsed *args, const fb_family *f)
{
    fb_status status = FB_OK;
    static const char *const solver_only[] = {"case", "level", "cube", "mesh", "steps", NULL};
    const char *given = fb_cli_first_given(args, solver_only);
    const int grid = fb_family_is_grid(f);
    if (is_solver(f)) return fb_tune_case_check_options(args);
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

static fb_status read_options(const fb_parsed *args, tune_cli *c)
{
    fb_status status = FB_OK;
    const char *kernel = fb_cli_value(args, "kernel");
    FB_CHECK(read_family(args, &c->rq.family));
    const fb_family *f = c->rq.family;
    c->rq.progress = stderr;
    FB_CHECK(check_problem_options(args, f));
    c->problem = fb_cli_value(args, f->problem_key);
    if (is_solver(f)) {
        FB_CHECK(fb_tune_case_problem(args, c->solver_spec, sizeof c->solver_spec, &c->space));
        c->problem = c->solver_spec;
        c->rq.space = &c->space;
    }
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
    if (fb_cli_value(args, "objective"))
        FB_CHECK(fb_objective_parse(fb_cli_value(args, "objective"), &c->rq.objective, &c->rq.pareto));
    if (is_solver(f) && !fb_cli_value(args, "measure-point"))
        FB_CHECK(fb_tune_case_check_runs(args, &c->rq.search, &c->space));
    fb_cache_path(fb_cli_value(args, "cache"), c->cache_path, sizeof c->cache_path);
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

static fb_status report(const fb_parsed *args, tune_cli *c, fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_tune_print_findings(&c->rq, c->problem, &c->start, o, fb_cli_flag(args, "no-variants"), c->seeds));
    if (!c->replay && o->best_record) FB_CHECK(confirm_and_store(args, c, o));
fail:
    return status;
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
    if (fb_tune_db_wanted(args)) return fb_tune_db_run(args);
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
                   "paper's start-up brute force), random (--evals points), anneal (simulated\n"
                   "annealing over neighbouring values from the default) or bayes (Bayesian\n"
                   "optimisation: a Gaussian process of log time, the next point the one of\n"
                   "highest expected improvement); --evals by default a quarter of the space.\n"
                   "Every point is measured (--budget seconds of sampling)\n"
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
                   "lists (an axis not named: every declared value); exhaustive by default,\n"
                   "random, anneal and bayes search the same points, --evals N caps the runs. The\n"
                   "best correct point is stored under kernel \"ns\" and the mesh's signature for\n"
                   "solve --tuned.\n"
                   "\n"
                   "anneal and bayes start from the prior's prediction for the matrix when a prior\n"
                   "fits (--start prior), else from the kernel's default (--start default): the\n"
                   "point best on the nearest recorded matrices of the kernel (rows, entries per\n"
                   "row and their spread, block size); bayes also takes the prior's expected times\n"
                   "as its model's mean. --fit-prior SWEEP.jsonl... fits the prior to\n"
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
    .measures = 1,
    .guarded = 1,
};
