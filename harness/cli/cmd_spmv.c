/* cmd_spmv.c - `flowbench spmv`: one SpMV variant (or a peer library) on
 * one matrix and one backend, measured, checked against the serial
 * reference, and reported with the stream triad of the same device. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../results/presentation/catalogue.h"
#include "../results/presentation/record_text.h"
#include "spmv/spmv.h"
#include "spmv/spmv_auto.h"
#include "spmv/spmv_matrix.h"
#include "spmv/spmv_record.h"
#include "../matrix/mtx.h"
#include "../matrix/source.h"
#include "spmv/peers.h"
#include "../bench/record.h"
#include "../results/records/reader.h"
#include "../results/records/results.h"
#include "../results/records/stream_used.h"
#include "../tune/tuned.h"
#include "../core/comm.h"
#include "../core/counters.h"
#include "plan.h"
#include "processes.h"

/* What only one configuration can have: its own x, its y, its reordered
 * matrix, its record on stdout; a plan's records go to --out. */
static const char *const single_only[] = {"x", "y-out", "reorder", "json", "stream-max-age", NULL};
static const fb_cli_plan_kind plan_kind = {
    .command = "spmv",
    .family = &fb_family_spmv,
    .problem_option = "matrix",
    .default_kernel = "csr-scalar",
    .single_only = single_only,
};
#include "core/guard.h"
#include "user_kernel_cli.h"

static const fb_option options[] = {
    {"matrix", "SRC", "matrix file (.mtx, .mtx.gz, .msh, .su2) or gen: spec; repeat it (or all) for a plan of several",
     1},
    {"backend", "B", "backend[:device] (default openmp)", 0},
    {"kernel", "K",
     "variant from --list, peer:NAME, or auto (the rule of recorded sweeps picks; default csr-scalar); repeat it (or "
     "all) for a plan of several",
     1},
    {"param", "NAME=V[,V...]",
     "kernel parameter (default: the kernel's default); a list, or several --param, plans their cross product", 1},
    {"zip", NULL, "advance the --param lists together (equal lengths) instead of their cross product", 0},
    {"dry-run", NULL, "print the plan, each configuration with run or pruned and the reason; measure nothing", 0},
    {"precision", "P", "double or single (default double)", 0},
    {"reorder", "rcm", "renumber the matrix by reverse Cuthill-McKee first (a plan: --matrix SRC:reorder=rcm)", 0},
    {"x", "X.mtx", "input vector (Matrix Market array), default: fixed pseudo-random", 0},
    {"y-out", "Y.mtx", "write the computed y (Matrix Market array)", 0},
    FB_CLI_STREAM_OPTIONS,
    FB_CLI_OPTION_COLD,
    FB_CLI_MEASURE_OPTIONS(FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT),
    FB_CLI_OPTION_PROCESSES,
    {"out", "FILE", "append a header and the record to this JSON Lines file", 0},
    {"json", NULL, "print the record as JSON on stdout", 0},
    {"counters", "LIST",
     "PAPI events per sample, comma-separated, or default (cycles, instructions, LLC misses, DP ops)", 0},
    {"tuned", NULL, "take the parameters from the tuning cache (exact, nearest signature, else defaults)", 0},
    {"cache", "FILE",
     "tuning cache for --tuned (default $FLOWBENCH_TUNING_CACHE, else $FLOWBENCH_CACHE_DIR/tuning.json, else "
     "~/.cache/flowbench/tuning.json)",
     0},
    {"list", NULL, "list the kernels and their parameters, then exit", 0},
    FB_CLI_USER_KERNEL_OPTIONS,
    {NULL, NULL, NULL, 0},
};

/* One configuration: the family's run on the family's problem, as a sweep
 * runs it, with what only a single run has (x, y, rcm order, counters,
 * --tuned, the printed result). */
typedef struct spmv_single {
    fb_family_run run; /* kernel index, point, precision, measurement */
    const fb_family_kernel *kernel;
    const char *backend;
    void *problem;
    fb_target *t;
    json_t *rec, *tuning;
    double stream_gbs;
    fb_counters *counters;
} spmv_single;

static fb_status read_params(const fb_parsed *args, spmv_single *c)
{
    fb_status status = FB_OK;
    const char *const *params;
    int nparams = fb_cli_values(args, "param", &params), is_auto = strcmp(c->kernel->name, "auto") == 0;
    if (is_auto && (nparams || fb_cli_flag(args, "tuned")))
        FB_FAIL(FB_ERR_USAGE, "--kernel auto picks its own parameters: no --param or --tuned with it");
    if (fb_peer_find(c->kernel->name) && nparams)
        FB_FAIL(FB_ERR_USAGE, "--param: %s takes no parameters", c->kernel->name);
    if (fb_cli_value(args, "kernel-file")) nparams = 0; /* they declared its axes: a single run takes the defaults */
    if (fb_cli_flag(args, "tuned") && nparams) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    if (fb_cli_value(args, "cache") && !fb_cli_flag(args, "tuned"))
        FB_FAIL(FB_ERR_USAGE, "--cache is read with --tuned only");
    c->run.point = fb_param_default_point(c->kernel->params, c->kernel->nparams);
    for (int i = 0; i < nparams; ++i)
        FB_CHECK(fb_cli_param(c->kernel->name, c->kernel->params, c->kernel->nparams, params[i],
                              "flowbench spmv --list", &c->run.point));
fail:
    return status;
}

static fb_status read_options(const fb_parsed *args, spmv_single *c)
{
    fb_status status = FB_OK;
    const char *name = fb_cli_value(args, "kernel");
    const char *reorder = fb_cli_value(args, "reorder");
    memset(c, 0, sizeof *c);
    if (!name) name = plan_kind.default_kernel;
    c->backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    c->run.kernel = fb_family_kernel_find(&fb_family_spmv, name);
    if (c->run.kernel < 0) FB_FAIL(FB_ERR_USAGE, "--kernel: unknown kernel '%s' (see flowbench spmv --list)", name);
    c->kernel = fb_family_spmv.kernel(c->run.kernel);
    FB_CHECK(fb_cli_precision(args, &c->run.is_double));
    FB_CHECK(read_params(args, c));
    FB_CHECK(fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &c->run.measure));
    if (!fb_cli_value(args, "matrix")) FB_FAIL(FB_ERR_USAGE, "spmv: --matrix SRC is required");
    if (reorder && strcmp(reorder, "rcm")) FB_FAIL(FB_ERR_USAGE, "--reorder: '%s' is not rcm", reorder);
fail:
    return status;
}

/* The view the record's kernel read (a block view's shape is padded). */
static void view_of(const spmv_single *c, const json_t *rec, fb_spmv_matrix *A)
{
    const fb_matrix *m = fb_spmv_problem_matrix(c->problem);
    const fb_peer *peer = fb_peer_find(fb_json_str(rec, "kernel"));
    const fb_spmv_kernel_def *k = peer ? &peer->def : fb_spmv_kernel_find(fb_json_str(rec, "kernel"));
    if (!k || fb_spmv_view_shape(m, k, A) != FB_OK) fb_spmv_view_csr(&m->A, A);
}

/* To f: stdout, or stderr when stdout carries the JSON record; the
 * matrix's shape as the kernel read it. */
static void print_result(FILE *f, const spmv_single *c, const json_t *rec)
{
    const fb_matrix *m = fb_spmv_problem_matrix(c->problem);
    fb_spmv_matrix A;
    view_of(c, rec, &A);
    fb_record_print_spmv(f, rec, m->source, A.shape.nrows, A.shape.ncols, A.shape.nnz, m->reordered);
}

/* --counters: PAPI sees this process's OpenMP threads, so only the openmp
 * backend (and its peers) can be counted; other backends record why not. */
static fb_status open_counters(const fb_parsed *args, spmv_single *c)
{
    fb_status status = FB_OK;
    const fb_device_info *d = fb_target_info(c->t);
    char why[200];
    if (!fb_cli_value(args, "counters")) return FB_OK;
    if (!d->in_process) {
        snprintf(why, sizeof why, "%s runs its work outside this process's OpenMP threads", d->id);
        FB_CHECK(fb_counters_unavailable(why, &c->counters));
    } else {
        FB_CHECK(fb_counters_open(fb_cli_value(args, "counters"), &c->counters));
    }
    c->run.measure.counters = c->counters;
fail:
    return status;
}

/* --tuned: the cached point for this device, kernel, precision and matrix. */
static fb_status apply_tuning(const fb_parsed *args, spmv_single *c)
{
    fb_signature sig;
    if (!fb_cli_flag(args, "tuned")) return FB_OK;
    fb_family_spmv.signature(c->problem, &sig);
    return fb_tuned_lookup(fb_cli_value(args, "cache"), fb_target_info(c->t), c->kernel->name, c->kernel->params,
                           c->kernel->nparams, c->run.is_double, &sig, &c->run.point, &c->tuning, stderr);
}

static fb_status prepare(const fb_parsed *args, spmv_single *c)
{
    fb_status status = FB_OK;
    FB_CHECK(read_options(args, c));
    FB_CHECK(fb_spmv_problem_open(fb_cli_value(args, "matrix"), fb_cli_value(args, "reorder") != NULL, &c->problem));
    if (fb_cli_value(args, "x")) FB_CHECK(fb_spmv_problem_read_x(c->problem, fb_cli_value(args, "x")));
    FB_CHECK(fb_spmv_problem_check_ranks(c->problem));
    FB_CHECK(fb_target_open(c->backend, &c->t));
    FB_CHECK(apply_tuning(args, c));
    /* a point the kernel, the matrix or the device refuses is said before
     * the triad is measured (9 s at full size), not after */
    FB_CHECK(fb_family_spmv.check(c->problem, &c->run, fb_target_info(c->t)));
    c->stream_gbs = -1; /* on ranks no triad: one rank's would not be the node's (docs/kernels.md) */
    if (fb_comm_size() == 1) FB_CHECK(fb_cli_stream_triad(args, c->t, c->backend, c->run.is_double, &c->stream_gbs));
    FB_CHECK(open_counters(args, c));
fail:
    return status;
}

static fb_status write_outputs(const fb_parsed *args, const spmv_single *c)
{
    fb_status status = FB_OK;
    const char *y_path = fb_cli_value(args, "y-out");
    const fb_matrix *m = fb_spmv_problem_matrix(c->problem);
    if (y_path && fb_spmv_problem_y(c->problem)) {
        char comment[600];
        snprintf(comment, sizeof comment, " y = A x by flowbench spmv --kernel %s on %s, matrix %s",
                 fb_json_str(c->rec, "kernel"), fb_target_info(c->t)->id, m->source);
        FB_CHECK(fb_mtx_write_vector(y_path, fb_spmv_problem_y(c->problem), (int)m->A.nrows, comment));
    }
    FB_CHECK(fb_cli_emit_record(args, "spmv", fb_target_info(c->t), c->rec));
fail:
    return status;
}

/* What only the command adds to the family's record: the stream fraction,
 * the tuning and the counters. */
static void complete_record(spmv_single *c)
{
    fb_json_set_fraction_of_stream(c->rec, fb_json_num(c->rec, "gbs"), c->stream_gbs);
    fb_json_set_fraction_of_read(c->rec, fb_json_num(c->rec, "gbs"),
                                 c->stream_gbs > 0 ? fb_stream_used_read_gbs(fb_target_info(c->t)) : 0.0);
    if (c->tuning) json_object_set(c->rec, "tuning", c->tuning), fb_tuned_judge(c->rec);
    if (c->counters)
        json_object_set_new(c->rec, "counters", fb_counters_json(c->counters, fb_json_num(c->rec, "bytes")));
    if (fb_comm_size() > 1)
        json_object_set_new(c->rec, "mpi",
                            json_pack("{s:i, s:s, s:i}", "ranks", fb_comm_size(), "library", fb_comm_library(),
                                      "threads_per_rank", omp_get_max_threads()));
}

/* Under mpirun only PETSc's MatMult divides its work among the ranks
 * (peer_petsc.c): one kernel on one matrix, no plan, no counters. */
static fb_status check_ranks(const fb_parsed *args)
{
    fb_status status = FB_OK;
    const int p = fb_comm_size();
    const char *kernel = fb_cli_value(args, "kernel");
    if (p == 1) return FB_OK;
    if (fb_cli_plan_wanted(args, &plan_kind) || !kernel || strcmp(kernel, "peer:petsc") != 0)
        FB_FAIL(FB_ERR_USAGE,
                "spmv on %d ranks: only --kernel peer:petsc on one matrix runs on ranks (PETSc's MatMult over them); "
                "run other kernels and plans without mpirun",
                p);
    if (fb_cli_value(args, "counters") || fb_cli_flag(args, "cold"))
        FB_FAIL(FB_ERR_USAGE, "spmv on %d ranks: --counters and --cold run on one process", p);
fail:
    return status;
}

/* On ranks rank 0 says an error once (the ranks met it alike: the same
 * options, the same collectives) and the others leave quietly. */
static int exit_code(fb_status status)
{
    if (status == FB_OK) return 0;
    if (fb_comm_rank() == 0) return fb_comm_report(status);
    return status == FB_ERR_INTERRUPTED ? 130 : fb_status_exit_code(status); /* fb_comm_report's codes */
}

/* What spmv reads and writes (fb_cli_check_files). */
static const char *const inputs[] = {"matrix", "x", "kernel-file", "cache", NULL};
static const char *const outputs[] = {"out", "y-out", NULL};

static int run_spmv(const fb_parsed *args)
{
    fb_status status = FB_OK, run_status = FB_OK;
    spmv_single c;
    memset(&c, 0, sizeof c);
    FB_CHECK(check_ranks(args));
    if (fb_cli_flag(args, "list")) { /* with --kernel-file, that kernel is listed too */
        FB_CHECK(fb_cli_user_kernel(args, &fb_family_spmv, 0, NULL));
        fb_catalogue_print_spmv(stdout);
        return 0;
    }
    FB_CHECK(fb_cli_check_files(args, "spmv", inputs, outputs, NULL, 0, NULL, 0));
    if (fb_cli_processes_wanted(args) && fb_cli_plan_wanted(args, &plan_kind))
        FB_FAIL(FB_ERR_USAGE, "spmv: --processes measures one configuration, not a plan of several");
    if (fb_cli_processes_wanted(args)) return fb_cli_processes_run("spmv", args);
    if (fb_cli_plan_wanted(args, &plan_kind)) return fb_cli_plan_run(args, &plan_kind);
    FB_CHECK(fb_cli_user_kernel(args, &fb_family_spmv, 0, NULL));
    FB_CHECK(prepare(args, &c));
    fb_cli_guard_run("spmv", c.kernel->name, c.kernel->user, fb_target_info(c.t)->id, c.run.measure.budget_s);
    run_status = fb_family_spmv.run(c.t, c.problem, &c.run, &c.rec);
    fb_guard_done();
    if (run_status != FB_OK && run_status != FB_ERR_CHECK) {
        status = run_status; /* the message is already set */
        goto fail;
    }
    complete_record(&c);
    if (fb_comm_rank() != 0) goto fail; /* rank 0 prints and records */
    FILE *f = fb_cli_flag(args, "json") ? stderr : stdout;
    print_result(f, &c, c.rec);
    fb_record_print_counters(f, json_object_get(c.rec, "counters"));
    fb_record_print_energy(f, NULL, json_object_get(c.rec, "energy"));
    FB_CHECK(write_outputs(args, &c));
    if (run_status == FB_ERR_CHECK)
        FB_FAIL(FB_ERR_CHECK, "%s: y is wrong (see check above)", fb_json_str(c.rec, "kernel"));
fail:
    json_decref(c.rec);
    json_decref(c.tuning);
    fb_counters_close(c.counters);
    if (c.problem) fb_family_spmv.problem_close(c.problem);
    fb_target_close(c.t);
    return exit_code(status);
}

const fb_command fb_cmd_spmv = {
    .name = "spmv",
    .summary = "measure one SpMV kernel (or a peer library) on one matrix, checked",
    .usage = "spmv --matrix SRC [--backend B] [--kernel K] [--param NAME=VALUE]... [--out FILE] [--json]\n"
             "       spmv --matrix SRC... [--kernel K]... [--param NAME=V1,V2,...]... [--zip] [--out FILE]\n"
             "       spmv --matrix SRC --backend opencl|cuda --kernel-file FILE --kernel NAME [--like K]\n"
             "            [--param NAME=V1,V2,...]... [--constraint EXPR]... [--global-divisor NAME]",
    .description = "Runs y = A x with one kernel variant on one backend, measures it with the common\n"
                   "policy (warm-ups, then samples until the median's 95% CI is within --spread),\n"
                   "and checks every y_i against the serial double-precision reference: the error\n"
                   "bound is 2 eps (|A||x|)_i times the longest row. GFLOP/s counts 2 flops per\n"
                   "stored entry; GB/s divides the minimal traffic (values, indices, row pointers,\n"
                   "x and y once each, docs/kernels.md) by the median time, and is also given as a\n"
                   "fraction of the stream triad measured on the same device just before.\n"
                   "Block kernels (bcsr, bcsr-vector, bcsr-lanes, bcsr-warp, bcsr-soa) need\n"
                   "SRC:block=K; sell converts the CSR matrix to SELL-C-sigma first (timed apart).\n"
                   "--kernel auto picks format, kernel and parameters from the matrix's statistics\n"
                   "by the nearest matrix of recorded sweeps (kernels/spmv/spmv_auto.h) and says\n"
                   "why in the output and the record's \"auto\" object. A peer library\n"
                   "(peer:graphblas, peer:cusparse, peer:cusparse-bsr) runs on its own backend\n"
                   "with the same check; under mpirun, --kernel peer:petsc runs PETSc's MatMult\n"
                   "over the ranks (one core each, rank 0 checks and records; no stream triad).\n"
                   "Several --matrix or --kernel, or a --param list (WG_SIZE=64,128,256), make a\n"
                   "plan: their cross product (--zip: the lists side by side), printed first, then\n"
                   "run as a one-case sweep would run it (docs/tuning.md): points a kernel or the\n"
                   "device cannot take are pruned with the reason, the others measured, checked and\n"
                   "recorded, and one line per configuration printed at the end.\n"
                   "Your own kernel: --kernel-file FILE --kernel NAME runs the __kernel NAME of an\n"
                   "OpenCL C file that takes the argument list of --like K (default csr-scalar) as\n"
                   "K runs: its launch, constraints, check and model (docs/kernels.md). Each\n"
                   "--param NAME=V1,V2,... declares one of its parameters (one value each: a single\n"
                   "run; lists: a plan of their points). opencl and cuda only: OpenCL C has no\n"
                   "OpenMP twin.",
    .options = options,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_spmv,
    .ranks = 1, /* --kernel peer:petsc only (check_ranks) */
    .measures = 1,
    .guarded = 1,
};
