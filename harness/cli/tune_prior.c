/* tune_prior.c - see tune_prior.h. */
#include "tune_prior.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tune/cache.h"
#include "../tune/prior.h"

static void prior_path(const fb_parsed *args, const char *cache_path, char *buf, size_t len)
{
    if (fb_cli_value(args, "prior"))
        snprintf(buf, len, "%s", fb_cli_value(args, "prior"));
    else
        fb_prior_path_beside(cache_path, buf, len);
}

/* ---- --fit-prior --------------------------------------------------------- */

static void print_fit(const json_t *prior, const char *path)
{
    const json_t *entries = json_object_get(prior, "entries"), *e;
    json_t *kernels = json_object(), *matrices = json_object();
    size_t i;
    json_array_foreach(entries, i, e)
    {
        json_object_set(kernels, json_string_value(json_object_get(e, "kernel")), json_true());
        json_object_set(matrices, json_string_value(json_object_get(e, "matrix_hash")), json_true());
    }
    printf("prior: %zu landscapes (%zu kernels, %zu matrices) from %zu sweep(s), written to %s\n",
           json_array_size(entries), json_object_size(kernels), json_object_size(matrices),
           json_array_size(json_object_get(prior, "fit_from")), path);
    json_decref(kernels);
    json_decref(matrices);
}

/* The prior is written over neither a sweep it is fitted to (core/files.h)
 * nor any file that is not a prior: said before the sweeps are read. */
static fb_status check_destination(const fb_parsed *args, const char *path)
{
    fb_status status = FB_OK;
    fb_named_file *sweeps = NULL, prior = {"--prior", path};
    FB_ALLOC(sweeps, args->npositional, "the sweeps' names");
    for (int i = 0; i < args->npositional; ++i)
        sweeps[i] = (fb_named_file){"SWEEP.jsonl", args->positional[i]};
    FB_CHECK(fb_files_check_distinct("tune --fit-prior", sweeps, args->npositional, &prior, 1));
    FB_CHECK(fb_prior_check_replaceable(path));
fail:
    free(sweeps);
    return status;
}

int fb_tune_prior_fit(const fb_parsed *args)
{
    fb_status status = FB_OK;
    json_t *prior = NULL;
    char cache[1024], path[1024];
    if (!fb_cli_flag(args, "fit-prior"))
        FB_FAIL(FB_ERR_USAGE, "tune: '%s' is an argument, but only --fit-prior takes files (SWEEP.jsonl...)",
                args->positional[0]);
    if (args->npositional == 0)
        FB_FAIL(FB_ERR_USAGE, "tune --fit-prior: name the recorded sweeps (tune --fit-prior SWEEP.jsonl... "
                              "[--prior FILE])");
    if (fb_cli_value(args, "matrix") || fb_cli_value(args, "kernel") || fb_cli_value(args, "replay"))
        FB_FAIL(FB_ERR_USAGE, "tune --fit-prior fits every kernel and matrix of the sweeps: it takes no --matrix, "
                              "--kernel or --replay");
    fb_cache_path(fb_cli_value(args, "cache"), cache, sizeof cache);
    prior_path(args, cache, path, sizeof path);
    FB_CHECK(check_destination(args, path));
    FB_CHECK(fb_prior_fit(args->positional, args->npositional, &prior));
    FB_CHECK(fb_prior_save(prior, path));
    print_fit(prior, path);
fail:
    json_decref(prior);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

/* ---- --start ------------------------------------------------------------- */

typedef enum start_mode { START_AUTO, START_DEFAULT, START_PRIOR } start_mode;

static fb_status read_mode(const fb_parsed *args, const fb_tune_request *rq, start_mode *mode)
{
    fb_status status = FB_OK;
    const char *s = fb_cli_value(args, "start");
    *mode = START_AUTO;
    if (s && strcmp(s, "default") && strcmp(s, "prior"))
        FB_FAIL(FB_ERR_USAGE, "--start: '%s' is not default or prior", s);
    if (s && rq->search.strategy != FB_STRATEGY_ANNEAL)
        FB_FAIL(FB_ERR_USAGE, "--start: only anneal starts from a point (%s has none)",
                fb_strategy_name(rq->search.strategy));
    if (s) *mode = strcmp(s, "prior") ? START_DEFAULT : START_PRIOR;
fail:
    return status;
}

/* The default start, and why (a reason, or an error under --start prior). */
static fb_status use_default(start_mode mode, const char *why, fb_tune_start *out)
{
    fb_status status = FB_OK;
    if (mode == START_PRIOR) FB_FAIL(FB_ERR_INPUT, "--start prior: %s", why);
    out->json = json_pack("{s:s, s:s}", "source", "default", "why", why);
    snprintf(out->text, sizeof out->text, "the kernel's default (%.990s)", why);
fail:
    return status;
}

static void use_prediction(const fb_prior_prediction *pr, const fb_family_kernel *k, const char *path,
                           const char *left_out, fb_tune_start *out)
{
    json_t *from = json_array(), *params = json_object();
    char point[512];
    int n;
    for (int i = 0; i < pr->nfrom; ++i)
        json_array_append_new(from, json_string(pr->from[i]));
    for (int a = 0; a < k->nparams; ++a)
        json_object_set_new(params, k->params[a].name, json_integer(pr->point.values[a]));
    out->point = pr->point;
    out->json = json_pack("{s:s, s:o, s:o, s:s, s:s, s:f}", "source", "prior", "params", params, "from", from, "prior",
                          path, "device", pr->same_device ? "same" : "other", "score", pr->score);
    if (left_out) json_object_set_new(out->json, "left_out", json_string(left_out));
    fb_family_point_text(k, &pr->point, point, sizeof point);
    n = snprintf(out->text, sizeof out->text, "%s, the prior's (%s: from", point, path);
    for (int i = 0; i < pr->nfrom && n > 0 && (size_t)n < sizeof out->text; ++i)
        n += snprintf(out->text + n, sizeof out->text - (size_t)n, "%s %s", i ? "," : "", pr->from[i]);
    if (n > 0 && (size_t)n < sizeof out->text)
        snprintf(out->text + n, sizeof out->text - (size_t)n, "%s%s%s%s)",
                 pr->same_device ? "" : "; sweeps of other devices", left_out ? "; " : "", left_out ? left_out : "",
                 left_out ? " itself left out" : "");
}

/* The first axis whose value in p the kernel's space does not hold (its
 * default aside: an axis the prior lacks takes it), or -1. The search
 * would start at the nearest point instead, which the start line did not
 * name, and never evaluate the one it did. */
static int axis_outside_space(const fb_family_kernel *k, const fb_param_point *p)
{
    for (int a = 0; a < k->nparams; ++a)
        if (p->values[a] != k->params[a].def && !fb_param_axis_has(&k->params[a], p->values[a])) return a;
    return -1;
}

static double rank_point(void *ctx, const fb_param_point *point)
{
    const fb_tune_start *s = ctx;
    return fb_prior_score(s->prior, &s->query, &s->prediction, point);
}

static fb_status predict(const fb_tune_request *rq, const char *path, start_mode mode, fb_tune_start *out)
{
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    const json_t *problem = rq->family->problem_json(rq->problem);
    const char *hash = fb_json_str(problem, "hash"), *left_out = NULL;
    char why[1400];
    int outside;
    fb_prior_query *q = &out->query;
    *q = (fb_prior_query){.kernel = k->name,
                          .precision = rq->is_double ? "double" : "single",
                          .device = out->device,
                          .axes = k->params,
                          .naxes = k->nparams};
    fb_signature sig;
    rq->family->signature(rq->problem, &sig);
    if (fb_prior_features_of(&sig, &q->features) != FB_OK)
        return use_default(mode, "the problem is not a matrix, and the prior knows only matrices", out);
    /* leave-one-matrix-out: a replay asks how the search does on a matrix
     * it has not seen, so the prior must not know that matrix's landscape */
    if (rq->replay && *hash) {
        q->exclude_hash = hash;
        left_out = fb_json_str(problem, "name");
    }
    fb_device_fingerprint(fb_target_info(rq->t), out->device, sizeof out->device);
    fb_prior_predict(out->prior, q, &out->prediction);
    if (!out->prediction.found) {
        snprintf(why, sizeof why, "%s has no landscape of %s in %s precision%s", path, k->name, q->precision,
                 left_out ? " but the replayed matrix's" : "");
        return use_default(mode, why, out);
    }
    if ((outside = axis_outside_space(k, &out->prediction.point)) >= 0) {
        snprintf(why, sizeof why, "%s predicts %s=%d, which is not in %s's space", path, k->params[outside].name,
                 out->prediction.point.values[outside], k->name);
        return use_default(mode, why, out);
    }
    use_prediction(&out->prediction, k, path, left_out, out);
    return FB_OK;
}

fb_status fb_tune_prior_start(const fb_parsed *args, const char *cache_path, fb_tune_request *rq, fb_tune_start *out)
{
    fb_status status = FB_OK;
    start_mode mode;
    char path[1024], why[1100];
    memset(out, 0, sizeof *out);
    FB_CHECK(read_mode(args, rq, &mode));
    if (rq->search.strategy != FB_STRATEGY_ANNEAL) return FB_OK; /* no start to choose */
    prior_path(args, cache_path, path, sizeof path);
    if (mode == START_DEFAULT) {
        FB_CHECK(use_default(mode, "--start default", out));
    } else {
        FB_CHECK(fb_prior_load(path, 1, &out->prior)); /* none: use_default says so, or fails under --start prior */
        snprintf(why, sizeof why, "no prior at %s; tune --fit-prior SWEEP.jsonl... makes one", path);
        FB_CHECK(out->prior ? predict(rq, path, mode, out) : use_default(mode, why, out));
    }
    if (!out->json) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the search's start");
    rq->start = out->json;
    if (strcmp(fb_json_str(out->json, "source"), "prior")) return FB_OK;
    rq->search.start = &out->point;
    rq->search.rank = rank_point;
    rq->search.rank_ctx = out;
fail:
    return status;
}

void fb_tune_start_free(fb_tune_start *s)
{
    json_decref(s->json);
    s->json = NULL;
    fb_prior_free(s->prior);
    s->prior = NULL;
}
