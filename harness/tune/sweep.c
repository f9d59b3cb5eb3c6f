/* sweep.c - the sweep runner: expands a suite into configurations, runs
 * each on its target, and writes one record per configuration as it ends.
 * Resuming, the in-flight marker and the progress line are in
 * sweep_state.c; this file is the loop. */
#include "sweep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/grow.h"
#include "../core/comm.h"
#include "../core/guard.h"
#include "../results/records/reader.h"
#include "sweep_state.h"

/* ---- the plan: every configuration, in run order ---- */

/* --filter: does the regex match the case, the kernel or the matrix? */
static int selected(const sweep *w, const fb_suite_case *cs, const fb_family_kernel *k, const char *matrix)
{
    if (!w->has_filter) return 1;
    return !regexec(&w->filter, cs->name, 0, NULL, 0) || !regexec(&w->filter, k->name, 0, NULL, 0) ||
           !regexec(&w->filter, matrix, 0, NULL, 0);
}

static fb_status compile_filter(sweep *w)
{
    fb_status status = FB_OK;
    char why[256];
    int rc;
    if (!w->o->filter) return FB_OK;
    if ((rc = regcomp(&w->filter, w->o->filter, REG_EXTENDED | REG_NOSUB)) != 0) {
        regerror(rc, &w->filter, why, sizeof why);
        FB_FAIL(FB_ERR_USAGE, "--filter: '%s' is not an extended regular expression (%s)", w->o->filter, why);
    }
    w->has_filter = 1;
fail:
    return status;
}

static fb_status plan_add(sweep *w, int c, int m, int target, int prec, int kernel, const fb_param_point *p)
{
    fb_status status = FB_OK;
    const fb_suite_case *cs = &w->s->cases[c];
    const fb_family_kernel *k = cs->family->kernel(kernel);
    sweep_config *cfg;
    char params[512];
    if (!selected(w, cs, k, cs->matrices[m])) return FB_OK;
    sweep_config *grown = fb_grow(w->plan, &w->cap, w->nplan + 1, sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory planning the sweep");
    w->plan = grown;
    cfg = &w->plan[w->nplan++];
    memset(cfg, 0, sizeof *cfg);
    *cfg = (sweep_config){
        .kase = c, .matrix = m, .backend = target, .is_double = cs->is_double[prec], .kernel = kernel, .round = 1};
    if (p)
        cfg->point = *p;
    else
        cfg->tuned = 1;
    fb_family_point_text(k, &cfg->point, params, sizeof params);
    snprintf(cfg->key, sizeof cfg->key, "%s|%s|%s|%s|%s|%s|%s", w->s->name, cs->name, cs->matrices[m],
             sweep_backend(w, cfg), cfg->is_double ? "double" : "single", k->name, cfg->tuned ? "tuned" : params);
fail:
    return status;
}

/* The points of one kernel: the case's space, or one tuned point filled in
 * when the matrix is open (--tuned). */
static fb_status plan_kernel(sweep *w, int c, int m, int target, int prec, int kernel)
{
    fb_status status = FB_OK;
    fb_param_point *points = NULL;
    int n = 0;
    if (w->o->tuned) return plan_add(w, c, m, target, prec, kernel, NULL);
    FB_CHECK(fb_suite_points(&w->s->cases[c], kernel, &points, &n));
    for (int i = 0; i < n; ++i)
        FB_CHECK(plan_add(w, c, m, target, prec, kernel, &points[i]));
fail:
    free(points);
    return status;
}

static int rounds(const sweep *w) { return w->o->repeat > 1 ? w->o->repeat : 1; }

/* --repeat: the plan again for rounds 2..N, after the whole first round. */
static fb_status repeat_plan(sweep *w)
{
    fb_status status = FB_OK;
    int once = w->nplan, n = rounds(w);
    sweep_config *grown = realloc(w->plan, (size_t)once * (size_t)n * sizeof *grown + 1);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory planning %d rounds of the sweep", n);
    w->plan = grown, w->cap = once * n, w->nplan = once * n;
    for (int r = 2; r <= n; ++r)
        for (int i = 0; i < once; ++i) {
            sweep_config *cfg = &w->plan[(r - 1) * once + i];
            size_t len;
            *cfg = w->plan[i];
            cfg->round = r;
            len = strlen(cfg->key);
            snprintf(cfg->key + len, sizeof cfg->key - len, "|round=%d", r);
        }
fail:
    return status;
}

/* Counts are non-negative; a product too large for 64 bits stays at the
 * largest, which is over any limit. */
static int64_t saturating_mul(int64_t a, int64_t b) { return a != 0 && b > INT64_MAX / a ? INT64_MAX : a * b; }
static int64_t saturating_add(int64_t a, int64_t b) { return b > INT64_MAX - a ? INT64_MAX : a + b; }

/* The configurations case cs adds to one round of the plan (as make_plan
 * lays them out, backends that will not open included). */
static int64_t case_configurations(const fb_suite_case *cs, const fb_sweep_options *o)
{
    int64_t points = 0, backends = o->nbackends ? o->nbackends : cs->nbackends;
    for (int k = 0; k < cs->nkernels; ++k)
        points = saturating_add(points, o->tuned ? 1 : fb_suite_point_count(cs, cs->kernels[k]));
    return saturating_mul(saturating_mul(saturating_mul(points, cs->nmatrices), backends), cs->nprecisions);
}

fb_status fb_sweep_check_size(const fb_suite *s, const fb_sweep_options *o)
{
    fb_status status = FB_OK;
    int64_t limit = o->max_points > 0 ? o->max_points : FB_SUITE_MAX_POINTS_DEFAULT, total = 0;
    for (int c = 0; c < s->ncases; ++c) {
        const fb_suite_case *cs = &s->cases[c];
        total = saturating_add(total, saturating_mul(case_configurations(cs, o), o->repeat > 1 ? o->repeat : 1));
        if (total > limit)
            FB_FAIL(FB_ERR_INPUT,
                    "%s: line %d: case %s brings the plan to %lld configurations, more than the limit of %lld "
                    "(sweep --max-points N raises it)",
                    s->path, cs->line, cs->name, (long long)total, (long long)limit);
    }
fail:
    return status;
}

static fb_status make_plan(sweep *w)
{
    fb_status status = FB_OK;
    for (int c = 0; c < w->s->ncases; ++c) {
        const fb_suite_case *cs = &w->s->cases[c];
        int nb = w->o->nbackends ? w->o->nbackends : cs->nbackends;
        for (int m = 0; m < cs->nmatrices; ++m)
            for (int b = 0; b < nb; ++b) {
                /* a backend that did not open here stays in the plan until its
                 * shares are taken (sweep_share_plan), so that the plan and its
                 * shares are the same on every machine */
                int t = sweep_target_index(w, w->o->nbackends ? w->o->backends[b] : cs->backends[b]);
                for (int p = 0; p < cs->nprecisions; ++p)
                    for (int k = 0; k < cs->nkernels; ++k)
                        FB_CHECK(plan_kernel(w, c, m, t, p, cs->kernels[k]));
            }
    }
    if (rounds(w) > 1) FB_CHECK(repeat_plan(w));
fail:
    return status;
}

/* ---- one configuration ---- */

static const char *status_of_error(fb_status st)
{
    switch (st) {
    case FB_ERR_BUILD: return "build-error";
    case FB_ERR_LAUNCH: return "launch-error";
    case FB_ERR_UNAVAILABLE: return "unavailable";
    default: return "failed";
    }
}

/* Every axis of the kernel at its default: the point the kernel's other
 * points are read against. */
static int is_default_point(const fb_family_kernel *k, const fb_param_point *p)
{
    for (int i = 0; i < k->nparams; ++i)
        if (p->values[i] != k->params[i].def) return 0;
    return 1;
}

/* The measurement settings of one configuration: the case's, with the
 * time-out as a deadline and the abandon threshold from the best so far;
 * never for a kernel's default point (abandoned, it once left a hole in
 * the heat map and a failure in the report where the reference belongs). */
static fb_measure_config measure_for(sweep *w, const sweep_config *cfg)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    const fb_suite_measure *sm = &cs->measure;
    fb_measure_config m = sm->measure;
    m.counters = w->targets[cfg->backend].counters;
    double best = sweep_best(w, cfg);
    if (sm->timeout_s > 0) m.deadline = fb_now() + sm->timeout_s;
    if (sm->abandon_factor > 0 && best > 0 && !is_default_point(cs->family->kernel(cfg->kernel), &cfg->point))
        m.abandon_above_s = sm->abandon_factor * best;
    return m;
}

static int is_abandoned(const json_t *rec) { return rec && !strcmp(fb_json_str(rec, "status"), "abandoned"); }

/* One measurement of the configuration; a point that looks abandoned is
 * measured once more, after a pause, before it is recorded so: on a shared
 * machine a burst of load (seen here: every sample of a round 300x slow)
 * would otherwise leave a hole in the heat map where a fast point is.
 * "attempts": 2 in the record says it was looked at twice. */
static fb_status measure_once(sweep *w, const sweep_config *cfg, sweep_target *st, fb_family_run *run, json_t **rec)
{
    fb_status run_status = w->s->cases[cfg->kase].family->run(st->t, w->problem, run, rec);
    if (*rec) fb_family_mark_stop(*rec, run->measure.abandon_above_s);
    return run_status;
}

static fb_status run_family(sweep *w, sweep_config *cfg, sweep_target *st, fb_family_run *run, json_t **rec)
{
    const struct timespec pause = {0, 100000000L};
    fb_status run_status = measure_once(w, cfg, st, run, rec);
    if (run_status != FB_OK || !is_abandoned(*rec)) return run_status;
    json_decref(*rec);
    *rec = NULL;
    nanosleep(&pause, NULL);
    run->measure = measure_for(w, cfg); /* a fresh deadline */
    run_status = measure_once(w, cfg, st, run, rec);
    if (*rec) json_object_set_new(*rec, "attempts", json_integer(2));
    return run_status;
}

static fb_status measure_config(sweep *w, sweep_config *cfg, sweep_target *st, json_t **rec)
{
    fb_status status = FB_OK, run_status;
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    fb_family_run run = {.kernel = cfg->kernel, .point = cfg->point, .is_double = cfg->is_double};
    run.measure = measure_for(w, cfg);
    if (cs->family->check(w->problem, &run, fb_target_info(st->t)) != FB_OK) {
        *rec = sweep_failure(w, cfg, "pruned", fb_error_message());
        return FB_OK;
    }
    FB_CHECK(sweep_inflight_begin(w, cfg));
    sweep_guard_begin(w, cfg);
    run_status = run_family(w, cfg, st, &run, rec);
    if (run_status == FB_ERR_INTERRUPTED) {
        sweep_inflight_end(w);
        fb_guard_done();
        json_decref(*rec);
        *rec = NULL;
        FB_FAIL(FB_ERR_INTERRUPTED, "interrupted"); /* not recorded: --resume runs it again */
    }
    if (!*rec) *rec = sweep_failure(w, cfg, status_of_error(run_status), fb_error_message());
fail:
    return status;
}

static fb_status run_config(sweep *w, sweep_config *cfg)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    if (json_object_get(w->crashed, cfg->key))
        rec = sweep_crash_record(w, cfg);
    else if (w->problem_error[0])
        rec = sweep_failure(w, cfg, "failed", w->problem_error);
    else if (cfg->tuned && sweep_tuned_point(w, cfg) != FB_OK)
        rec = sweep_failure(w, cfg, "failed", fb_error_message());
    else
        FB_CHECK(measure_config(w, cfg, &w->targets[cfg->backend], &rec));
    status = sweep_write(w, cfg, rec);
    /* after the write: a kill in between leaves a marker the file already
     * answers. A write that failed (a full disk) is no crash: without the
     * marker, --resume measures the configuration again. */
    sweep_inflight_end(w);
    fb_guard_done();
    sweep_guard_report(w);
    if (status != FB_OK) {
        w->sum->stopped = 1; /* the summary then prints the command that continues */
        fprintf(w->o->progress, "sweep: %s was measured but not recorded: %s; --resume measures it again\n", cfg->key,
                fb_error_message());
    }
fail:
    json_decref(rec);
    return status;
}

/* ---- the loop ---- */

static fb_status run_plan(sweep *w)
{
    fb_status status = FB_OK;
    int round = 1;
    for (int i = 0; i < w->nplan; ++i) {
        sweep_config *cfg = &w->plan[i];
        if (w->s->stream && cfg->round != round) FB_CHECK(sweep_stream(w, round = cfg->round));
        if (sweep_is_done(w, cfg->key)) continue;
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        if (w->o->limit > 0 && w->sum->recorded >= w->o->limit) {
            w->sum->stopped = 1;
            break;
        }
        FB_CHECK(sweep_open_problem(w, cfg));
        sweep_switch_target(w, cfg->backend);
        FB_CHECK(run_config(w, cfg));
    }
fail:
    if (status == FB_ERR_INTERRUPTED) w->sum->stopped = 1;
    return status;
}

/* What each process does alone before the first collective: the targets
 * and the whole plan. */
static fb_status prepare(sweep *w)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_sweep_check_size(w->s, w->o));
    FB_CHECK(sweep_open_targets(w));
    for (int i = 0; i < w->ntargets; ++i)
        w->sum->unavailable += !w->targets[i].t;
    if (w->sum->unavailable == w->ntargets)
        FB_FAIL(FB_ERR_UNAVAILABLE, "sweep %s: none of its backends can be opened here", w->s->name);
    FB_CHECK(compile_filter(w));
    FB_CHECK(make_plan(w));
    if (w->o->filter && w->nplan == 0)
        FB_FAIL(FB_ERR_USAGE,
                "--filter: '%s' selects no configuration of %s (it is matched against each case, kernel "
                "and matrix)",
                w->o->filter, w->s->path);
fail:
    return status;
}

static fb_status run_share(sweep *w)
{
    fb_status status = FB_OK;
    if (w->s->stream && w->nplan > 0) FB_CHECK(sweep_stream(w, 1));
    FB_CHECK(run_plan(w));
fail:
    return status;
}

/* The whole sweep in this process; restart: a successor's carried state
 * (sweep_guard.c), else NULL. */
static fb_status run_here(const fb_suite *s, const fb_sweep_options *o, const sweep_restart *restart,
                          fb_sweep_summary *sum)
{
    fb_status status = FB_OK;
    sweep w = {.s = s, .o = o, .sum = sum, .restart = restart, .started = fb_now(), .last_target = -1};
    memset(sum, 0, sizeof *sum);
    sum->ranks = fb_comm_size();
    status = prepare(&w);
    if (fb_comm_size() > 1) status = sweep_agree(&w, status);
    if (status == FB_OK) status = sweep_state_open(&w);
    if (status == FB_OK) {
        if (restart) sweep_guard_carry(&w);
        sweep_guard_report(&w); /* before a configuration can crash */
        status = run_share(&w);
        if (status != FB_OK) sum->stopped = 1; /* before its plan's end: the summary says how to continue */
        sum->seconds = fb_now() - w.started;
        status = sweep_ranks_finish(&w, status); /* every rank gets here: its collectives wait for no one lost */
    } else {
        sum->seconds = fb_now() - w.started;
    }
    sweep_state_close(&w);
    return status;
}

/* The command's first process runs the sweep as asked; a successor the
 * guard started after a crash resumes it (sweep_guard.c). */
fb_status fb_sweep_run(const fb_suite *s, const fb_sweep_options *o, fb_sweep_summary *sum)
{
    fb_status status = FB_OK;
    fb_sweep_options resumed = *o;
    sweep_restart restart;
    int successor;
    status = sweep_guard_restart(&restart, &successor);
    if (status == FB_OK && !successor) return run_here(s, o, NULL, sum);
    resumed.resume = 1; /* --limit counts the command's records: the carried ones too */
    if (status == FB_OK) status = run_here(s, &resumed, &restart, sum);
    free(restart.run_ids);
    return status;
}

/* ---- the plan alone ---- */

/* One line of the dry run: what the sweep would record for cfg before
 * measuring it (pruned, or a problem that cannot be opened), else "run". */
static void dry_line(sweep *w, const sweep_config *cfg, FILE *out, int *pruned)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    fb_family_run run = {.kernel = cfg->kernel, .point = cfg->point, .is_double = cfg->is_double};
    if (w->problem_error[0]) {
        fprintf(out, "%s  fails: %s\n", cfg->key, w->problem_error);
    } else if (!cfg->tuned &&
               cs->family->check(w->problem, &run, fb_target_info(w->targets[cfg->backend].t)) != FB_OK) {
        fprintf(out, "%s  pruned: %s\n", cfg->key, fb_error_message());
        ++*pruned;
    } else {
        fprintf(out, "%s  run\n", cfg->key);
    }
}

fb_status fb_sweep_dry_run(const fb_suite *s, const fb_sweep_options *o, FILE *out)
{
    fb_status status = FB_OK;
    fb_sweep_summary sum;
    sweep w = {.s = s, .o = o, .sum = &sum, .ranks = 1, .last_target = -1};
    int pruned = 0, recorded = 0;
    memset(&sum, 0, sizeof sum);
    if (fb_comm_size() > 1) FB_FAIL(FB_ERR_USAGE, "sweep --dry-run: run it on one process (it lists the whole plan)");
    FB_CHECK(prepare(&w));
    const int whole = w.nplan;
    FB_CHECK(sweep_share_plan(&w)); /* --shard's share, backends that opened */
    FB_CHECK(sweep_read_recorded(&w));
    for (int i = 0; i < w.nplan; ++i) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        if (w.done && sweep_is_done(&w, w.plan[i].key)) {
            recorded++;
            continue;
        }
        FB_CHECK(sweep_open_problem(&w, &w.plan[i]));
        dry_line(&w, &w.plan[i], out, &pruned);
    }
    fprintf(out, "sweep %s: %d configurations planned", s->name, whole);
    if (o->nshards) fprintf(out, ", %d in share %d/%d", w.planned, o->shard, o->nshards);
    if (o->resume) fprintf(out, ", %d already recorded in %s (not listed)", recorded, o->out_path);
    fprintf(out, "; %d would run, %d pruned, %d on backends that cannot be opened here (nothing measured)\n",
            w.nplan - pruned - recorded, pruned, w.planned - w.nplan);
fail:
    sweep_state_close(&w);
    return status;
}
