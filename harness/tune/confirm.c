/* confirm.c - a search's best measured again in fresh processes before it
 * is stored (confirm.h). */
#include "confirm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/record.h"
#include "../core/contention.h"
#include "../core/stats.h"
#include "../results/gate/compare.h"

static int same_point(const fb_param_point *a, const fb_param_point *b)
{
    return memcmp(a->values, b->values, sizeof a->values) == 0;
}

static int has_point(const fb_confirm_outcome *o, const fb_param_point *p)
{
    for (int i = 0; i < o->n; ++i)
        if (same_point(&o->c[i].point, p)) return 1;
    return 0;
}

static void add(fb_confirm_outcome *o, const fb_param_point *p, const char *role)
{
    if (o->n >= FB_CONFIRM_MAX_CANDIDATES || has_point(o, p)) return;
    fb_confirm_candidate *c = &o->c[o->n++];
    memset(c, 0, sizeof *c);
    c->point = *p, c->role = role, c->center = INFINITY;
}

void fb_confirm_candidates(const fb_search_result *s, const fb_param_point *def, fb_confirm_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->winner = o->runner_up = o->def = -1;
    if (isfinite(s->best_cost)) add(o, &s->best, "search's best");
    for (int runners = 0; runners < 2; ++runners) {
        const fb_search_eval *next = NULL;
        for (int i = 0; i < s->nhistory; ++i) {
            const fb_search_eval *e = &s->history[i];
            if (!isfinite(e->cost) || has_point(o, &e->point)) continue;
            if (!next || e->cost < next->cost) next = e;
        }
        if (next) add(o, &next->point, "runner-up");
    }
    for (int i = 0; i < o->n; ++i)
        if (same_point(&o->c[i].point, def))
            o->def = i, o->c[i].role = i == 0 ? "default, the search's best" : "default, a runner-up";
    if (o->def < 0 && o->n == FB_CONFIRM_MAX_CANDIDATES) o->n--; /* room for the default */
    if (o->def < 0) add(o, def, "default"), o->def = o->n - 1;
}

static void candidate_text(const fb_family_kernel *k, const fb_confirm_candidate *c, char *buf, size_t len)
{
    char params[400];
    fb_family_point_text(k, &c->point, params, sizeof params);
    snprintf(buf, len, "%s (%s)", params, c->role);
}

/* One process of candidate c, said on progress. */
static fb_status measure_once(fb_confirm_outcome *o, int c, int round, const fb_family_kernel *k,
                              fb_confirm_measure_fn measure, void *ctx, FILE *progress)
{
    fb_status status = FB_OK;
    fb_confirm_candidate *cand = &o->c[c];
    double median = INFINITY;
    json_t *rec = NULL;
    char failure[300] = "", text[500];
    FB_CHECK(measure(ctx, &cand->point, &median, &rec, failure, sizeof failure));
    if (isfinite(median) && median > 0)
        cand->medians[cand->n++] = median;
    else if (!cand->failure[0])
        snprintf(cand->failure, sizeof cand->failure, "%s", failure[0] ? failure : "it did not run");
    if (!cand->record && rec) cand->record = json_incref(rec);
    candidate_text(k, cand, text, sizeof text);
    if (progress && isfinite(median))
        fprintf(progress, "  round %d, %s: %.4g ms\n", round + 1, text, median * 1e3);
    else if (progress)
        fprintf(progress, "  round %d, %s: failed: %s\n", round + 1, text, cand->failure);
fail:
    json_decref(rec);
    return status;
}

/* gain = how much faster a is than b (b's center / a's - 1), p the test of
 * their per-process medians. */
static void versus(const fb_confirm_candidate *a, const fb_confirm_candidate *b, double *gain, double *p)
{
    *gain = NAN, *p = NAN;
    if (!isfinite(a->center) || !isfinite(b->center)) return;
    *gain = b->center / a->center - 1;
    *p = fb_mann_whitney(a->medians, a->n, b->medians, b->n).p;
}

/* Student's t at 0.995 for 1..19 degrees of freedom. */
static const double t995[FB_CONFIRM_MAX_ROUNDS] = {0,     63.657, 9.925, 5.841, 4.604, 4.032, 3.707,
                                                   3.499, 3.355,  3.250, 3.169, 3.106, 3.055, 3.012,
                                                   2.977, 2.947,  2.921, 2.898, 2.878, 2.861};

/* Where a new process's median should fall, 99 times in 100: the 99%
 * prediction interval of one more observation, on the logarithms of the
 * per-process medians (times spread multiplicatively): mean +- t s
 * sqrt(1 + 1/n). The range of the n medians themselves would hold a new
 * one only (n-1)/(n+1) of the time (4 in 6 for 5 processes), and a 95%
 * interval left one of ten later --tuned runs of a PoCL csr-vector point
 * outside (results/reference/tune-reproduce-vm-2026-11-28): ten runs each
 * inside it is what a user checks. */
static void prediction_interval(fb_confirm_candidate *c)
{
    double sum = 0, ss = 0;
    c->expect_lo = c->expect_hi = NAN;
    if (c->n < 2) return;
    for (int i = 0; i < c->n; ++i)
        sum += log(c->medians[i]);
    const double mean = sum / c->n;
    for (int i = 0; i < c->n; ++i)
        ss += (log(c->medians[i]) - mean) * (log(c->medians[i]) - mean);
    double half = t995[c->n - 1] * sqrt(ss / (c->n - 1)) * sqrt(1 + 1.0 / c->n);
    /* never narrower than the confirmation resolves: five processes that
     * happened to agree within 1% say little of the sixth */
    if (half < log(1 + FB_CONFIRM_MIN_GAIN)) half = log(1 + FB_CONFIRM_MIN_GAIN);
    if (half > log(1000.0)) half = log(1000.0); /* a few scattered processes say "anything": kept finite */
    c->expect_lo = exp(mean - half), c->expect_hi = exp(mean + half);
}

/* Only a candidate every process ran counts: one that failed in a
 * process is not a setting to ship. */
static void centers(fb_confirm_outcome *o)
{
    for (int i = 0; i < o->n; ++i) {
        fb_confirm_candidate *c = &o->c[i];
        double sorted[FB_CONFIRM_MAX_ROUNDS];
        memcpy(sorted, c->medians, (size_t)c->n * sizeof *sorted);
        fb_sort_doubles(sorted, (size_t)c->n);
        c->center = c->n == o->rounds && c->n > 0 ? fb_median_sorted(sorted, (size_t)c->n) : INFINITY;
        prediction_interval(c);
    }
}

static void decide(fb_confirm_outcome *o)
{
    centers(o);
    o->winner = o->runner_up = -1;
    for (int i = 0; i < o->n; ++i) {
        if (!isfinite(o->c[i].center)) continue;
        if (o->winner < 0 || o->c[i].center < o->c[o->winner].center)
            o->runner_up = o->winner, o->winner = i;
        else if (o->runner_up < 0 || o->c[i].center < o->c[o->runner_up].center)
            o->runner_up = i;
    }
    o->gain_vs_default = o->p_vs_default = o->gain_vs_runner_up = o->p_vs_runner_up = NAN;
    if (o->winner < 0) return;
    if (o->runner_up >= 0) versus(&o->c[o->winner], &o->c[o->runner_up], &o->gain_vs_runner_up, &o->p_vs_runner_up);
    if (o->winner == o->def) return; /* the default itself is the fastest: nothing to ship over it */
    if (!isfinite(o->c[o->def].center)) {
        o->significant = 1; /* the default cannot run here: the winner is the answer */
        return;
    }
    versus(&o->c[o->winner], &o->c[o->def], &o->gain_vs_default, &o->p_vs_default);
    o->significant = o->gain_vs_default >= FB_CONFIRM_MIN_GAIN && o->p_vs_default < FB_CONFIRM_ALPHA;
}

fb_status fb_confirm_run(fb_confirm_outcome *o, int rounds, const fb_family_kernel *k, fb_confirm_measure_fn measure,
                         void *ctx, FILE *progress)
{
    fb_status status = FB_OK;
    o->rounds = rounds < FB_CONFIRM_MAX_ROUNDS ? rounds : FB_CONFIRM_MAX_ROUNDS;
    if (progress)
        fprintf(progress, "confirming: %d point%s, each in %d fresh processes, interleaved\n", o->n,
                o->n == 1 ? "" : "s", o->rounds);
    for (int r = 0; r < o->rounds; ++r)
        for (int i = 0; i < o->n; ++i)
            FB_CHECK(measure_once(o, (i + r) % o->n, r, k, measure, ctx, progress));
    decide(o);
fail:
    return status;
}

const fb_confirm_candidate *fb_confirm_chosen(const fb_confirm_outcome *o)
{
    if (o->winner < 0) return NULL;
    if (o->significant || o->winner == o->def) return &o->c[o->winner];
    return isfinite(o->c[o->def].center) ? &o->c[o->def] : NULL;
}

static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* ", and it runs in two modes across processes: ..." when the stored
 * candidate's per-process medians fall in two (core/contention.h). */
static void modes_note(const fb_confirm_candidate *c, char *buf, size_t len)
{
    char why[300];
    buf[0] = '\0';
    if (c && fb_processes_judge(c->medians, c->n, why, sizeof why))
        snprintf(buf, len, "; %s: its expected range spans both", why);
}

void fb_confirm_verdict(const fb_confirm_outcome *o, const fb_family_kernel *k, char *buf, size_t len)
{
    char params[400], modes[400];
    size_t used;
    if (o->winner < 0) {
        snprintf(buf, len, "no point ran in every process: nothing to store");
        return;
    }
    fb_family_point_text(k, &o->c[o->winner].point, params, sizeof params);
    if (o->winner == o->def)
        snprintf(buf, len, "the default %s is the fastest in fresh processes: default kept", params);
    else if (o->significant && !isfinite(o->gain_vs_default))
        snprintf(buf, len, "%s (the default cannot run here)", params);
    else if (o->significant)
        snprintf(buf, len, "%s is %.2fx faster than the default (p %.2g over %d processes each)", params,
                 1 + o->gain_vs_default, o->p_vs_default, o->rounds);
    else
        snprintf(buf, len,
                 "no significant winner: default kept (the fastest, %s, is %.2fx the default at p %.2g over %d "
                 "processes each; storing another point needs %.0f%% and p < %.2g)",
                 params, 1 + o->gain_vs_default, o->p_vs_default, o->rounds, 100 * FB_CONFIRM_MIN_GAIN,
                 FB_CONFIRM_ALPHA);
    modes_note(fb_confirm_chosen(o), modes, sizeof modes);
    used = strlen(buf);
    snprintf(buf + used, len - used, "%s", modes);
}

json_t *fb_confirm_json(const fb_confirm_outcome *o, const fb_family_kernel *k)
{
    char verdict[1000];
    json_t *cands = json_array();
    for (int i = 0; i < o->n; ++i) {
        const fb_confirm_candidate *c = &o->c[i];
        json_t *medians = json_array();
        for (int r = 0; r < c->n; ++r)
            json_array_append_new(medians, json_real(c->medians[r]));
        json_array_append_new(cands, json_pack("{s:s, s:o, s:o, s:o, s:[o, o], s:o}", "role", c->role, "params",
                                               fb_json_params(k->params, k->nparams, &c->point), "medians_s", medians,
                                               "median_s", number(c->center), "expected_s", number(c->expect_lo),
                                               number(c->expect_hi), "failure",
                                               c->failure[0] ? json_string(c->failure) : json_null()));
    }
    fb_confirm_verdict(o, k, verdict, sizeof verdict);
    return json_pack("{s:i, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:f, s:f}", "rounds", o->rounds, "verdict", verdict,
                     "winner_stored", o->significant, "candidates", cands, "gain_vs_default",
                     number(o->gain_vs_default), "p_vs_default", number(o->p_vs_default), "gain_vs_runner_up",
                     number(o->gain_vs_runner_up), "p_vs_runner_up", number(o->p_vs_runner_up), "min_gain",
                     FB_CONFIRM_MIN_GAIN, "alpha", FB_CONFIRM_ALPHA);
}

void fb_confirm_free(fb_confirm_outcome *o)
{
    for (int i = 0; i < o->n; ++i)
        json_decref(o->c[i].record), o->c[i].record = NULL;
}
