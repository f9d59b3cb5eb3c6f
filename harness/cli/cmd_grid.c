/* cmd_grid.c - `flowbench grid`: one configuration of a grid family
 * (heat2d, fv-surface) on one grid and one backend, measured and checked
 * through the same family interface the sweep uses (harness/bench/family.h),
 * so a point seen in a sweep can be rerun and inspected alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../results/presentation/catalogue.h"
#include "../results/presentation/record_text.h"
#include "../core/comm.h"
#include "../results/records/reader.h"
#include "../bench/record.h"
#include "../results/records/results.h"
#include "../tune/tuned.h"
#include "families.h"
#include "grid/heat2d.h"
#include "plan.h"
#include "processes.h"
#include "core/guard.h"
#include "user_kernel_cli.h"

#define DEFAULT_REPEATS 3
#define MAX_REPEATS 1000

static const fb_option options[] = {
    {"family", "F", "grid family: heat2d or fv-surface (required unless --list)", 0},
    {"grid", "SPEC",
     "grid:NXxNY[:stretch=S] (heat2d) or grid:NXxNYxNZ (fv-surface) (required); repeat it (or all) for a plan of "
     "several",
     1},
    {"kernel", "K", "kernel of the family (default: its first; see --list); repeat it (or all) for a plan of several",
     1},
    {"param", "NAME=V[,V...]",
     "kernel parameter (default: the kernel's default); a list, or several --param, plans their cross product", 1},
    {"zip", NULL, "advance the --param lists together (equal lengths) instead of their cross product", 0},
    {"dry-run", NULL, "print the plan, each configuration with run or pruned and the reason; measure nothing", 0},
    {"backend", "B", "backend[:device] (default openmp)", 0},
    {"precision", "P", "double or single (default double)", 0},
    FB_CLI_STREAM_OPTIONS,
    FB_CLI_MEASURE_OPTIONS(FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT),
    {"decomp", "D",
     "heat2d on several ranks (mpirun -np P): 1d (row strips, the default under mpirun), 2d (the PXxPY = P with the "
     "shortest cut) or PXxPY; given without mpirun, one rank runs the decomposed code",
     0},
    {"repeats", "N",
     "decomposed runs: timed transients, the median one reported (default " FB_CLI_STR(DEFAULT_REPEATS) ")", 0},
    FB_CLI_OPTION_PROCESSES,
    {"out", "FILE", "append a header and the record to this JSON Lines file", 0},
    {"json", NULL, "print the record as JSON on stdout", 0},
    {"tuned", NULL, "take the kernel's parameters from the tuning cache (exact, nearest grid signature, else defaults)",
     0},
    {"cache", "FILE",
     "tuning cache for --tuned (default $FLOWBENCH_TUNING_CACHE, else $FLOWBENCH_CACHE_DIR/tuning.json, else "
     "~/.cache/flowbench/tuning.json)",
     0},
    {"list", NULL, "list the grid families, their kernels and parameters, then exit", 0},
    FB_CLI_USER_KERNEL_OPTIONS,
    {NULL, NULL, NULL, 0},
};

/* What only one configuration (or a decomposed run) can have. */
static const char *const single_only[] = {"json", "decomp", "repeats", "stream-max-age", NULL};
static const fb_cli_plan_kind plan_kind = {.command = "grid", .problem_option = "grid", .single_only = single_only};

/* --list --family F --kernel-file FILE --kernel NAME lists that kernel
 * too, under its family. */
static fb_status list_kernel_file(const fb_parsed *args)
{
    fb_status status = FB_OK;
    const char *name = fb_cli_value(args, "family");
    const fb_family *f = name ? fb_family_find(name) : NULL;
    if (!fb_cli_value(args, "kernel-file")) return FB_OK;
    if (!f || !fb_family_is_grid(f))
        FB_FAIL(FB_ERR_USAGE, "--list --kernel-file: give --family heat2d or fv-surface, the family the file joins");
    FB_CHECK(fb_cli_user_kernel(args, f, 0, NULL));
fail:
    return status;
}

typedef struct grid_cli {
    const fb_family *family;
    fb_family_run run;
    const char *backend, *spec;
} grid_cli;

static fb_status read_kernel(const fb_parsed *args, grid_cli *c)
{
    fb_status status = FB_OK;
    const char *name = fb_cli_value(args, "kernel");
    const char *const *params;
    int nparams = fb_cli_values(args, "param", &params);
    FB_CHECK(fb_cli_user_kernel(args, c->family, 0, NULL));
    if (fb_cli_value(args, "kernel-file")) nparams = 0; /* they declared its axes: this run takes the defaults */
    c->run.kernel = name ? fb_family_kernel_find(c->family, name) : 0;
    if (c->run.kernel < 0)
        FB_FAIL(FB_ERR_USAGE, "--kernel: %s has no kernel '%s' (see flowbench grid --list)", c->family->name, name);
    const fb_family_kernel *k = c->family->kernel(c->run.kernel);
    c->run.point = fb_param_default_point(k->params, k->nparams);
    for (int i = 0; i < nparams; ++i)
        FB_CHECK(fb_cli_param(k->name, k->params, k->nparams, params[i], "flowbench grid --list", &c->run.point));
fail:
    return status;
}

static fb_status read_options(const fb_parsed *args, grid_cli *c)
{
    fb_status status = FB_OK;
    const char *fam = fb_cli_value(args, "family");
    memset(c, 0, sizeof *c);
    if (!fam) FB_FAIL(FB_ERR_USAGE, "grid: --family F is required (heat2d, fv-surface; see --list)");
    if (!strcmp(fam, "ns"))
        FB_FAIL(FB_ERR_USAGE, "grid: the solver's kernels (ns) run with flowbench solve CASE --backend opencl|cuda "
                              "[--param NAME=V1,V2] [--tune], sweep in a suite's solver: cases, tune with tune --case");
    c->family = fb_family_find(fam);
    if (!c->family || !fb_family_is_grid(c->family))
        FB_FAIL(FB_ERR_USAGE, "--family: '%s' is not a grid family (see flowbench grid --list)", fam);
    if (!(c->spec = fb_cli_value(args, "grid"))) FB_FAIL(FB_ERR_USAGE, "grid: --grid SPEC is required");
    FB_CHECK(fb_cli_precision(args, &c->run.is_double));
    c->backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    FB_CHECK(read_kernel(args, c));
    FB_CHECK(fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &c->run.measure));
fail:
    return status;
}

/* ---- decomposed heat2d (several ranks, or --decomp) ---- */

/* The single-device measurement's options mean nothing to a decomposed
 * run (it times whole transients): refused rather than ignored. */
static fb_status refuse_measure_options(const fb_parsed *args)
{
    fb_status status = FB_OK;
    static const char *const names[] = {"min-samples", "max-samples",    "spread", "budget",
                                        "stream-size", "stream-max-age", NULL};
    const char *given = fb_cli_first_given(args, names);
    if (given)
        FB_FAIL(FB_ERR_USAGE,
                "--%s: a decomposed run times --repeats whole transients; the single-device measurement options do "
                "not apply",
                given);
fail:
    return status;
}

/* The options and the grid: every rank reads the same ones, so an error
 * here is met by all ranks before any of them waits for another. */
static fb_status read_decomposed(const fb_parsed *args, grid_cli *c, fb_heat2d_problem **problem,
                                 fb_heat2d_dist_config *cfg)
{
    fb_status status = FB_OK;
    const char *text = fb_cli_value(args, "decomp") ? fb_cli_value(args, "decomp") : "1d";
    memset(cfg, 0, sizeof *cfg);
    FB_CHECK(read_options(args, c));
    if (strcmp(c->family->name, "heat2d") != 0)
        FB_FAIL(FB_ERR_USAGE,
                "grid: %s does not run decomposed%s: only heat2d divides its grid among ranks; run it without "
                "mpirun and --decomp",
                c->family->name, fb_comm_size() > 1 ? " on several ranks" : "");
    FB_CHECK(refuse_measure_options(args));
    if (fb_cli_flag(args, "tuned"))
        FB_FAIL(FB_ERR_USAGE, "--tuned: the cache holds points tuned on one device; a decomposed run takes --param");
    if (fb_cli_value(args, "kernel-file"))
        FB_FAIL(FB_ERR_USAGE, "--kernel-file: a decomposed run takes the built-in heat-jacobi only");
    cfg->base = (fb_heat2d_config){&fb_heat2d_kernels[c->run.kernel], c->run.point, c->run.is_double, c->run.measure};
    FB_CHECK(fb_heat2d_dist_check_config(&cfg->base));
    FB_CHECK(fb_cli_int(args, "repeats", DEFAULT_REPEATS, &cfg->repeats));
    if (cfg->repeats < 1 || cfg->repeats > MAX_REPEATS) FB_FAIL(FB_ERR_USAGE, "--repeats: must be 1..%d", MAX_REPEATS);
    FB_CHECK(fb_heat2d_problem_open(c->spec, problem));
    FB_CHECK(fb_heat2d_decomp_parse(text, fb_comm_size(), (*problem)->g.nx, (*problem)->g.ny, &cfg->decomp));
fail:
    return status;
}

/* Rank 0 prints and writes; the other ranks print nothing but their own
 * errors. A failure every rank meets (the options, a check) is said once,
 * by rank 0; one rank's own failure by that rank. */
static int run_decomposed(const fb_parsed *args)
{
    fb_status status = FB_OK, run_status;
    grid_cli c;
    fb_heat2d_problem *problem = NULL;
    fb_heat2d_dist_config cfg;
    fb_heat2d_dist_result r;
    json_t *rec = NULL;
    int say = fb_comm_rank() == 0;
    memset(&r, 0, sizeof r);
    FB_CHECK(read_decomposed(args, &c, &problem, &cfg));
    run_status = fb_heat2d_dist_run(c.backend, problem, &cfg, &r);
    say = r.own_error;
    if (run_status != FB_OK && !(run_status == FB_ERR_CHECK && r.checked && fb_comm_rank() == 0)) {
        status = run_status; /* the message is already set */
        goto fail;
    }
    if (fb_comm_rank() != 0) goto fail;
    say = 1; /* from here rank 0 alone: its own output */
    rec = fb_heat2d_dist_record(problem, &cfg, &r);
    if (run_status == FB_ERR_CHECK) json_object_set_new(rec, "reason", json_string(fb_error_message()));
    fb_record_print_decomposed(fb_cli_flag(args, "json") ? stderr : stdout, rec);
    FB_CHECK(fb_cli_emit_record(args, "grid", &r.device, rec));
    if (run_status == FB_ERR_CHECK) FB_FAIL(FB_ERR_CHECK, "heat-jacobi decomposed: wrong result (see check above)");
fail:
    json_decref(rec);
    fb_heat2d_dist_result_free(&r);
    fb_heat2d_problem_close(problem);
    if (status == FB_OK) return 0;
    if (say) return fb_comm_report(status);
    return status == FB_ERR_INTERRUPTED ? 130 : fb_status_exit_code(status);
}

/* --tuned: the point from the tuning cache (tune/tuned.h: exact, nearest
 * grid signature, else the defaults), said on stderr; *tuning goes into
 * the record. One configuration on one device only. */
static fb_status read_tuned(const fb_parsed *args, grid_cli *c, fb_target *t, void *problem, json_t **tuning)
{
    fb_status status = FB_OK;
    const char *const *params;
    const fb_family_kernel *k = c->family->kernel(c->run.kernel);
    fb_signature sig;
    if (!fb_cli_flag(args, "tuned")) {
        if (fb_cli_value(args, "cache")) FB_FAIL(FB_ERR_USAGE, "--cache is read with --tuned only");
        return FB_OK;
    }
    if (fb_cli_values(args, "param", &params)) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    c->family->signature(problem, &sig);
    FB_CHECK(fb_tuned_lookup(fb_cli_value(args, "cache"), fb_target_info(t), k->name, k->params, k->nparams,
                             c->run.is_double, &sig, &c->run.point, tuning, stderr));
fail:
    return status;
}

static int run_grid(const fb_parsed *args)
{
    fb_status status = FB_OK, run_status = FB_OK;
    grid_cli c;
    fb_target *t = NULL;
    void *problem = NULL;
    json_t *rec = NULL, *tuning = NULL;
    double stream_gbs = 0;
    if (fb_cli_flag(args, "list")) {
        FB_CHECK(list_kernel_file(args));
        if (fb_comm_rank() == 0) fb_catalogue_print_grid(stdout);
        return 0;
    }
    FB_CHECK(fb_cli_check_files(args, "grid", (const char *const[]){"kernel-file", "cache", NULL},
                                (const char *const[]){"out", NULL}, NULL, 0, NULL, 0));
    if (fb_cli_processes_wanted(args) &&
        (fb_comm_size() > 1 || fb_cli_value(args, "decomp") || fb_cli_plan_wanted(args, &plan_kind)))
        FB_FAIL(FB_ERR_USAGE, "grid: --processes measures one configuration in one process each, not a plan or ranks");
    if (fb_cli_processes_wanted(args)) return fb_cli_processes_run("grid", args);
    if (fb_comm_size() == 1 && fb_cli_plan_wanted(args, &plan_kind)) return fb_cli_plan_run(args, &plan_kind);
    if (fb_comm_size() > 1 || fb_cli_value(args, "decomp")) return run_decomposed(args);
    FB_CHECK(read_options(args, &c));
    if (fb_cli_value(args, "repeats"))
        FB_FAIL(FB_ERR_USAGE, "--repeats: only decomposed runs repeat transients (--decomp, or mpirun -np P)");
    FB_CHECK(c.family->problem_open(c.spec, &problem));
    FB_CHECK(fb_target_open(c.backend, &t));
    FB_CHECK(read_tuned(args, &c, t, problem, &tuning));
    FB_CHECK(c.family->check(problem, &c.run, fb_target_info(t)));
    FB_CHECK(fb_cli_stream_triad(args, t, c.backend, c.run.is_double, &stream_gbs));
    const fb_family_kernel *k = c.family->kernel(c.run.kernel);
    fb_cli_guard_run("grid", k->name, k->user, fb_target_info(t)->id, c.run.measure.budget_s);
    run_status = c.family->run(t, problem, &c.run, &rec);
    fb_guard_done();
    if (run_status != FB_OK && run_status != FB_ERR_CHECK) {
        status = run_status; /* the message is already set */
        goto fail;
    }
    fb_json_set_fraction_of_stream(rec, fb_json_num(rec, "gbs"), stream_gbs);
    if (tuning) json_object_set(rec, "tuning", tuning), fb_tuned_judge(rec);
    fb_record_print_grid(fb_cli_flag(args, "json") ? stderr : stdout, rec, c.family->name,
                         c.spec); /* stdout carries --json */
    FB_CHECK(fb_cli_emit_record(args, "grid", fb_target_info(t), rec));
    if (run_status == FB_ERR_CHECK)
        FB_FAIL(FB_ERR_CHECK, "%s: wrong result (see check above)", c.family->kernel(c.run.kernel)->name);
fail:
    json_decref(rec);
    json_decref(tuning);
    if (problem) c.family->problem_close(problem);
    fb_target_close(t);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

const fb_command fb_cmd_grid = {
    .name = "grid",
    .summary = "measure one grid-family kernel (heat2d, fv-surface) on one grid, checked",
    .usage = "grid --family F --grid SPEC [--kernel K] [--param NAME=VALUE]... [--tuned [--cache FILE]] [--backend B] "
             "[--out FILE] [--json]\n"
             "       grid --family F --grid SPEC... [--kernel K]... [--param NAME=V1,V2,...]... [--zip] [--dry-run] "
             "[--out FILE]\n"
             "       grid --family F --grid SPEC --backend opencl|cuda --kernel-file FILE --kernel NAME [--like K]\n"
             "            [--param NAME=V1,V2,...]... [--constraint EXPR]... [--global-divisor NAME]\n"
             "       mpirun -np P flowbench grid --family heat2d --grid SPEC [--decomp 1d|2d|PXxPY] [--repeats N] ...",
    .description = "Runs one configuration of a structured-grid family exactly as `flowbench sweep`\n"
                   "does (same constraints, measurement, check and record): heat2d is one iteration\n"
                   "of the implicit heat-conduction solver on a 2D work-group shape (BLOCK_X x\n"
                   "BLOCK_Y, ORDER), checked against its serial twin (one iteration from a random\n"
                   "field), a serial reference transient and the analytic decaying mode;\n"
                   "fv-surface is one Euler residual evaluation on a 3D Cartesian grid with a cell\n"
                   "layout, a flux distribution and an occupancy cap, checked against the serial\n"
                   "reference (bit-for-bit where the order of additions allows). Reports time per\n"
                   "cell, GB/s of the minimal traffic (docs/grid-studies.md) and the fraction of\n"
                   "the stream triad measured on the same device just before. --tuned takes the\n"
                   "kernel's parameters from the tuning cache (flowbench tune --family F --grid SPEC):\n"
                   "the entry of this device, kernel, precision and grid, else the nearest grid\n"
                   "signature (nx, ny, nz, stretch), else the defaults; it says which on stderr and\n"
                   "in the record's \"tuning\".\n"
                   "Several --grid or --kernel, or a --param list (BLOCK_X=8,16,32), make a plan\n"
                   "(as spmv's: the cross product, or --zip; printed first, run as a sweep, one line\n"
                   "per configuration at the end; docs/grid-studies.md); with --tuned, each kernel's\n"
                   "cached point on each grid.\n"
                   "Your own kernel: --kernel-file FILE --kernel NAME runs the __kernel NAME of an\n"
                   "OpenCL C file that takes the argument list of --like K (default: the family's\n"
                   "first kernel) as K runs (docs/kernels.md); --param NAME=V1,V2,... declares its\n"
                   "parameters (one value each: a single run; lists: a plan of their points).\n"
                   "opencl and cuda only.\n"
                   "\n"
                   "heat2d on several ranks (mpirun -np P ..., or --decomp on one): each rank takes\n"
                   "a block of the grid (--decomp 1d: row strips; 2d or PXxPY: blocks) on its own\n"
                   "device (openmp: OMP_NUM_THREADS threads; a device backend without an index:\n"
                   "device = the rank's number on its host modulo the devices found), and solves\n"
                   "the check transient (4 backward-Euler steps, Jacobi to 50 eps) with one ghost\n"
                   "layer exchanged through the host and the max change reduced over ranks every\n"
                   "iteration, --repeats times. Rank 0 gathers the field and runs the transient on\n"
                   "one device: they must agree bit for bit, iteration counts included (exit 1\n"
                   "otherwise). heat-jacobi only, ORDER=0; no stream triad, and the measurement\n"
                   "options do not apply: a sample is one whole transient, its time per\n"
                   "iteration split into compute, edge copies, halo and allreduce. Rank 0 prints\n"
                   "the table and writes the record (docs/scaling.md). fv-surface runs on\n"
                   "one rank only.",
    .options = options,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_grid,
    .ranks = 1,
    .measures = 1,
    .guarded = 1,
};
