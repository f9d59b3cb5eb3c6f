/* cmd_spmv.c - `flowbench spmv`: one SpMV variant (or a peer library) on
 * one matrix and one backend, measured, checked against the serial
 * reference, and reported with the stream triad of the same device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spmv/spmv.h"
#include "spmv/spmv_auto.h"
#include "spmv/spmv_matrix.h"
#include "spmv/spmv_record.h"
#include "../matrix/mtx.h"
#include "../matrix/source.h"
#include "spmv/peers.h"
#include "../results/results.h"
#include "../tune/tuned.h"
#include "../core/counters.h"
#include "plan.h"

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
    {"reorder", "rcm", "renumber the matrix by reverse Cuthill-McKee first", 0},
    {"x", "X.mtx", "input vector (Matrix Market array), default: fixed pseudo-random", 0},
    {"y-out", "Y.mtx", "write the computed y (Matrix Market array)", 0},
    {"no-stream", NULL, "skip the stream triad measurement (no roofline fraction)", 0},
    {"stream-size", "N", "elements per stream array, at least 1 (default 2^25)", 0},
    {"stream-max-age", "S",
     "reuse a stored stream triad of this device younger than S seconds (default 3600, "
     "$FLOWBENCH_STREAM_MAX_AGE; 0 measures now)",
     0},
    FB_CLI_OPTION_COLD,
    FB_CLI_MEASURE_OPTIONS(FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT),
    {"out", "FILE", "append a header and the record to this JSON Lines file", 0},
    {"json", NULL, "print the record as JSON on stdout", 0},
    {"counters", "LIST",
     "PAPI events per sample, comma-separated, or default (cycles, instructions, LLC misses, DP ops)", 0},
    {"tuned", NULL, "take the parameters from the tuning cache (exact, nearest signature, else defaults)", 0},
    {"cache", "FILE", "tuning cache for --tuned (default $FLOWBENCH_TUNING_CACHE or ~/.cache/flowbench/tuning.json)",
     0},
    {"list", NULL, "list the kernels and their parameters, then exit", 0},
    FB_CLI_USER_KERNEL_OPTIONS,
    {NULL, NULL, NULL, 0},
};

static void print_list(void)
{
    fb_cli_print_family(&fb_family_spmv);
    for (int i = 0; i < fb_spmv_kernel_count; ++i) {
        const fb_spmv_kernel_def *k = &fb_spmv_kernels[i];
        printf("%s  %s\n", k->name, k->summary);
        fb_cli_print_axes(k->params, k->nparams, "    ");
        if (k->format->blocked) printf("    BLOCK_SIZE = the matrix's block size (SRC:block=K)\n");
    }
    for (int i = 0; i < fb_peer_count(); ++i) {
        const fb_peer *p = fb_peer_at(i);
        char why[256] = "";
        int ok = p->available(why, sizeof why);
        printf("%s  %s, on the %s backend%s%s\n", p->def.name, p->def.summary, p->backend, ok ? "" : ": ",
               ok ? "" : why);
    }
    printf("auto  the format, kernel and parameters for the matrix, from %d recorded (device class, precision, "
           "matrix) bests (kernels/spmv/spmv_auto_rule.h)\n",
           fb_spmv_auto_rule_count());
    for (int i = 0; i < fb_family_spmv.kernel_count(); ++i) { /* --kernel-file's, registered before listing */
        const fb_family_kernel *k = fb_family_spmv.kernel(i);
        if (!k->user) continue;
        printf("%s  %s\n", k->name, k->summary);
        fb_cli_print_axes(k->params, k->nparams, "    ");
    }
}

typedef struct spmv_cli {
    const fb_spmv_kernel_def *kernel;
    const fb_peer *peer;
    fb_spmv_config cfg;
    const char *backend;
    int is_auto; /* --kernel auto: kernel and point are picked once the matrix is read */
    fb_spmv_auto_choice choice;
} spmv_cli;

static fb_status read_options(const fb_parsed *args, spmv_cli *c)
{
    fb_status status = FB_OK;
    const char *name = fb_cli_value(args, "kernel"), *prec = fb_cli_value(args, "precision");
    const char *const *params;
    int nparams = fb_cli_values(args, "param", &params);
    memset(c, 0, sizeof *c);
    if (!name) name = "csr-scalar";
    c->backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    c->peer = fb_peer_find(name);
    c->is_auto = !strcmp(name, "auto");
    c->kernel = c->peer ? &c->peer->def : fb_spmv_kernel_find(c->is_auto ? "csr-scalar" : name);
    if (c->is_auto && (nparams || fb_cli_flag(args, "tuned")))
        FB_FAIL(FB_ERR_USAGE, "--kernel auto picks its own parameters: no --param or --tuned with it");
    if (!c->kernel) FB_FAIL(FB_ERR_USAGE, "--kernel: unknown kernel '%s' (see flowbench spmv --list)", name);
    if (prec && strcmp(prec, "double") && strcmp(prec, "single"))
        FB_FAIL(FB_ERR_USAGE, "--precision: '%s' is not double or single", prec);
    c->cfg.kernel = c->kernel;
    c->cfg.is_double = !prec || !strcmp(prec, "double");
    c->cfg.point = fb_spmv_default_point(c->kernel);
    if (c->peer && nparams) FB_FAIL(FB_ERR_USAGE, "--param: %s takes no parameters", name);
    if (fb_cli_value(args, "kernel-file")) nparams = 0; /* they declared its axes: a single run takes the defaults */
    if (fb_cli_flag(args, "tuned") && nparams) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    if (fb_cli_value(args, "cache") && !fb_cli_flag(args, "tuned"))
        FB_FAIL(FB_ERR_USAGE, "--cache is read with --tuned only");
    for (int i = 0; i < nparams; ++i)
        FB_CHECK(fb_cli_param(c->kernel->name, c->kernel->params, c->kernel->nparams, params[i],
                              "flowbench spmv --list", &c->cfg.point));
    FB_CHECK(fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &c->cfg.measure));
    if (!fb_cli_value(args, "matrix")) FB_FAIL(FB_ERR_USAGE, "spmv: --matrix SRC is required");
    const char *reorder = fb_cli_value(args, "reorder");
    if (reorder && strcmp(reorder, "rcm")) FB_FAIL(FB_ERR_USAGE, "--reorder: '%s' is not rcm", reorder);
fail:
    return status;
}

/* --x: a Matrix Market array with one column and ncols rows (the
 * matrix's own columns), into x of `padded` entries: a block view rounds
 * the columns up to a multiple of K, and those columns hold no entry, so
 * their x is 0 (the user never sees the padding). */
static fb_status read_x(const char *path, int ncols, int padded, double **x)
{
    fb_status status = FB_OK;
    fb_mtx file;
    memset(&file, 0, sizeof file);
    FB_CHECK(fb_mtx_read(path, &file));
    if (!file.info.array || file.dense.ncols != 1)
        FB_FAIL(FB_ERR_INPUT, "%s: --x must be a Matrix Market array with one column", path);
    if (file.dense.nrows != ncols)
        FB_FAIL(FB_ERR_INPUT, "%s: --x has %d entries but the matrix has %d columns", path, file.dense.nrows, ncols);
    FB_ALLOC(*x, padded, "x");
    memcpy(*x, file.dense.values, (size_t)ncols * sizeof **x);
fail:
    fb_mtx_free(&file);
    return status;
}

static void print_params(FILE *f, const spmv_cli *c, const fb_spmv_matrix *A)
{
    fprintf(f, "  params:");
    for (int i = 0; i < c->kernel->nparams; ++i)
        fprintf(f, " %s=%d", c->kernel->params[i].name, c->cfg.point.values[i]);
    if (A->format->blocked) fprintf(f, " BLOCK_SIZE=%d", A->shape.block);
    if (!c->kernel->nparams && !A->format->blocked) fprintf(f, " (none)");
    fprintf(f, "\n");
}

/* What the compiler made of the kernel; registers and occupancy only where
 * the runtime says (CUDA). */
static void print_resources(FILE *f, const fb_kernel_resources *k)
{
    fprintf(f, "  kernel: ");
    if (k->registers) fprintf(f, "%d registers, ", k->registers);
    fprintf(f, "%zu B private, %zu B local per group, max group %zu", k->private_bytes, k->local_bytes,
            k->max_group_items);
    if (k->groups_per_unit)
        fprintf(f, ", %d groups per compute unit, occupancy %.0f%%", k->groups_per_unit, 100.0 * k->occupancy);
    fprintf(f, "\n");
}

/* To f: stdout, or stderr when stdout carries the JSON record. */
static void print_result(FILE *f, const spmv_cli *c, const fb_matrix *m, const fb_spmv_matrix *A,
                         const fb_device_info *d, const fb_spmv_result *r, const json_t *rec, double stream_gbs)
{
    fprintf(f, "spmv %s on %s (%s), %s\n", c->kernel->name, d->id, d->name, c->cfg.is_double ? "double" : "single");
    fprintf(f, "  matrix: %s, %d x %d, %lld stored entries%s\n", m->source, A->shape.nrows, A->shape.ncols,
            A->shape.nnz, m->reordered ? ", rcm order" : "");
    print_params(f, c, A);
    if (r->launch.dims > 0) fprintf(f, "  launch: global %zu, local %zu\n", r->launch.global[0], r->launch.local[0]);
    if (r->has_resources) print_resources(f, &r->resources);
    if (r->conversion.done)
        fprintf(f, "  sell: %d slices, %lld stored entries (padding %.1f%%)%s, converted in %.3f ms (not timed)\n",
                r->conversion.nslices, r->conversion.stored, 100.0 * r->conversion.padding,
                r->conversion.permuted ? ", rows sorted" : "", r->conversion.seconds * 1e3);
    char verdict[400];
    fprintf(f, "  median %.4f ms over %d samples (95%% CI +-%.2f%%, %s)\n", r->m.stats.median * 1e3, r->m.nsamples,
            100.0 * r->m.stats.median_spread, fb_measurement_verdict(&r->m, verdict, sizeof verdict));
    fprintf(f, "  %.3f GFLOP/s, %.3f GB/s of %.4g model bytes", r->gflops, r->gbs, r->model.min_bytes);
    if (stream_gbs > 0) fprintf(f, " = %.1f%% of stream triad %.2f GB/s", 100.0 * r->gbs / stream_gbs, stream_gbs);
    const char *reason = json_string_value(json_object_get(rec, "reason"));
    if (!r->checked_ok && reason) /* the record's words: a NaN in y has no relative error to show */
        fprintf(f, "\n  check: WRONG (%s)\n", reason);
    else
        fprintf(f, "\n  check: %s (max rel error %.3g, tolerance %.3g)\n", r->checked_ok ? "ok" : "WRONG", r->rel_error,
                r->tolerance);
}

static fb_status write_outputs(const fb_parsed *args, const spmv_cli *c, const fb_device_info *d, json_t *rec,
                               const fb_spmv_result *r, const fb_matrix *m)
{
    fb_status status = FB_OK;
    const char *y_path = fb_cli_value(args, "y-out");
    if (y_path && r->y) {
        char comment[600];
        snprintf(comment, sizeof comment, " y = A x by flowbench spmv --kernel %s on %s, matrix %s", c->kernel->name,
                 d->id, m->source);
        FB_CHECK(fb_mtx_write_vector(y_path, r->y, (int)m->A.nrows, comment));
    }
    FB_CHECK(fb_cli_emit_record(args, "spmv", d, rec));
fail:
    return status;
}

typedef struct spmv_run {
    fb_matrix m;
    fb_spmv_matrix A;
    double *x;
    fb_target *t;
    fb_spmv_result r;
    json_t *matrix_json, *rec, *tuning;
    fb_signature sig; /* with matrix_json */
    double stream_gbs;
    fb_counters *counters;
} spmv_run;

/* --counters: PAPI sees this process's OpenMP threads, so only the openmp
 * backend (and its peers) can be counted; other backends record why not. */
static fb_status open_counters(const fb_parsed *args, spmv_cli *c, spmv_run *s)
{
    fb_status status = FB_OK;
    const fb_device_info *d = fb_target_info(s->t);
    char why[200];
    if (!fb_cli_value(args, "counters")) return FB_OK;
    if (strcmp(d->backend, "openmp")) {
        snprintf(why, sizeof why, "%s runs its work outside this process's OpenMP threads", d->id);
        FB_CHECK(fb_counters_unavailable(why, &s->counters));
    } else {
        FB_CHECK(fb_counters_open(fb_cli_value(args, "counters"), &s->counters));
    }
    c->cfg.measure.counters = s->counters;
fail:
    return status;
}

static void print_counters(FILE *f, const json_t *counters)
{
    const char *key;
    json_t *v;
    if (!counters) return;
    if (json_object_get(counters, "unavailable")) {
        fprintf(f, "  counters unavailable: %s\n", json_string_value(json_object_get(counters, "unavailable")));
        return;
    }
    fprintf(f, "  counters per run:");
    json_object_foreach(json_object_get(counters, "events"), key, v) fprintf(f, " %s %.4g", key, json_number_value(v));
    json_object_foreach(json_object_get(counters, "derived"), key, v)
        fprintf(f, " | %s %.3g", key, json_number_value(v));
    fprintf(f, "\n");
}

/* --tuned: the cached point for this device, kernel, precision and matrix. */
static fb_status apply_tuning(const fb_parsed *args, spmv_cli *c, spmv_run *s)
{
    fb_status status = FB_OK;
    fb_tuning_cache *cache = NULL;
    char path[1024], text[512];
    fb_cache_path(fb_cli_value(args, "cache"), path, sizeof path);
    FB_CHECK(fb_cache_load(path, &cache));
    FB_CHECK(fb_tuned_point(cache, fb_target_info(s->t), c->kernel->name, c->kernel->params, c->kernel->nparams,
                            c->cfg.is_double, &s->sig, &c->cfg.point, &s->tuning));
    json_object_set_new(s->tuning, "cache", json_string(path));
    fb_tuning_text(s->tuning, text, sizeof text);
    fprintf(stderr, "--tuned: %s (cache %s)\n", text, path);
fail:
    fb_cache_free(cache);
    return status;
}

/* --kernel auto: the device and the matrix's statistics decide (spmv_auto.h). */
static fb_status choose_auto(spmv_cli *c, spmv_run *s)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_target_open(c->backend, &s->t));
    FB_CHECK(fb_spmv_matrix_describe(&s->m, &s->matrix_json, &s->sig));
    FB_CHECK(fb_spmv_auto_pick(&s->m, s->matrix_json, fb_target_info(s->t), c->cfg.is_double, &c->choice));
    c->kernel = c->cfg.kernel = c->choice.kernel;
    c->cfg.point = c->choice.point;
fail:
    return status;
}

static fb_status prepare(const fb_parsed *args, spmv_cli *c, spmv_run *s)
{
    fb_status status = FB_OK;
    fb_matrix_options opt = {.reorder_rcm = fb_cli_value(args, "reorder") != NULL};
    FB_CHECK(read_options(args, c));
    FB_CHECK(fb_matrix_load(fb_cli_value(args, "matrix"), &opt, &s->m));
    if (s->m.is_vector) FB_FAIL(FB_ERR_INPUT, "%s: is a vector (Matrix Market array), not a matrix", s->m.source);
    if (c->is_auto) FB_CHECK(choose_auto(c, s));
    FB_CHECK(fb_spmv_view_for(&s->m, c->kernel, &s->A));
    if (fb_cli_value(args, "x")) FB_CHECK(read_x(fb_cli_value(args, "x"), s->m.A.ncols, s->A.shape.ncols, &s->x));
    c->cfg.x = s->x;
    if (!s->t) FB_CHECK(fb_target_open(c->backend, &s->t));
    FB_CHECK(fb_cli_stream_triad(args, s->t, c->backend, c->cfg.is_double, &s->stream_gbs));
    if (!s->matrix_json) FB_CHECK(fb_spmv_matrix_describe(&s->m, &s->matrix_json, &s->sig));
    if (fb_cli_flag(args, "tuned")) FB_CHECK(apply_tuning(args, c, s));
    FB_CHECK(open_counters(args, c, s));
fail:
    return status;
}

/* What spmv reads and writes (fb_cli_check_files). */
static const char *const inputs[] = {"matrix", "x", "kernel-file", "cache", NULL};
static const char *const outputs[] = {"out", "y-out", NULL};

static int run_spmv(const fb_parsed *args)
{
    fb_status status = FB_OK, run_status = FB_OK;
    spmv_cli c;
    spmv_run s;
    memset(&s, 0, sizeof s);
    if (fb_cli_flag(args, "list")) { /* with --kernel-file, that kernel is listed too */
        FB_CHECK(fb_cli_user_kernel(args, &fb_family_spmv, 0, NULL));
        print_list();
        return 0;
    }
    FB_CHECK(fb_cli_check_files(args, "spmv", inputs, outputs, NULL, 0, NULL, 0));
    if (fb_cli_plan_wanted(args, &plan_kind)) return fb_cli_plan_run(args, &plan_kind);
    FB_CHECK(fb_cli_user_kernel(args, &fb_family_spmv, 0, NULL));
    FB_CHECK(prepare(args, &c, &s));
    fb_cli_guard_run("spmv", c.kernel->name, c.kernel->user, fb_target_info(s.t)->id, c.cfg.measure.budget_s);
    run_status = c.peer ? fb_peer_run(c.peer, s.t, &s.A, &c.cfg, &s.r) : fb_spmv_run(s.t, &s.A, &c.cfg, &s.r);
    fb_guard_done();
    if (run_status != FB_OK && run_status != FB_ERR_CHECK) {
        status = run_status; /* the message is already set */
        goto fail;
    }
    const fb_device_info *d = fb_target_info(s.t);
    s.rec = fb_spmv_record(d, s.matrix_json, &s.A, &c.cfg, &s.r, s.stream_gbs);
    if (run_status == FB_ERR_CHECK) json_object_set_new(s.rec, "reason", json_string(fb_error_message()));
    if (s.tuning) json_object_set(s.rec, "tuning", s.tuning);
    if (c.is_auto) json_object_set_new(s.rec, "auto", fb_spmv_auto_json(&c.choice));
    if (s.counters) json_object_set_new(s.rec, "counters", fb_counters_json(s.counters, s.r.model.min_bytes));
    print_result(fb_cli_flag(args, "json") ? stderr : stdout, &c, &s.m, &s.A, d, &s.r, s.rec, s.stream_gbs);
    if (c.is_auto) fprintf(fb_cli_flag(args, "json") ? stderr : stdout, "  auto: %s\n", c.choice.why);
    print_counters(fb_cli_flag(args, "json") ? stderr : stdout, json_object_get(s.rec, "counters"));
    fb_cli_print_energy(fb_cli_flag(args, "json") ? stderr : stdout, NULL, json_object_get(s.rec, "energy"));
    FB_CHECK(write_outputs(args, &c, d, s.rec, &s.r, &s.m));
    if (run_status == FB_ERR_CHECK) FB_FAIL(FB_ERR_CHECK, "%s: y is wrong (see check above)", c.kernel->name);
fail:
    json_decref(s.rec);
    json_decref(s.tuning);
    fb_counters_close(s.counters);
    json_decref(s.matrix_json);
    fb_spmv_result_free(&s.r);
    fb_target_close(s.t);
    free(s.x);
    fb_matrix_free(&s.m);
    return status == FB_OK ? 0 : fb_cli_report(status);
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
                   "with the same check.\n"
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
};
