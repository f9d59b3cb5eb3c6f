/* cmd_solve.c - `flowbench solve CASE`: the edge-based fractional-step
 * Navier-Stokes solver on a case (solver/cases.h), timed per step as in the
 * source paper, watched for blow-ups, with a results record, a table, and
 * optional VTK fields and centreline profiles. The options become the
 * case and a request; the runs are solver/solve_run.h's. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../results/presentation/catalogue.h"
#include "solve_plan.h"
#include "../solver/solve_peer.h"
#include "../solver/solve_ranks.h"
#include "../solver/solve_run.h"
#include "../solver/solve_scaling.h"
#include "tune_confirm.h"
#include "../backends/target.h"
#include "../core/comm.h"
#include "../solver/ns_device.h"
#include "../solver/ns_family_run.h"
#include "../tune/tune.h"

static const fb_option options[] = {
    {"level", "L", "refinement level: cavity 0, 1, 2 (N = 15, 29, 57), ethier-steinman 0..3 (default 0)", 0},
    {"cube", "N", "cavity, ethier-steinman: the cube of N x N x N nodes instead of a level (3 .. 400)", 0},
    {"scaling", "strong|weak",
     "run the case under the launcher on each --ranks count and print speedup and parallel efficiency (weak: the "
     "cube grows with the ranks, same nodes per rank); a record each, with its \"scaling\" part",
     0},
    {"ranks", "P[,P...]", "--scaling: the rank counts, increasing, the first the baseline (default 1,2,4)", 0},
    {"launcher", "CMD",
     "--scaling: how to start P ranks, {P} replaced by the count (default $FLOWBENCH_LAUNCHER or 'mpirun -np {P}'; "
     "Slurm: 'srun -n {P}')",
     0},
    {"backend", "B",
     "where to run: openmp (default, the baseline), opencl[:P.D] or cuda[:K] (the whole time loop on the device; "
     "under mpirun plain opencl or cuda gives each rank the device local rank mod count); repeat it to run each on "
     "the same mesh and compare",
     1},
    {"compare", NULL, "run openmp and every device backend that opens here, and compare (the paper's tables)", 0},
    {"param", "NAME=V[,V...]",
     "a device kernel parameter, repeatable (see --list); several values sweep the cross product, a run each", 1},
    {"tune", NULL,
     "sweep (the --param lists), confirm the fastest correct points in fresh processes (--confirm) and store the "
     "one that beats the default, else the default",
     0},
    FB_CLI_OPTION_CONFIRM,
    {"tuned", NULL,
     "device backends: the parameters from the tuning cache (exact, nearest mesh signature, else defaults)", 0},
    {"cache", "FILE",
     "tuning cache of --tune and --tuned (default $FLOWBENCH_TUNING_CACHE, else $FLOWBENCH_CACHE_DIR/tuning.json, else "
     "~/.cache/flowbench/tuning.json)",
     0},
    {"list", NULL, "list the device kernels and their parameters, then exit", 0},
    {"peer", "NAME",
     "viennacl (after an opencl run) or petsc (after an openmp run): solve the last pressure system with "
     "flowbench's CG and the peer's, and compare",
     0},
    {"re", "RE", "cavity: Reynolds number lid speed x side / nu (default 100)", 0},
    {"t-end", "T", "simulate from t = 0 to T (default: the case's end time, 0.1)", 0},
    {"steps", "N", "run N time steps instead of running to --t-end", 0},
    {"cfl", "C", "time step from this Courant number (default 0.5)", 0},
    {"dt", "DT", "a fixed time step instead of the CFL choice (the watch still applies)", 0},
    {"cfl-limit", "C", "watch: stop when the CFL number of a step exceeds C (default 5)", 0},
    {"cg-tol", "TOL", "pressure CG stops at ||r|| <= TOL ||b|| (default 1e-6)", 0},
    {"cg-max-its", "N", "watch: a pressure solve that needs more iterations fails the run (default 2000)", 0},
    {"mesh", "FILE", "ahmed: the gmsh mesh (default results/ahmed.msh: scripts/mesh-ahmed.sh results/ahmed.msh)", 0},
    {"vtk", "OUT.vtu", "write velocity, pressure and divergence at the end as VTK XML (ParaView)", 0},
    {"profiles", "PREFIX", "cavity: centreline profiles into PREFIX-u.dat and PREFIX-w.dat (plots/centreline.gp)", 0},
    {"kernel-times", NULL,
     "time every launch of the step's kernels (each waited for: the steps run slower) and print where a step's time "
     "goes, kernel by kernel; the record's \"kernel_times\"",
     0},
    FB_CLI_STREAM_OPTIONS,
    {"out", "FILE", "append a header and the run's record to this JSON Lines file", 0},
    {"json", NULL, "print the record as JSON on stdout (the table goes to stderr)", 0},
    {"quiet", NULL, "no progress lines on stderr", 0},
    {NULL, NULL, NULL, 0},
};

/* The first openmp backend goes first: it is the baseline of every
 * speedup, and a device run's record can carry its speedup only when the
 * baseline ran before it. The others keep their order. */
static void openmp_first(solve_opts *o)
{
    for (int k = 1; k < o->rq.nbackends; ++k) {
        const char *b = o->rq.backends[k];
        if (strncmp(b, "openmp", 6) != 0 || (b[6] != '\0' && b[6] != ':')) continue;
        memmove(&o->rq.backends[1], &o->rq.backends[0], (size_t)k * sizeof *o->rq.backends);
        o->rq.backends[0] = b;
        return;
    }
}

/* The backends to run, in order: --backend (repeatable; default openmp) or
 * --compare (openmp, opencl, cuda: each one that opens). */
static fb_status read_backends(const fb_parsed *args, solve_opts *o)
{
    fb_status status = FB_OK;
    static const char *const all[] = {"openmp", "opencl", "cuda"};
    const char *const *given;
    int n = fb_cli_values(args, "backend", &given);
    o->rq.compare = fb_cli_flag(args, "compare");
    if (o->rq.compare && n) FB_FAIL(FB_ERR_USAGE, "solve: give --compare or --backend, not both");
    if (n > MAX_BACKENDS) FB_FAIL(FB_ERR_USAGE, "solve: at most %d backends", MAX_BACKENDS);
    for (int i = 0; i < (o->rq.compare ? 3 : n ? n : 1); ++i)
        o->rq.backends[o->rq.nbackends++] = o->rq.compare ? all[i] : n ? given[i] : "openmp";
    openmp_first(o);
    if (o->rq.nbackends > 1 && (fb_cli_value(args, "vtk") || fb_cli_value(args, "profiles")))
        FB_FAIL(FB_ERR_USAGE, "solve: --vtk and --profiles take one backend (each run would overwrite them)");
fail:
    return status;
}

/* What solve reads (--mesh; the tuning cache with --tuned) and writes
 * (--out, --vtk, --profiles' two files; the cache with --tune): no output
 * may be an input or another output (core/files.h). */
static fb_status check_files(const fb_parsed *args, const solve_opts *o)
{
    const char *prefix = fb_cli_value(args, "profiles");
    char u[PATH_MAX], w[PATH_MAX];
    snprintf(u, sizeof u, "%s-u.dat", prefix ? prefix : ""); /* as fb_solve_write_profiles names them */
    snprintf(w, sizeof w, "%s-w.dat", prefix ? prefix : "");
    const char *mesh = fb_cli_value(args, "mesh");
    const fb_case_ops *ops = fb_case_find(o->name);
    if (!mesh && ops) mesh = ops->mesh_file; /* read though not named */
    const fb_named_file inputs[] = {{fb_cli_value(args, "mesh") ? "--mesh" : "the default mesh", mesh}};
    /* --tuned reads it, there yet or not (fb_files_check_stores) */
    const fb_named_file store = {fb_cli_value(args, "cache") ? "--cache" : "tuning cache", o->cache};
    const fb_named_file outputs[] = {{"--out", fb_cli_value(args, "out")},
                                     {"--vtk", fb_cli_value(args, "vtk")},
                                     {"--profiles", prefix ? u : NULL},
                                     {"--profiles", prefix ? w : NULL},
                                     {"--cache", o->rq.tune ? o->cache : NULL}};
    fb_status status = fb_files_check_distinct("solve", inputs, 1, outputs, 5);
    if (status == FB_OK && o->rq.tuned) status = fb_files_check_stores("solve", &store, 1, outputs, 5);
    return status;
}

static fb_status read_opts(const fb_parsed *args, solve_opts *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    memset(o, 0, sizeof *o);
    if (args->npositional < 1)
        FB_FAIL(FB_ERR_USAGE, "solve: missing argument (usage: flowbench %s)", fb_cmd_solve.usage);
    o->name = args->positional[0];
    o->rq.quiet = fb_cli_flag(args, "quiet");
    o->rq.as_json = fb_cli_flag(args, "json");
    FB_CHECK(read_backends(args, o));
    FB_CHECK(fb_solve_read_plan(args, o));
    FB_CHECK(check_files(args, o)); /* before the mesh is read */
    o->rq.peer = fb_cli_value(args, "peer");
    FB_CHECK(fb_solve_peer_check(o->rq.peer, o->rq.backends, o->rq.nbackends, o->rq.compare));
    if (fb_cli_flag(args, "kernel-times") && (o->sweep || fb_comm_size() > 1))
        FB_FAIL(FB_ERR_USAGE, "solve: --kernel-times times one run on one process, not a sweep or several ranks");
    if (o->rq.peer && o->sweep)
        FB_FAIL(FB_ERR_USAGE, "solve: --peer compares one run's pressure solve: give one point, not a sweep or --tune");
    if (fb_cli_value(args, "t-end") && fb_cli_value(args, "steps"))
        FB_FAIL(FB_ERR_USAGE, "solve: give --t-end or --steps, not both");
    o->level = -1; /* the case's default */
    if (fb_cli_value(args, "level")) FB_CHECK(fb_cli_int(args, "level", 0, &o->level));
    FB_CHECK(fb_cli_int(args, "steps", 0, &o->rq.steps));
    if (fb_cli_value(args, "steps") && o->rq.steps < 1) FB_FAIL(FB_ERR_USAGE, "--steps: must be at least 1");
    int cube = 0;
    FB_CHECK(fb_cli_int(args, "cube", 0, &cube));
    if (fb_cli_value(args, "cube") && cube < 3) FB_FAIL(FB_ERR_USAGE, "--cube: must be at least 3");
    FB_CHECK(fb_case_open_sized(o->name, o->level, cube, fb_cli_value(args, "mesh"), c));
    FB_CHECK(fb_cli_double(args, "t-end", c->t_end, &o->rq.t_end));
    if (!(o->rq.t_end > 0)) FB_FAIL(FB_ERR_USAGE, "--t-end: must be positive");
    FB_CHECK(fb_cli_double(args, "cfl", c->cfg.cfl, &c->cfg.cfl));
    FB_CHECK(fb_cli_double(args, "dt", 0.0, &c->cfg.dt_fixed));
    FB_CHECK(fb_cli_double(args, "cfl-limit", c->cfg.cfl_limit, &c->cfg.cfl_limit));
    FB_CHECK(fb_cli_double(args, "cg-tol", c->cfg.cg_tol, &c->cfg.cg_tol));
    FB_CHECK(fb_cli_int(args, "cg-max-its", c->cfg.cg_max_its, &c->cfg.cg_max_its));
    if (!(c->cfg.cfl > 0)) FB_FAIL(FB_ERR_USAGE, "--cfl: must be positive");
    if (fb_cli_value(args, "dt") && !(c->cfg.dt_fixed > 0)) FB_FAIL(FB_ERR_USAGE, "--dt: must be positive");
    if (!(c->cfg.cg_tol > 0 && c->cfg.cg_tol < 1)) FB_FAIL(FB_ERR_USAGE, "--cg-tol: must be in (0, 1)");
    if (c->cfg.cg_max_its < 1) FB_FAIL(FB_ERR_USAGE, "--cg-max-its: must be at least 1");
    if (fb_cli_value(args, "re")) {
        double re;
        FB_CHECK(fb_cli_double(args, "re", 100.0, &re));
        if (!c->ops->unit_cube) FB_FAIL(FB_ERR_USAGE, "solve %s: --re is for the cavity", c->name);
        if (!(re > 0)) FB_FAIL(FB_ERR_USAGE, "--re: must be positive");
        c->cfg.nu = 1.0 / re;
    }
    if (fb_cli_value(args, "profiles") && !c->ops->unit_cube)
        FB_FAIL(FB_ERR_USAGE, "solve %s: --profiles is for the cavity (centrelines of the unit cube)", c->name);
fail:
    return status;
}

/* ---- a sweep: --param lists and --tune, through tune's search ---- */

/* The command's side of a run (solve_run.h's sinks): ctx is a solve_cli. */
typedef struct solve_cli {
    const fb_parsed *args;
    const solve_opts *o;
} solve_cli;

static fb_status stream_triad(void *ctx, fb_target *t, double *gbs)
{
    return fb_cli_stream_triad(((const solve_cli *)ctx)->args, t, fb_target_info(t)->id, 1, gbs);
}

static fb_status emit_record(void *ctx, const fb_device_info *d, json_t *rec)
{
    return fb_cli_emit_record(((const solve_cli *)ctx)->args, "solve", d, rec);
}

/* --tune: the sweep's fastest points and the default measured again, each
 * a run of the case in a fresh process (`solve ... --param NAME=V ...
 * --json`, tune_confirm.h), and stored what that confirms: the winner, or
 * the default kept. */
static fb_status store_best(void *ctx, const fb_tune_request *rq, const fb_tune_outcome *out, FILE *f)
{
    const fb_parsed *args = ((const solve_cli *)ctx)->args;
    const solve_opts *o = ((const solve_cli *)ctx)->o;
    static const char *const drop[] = {"tune",    "tuned",        "out", "cache",    "param", "json",      "quiet",
                                       "confirm", "kernel-times", "vtk", "profiles", "peer",  "no-stream", NULL};
    static const char *const extra[] = {"--json", "--quiet", "--no-stream", NULL};
    fb_status status = FB_OK;
    fb_confirm_outcome confirmed;
    const fb_confirm_candidate *chosen;
    char text[256];
    int size = 0, rounds = 0, wanted = 0;
    memset(&confirmed, 0, sizeof confirmed);
    FB_CHECK(fb_tune_cli_confirm_wanted(args, &rounds, &wanted));
    FB_CHECK(fb_cli_confirm("solve", args, drop, extra, 1, rq, out, &rq->space->start, rounds, f, &confirmed));
    FB_CHECK(fb_tune_store(rq, out, &confirmed, o->cache, &size));
    chosen = fb_confirm_chosen(&confirmed);
    fb_family_point_text(rq->family->kernel(0), &chosen->point, text, sizeof text);
    fprintf(f, "  stored in %s (%d entries): %s, %.3f ms/step in fresh processes%s\n", o->cache, size, text,
            chosen->center * 1e3, confirmed.significant ? "" : " (the default, as the answer for this case)");
fail:
    fb_confirm_free(&confirmed);
    return status;
}

/* The request's part the command adds: the outputs, the cache the plan
 * chose, and the sinks. */
static void complete_request(const fb_parsed *args, solve_opts *o, solve_cli *cli)
{
    fb_solve_request *rq = &o->rq;
    rq->cache = o->cache;
    rq->vtk = fb_cli_value(args, "vtk"), rq->profiles = fb_cli_value(args, "profiles");
    rq->out = fb_cli_value(args, "out");
    rq->kernel_times = fb_cli_flag(args, "kernel-times");
    rq->sinks = (fb_solve_sinks){
        .ctx = cli, .stream_triad = stream_triad, .emit_record = emit_record, .store_best = store_best};
}

/* --scaling: the study's options, and those each of its runs is given. */
static void scaling_request(const fb_parsed *args, fb_scaling_request *rq)
{
    static const char *const single_run[] = {"json",  "vtk",  "profiles", "compare", "tune",
                                             "tuned", "peer", "param",    NULL};
    static const char *const passed[] = {"level",     "re",     "t-end",      "steps", "cfl",         "dt",
                                         "cfl-limit", "cg-tol", "cg-max-its", "mesh",  "stream-size", "stream-max-age"};
    memset(rq, 0, sizeof *rq);
    rq->mode = fb_cli_value(args, "scaling");
    rq->ranks = fb_cli_value(args, "ranks");
    rq->launcher = fb_cli_value(args, "launcher");
    rq->out = fb_cli_value(args, "out");
    rq->refused = fb_cli_first_given(args, single_run);
    for (size_t i = 0; i < sizeof passed / sizeof *passed; ++i)
        if (fb_cli_value(args, passed[i]) && rq->npassed < FB_SCALING_MAX_PASSED)
            rq->passed[rq->npassed][0] = passed[i], rq->passed[rq->npassed++][1] = fb_cli_value(args, passed[i]);
    rq->no_stream = fb_cli_flag(args, "no-stream");
    rq->cube_given = fb_cli_value(args, "cube") != NULL;
}

static int run_solve(const fb_parsed *args)
{
    fb_status status = FB_OK;
    solve_opts o;
    fb_solve_case c;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    solve_cli cli = {args, &o};
    if (fb_cli_flag(args, "list")) {
        fb_catalogue_print_solver(stdout);
        return 0;
    }
    FB_CHECK(read_opts(args, &o, &c));
    complete_request(args, &o, &cli);
    if (fb_cli_value(args, "scaling")) {
        if (o.rq.nbackends > 1) FB_FAIL(FB_ERR_USAGE, "solve --scaling: give one --backend");
        fb_scaling_request sc;
        scaling_request(args, &sc);
        FB_CHECK(fb_solve_scaling_run(&sc, &c, o.rq.backends[0]));
    } else if (fb_comm_size() > 1) {
        FB_CHECK(fb_solve_ranks_check(o.rq.backends, o.rq.nbackends, o.rq.compare, o.sweep, o.rq.tuned, o.rq.peer,
                                      &o.rq.point));
        status = fb_solve_run_ranks(&o.rq, &c);
    } else if (o.sweep) {
        status = fb_solve_run_sweep(&o.rq, &c);
    } else {
        status = fb_solve_run_backends(&o.rq, &c);
    }
fail:
    fb_case_free(&c);
    if (fb_comm_size() > 1) return fb_solve_ranks_exit(status);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

const fb_command fb_cmd_solve = {
    .name = "solve",
    .summary = "run the edge-based incompressible Navier-Stokes solver on a case, timed per step",
    .usage = "solve CASE [--level L] [--backend openmp|opencl|cuda] [--t-end T | --steps N] [--param NAME=V[,V...]]... "
             "[--tune | --tuned] [--cache FILE] [--peer viennacl|petsc] [--kernel-times] [--vtk OUT.vtu] [--out FILE] "
             "[--json]",
    .description = "Runs the fractional-step solver of the source paper on CASE (cavity, ethier-steinman,\n"
                   "ahmed): edge operators precomputed from the P1 tetrahedra; per step (1) the\n"
                   "fractional velocity by explicit RK4 with convection, viscosity and split-OSS\n"
                   "stabilisation, (2) the pressure equation by Jacobi-preconditioned CG, (3) the\n"
                   "velocity correction. Prints the time of each of the three steps (median and\n"
                   "total), CG iterations, the model's bytes per step as GB/s and as a fraction of\n"
                   "the stream triad measured first, and the case's validation numbers. A blow-up\n"
                   "(non-finite values, CFL or divergence above its limit, a CG that does not\n"
                   "converge) stops the run naming the step (exit 1); Ctrl-C stops it cleanly and\n"
                   "keeps the record (status interrupted, exit 130). With --backend opencl or cuda\n"
                   "the whole time loop runs on the device (kernels/ns/ns.cl; the fields stay there,\n"
                   "copies are timed as CPU->GPU and GPU->CPU). Several --backend, or --compare (openmp\n"
                   "and every device backend that opens), run the same case on each, with a record\n"
                   "each, then print the paper's tables: total time and speedup over openmp, and the\n"
                   "per-step split with shares and GB/s against each device's triad.\n"
                   "On one device backend, --param NAME=V1,V2,... sweeps the cross product of the\n"
                   "lists through tune's search (a run and an \"ns\" record per point) and prints\n"
                   "them by time per step; each point's u and p are checked against the OpenMP\n"
                   "baseline's after the same steps (the device tests' tolerances): a point off is\n"
                   "wrong-result, never the best. --tune does the same (axes\n"
                   "not named stay at their defaults; with no --param at all, every point, refused\n"
                   "above 200) and stores the fastest correct point in the tuning cache under\n"
                   "(device, \"ns\", double, mesh signature); --tuned runs with the cached point\n"
                   "(exact, nearest signature, else the defaults), and with CG_SPMV != 0 with that\n"
                   "SpMV kernel's own cached point for the pressure matrix. --peer viennacl, after\n"
                   "an opencl run, solves its last pressure system with flowbench's CG and\n"
                   "ViennaCL's on the same device and compares them; --peer petsc does it after\n"
                   "an openmp run with PETSc's KSPCG and Jacobi on one core (on P ranks: PETSc's\n"
                   "MPIAIJ on the rows each rank owns, one core a rank, as a PETSc user runs it).\n"
                   "Under mpirun (P ranks) each rank runs its METIS part of the mesh, on its OpenMP\n"
                   "threads or, with --backend opencl|cuda, on its device: plain opencl or cuda takes\n"
                   "the device local rank modulo their count (a GPU per rank), opencl:P.D or cuda:K\n"
                   "that device for every rank; the fields are gathered on rank 0, which prints and\n"
                   "records. CG_VARIANT=2, CG_SPMV, sweeps, --tune, --tuned and --peer viennacl run\n"
                   "on one rank.\n"
                   "--kernel-times prints where one run's step goes, kernel by kernel (each launch\n"
                   "waited for). docs/solver.md has the details.",
    .options = options,
    .min_positional = 0, /* --list needs no CASE; read_opts asks for it otherwise */
    .max_positional = 1,
    .run = run_solve,
    .ranks = 1,
    .measures = 1,
};
