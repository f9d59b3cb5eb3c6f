/* cmd_stream.c - `flowbench stream`: BabelStream bandwidth on each backend,
 * validated, printed and optionally appended to a results file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../results/presentation/record_text.h"
#include "../results/presentation/stream_text.h"
#include "stream/stream.h"
#include "../results/records/results.h"
#include "../results/records/stream_ref.h"

#define MAX_TARGETS 16

static const fb_option options[] = {
    {"backend", "B", "backend[:device] to run on (default: every device found)", 1},
    {"size", "N",
     "elements per array (default: the least power of two from 2^25 whose 3 arrays are 4x the last-level cache, "
     "within half the device's memory)",
     0},
    {"precision", "P", "double or single (default double)", 0},
    {"wg", "N", "work-group size of the device kernels (default 256)", 0},
    FB_CLI_OPTION_COLD,
    FB_CLI_OPTION_WARMUPS,
    FB_CLI_MEASURE_OPTIONS(FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT),
    {"out", "FILE", "append a header and one record per kernel to this JSON Lines file", 0},
    {"json", NULL, "print the records as JSON on stdout (progress goes to stderr)", 0},
    {NULL, NULL, NULL, 0},
};

typedef struct run_ctx {
    FILE *progress;
} run_ctx;

static fb_status read_config(const fb_parsed *args, fb_stream_config *cfg)
{
    fb_status status = FB_OK;
    memset(cfg, 0, sizeof *cfg);
    FB_CHECK(fb_cli_precision(args, &cfg->is_double));
    FB_CHECK(fb_cli_stream_size(args, "size", &cfg->n));
    FB_CHECK(fb_cli_count(args, "wg", 256, &cfg->wg));
    FB_CHECK(fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &cfg->measure));
fail:
    return status;
}

/* The explicit --backend list, or every device of every backend. */
static int collect_specs(const fb_parsed *args, char specs[][40], FILE *note)
{
    const char *const *given;
    int n = fb_cli_values(args, "backend", &given), count = 0;
    for (int i = 0; i < n && count < MAX_TARGETS; ++i)
        snprintf(specs[count++], 40, "%s", given[i]);
    if (n > 0) return count;
    for (int b = 0; b < fb_backend_count(); ++b) {
        const fb_backend_ops *ops = fb_backend_at(b);
        char why[256] = "";
        int ndev = ops->probe(why, sizeof why);
        if (ndev <= 0) fprintf(note, "%s: skipped: %s\n", ops->name, why);
        for (int d = 0; d < ndev && count < MAX_TARGETS; ++d)
            snprintf(specs[count++], 40, "%s:%d", ops->name, d);
    }
    return count;
}

static void print_progress(const fb_stream_result *r, void *vctx)
{
    fb_stream_print_result(((run_ctx *)vctx)->progress, r);
}

/* The triad offered to the stream cache that spmv, grid and solve divide
 * by: kept when stable and better than the stored one (or that one is past
 * its age), never when contended or unstable (stream_ref.h). A cold run's
 * triad is another figure: not offered. */
static fb_status offer_reference(fb_target *t, const fb_stream_config *cfg,
                                 const fb_stream_result results[FB_STREAM_NKERNELS], run_ctx *ctx)
{
    const fb_stream_result *triad = &results[FB_STREAM_TRIAD];
    fb_status status = FB_OK;
    fb_stream_triad measured;
    char path[4096], said[600];
    if (cfg->measure.cold || !triad->checked_ok) return FB_OK;
    fb_stream_triad_of(results, cfg->n, &measured);
    fb_stream_ref_default_path(path, sizeof path);
    FB_CHECK(fb_stream_ref_offer(t, &measured, cfg->is_double, path, fb_stream_ref_max_age(), said, sizeof said));
    fprintf(ctx->progress, "  triad %s\n", said);
fail:
    return status;
}

/* Runs stream on one target; appends records to `out` and `json_records`. */
static fb_status run_one(fb_target *t, const fb_stream_config *given, fb_results *out, json_t *json_records,
                         run_ctx *ctx)
{
    fb_status status = FB_OK, run_status;
    fb_stream_result results[FB_STREAM_NKERNELS];
    const fb_device_info *d = fb_target_info(t);
    fb_stream_config cfg = *given; /* no --size: each device its own default */
    cfg.n = fb_stream_size_of(d, cfg.is_double, given->n).n;
    memset(results, 0, sizeof results);
    fb_stream_print_header(ctx->progress, d, &cfg);
    run_status = fb_stream_run(t, &cfg, results, print_progress, ctx);
    if (run_status == FB_OK) FB_CHECK(offer_reference(t, &cfg, results, ctx));
    for (int k = 0; k < FB_STREAM_NKERNELS && results[k].m.nsamples > 0; ++k) {
        json_t *rec = fb_stream_record(d, &cfg, &results[k]);
        fb_record_print_energy(ctx->progress, results[k].model->name, json_object_get(rec, "energy"));
        json_array_append_new(json_records, rec);
        if (out) FB_CHECK(fb_results_append(out, rec));
    }
    status = run_status;
fail:
    fb_stream_results_free(results);
    return status;
}

/* Opens every target first so the results header can name all devices of
 * the run. A target that cannot be opened is reported and skipped. */
static int open_targets(const fb_parsed *args, fb_target **targets, fb_device_info *infos, fb_status *worst, FILE *note)
{
    char specs[MAX_TARGETS][40];
    int nspec = collect_specs(args, specs, note), n = 0;
    for (int i = 0; i < nspec; ++i) {
        fb_status status = fb_target_open(specs[i], &targets[n]);
        if (status == FB_OK) {
            infos[n] = *fb_target_info(targets[n]);
            n++;
            continue;
        }
        fprintf(stderr, "flowbench: %s\n", fb_error_message());
        if (*worst == FB_OK || status == FB_ERR_USAGE) *worst = status;
    }
    return n;
}

static int run_stream(const fb_parsed *args)
{
    fb_status status = FB_OK, worst = FB_OK;
    fb_stream_config cfg;
    fb_results *out = NULL;
    fb_target *targets[MAX_TARGETS] = {0};
    fb_device_info infos[MAX_TARGETS];
    int ntargets = 0, as_json = fb_cli_flag(args, "json");
    run_ctx ctx = {as_json ? stderr : stdout};
    json_t *records = json_array();
    const char *out_path = fb_cli_value(args, "out");
    FB_CHECK(read_config(args, &cfg));
    ntargets = open_targets(args, targets, infos, &worst, ctx.progress);
    if (worst == FB_ERR_USAGE) goto done;
    if (out_path && ntargets > 0) FB_CHECK(fb_results_open(out_path, "stream", infos, ntargets, &out));
    for (int i = 0; i < ntargets; ++i) {
        status = run_one(targets[i], &cfg, out, records, &ctx);
        if (status == FB_ERR_INTERRUPTED || status == FB_ERR_USAGE || status == FB_ERR_IO) goto fail;
        if (status != FB_OK) {
            fprintf(stderr, "flowbench: %s\n", fb_error_message());
            if (worst == FB_OK || status == FB_ERR_CHECK) worst = status;
        }
    }
done:
    status = FB_OK;
fail:
    if (as_json) {
        json_dumpf(records, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        printf("\n");
    }
    json_decref(records);
    fb_results_close(out);
    for (int i = 0; i < ntargets; ++i)
        fb_target_close(targets[i]);
    if (status != FB_OK) return fb_comm_report(status);
    return fb_status_exit_code(worst);
}

const fb_command fb_cmd_stream = {
    .name = "stream",
    .summary = "measure copy, mul, add, triad and dot bandwidth (the roofline reference and the read ceiling)",
    .usage = "stream [--backend B]... [--size N] [--precision double|single] [--out FILE] [--json]",
    .description = "Runs BabelStream's five kernels (copy c=a, mul b=q*c, add c=a+b, triad a=b+q*c,\n"
                   "q = 0.4, dot sum(a*b)) on each backend and checks every element of each output\n"
                   "(dot: each chunk's sum) against the serial value. Bytes counted per element:\n"
                   "copy, mul and dot 2 words, add and triad 3 words. GB/s is bytes / median time\n"
                   "(1 GB = 1e9 B); best GB/s uses the fastest sample, as BabelStream reports. The\n"
                   "triad figure is the bandwidth every other flowbench result is divided by; dot's,\n"
                   "the read ceiling, also divides SpMV's. Keep the working set (3 arrays) 4x above the\n"
                   "last-level cache or use --cold: the default n is the least power of two from\n"
                   "2^25 (768 MiB in double) that does so, within half the device's memory; where\n"
                   "the cache is too large for that, the run says so and the figures include\n"
                   "cache reuse.",
    .options = options,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_stream,
    .measures = 1,
};
