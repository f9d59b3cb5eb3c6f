/* findings.c - see findings.h. */
#include "findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/gate/compare.h"
#include "../results/records/reader.h"

/* The point's parameters, or "(no parameters)" for a peer. */
static void point_text(const fb_family_kernel *k, const fb_param_point *p, char *buf, size_t len)
{
    fb_family_point_text(k, p, buf, len);
    if (!k->nparams) snprintf(buf, len, "(no parameters)");
}

void fb_tune_print_best(const fb_tune_request *rq, const char *problem, const fb_tune_start *start,
                        const fb_tune_outcome *o)
{
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    const fb_search_result *s = &o->search;
    char params[512];
    printf("tune %s on %s, %s, %s: %s, %d of %d points evaluated (%d pruned)\n", k->name, fb_target_info(rq->t)->id,
           rq->is_double ? "double" : "single", problem, fb_strategy_name(rq->search.strategy), s->evaluations,
           s->space_size, s->pruned);
    if (start->json) printf("  start: %s\n", start->text);
    if (!isfinite(s->best_cost)) {
        printf("  no point ran successfully\n");
        return;
    }
    char value[64];
    point_text(k, &s->best, params, sizeof params);
    fb_objective_text(rq->objective, s->best_cost, value, sizeof value);
    printf("  best: %s  %s", params, value);
    if (rq->objective != FB_OBJECTIVE_TIME && o->best_record)
        printf(" (%s), %.4f ms", fb_objective_name(rq->objective), 1e3 * fb_json_num(o->best_record, "stats.median_s"));
    if (o->best_record) printf(", %.3f GB/s, checked", fb_json_num(o->best_record, "gbs"));
    printf("\n");
}

/* The default point's time: from the search history (a measured tune
 * always has it, tune.h), else from the replay now. */
static fb_status default_cost(const fb_tune_request *rq, const fb_tune_outcome *o, const fb_param_point *start,
                              double *seconds)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    const fb_search_eval *seen = fb_search_result_find(&o->search, start);
    if (seen) {
        *seconds = seen->cost;
        return FB_OK;
    }
    FB_CHECK(fb_tune_measure(rq, rq->kernel, start, seconds, &rec));
fail:
    json_decref(rec);
    return status;
}

/* A record's samples (seconds) into a new array; *n their count. */
static double *samples_of(const json_t *rec, int *n)
{
    const json_t *a = json_object_get(json_object_get(rec, "stats"), "samples_s");
    double *v = malloc((json_array_size(a) + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < json_array_size(a); ++i)
        v[(*n)++] = json_number_value(json_array_get(a, i));
    return v;
}

/* Whether the best's gain over the default is beyond the measurement
 * noise: the default measured again beside the best's record, their
 * samples judged as compare judges two runs (a Mann-Whitney U test and a
 * change of at least 5%, compare.h). A 1.05x from one pair of medians may
 * be noise; this says which. */
static fb_status noise_verdict(const fb_tune_request *rq, const fb_tune_outcome *o, const fb_param_point *def,
                               char *buf, size_t len)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    double t;
    int nd = 0, nb = 0;
    snprintf(buf, len, "%s", "");
    if (!o->best_record) return FB_OK; /* --replay: no samples */
    FB_CHECK(fb_tune_measure(rq, rq->kernel, def, &t, &rec));
    double *d = samples_of(rec, &nd), *b = samples_of(o->best_record, &nb);
    fb_compare_options opt = fb_compare_defaults();
    if (d && b && nd && nb) {
        fb_comparison v = fb_compare_samples(d, nd, b, nb, 0, &opt);
        snprintf(buf, len, " (%s: the default measured again, %d vs %d samples, Mann-Whitney p %.2g)",
                 v.verdict == FB_FASTER ? "a gain beyond the noise"
                                        : "not a gain this evidence shows, which needs p < 0.01 and 5%",
                 nd, nb, v.test.p);
    }
    free(d);
    free(b);
fail:
    json_decref(rec);
    return status;
}

/* How a ratio of the objective reads: "2.0x faster", "2.0x less energy". */
static const char *better_word(fb_objective o)
{
    return o == FB_OBJECTIVE_TIME ? "faster" : o == FB_OBJECTIVE_ENERGY ? "less energy" : "lower energy-delay";
}

fb_status fb_tune_print_versus_default(const fb_tune_request *rq, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    double def = NAN;
    char params[512], verdict[200] = "";
    fb_search_space space;
    fb_tune_space(rq->family->kernel(rq->kernel), &space);
    FB_CHECK(default_cost(rq, o, &space.start, &def));
    point_text(rq->family->kernel(rq->kernel), &space.start, params, sizeof params);
    /* the noise verdict judges samples of time: the other objectives have one value per run */
    if (isfinite(def) && def > o->search.best_cost && rq->objective == FB_OBJECTIVE_TIME)
        FB_CHECK(noise_verdict(rq, o, &space.start, verdict, sizeof verdict));
    char value[64];
    fb_objective_text(rq->objective, def, value, sizeof value);
    if (isfinite(def))
        printf("  default %s: %s; the best is %.2fx %s%s\n", params, value, def / o->search.best_cost,
               better_word(rq->objective), verdict);
    else
        printf("  default %s: %s\n", params, isnan(def) ? "cannot run here (pruned)" : "failed");
fail:
    return status;
}

fb_status fb_tune_print_versus_variants(const fb_tune_request *rq, const fb_tune_outcome *o)
{
    fb_status status = FB_OK;
    const fb_family *f = rq->family;
    printf("  other variants at their defaults:");
    for (int k = 0; k < f->kernel_count(); ++k) {
        fb_search_space space;
        json_t *rec = NULL;
        double t;
        if (k == rq->kernel) continue;
        fb_tune_space(f->kernel(k), &space);
        FB_CHECK(fb_tune_measure(rq, k, &space.start, &t, &rec));
        json_decref(rec);
        char value[64];
        fb_objective_text(rq->objective, t, value, sizeof value);
        if (isfinite(t))
            printf("\n    %-18s %s (the best is %.2fx %s)", f->kernel(k)->name, value, t / o->search.best_cost,
                   better_word(rq->objective));
    }
    printf("\n");
fail:
    return status;
}

/* ---- replay: how close a strategy gets over many seeds ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Where the seeds' searches ended: each distinct best point, how many
 * seeds ended there, and its cost against the optimum. A noisy recording
 * flatters its own optimum (the least of many noisy costs), so
 * scripts/tune-verify.sh times these points against it again. */
typedef struct replay_end {
    fb_param_point point;
    int seeds;
    double ratio;
} replay_end;

static void tally_end(replay_end *ends, int *nends, const fb_param_point *p, double ratio)
{
    for (int i = 0; i < *nends; ++i)
        if (!memcmp(&ends[i].point, p, sizeof *p)) {
            ends[i].seeds++;
            return;
        }
    ends[(*nends)++] = (replay_end){*p, 1, ratio};
}

/* Most seeds first, then the better point: one order on every platform. */
static int more_seeds_first(const void *a, const void *b)
{
    const replay_end *x = a, *y = b;
    if (x->seeds != y->seeds) return (y->seeds > x->seeds) - (y->seeds < x->seeds);
    if (x->ratio != y->ratio) return (x->ratio > y->ratio) - (x->ratio < y->ratio);
    return memcmp(&x->point, &y->point, sizeof x->point);
}

static void print_ends(const fb_tune_request *rq, replay_end *ends, int nends)
{
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    char params[512];
    qsort(ends, (size_t)nends, sizeof *ends, more_seeds_first);
    for (int i = 0; i < nends; ++i) {
        point_text(k, &ends[i].point, params, sizeof params);
        printf("  ends: %s in %d seeds (%.3fx)\n", params, ends[i].seeds, ends[i].ratio);
    }
}

fb_status fb_tune_replay_seeds(fb_tune_request *rq, int seeds, double optimum)
{
    fb_status status = FB_OK;
    double *ratio = NULL, evals = 0;
    replay_end *ends = NULL;
    int within = 0, nends = 0;
    FB_ALLOC(ratio, seeds, "replay ratios");
    FB_ALLOC(ends, seeds, "replay end points");
    rq->progress = NULL;
    for (int i = 0; i < seeds; ++i) {
        fb_tune_outcome o;
        fb_search_options base = rq->search;
        rq->search.seed = base.seed + (uint64_t)i;
        status = fb_tune_run(rq, &o);
        rq->search = base;
        ratio[i] = o.search.best_cost / optimum;
        evals += o.search.evaluations;
        if (status == FB_OK) tally_end(ends, &nends, &o.search.best, ratio[i]);
        fb_tune_outcome_free(&o);
        FB_CHECK(status);
        within += ratio[i] <= 1.05;
    }
    qsort(ratio, (size_t)seeds, sizeof *ratio, compare_doubles);
    printf("  replay over %d seeds: %.1f evaluations on average; within 5%% of the optimum in %d (%.0f%%);"
           " median %.3fx, worst %.3fx the optimum\n",
           seeds, evals / seeds, within, 100.0 * within / seeds, ratio[seeds / 2], ratio[seeds - 1]);
    print_ends(rq, ends, nends);
fail:
    free(ends);
    free(ratio);
    return status;
}

/* The optimum of the recorded sweep (every point of the space). */
fb_status fb_tune_replay_optimum(const fb_tune_request *rq, double *optimum)
{
    fb_status status;
    fb_tune_outcome o;
    fb_tune_request ex = *rq;
    ex.search.strategy = FB_STRATEGY_EXHAUSTIVE;
    ex.search.budget = 0;
    ex.progress = NULL;
    status = fb_tune_run(&ex, &o);
    *optimum = o.search.best_cost;
    if (status == FB_OK) {
        char params[512];
        point_text(rq->family->kernel(rq->kernel), &o.search.best, params, sizeof params);
        printf("  recorded optimum: %.4f ms over %d evaluable points of %d: %s\n", *optimum * 1e3, o.search.evaluations,
               o.search.space_size, params);
    }
    fb_tune_outcome_free(&o);
    return status;
}

/* ---- the Pareto front of time and energy ---- */

static int faster_first(const void *a, const void *b)
{
    const fb_tune_tradeoff *x = a, *y = b;
    if (x->time_s != y->time_s) return (x->time_s > y->time_s) - (x->time_s < y->time_s);
    return (x->joules > y->joules) - (x->joules < y->joules);
}

void fb_tune_print_pareto(const fb_tune_request *rq, fb_tune_outcome *o)
{
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    char params[512];
    int n = 0;
    if (!o->ntradeoffs) return;
    qsort(o->tradeoffs, (size_t)o->ntradeoffs, sizeof *o->tradeoffs, faster_first);
    /* in time order, a point is on the front when it uses less energy than every faster one */
    double least = INFINITY;
    for (int i = 0; i < o->ntradeoffs; ++i)
        n += o->tradeoffs[i].joules < least ? (least = o->tradeoffs[i].joules, 1) : 0;
    printf("  Pareto front of time and energy: %d of the %d points that ran (none of them both faster and less "
           "energy than another):\n",
           n, o->ntradeoffs);
    least = INFINITY;
    for (int i = 0; i < o->ntradeoffs; ++i) {
        const fb_tune_tradeoff *t = &o->tradeoffs[i];
        if (!(t->joules < least)) continue;
        least = t->joules;
        point_text(k, &t->point, params, sizeof params);
        printf("    %-48s %10.4f ms %12.4g mJ\n", params, t->time_s * 1e3, t->joules * 1e3);
    }
}

fb_status fb_tune_print_findings(fb_tune_request *rq, const char *problem, const fb_tune_start *start,
                                 fb_tune_outcome *o, int no_variants, int seeds)
{
    fb_status status = FB_OK;
    fb_tune_print_best(rq, problem, start, o);
    fb_tune_print_pareto(rq, o);
    if (!isfinite(o->search.best_cost))
        FB_FAIL(FB_ERR_CHECK, "tune: no point of %s ran successfully", rq->family->kernel(rq->kernel)->name);
    FB_CHECK(fb_tune_print_versus_default(rq, o));
    if (!no_variants && rq->family->kernel_count() > 1) FB_CHECK(fb_tune_print_versus_variants(rq, o));
    if (rq->replay) {
        double optimum;
        FB_CHECK(fb_tune_replay_optimum(rq, &optimum));
        printf("  this search: %.3fx the optimum\n", o->search.best_cost / optimum);
        if (seeds > 1) FB_CHECK(fb_tune_replay_seeds(rq, seeds, optimum));
    }
fail:
    return status;
}
