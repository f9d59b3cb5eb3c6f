/* cmd_solve.c - `flowbench solve CASE`: the edge-based fractional-step
 * Navier-Stokes solver on a case (solver/cases.h), timed per step as in the
 * source paper, watched for blow-ups, with a results record, a table, and
 * optional VTK fields and centreline profiles. */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "param_space.h"
#include "../solver/solve_peer.h"
#include "../solver/solve_ranks.h"
#include "../solver/solve_scaling.h"
#include "tune_confirm.h"
#include "../backends/target.h"
#include "../core/comm.h"
#include "../core/energy.h"
#include "../results/records/results.h"
#include "../solver/case_run.h"
#include "../solver/ns_device.h"
#include "../solver/ns_family_run.h"
#include "../tune/cache.h"
#include "../tune/tune.h"
#include "../tune/tuned.h"

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
    {"no-stream", NULL, "skip the stream triad measurement (no roofline fraction)", 0},
    {"stream-size", "N",
     "elements per stream array, at least 1 (default 2^25, more where 3 arrays of it are under 4x the last-level "
     "cache)",
     0},
    {"stream-max-age", "S",
     "reuse a stored stream triad of this device younger than S seconds (default 3600, "
     "$FLOWBENCH_STREAM_MAX_AGE; 0 measures now)",
     0},
    {"out", "FILE", "append a header and the run's record to this JSON Lines file", 0},
    {"json", NULL, "print the record as JSON on stdout (the table goes to stderr)", 0},
    {"quiet", NULL, "no progress lines on stderr", 0},
    {NULL, NULL, NULL, 0},
};

#define MAX_BACKENDS 8
#define LIST_HINT "flowbench solve --list"

/* --tune with no --param sweeps every point of every axis; more than this
 * is refused unless --param narrows it (each point is a whole solver run). */
#define MAX_TUNE_POINTS 200

typedef struct solve_opts {
    const char *name;
    const char *backends[MAX_BACKENDS];
    int nbackends, compare;
    int level, steps;
    fb_param_point point;  /* of the device kernels (fb_ns_axes) */
    fb_search_space space; /* the --param lists: the points a sweep runs */
    int sweep, tune, tuned;
    char cache[1024]; /* the tuning cache (--tune, --tuned) */
    double t_end;
    int quiet, as_json;
    const char *peer; /* --peer NAME (solve_peer.h), or NULL */
} solve_opts;

/* The first openmp backend goes first: it is the baseline of every
 * speedup, and a device run's record can carry its speedup only when the
 * baseline ran before it. The others keep their order. */
static void openmp_first(solve_opts *o)
{
    for (int k = 1; k < o->nbackends; ++k) {
        const char *b = o->backends[k];
        if (strncmp(b, "openmp", 6) != 0 || (b[6] != '\0' && b[6] != ':')) continue;
        memmove(&o->backends[1], &o->backends[0], (size_t)k * sizeof *o->backends);
        o->backends[0] = b;
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
    o->compare = fb_cli_flag(args, "compare");
    if (o->compare && n) FB_FAIL(FB_ERR_USAGE, "solve: give --compare or --backend, not both");
    if (n > MAX_BACKENDS) FB_FAIL(FB_ERR_USAGE, "solve: at most %d backends", MAX_BACKENDS);
    for (int i = 0; i < (o->compare ? 3 : n ? n : 1); ++i)
        o->backends[o->nbackends++] = o->compare ? all[i] : n ? given[i] : "openmp";
    openmp_first(o);
    if (o->nbackends > 1 && (fb_cli_value(args, "vtk") || fb_cli_value(args, "profiles")))
        FB_FAIL(FB_ERR_USAGE, "solve: --vtk and --profiles take one backend (each run would overwrite them)");
fail:
    return status;
}

/* The combinations of --param, --tune, --tuned and --cache that make no
 * sense, each refused in one line. */
static fb_status check_modes(const fb_parsed *args, const solve_opts *o, int nparams)
{
    fb_status status = FB_OK;
    int host = o->compare, device = o->compare;
    for (int i = 0; i < o->nbackends; ++i) {
        int is_host = strncmp(o->backends[i], "openmp", 6) == 0;
        host |= is_host, device |= !is_host;
    }
    if (fb_cli_value(args, "cache") && !o->tune && !o->tuned)
        FB_FAIL(FB_ERR_USAGE, "--cache is for --tune (written) and --tuned (read)");
    if (o->tune && o->tuned) FB_FAIL(FB_ERR_USAGE, "--tune and --tuned exclude each other");
    if (o->tuned && nparams) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    if (nparams && !device)
        FB_FAIL(FB_ERR_USAGE, "--param is for the device backends (opencl, cuda); openmp runs the solver's kernels "
                              "at the OpenMP baseline's one point (docs/solver.md)");
    if ((o->tuned || o->tune) && host)
        FB_FAIL(FB_ERR_USAGE,
                "--%s is for the device backends (opencl, cuda): openmp runs the solver's kernels at the "
                "OpenMP baseline's one point (docs/solver.md)",
                o->tune ? "tune" : "tuned");
fail:
    return status;
}

static fb_status check_sweep(const fb_parsed *args, const solve_opts *o, int nparams)
{
    fb_status status = FB_OK;
    const int npoints = fb_search_space_size(&o->space);
    if (o->compare || o->nbackends != 1)
        FB_FAIL(FB_ERR_USAGE, "solve: a sweep (--param lists, --tune) runs on one --backend, opencl or cuda");
    if (fb_cli_value(args, "vtk") || fb_cli_value(args, "profiles"))
        FB_FAIL(FB_ERR_USAGE,
                "solve: --vtk and --profiles take one run, not a sweep (each point would overwrite them)");
    if (fb_cli_flag(args, "json"))
        FB_FAIL(FB_ERR_USAGE, "solve: --json prints one run's record; a sweep writes a record per point with --out");
    if (o->tune && !nparams && npoints > MAX_TUNE_POINTS)
        FB_FAIL(FB_ERR_USAGE,
                "--tune: the solver's axes have %d points, more than %d solver runs: narrow them with "
                "--param NAME=V1,V2 (or tune --case ... --evals N caps the runs)",
                npoints, MAX_TUNE_POINTS);
fail:
    return status;
}

/* --param NAME=V[,V...] for the device kernels (refused on openmp, which
 * runs them at the OpenMP baseline's one point), --tune and --tuned. A
 * list of values, or --tune, sweeps: each value must be one the axis
 * declares, and --tune alone takes every point; one value per axis is a
 * single run at that point. */
static fb_status read_plan(const fb_parsed *args, solve_opts *o)
{
    fb_status status = FB_OK;
    const char *const *params;
    const int nparams = fb_cli_values(args, "param", &params);
    int lists = 0;
    for (int i = 0; i < nparams; ++i)
        lists |= strchr(params[i], ',') != NULL;
    o->tune = fb_cli_flag(args, "tune"), o->tuned = fb_cli_flag(args, "tuned");
    o->sweep = o->tune || lists;
    if (fb_cli_value(args, "confirm") && !o->tune)
        FB_FAIL(FB_ERR_USAGE, "--confirm: only --tune confirms its best point before storing it");
    fb_cache_path(fb_cli_value(args, "cache"), o->cache, sizeof o->cache);
    FB_CHECK(check_modes(args, o, nparams));
    if (o->tune) FB_CHECK(fb_cache_check(o->cache)); /* stored into after the sweep: refused before it */
    FB_CHECK(fb_cli_param_space(args, fb_ns_axes, FB_NS_NAXES, o->tune && !nparams, o->sweep, "the solver", LIST_HINT,
                                &o->space));
    o->point = o->space.start;
    if (o->sweep) FB_CHECK(check_sweep(args, o, nparams));
    if (o->sweep) o->quiet = 1; /* the sweep prints a line per point instead */
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
                                     {"--cache", o->tune ? o->cache : NULL}};
    fb_status status = fb_files_check_distinct("solve", inputs, 1, outputs, 5);
    if (status == FB_OK && o->tuned) status = fb_files_check_stores("solve", &store, 1, outputs, 5);
    return status;
}

static fb_status read_opts(const fb_parsed *args, solve_opts *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    memset(o, 0, sizeof *o);
    if (args->npositional < 1)
        FB_FAIL(FB_ERR_USAGE, "solve: missing argument (usage: flowbench %s)", fb_cmd_solve.usage);
    o->name = args->positional[0];
    o->quiet = fb_cli_flag(args, "quiet");
    o->as_json = fb_cli_flag(args, "json");
    FB_CHECK(read_backends(args, o));
    FB_CHECK(read_plan(args, o));
    FB_CHECK(check_files(args, o)); /* before the mesh is read */
    o->peer = fb_cli_value(args, "peer");
    FB_CHECK(fb_solve_peer_check(o->peer, o->backends, o->nbackends, o->compare));
    if (fb_cli_flag(args, "kernel-times") && (o->sweep || fb_comm_size() > 1))
        FB_FAIL(FB_ERR_USAGE, "solve: --kernel-times times one run on one process, not a sweep or several ranks");
    if (o->peer && o->sweep)
        FB_FAIL(FB_ERR_USAGE, "solve: --peer compares one run's pressure solve: give one point, not a sweep or --tune");
    if (fb_cli_value(args, "t-end") && fb_cli_value(args, "steps"))
        FB_FAIL(FB_ERR_USAGE, "solve: give --t-end or --steps, not both");
    o->level = -1; /* the case's default */
    if (fb_cli_value(args, "level")) FB_CHECK(fb_cli_int(args, "level", 0, &o->level));
    FB_CHECK(fb_cli_int(args, "steps", 0, &o->steps));
    if (fb_cli_value(args, "steps") && o->steps < 1) FB_FAIL(FB_ERR_USAGE, "--steps: must be at least 1");
    int cube = 0;
    FB_CHECK(fb_cli_int(args, "cube", 0, &cube));
    if (fb_cli_value(args, "cube") && cube < 3) FB_FAIL(FB_ERR_USAGE, "--cube: must be at least 3");
    FB_CHECK(fb_case_open_sized(o->name, o->level, cube, fb_cli_value(args, "mesh"), c));
    FB_CHECK(fb_cli_double(args, "t-end", c->t_end, &o->t_end));
    if (!(o->t_end > 0)) FB_FAIL(FB_ERR_USAGE, "--t-end: must be positive");
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

static int on_device(const fb_target *t) { return fb_solve_on_device(fb_target_info(t)); }

static fb_case_loop loop_of(const solve_opts *o)
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
static fb_status write_outputs(const fb_parsed *args, const fb_solve_case *c, const solve_run *s, const fb_ns *fields,
                               FILE *table)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_solve_peer_report(s->peer, &s->r.ns, s->r.rec, table));
    if (fb_cli_value(args, "vtk")) FB_CHECK(fb_solve_write_vtk(fb_cli_value(args, "vtk"), c, fields));
    if (fb_cli_value(args, "profiles")) FB_CHECK(fb_solve_write_profiles(fb_cli_value(args, "profiles"), c, fields));
    FB_CHECK(fb_cli_emit_record(args, "solve", fb_target_info(s->t), s->r.rec));
fail:
    return status;
}

/* What runs where, once set up (on several ranks: rank 0's device). */
static void announce(const solve_opts *o, const fb_solve_case *c, const solve_run *s)
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
static fb_status tuned_point(const solve_opts *o, solve_run *s, fb_param_point *point)
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
static fb_status tuned_spmv(const solve_opts *o, solve_run *s)
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

static fb_status prepare(const fb_parsed *args, const solve_opts *o, fb_solve_case *c, solve_run *s)
{
    fb_status status = FB_OK;
    fb_param_point asked = o->point;
    FB_CHECK(fb_cli_stream_triad(args, s->t, fb_target_info(s->t)->id, 1, &s->stream_gbs));
    FB_CHECK(fb_case_run_init(&s->r, c));
    if (o->tuned) FB_CHECK(tuned_point(o, s, &asked));
    FB_CHECK(fb_case_run_open(&s->r, s->t, &asked));
    if (o->tuned) FB_CHECK(tuned_spmv(o, s));
    if (fb_cli_flag(args, "kernel-times")) fb_ns_device_time_kernels(&s->r.ns);
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
static fb_status run_one(const fb_parsed *args, const solve_opts *o, fb_solve_case *c, solve_run *s,
                         const fb_solve_row *base)
{
    fb_status status = FB_OK;
    const fb_case_loop loop = loop_of(o);
    FILE *table = o->as_json ? stderr : stdout;
    fb_case_run *r = &s->r;
    FB_CHECK(prepare(args, o, c, s));
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
    FB_CHECK(write_outputs(args, c, s, &r->ns, table));
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
static fb_status open_rank_device(const solve_opts *o, solve_run *s)
{
    fb_solve_ranks_own(fb_case_run_open(&s->r, s->t, &o->point));
    return fb_ns_device_warm_up(&s->r.ns, on_device(s->t) ? &s->r.log.setup_s : NULL);
}

/* The case on P ranks, each its part of the mesh (solve_ranks.h) on its
 * threads or its device: rank 0 measures the triad, gathers the fields,
 * validates, prints the table and writes the record; the others compute
 * their part and stay silent. */
static fb_status run_ranks(const fb_parsed *args, const solve_opts *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const int root = fb_comm_rank() == 0;
    solve_run s;
    fb_ns_dist d;
    fb_ns whole;
    json_t *mpi = NULL, *meters = NULL;
    solve_opts mine = *o;
    memset(&s, 0, sizeof s), memset(&d, 0, sizeof d), memset(&whole, 0, sizeof whole);
    mine.quiet = o->quiet || !root;
    fb_case_loop loop = loop_of(&mine);
    loop.interrupted = fb_solve_ranks_interrupted;
    fb_solve_ranks_own(fb_target_open_for_rank(o->backends[0], &s.t));
    s.stream_gbs = -1;
    if (root) status = fb_cli_stream_triad(args, s.t, fb_target_info(s.t)->id, 1, &s.stream_gbs);
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
        FB_CHECK(write_outputs(args, c, &s, &whole, table));
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

static void print_list(void)
{
    fb_cli_print_family(fb_family_find("ns"));
    printf("  its kernels, launched in this order within a step:\n");
    for (int k = 0; k < FB_NS_NKERNELS; ++k)
        printf("    %s\n", fb_ns_kernel_names[k]);
    printf("  parameters of every kernel (--param NAME=V with --backend opencl or cuda):\n");
    fb_cli_print_axes(fb_ns_axes, FB_NS_NAXES, "    ");
}

/* ---- a sweep: --param lists and --tune, through tune's search ---- */

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

/* --tune: the sweep's fastest points and the default measured again, each
 * a run of the case in a fresh process (`solve ... --param NAME=V ...
 * --json`, tune_confirm.h), and stored what that confirms: the winner, or
 * the default kept. */
static fb_status store_best(const fb_parsed *args, const solve_opts *o, const fb_tune_request *rq,
                            const fb_tune_outcome *out, FILE *f)
{
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

static fb_status open_sweep(const fb_parsed *args, const solve_opts *o, fb_solve_case *c, fb_tune_request *rq)
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
    if (fb_cli_value(args, "out"))
        FB_CHECK(fb_results_open(fb_cli_value(args, "out"), "solve", fb_target_info(rq->t), 1, &rq->out));
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
static fb_status run_sweep(const fb_parsed *args, const solve_opts *o, fb_solve_case *c)
{
    fb_status status = FB_OK;
    fb_tune_request rq;
    fb_tune_outcome out;
    FILE *f = o->as_json ? stderr : stdout;
    memset(&rq, 0, sizeof rq), memset(&out, 0, sizeof out);
    FB_CHECK(open_sweep(args, o, c, &rq));
    status = fb_tune_run(&rq, &out);
    if (status == FB_ERR_INTERRUPTED) /* fb_comm_report says only "interrupted": what was kept is said here */
        fprintf(stderr, "solve %s: interrupted after %d points%s\n", c->name, out.search.nhistory,
                o->tune ? "; nothing stored in the tuning cache" : "");
    FB_CHECK(status);
    print_table(f, c, &rq, &out.search);
    if (!isfinite(out.search.best_cost))
        FB_FAIL(FB_ERR_CHECK, "solve %s: no point of the sweep ran correctly", c->name);
    if (o->tune) FB_CHECK(store_best(args, o, &rq, &out, f));
fail:
    fb_tune_outcome_free(&out);
    fb_results_close(rq.out);
    if (rq.problem) rq.family->problem_close(rq.problem);
    fb_target_close(rq.t);
    return status;
}

/* Opens backend k, or says why not: with --compare an absent backend is
 * left out (1 = skip), else its absence is the error. */
static fb_status open_backend(const solve_opts *o, int k, fb_target **t, int *skip)
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
static fb_status run_backend(const fb_parsed *args, const solve_opts *o, fb_solve_case *c, int k, solve_run *s,
                             fb_solve_row *rows, int *nrows, solve_failures *f)
{
    int skip = 0;
    fb_status status = open_backend(o, k, &s->t, &skip);
    if (status == FB_OK && !skip) {
        s->stream_gbs = -1;
        status = run_one(args, o, c, s, o->nbackends > 1 ? fb_solve_baseline(rows, *nrows) : NULL);
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
    solve_run s;
    fb_solve_row rows[MAX_BACKENDS];
    solve_failures failures;
    int nrows = 0;
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    memset(&failures, 0, sizeof failures);
    if (fb_cli_flag(args, "list")) {
        print_list();
        return 0;
    }
    FB_CHECK(read_opts(args, &o, &c));
    if (fb_cli_value(args, "scaling")) {
        if (o.nbackends > 1) FB_FAIL(FB_ERR_USAGE, "solve --scaling: give one --backend");
        fb_scaling_request rq;
        scaling_request(args, &rq);
        FB_CHECK(fb_solve_scaling_run(&rq, &c, o.backends[0]));
        goto fail;
    }
    if (fb_comm_size() > 1) {
        FB_CHECK(fb_solve_ranks_check(o.backends, o.nbackends, o.compare, o.sweep, o.tuned, o.peer, &o.point));
        status = run_ranks(args, &o, &c);
        goto fail;
    }
    if (o.sweep) {
        FB_CHECK(run_sweep(args, &o, &c));
        goto fail;
    }
    for (int k = 0; k < o.nbackends; ++k)
        FB_CHECK(run_backend(args, &o, &c, k, &s, rows, &nrows, &failures));
    if (o.nbackends > 1 && nrows > 0) fb_solve_print_comparison(o.as_json ? stderr : stdout, &c, rows, nrows);
    if (failures.error != FB_OK) FB_FAIL(failures.error, "solve %s: %s", c.name, failures.error_text);
    if (failures.check_text[0]) FB_FAIL(FB_ERR_CHECK, "solve %s: %s", c.name, failures.check_text);
fail:
    free_run(&s);
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
};
