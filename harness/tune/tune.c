/* tune.c - the cost function behind `flowbench tune`: one checked
 * measurement per point, or a lookup in a recorded sweep (replay). */
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/record.h"
#include "../bench/user_kernel.h"
#include "../core/guard.h"
#include "../core/stats.h"
#include "cache.h"

void fb_tune_space(const fb_family_kernel *k, fb_search_space *space)
{
    memset(space, 0, sizeof *space);
    space->naxes = k->nparams;
    for (int i = 0; i < k->nparams; ++i) {
        space->nvalues[i] = k->params[i].nvalues;
        memcpy(space->values[i], k->params[i].values, sizeof space->values[i]);
        space->start.values[i] = k->params[i].def;
        space->categorical[i] = fb_axis_role_is_categorical(k->params[i].role);
    }
}

/* ---- objectives ---- */

static const char *const objective_names[] = {"time", "energy", "edp"};

fb_status fb_objective_parse(const char *text, fb_objective *objective, int *pareto)
{
    /* time,energy searches on time; the front is printed after */
    *pareto = text && strcmp(text, "time,energy") == 0;
    if (*pareto) {
        *objective = FB_OBJECTIVE_TIME;
        return FB_OK;
    }
    for (int o = 0; text && o < 3; ++o)
        if (strcmp(text, objective_names[o]) == 0) {
            *objective = (fb_objective)o;
            return FB_OK;
        }
    return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "--objective: '%s' is not time, energy, edp or time,energy",
                        text ? text : "");
}

const char *fb_objective_name(fb_objective o) { return (unsigned)o < 3 ? objective_names[o] : "time"; }

double fb_objective_of_record(fb_objective o, const json_t *rec, char *why, size_t len)
{
    const double t = fb_json_num(rec, "stats.median_s"), j = fb_json_num(rec, "energy.joules_per_run");
    if (o == FB_OBJECTIVE_TIME) return t;
    if (!(j > 0) || !isfinite(j)) {
        const char *said = fb_json_str(rec, "energy.unavailable");
        snprintf(why, len, "%s", *said ? said : "the record has no energy part");
        return NAN;
    }
    return o == FB_OBJECTIVE_ENERGY ? j : j * t;
}

void fb_objective_text(fb_objective o, double value, char *buf, size_t len)
{
    if (o == FB_OBJECTIVE_TIME)
        snprintf(buf, len, "%.4f ms", value * 1e3);
    else if (o == FB_OBJECTIVE_ENERGY)
        snprintf(buf, len, "%.4g mJ", value * 1e3);
    else
        snprintf(buf, len, "%.4g J s", value);
}

/* The records of the replay set of one kernel on this problem (its
 * identity hash under the family's problem key: "matrix.hash",
 * "grid.hash"), device and precision, in file order: what a replayed
 * search looks its points up in, one pass over the file per search. */
typedef struct replay_view {
    const fb_record **records;
    int n;
} replay_view;

static int replay_of_problem(const fb_tune_request *rq, const fb_family_kernel *k, const fb_record *r)
{
    const json_t *problem = rq->family->problem_json(rq->problem);
    char hash_path[64];
    snprintf(hash_path, sizeof hash_path, "%s.hash", rq->family->problem_key);
    return !strcmp(fb_json_str(r->json, "kernel"), k->name) &&
           !strcmp(fb_json_str(r->json, "device"), fb_target_info(rq->t)->id) &&
           !strcmp(fb_json_str(r->json, "precision"), rq->is_double ? "double" : "single") &&
           !strcmp(fb_json_str(r->json, hash_path), fb_json_str(problem, "hash"));
}

static fb_status replay_select(const fb_tune_request *rq, int kernel, replay_view *v)
{
    fb_status status = FB_OK;
    const fb_family_kernel *k = rq->family->kernel(kernel);
    v->n = 0;
    FB_ALLOC(v->records, (size_t)rq->replay->nrecords + 1, "the replayed records");
    for (int i = 0; i < rq->replay->nrecords; ++i)
        if (replay_of_problem(rq, k, &rq->replay->records[i])) v->records[v->n++] = &rq->replay->records[i];
fail:
    return status;
}

static int is_point(const fb_family_kernel *k, const fb_param_point *p, const fb_record *r)
{
    const json_t *params = json_object_get(r->json, "params");
    for (int i = 0; i < k->nparams; ++i)
        if (json_integer_value(json_object_get(params, k->params[i].name)) != p->values[i]) return 0;
    return 1;
}

/* A recorded point's cost under o: NAN pruned, INFINITY failed; -1 when
 * o needs energy the record did not measure (why says so). */
static double recorded_cost(const fb_record *r, fb_objective o, char *why, size_t len)
{
    if (!strcmp(fb_json_str(r->json, "status"), "pruned")) return NAN;
    if (!fb_record_usable(r)) return INFINITY;
    if (o == FB_OBJECTIVE_TIME) return fb_record_median(r);
    const double v = fb_objective_of_record(o, r->json, why, len);
    return isnan(v) ? -1.0 : v;
}

/* Why a record gives no cost: its status and reason, as the record says. */
static void record_why(const json_t *rec, char *why, size_t len)
{
    const char *st = fb_json_str(rec, "status"), *reason = fb_json_str(rec, "reason");
    if (!strcmp(st, "ok"))
        snprintf(why, len, "recorded with no usable samples");
    else
        snprintf(why, len, "recorded as %s%s%s", *st ? st : "(no status)", *reason ? ": " : "", reason);
}

/* The cost a recorded sweep gives a point: its median, NAN if it was
 * pruned, INFINITY if it failed or is missing (why says which). The latest
 * record wins, except that the rounds of a `sweep --repeat` run count
 * together: their median (a machine that changes speed between rounds
 * moves one round, not the landscape; docs/tuning.md). */
static double replay_cost(const replay_view *v, fb_objective o, const fb_family_kernel *k, const fb_param_point *p,
                          char *why, size_t why_len)
{
    const fb_record *last = NULL;
    double rounds[FB_SWEEP_MAX_ROUNDS];
    size_t n = 0;
    for (int i = 0; i < v->n; ++i) {
        const fb_record *r = v->records[i];
        if (!is_point(k, p, r)) continue;
        if (!last || !fb_record_same_run_rounds(last->json, r->json) || n == FB_SWEEP_MAX_ROUNDS) n = 0;
        rounds[n++] = recorded_cost(r, o, why, why_len);
        if (rounds[n - 1] < 0) return -1.0; /* no energy recorded: the caller refuses the objective */
        last = r;
    }
    for (size_t i = 0; i < n; ++i)
        if (isnan(rounds[i])) return NAN; /* pruned: the check decides the same in every round */
    if (!n) snprintf(why, why_len, "not in the replay set (no record of this point)");
    if (n && isinf(rounds[n - 1])) record_why(last->json, why, why_len);
    return n ? fb_median(rounds, n) : INFINITY;
}

static double cost_of_record(const json_t *rec)
{
    const char *st = fb_json_str(rec, "status");
    const double median = fb_json_num(rec, "stats.median_s");
    if (!strcmp(st, "ok") || !strcmp(st, "timeout")) return median > 0 ? median : INFINITY;
    if (!strcmp(st, "abandoned")) return median; /* its few samples: slower than the best anyway */
    return INFINITY;
}

/* In a guarded process (core/guard.h): the point may crash or hang from
 * here; the guard then names it and ends the search (exit 3). */
static void guard_point(const fb_tune_request *rq, int kernel, const fb_param_point *p)
{
    const fb_family_kernel *k = rq->family->kernel(kernel);
    char params[512], work[2048];
    if (!fb_guard_in_child()) return;
    fb_family_point_text(k, p, params, sizeof params);
    snprintf(work, sizeof work, "kernel %s%s%s at %s (tune on %s)", k->name, k->user ? " of " : "",
             k->user ? k->user->path : "", params, fb_target_info(rq->t)->id);
    fb_guard_begin(work, fb_family_hang_limit_s(rq->family, 0, rq->measure.budget_s), NULL);
}

/* A point that ran, under an energy objective: its joules (or J s), or
 * the objective refused in one line where the device measured none. */
static fb_status objective_cost(const fb_tune_request *rq, const json_t *rec, double *cost)
{
    char why[256];
    *cost = fb_objective_of_record(rq->objective, rec, why, sizeof why);
    if (!isnan(*cost)) return FB_OK;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "tune --objective %s: %s measured no energy (%s)",
                        fb_objective_name(rq->objective), fb_target_info(rq->t)->id, why);
}

static fb_status measure_point(const fb_tune_request *rq, int kernel, const fb_param_point *p, double abandon_s,
                               double *seconds, json_t **record)
{
    fb_status status = FB_OK;
    fb_family_run run = {.kernel = kernel, .point = *p, .is_double = rq->is_double, .measure = rq->measure};
    *record = NULL;
    *seconds = NAN;
    run.measure.abandon_above_s = abandon_s;
    if (rq->family->check(rq->problem, &run, fb_target_info(rq->t)) != FB_OK) return FB_OK;
    guard_point(rq, kernel, p);
    status = rq->family->run(rq->t, rq->problem, &run, record);
    fb_guard_done();
    if (status == FB_ERR_INTERRUPTED) goto fail;
    if (*record) fb_family_mark_stop(*record, abandon_s);
    *seconds = *record ? cost_of_record(*record) : INFINITY;
    status = FB_OK;
    if (rq->objective != FB_OBJECTIVE_TIME && isfinite(*seconds)) FB_CHECK(objective_cost(rq, *record, seconds));
fail:
    return status;
}

/* One point's cost: from the replay set, or measured (record set); why
 * a failed one failed (the record's status and reason, or the lookup's). */
static fb_status evaluate_point(const fb_tune_request *rq, int kernel, const fb_param_point *p, double abandon_s,
                                const replay_view *view, double *seconds, json_t **record, char *why, size_t why_len)
{
    fb_status status = FB_OK;
    if (!rq->replay) {
        status = measure_point(rq, kernel, p, abandon_s, seconds, record);
        if (*record)
            record_why(*record, why, why_len);
        else /* pruned by the family's check, or a measurement that left no record */
            snprintf(why, why_len, "%s", fb_error_message());
        return status;
    }
    snprintf(why, why_len, "%s", fb_error_message());
    *record = NULL;
    *seconds = replay_cost(view, rq->objective, rq->family->kernel(kernel), p, why, why_len);
    if (*seconds < 0)
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__,
                            "tune --objective %s: %s: a replayed record has no measured energy (%s)",
                            fb_objective_name(rq->objective), rq->replay->path, why);
    return FB_OK;
}

fb_status fb_tune_measure(const fb_tune_request *rq, int kernel, const fb_param_point *p, double *seconds,
                          json_t **record)
{
    replay_view view = {0};
    char why[512];
    fb_status status = rq->replay ? replay_select(rq, kernel, &view) : FB_OK;
    if (status == FB_OK) status = evaluate_point(rq, kernel, p, 0.0, &view, seconds, record, why, sizeof why);
    free(view.records);
    return status;
}

typedef struct tune_ctx {
    const fb_tune_request *rq;
    fb_tune_outcome *out;
    double best;
    int calls;
    replay_view view; /* with a replay set: the kernel's records on the problem */
} tune_ctx;

static void print_eval(const tune_ctx *c, const fb_param_point *p, double cost, const char *why)
{
    char params[512];
    if (!c->rq->progress) return;
    fb_family_point_text(c->rq->family->kernel(c->rq->kernel), p, params, sizeof params);
    fprintf(c->rq->progress, "  [%d] %s", c->calls, params);
    if (isnan(cost))
        fprintf(c->rq->progress, "  pruned: %s\n", *why ? why : "(no reason recorded)");
    else if (isinf(cost))
        fprintf(c->rq->progress, "  failed: %s\n", *why ? why : "(no reason recorded)");
    else {
        char value[64];
        fb_objective_text(c->rq->objective, cost, value, sizeof value);
        fprintf(c->rq->progress, "  %s%s\n", value, cost < c->best ? "  (best so far)" : "");
    }
}

static fb_status keep_best(tune_ctx *c, double cost, json_t *rec)
{
    if (!(cost < c->best)) {
        json_decref(rec);
        return FB_OK;
    }
    c->best = cost;
    json_decref(c->out->best_record);
    c->out->best_record = rec;
    return FB_OK;
}

/* What a tune --out record says of the search that measured it: the
 * strategy, its seed, the evaluations asked for (0: the strategy's rule,
 * tune --help), which evaluation this was, and where it started (a
 * prior's prediction or the default, and why). */
static json_t *search_json(const fb_tune_request *rq, int evaluation)
{
    json_t *s = json_pack("{s:s, s:I, s:i, s:i}", "strategy", fb_strategy_name(rq->search.strategy), "seed",
                          (json_int_t)rq->search.seed, "budget", rq->search.budget, "evaluation", evaluation);
    if (s && rq->start) json_object_set_new(s, "start", json_deep_copy(rq->start));
    return s;
}

/* rq->pareto: the point's time (its cost: pareto searches on time) and
 * energy, from its record or, in a replay, from the recorded one. */
static fb_status add_tradeoff(tune_ctx *c, const fb_param_point *p, double time_s, const json_t *rec)
{
    fb_status status = FB_OK;
    fb_tune_outcome *o = c->out;
    char why[256] = "";
    double j =
        rec ? fb_objective_of_record(FB_OBJECTIVE_ENERGY, rec, why, sizeof why)
            : replay_cost(&c->view, FB_OBJECTIVE_ENERGY, c->rq->family->kernel(c->rq->kernel), p, why, sizeof why);
    if (!(j > 0))
        FB_FAIL(FB_ERR_UNAVAILABLE, "tune --objective time,energy: %s has no energy for this point (%s)",
                c->rq->replay ? c->rq->replay->path : fb_target_info(c->rq->t)->id, *why ? why : "none recorded");
    fb_tune_tradeoff *grown = realloc(o->tradeoffs, (size_t)(o->ntradeoffs + 1) * sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory keeping the points' energies");
    o->tradeoffs = grown;
    o->tradeoffs[o->ntradeoffs++] = (fb_tune_tradeoff){*p, time_s, j};
fail:
    return status;
}

static fb_status cost_fn(void *vctx, const fb_param_point *p, double *cost)
{
    fb_status status = FB_OK;
    tune_ctx *c = vctx;
    const fb_tune_request *rq = c->rq;
    json_t *rec = NULL;
    char why[512];
    /* the abandon rule compares times: the best so far is one only under the time objective */
    const int timed = rq->objective == FB_OBJECTIVE_TIME;
    double abandon = timed && rq->abandon_factor > 0 && isfinite(c->best) ? rq->abandon_factor * c->best : 0.0;
    c->calls++;
    FB_CHECK(evaluate_point(rq, rq->kernel, p, abandon, &c->view, cost, &rec, why, sizeof why));
    if (rec) json_object_set_new(rec, "search", search_json(rq, c->calls));
    if (rec && rq->out) FB_CHECK(fb_results_append(rq->out, rec));
    if (rq->pareto && isfinite(*cost)) FB_CHECK(add_tradeoff(c, p, *cost, rec));
    print_eval(c, p, *cost, why);
    if (rec && strcmp(fb_json_str(rec, "status"), "ok")) {
        json_decref(rec); /* only a fully measured, checked point can be the best */
        rec = NULL;
    }
    return keep_best(c, *cost, rec);
fail:
    json_decref(rec);
    return status;
}

/* The best point's record once more, marked: a file of a search's
 * evaluations says which won, with how many evaluations of how many
 * points (the copy supersedes its first write: the same configuration). */
static fb_status append_best(const fb_tune_request *rq, const fb_tune_outcome *out)
{
    json_t *best = json_deep_copy(out->best_record), *search = json_object_get(best, "search");
    if (!best || !search) {
        json_decref(best);
        return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory copying the best record");
    }
    json_object_set_new(search, "best", json_true());
    json_object_set_new(search, "evaluations", json_integer(out->search.evaluations));
    json_object_set_new(search, "space_size", json_integer(out->search.space_size));
    fb_status status = fb_results_append(rq->out, best);
    json_decref(best);
    return status;
}

/* A measured search that did not run the kernel's default point runs it
 * last, one evaluation past the budget: the tuned point is then never one
 * slower than the default (random never starts there, a prior's start
 * need not be it). A replay measures the strategy alone and skips this. */
static fb_status measure_default(tune_ctx *c, const fb_search_space *space, fb_search_result *res)
{
    fb_status status = FB_OK;
    double cost;
    if (fb_search_result_find(res, &space->start)) return FB_OK;
    fb_search_eval *grown = realloc(res->history, (size_t)(res->nhistory + 1) * sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory recording the default point");
    res->history = grown;
    FB_CHECK(cost_fn(c, &space->start, &cost));
    res->history[res->nhistory++] = (fb_search_eval){space->start, cost};
    if (isnan(cost)) {
        res->pruned++;
        return FB_OK;
    }
    res->evaluations++;
    if (cost < res->best_cost) res->best = space->start, res->best_cost = cost;
fail:
    return status;
}

fb_status fb_tune_run(const fb_tune_request *rq, fb_tune_outcome *out)
{
    fb_search_space space;
    tune_ctx c = {.rq = rq, .out = out, .best = INFINITY};
    memset(out, 0, sizeof *out);
    if (rq->space)
        space = *rq->space;
    else
        fb_tune_space(rq->family->kernel(rq->kernel), &space);
    fb_status status = rq->replay ? replay_select(rq, rq->kernel, &c.view) : FB_OK;
    if (status == FB_OK) status = fb_search(&space, &rq->search, cost_fn, &c, &out->search);
    if (status == FB_OK && !rq->replay) status = measure_default(&c, &space, &out->search);
    if (status == FB_OK && rq->out && out->best_record) status = append_best(rq, out);
    free(c.view.records);
    return status;
}

void fb_tune_outcome_free(fb_tune_outcome *o)
{
    fb_search_result_free(&o->search);
    json_decref(o->best_record);
    o->best_record = NULL;
    free(o->tradeoffs);
    o->tradeoffs = NULL;
    o->ntradeoffs = 0;
}

/* What the confirmation measured (confirm.h): where a fresh process's
 * median of the stored point should fall (its 99% prediction interval:
 * what a --tuned run is read against), and the whole confidence. */
static fb_status add_confidence(json_t *entry, const fb_confirm_outcome *o, const fb_confirm_candidate *chosen,
                                const fb_family_kernel *k)
{
    fb_status status = FB_OK;
    json_t *spread =
        isfinite(chosen->expect_lo) ? json_pack("[f, f]", chosen->expect_lo, chosen->expect_hi) : json_null();
    if (json_object_set_new(entry, "spread_s", spread) ||
        json_object_set_new(entry, "confidence", fb_confirm_json(o, k)))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory building the cache entry");
fail:
    return status;
}

fb_status fb_tune_store(const fb_tune_request *rq, const fb_tune_outcome *o, const fb_confirm_outcome *confirmed,
                        const char *path, int *entries)
{
    fb_status status = FB_OK;
    const fb_family *f = rq->family;
    const fb_family_kernel *k = f->kernel(rq->kernel);
    const json_t *problem = f->problem_json(rq->problem); /* its name, for the entry */
    const fb_confirm_candidate *chosen = confirmed ? fb_confirm_chosen(confirmed) : NULL;
    const fb_param_point *point = chosen ? &chosen->point : &o->search.best;
    const json_t *record = chosen && chosen->record ? chosen->record : o->best_record;
    fb_signature sig;
    char device[1024], date[32];
    time_t now = time(NULL);
    json_t *entry = NULL;
    if (!record) FB_FAIL(FB_ERR_USAGE, "no measured best point to store in %s", path);
    if (confirmed && !chosen) FB_FAIL(FB_ERR_CHECK, "no point ran in every fresh process: nothing stored in %s", path);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    f->signature(rq->problem, &sig);
    fb_device_fingerprint(fb_target_info(rq->t), device, sizeof device);
    entry = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:s, s:s, s:i, s:i, s:s}", "device", device, "kernel",
                      k->name, "family", f->name, "precision", rq->is_double ? "double" : "single", "signature",
                      fb_signature_json(&sig), "params", fb_json_params(k->params, k->nparams, point), "median_s",
                      chosen ? chosen->center : o->search.best_cost, "gbs", fb_json_num(record, "gbs"), f->problem_key,
                      json_string_value(json_object_get(problem, "name")), "strategy",
                      fb_strategy_name(rq->search.strategy), "evaluations", o->search.evaluations, "space_size",
                      o->search.space_size, "date", date);
    if (!entry) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the cache entry");
    /* which objective chose the point; under energy or edp the value chosen
     * by is that objective's, and median_s the record's time */
    json_object_set_new(entry, "objective", json_string(fb_objective_name(rq->objective)));
    if (rq->objective != FB_OBJECTIVE_TIME) {
        json_object_set_new(entry, "objective_value", json_real(chosen ? chosen->center : o->search.best_cost));
        json_object_set_new(entry, "median_s", json_real(fb_json_num(record, "stats.median_s")));
    }
    if (chosen) FB_CHECK(add_confidence(entry, confirmed, chosen, k));
    FB_CHECK(fb_cache_set_device(entry, fb_target_info(rq->t)));
    FB_CHECK(fb_cache_store(path, entry, entries));
fail:
    json_decref(entry);
    return status;
}
