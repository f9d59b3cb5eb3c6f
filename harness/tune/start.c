/* start.c - see start.h. */
#include "start.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/records/reader.h"
#include "cache.h"

typedef enum start_mode { START_AUTO, START_DEFAULT, START_PRIOR } start_mode;

static fb_status read_mode(const char *s, const fb_tune_request *rq, start_mode *mode)
{
    fb_status status = FB_OK;
    *mode = START_AUTO;
    if (s && strcmp(s, "default") && strcmp(s, "prior"))
        FB_FAIL(FB_ERR_USAGE, "--start: '%s' is not default or prior", s);
    if (s && !fb_strategy_starts(rq->search.strategy))
        FB_FAIL(FB_ERR_USAGE, "--start: only anneal and bayes start from a point (%s has none)",
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

fb_status fb_tune_start_choose(const char *start, const char *path, fb_tune_request *rq, fb_tune_start *out)
{
    fb_status status = FB_OK;
    start_mode mode;
    char why[1100];
    memset(out, 0, sizeof *out);
    FB_CHECK(read_mode(start, rq, &mode));
    if (!fb_strategy_starts(rq->search.strategy)) return FB_OK; /* no start to choose */
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
