/* sweep_records.c - what the sweep writes: failure records, the common
 * fields of every record, the stream references, the best time per kernel
 * and the progress line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream.h"
#include "../bench/record.h"
#include "../bench/user_kernel.h"
#include "../core/counters.h"
#include "../results/records/reader.h"
#include "sweep_state.h"
#include "tuned.h"

/* ---- best time per kernel group (early abandon) ---- */

static void group_key(const sweep *w, const sweep_config *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "%d|%d|%d|%d|%d", cfg->kase, cfg->matrix, cfg->backend, cfg->is_double, cfg->kernel);
    (void)w;
}

double sweep_best(const sweep *w, const sweep_config *cfg)
{
    char key[128];
    group_key(w, cfg, key, sizeof key);
    return json_number_value(json_object_get(w->best, key));
}

static void update_best(sweep *w, const sweep_config *cfg, const json_t *rec)
{
    char key[128];
    double median = fb_json_num(rec, "stats.median_s"), best = sweep_best(w, cfg);
    if (strcmp(fb_json_str(rec, "status"), "ok") || !(median > 0)) return;
    group_key(w, cfg, key, sizeof key);
    if (best <= 0 || median < best) json_object_set_new(w->best, key, json_real(median));
}

/* ---- records ---- */

static json_t *params_json(const sweep *w, const sweep_config *cfg)
{
    const fb_family_kernel *k = w->s->cases[cfg->kase].family->kernel(cfg->kernel);
    return fb_json_params(k->params, k->nparams, &cfg->point);
}

/* The first line of an error message: build logs run to pages. */
static json_t *first_line(const char *text) { return json_stringn(text, strcspn(text, "\n")); }

json_t *sweep_failure(const sweep *w, const sweep_config *cfg, const char *status, const char *reason)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    const sweep_target *st = &w->targets[cfg->backend];
    const fb_device_info *d = st->t ? fb_target_info(st->t) : NULL;
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "benchmark", cs->family->name, "kernel",
                            cs->family->kernel(cfg->kernel)->name, "backend", d ? d->backend : st->spec, "device",
                            d ? d->id : st->spec, "device_name", d ? d->name : "", "precision",
                            cfg->is_double ? "double" : "single", "status", status, "cold", cs->measure.measure.cold);
    json_object_set_new(rec, "params", params_json(w, cfg));
    const fb_family_kernel *k = cs->family->kernel(cfg->kernel);
    if (k->user) json_object_set_new(rec, "kernel_file", fb_user_kernel_json(k->user));
    if (w->problem)
        json_object_set_new(rec, cs->family->problem_key, json_deep_copy(cs->family->problem_json(w->problem)));
    else
        json_object_set_new(rec, cs->family->problem_key, json_pack("{s:s}", "source", cs->matrices[cfg->matrix]));
    json_object_set_new(rec, "reason", first_line(reason));
    return rec;
}

fb_status sweep_tuned_point(sweep *w, sweep_config *cfg)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    const fb_family_kernel *k = cs->family->kernel(cfg->kernel);
    fb_signature sig;
    json_decref(w->tuning);
    w->tuning = NULL;
    cs->family->signature(w->problem, &sig);
    return fb_tuned_point(w->o->tuned, fb_target_info(w->targets[cfg->backend].t), k->name, k->params, k->nparams,
                          cfg->is_double, &sig, &cfg->point, &w->tuning);
}

static void stream_key(const sweep *w, int target, int is_double, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s", w->targets[target].spec, is_double ? "double" : "single");
}

/* Where stream_gbs keeps the read ceiling (dot's GB/s) beside a triad. */
static void read_key(const char *skey, char *buf, size_t len) { snprintf(buf, len, "%s|read", skey); }

/* Where a record stands in the sweep: suite, case and key, with --repeat
 * the pass of the plan it comes from, and where a share ran it. */
static void add_place(const sweep *w, const char *kase, const char *key, int round, json_t *rec)
{
    json_object_set_new(rec, "suite", json_string(w->s->name));
    json_object_set_new(rec, "case", json_string(kase));
    json_object_set_new(rec, "sweep_key", json_string(key));
    if (w->o->repeat > 1) {
        json_object_set_new(rec, "round", json_integer(round));
        json_object_set_new(rec, "rounds", json_integer(w->o->repeat));
    }
    sweep_add_origin(w, rec);
}

static void add_common_fields(sweep *w, const sweep_config *cfg, json_t *rec)
{
    char key[128], rkey[160];
    double gbs = fb_json_num(rec, "gbs");
    add_place(w, w->s->cases[cfg->kase].name, cfg->key, cfg->round, rec);
    if (cfg->tuned && w->tuning) json_object_set(rec, "tuning", w->tuning), fb_tuned_judge(rec);
    if (w->targets[cfg->backend].counters && json_object_get(rec, "stats"))
        json_object_set_new(rec, "counters",
                            fb_counters_json(w->targets[cfg->backend].counters, fb_json_num(rec, "bytes")));
    stream_key(w, cfg->backend, cfg->is_double, key, sizeof key);
    read_key(key, rkey, sizeof rkey);
    if (isnan(gbs)) return;
    fb_json_set_fraction_of_stream(rec, gbs, json_number_value(json_object_get(w->stream_gbs, key)));
    if (!strcmp(fb_json_str(rec, "benchmark"), "spmv")) /* read-dominated: docs/measurement.md */
        fb_json_set_fraction_of_read(rec, gbs, json_number_value(json_object_get(w->stream_gbs, rkey)));
}

/* ---- counting and progress ---- */

/* A configuration the guard killed (it never returned) failed to run: its
 * record says timeout, but unlike one that reached timeout_s with its
 * samples it is not an outcome a sweep expects (docs/tuning.md). */
static void count(fb_sweep_summary *sum, const json_t *rec)
{
    const char *status = fb_json_str(rec, "status");
    if (json_is_true(json_object_get(rec, "killed")))
        sum->failed++;
    else if (!strcmp(status, "ok"))
        sum->ok++;
    else if (!strcmp(status, "wrong-result"))
        sum->wrong++;
    else if (!strcmp(status, "pruned"))
        sum->pruned++;
    else if (!strcmp(status, "abandoned"))
        sum->abandoned++;
    else if (!strcmp(status, "timeout"))
        sum->timeouts++;
    else if (!strcmp(status, "unavailable"))
        sum->missing++;
    else
        sum->failed++;
}

static void format_duration(double s, char *buf, size_t len)
{
    if (s < 60)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* "[ 12/240] ok 3.2 GB/s [2.1 GFLOP/J] [THROTTLED] csr-vector WG_SIZE=128 on opencl, double, gen:cube:12 | 1 failed, 5
 * pruned, ~1m20s left" */
static void progress_line(sweep *w, const sweep_config *cfg, const json_t *rec)
{
    const fb_sweep_summary *sum = w->sum;
    int done = sum->skipped + sum->recorded, left = sum->total - done;
    char params[512], eta[32] = "?", figure[96] = "";
    const char *st = fb_json_str(rec, "status");
    double gbs = fb_json_num(rec, "gbs");
    fb_params_text(json_object_get(rec, "params"), params, sizeof params);
    if (sum->recorded > 0) format_duration((fb_now() - w->started) / sum->recorded * left, eta, sizeof eta);
    if (!isnan(gbs) && strcmp(st, "pruned")) snprintf(figure, sizeof figure, " %.3g GB/s", gbs);
    if (!isnan(fb_json_num(rec, "energy.gflop_per_j")))
        snprintf(figure + strlen(figure), sizeof figure - strlen(figure), " %.3g GFLOP/J",
                 fb_json_num(rec, "energy.gflop_per_j"));
    if (json_is_true(fb_json_get(rec, "energy.throttled"))) /* energy.h: its numbers are suspect */
        snprintf(figure + strlen(figure), sizeof figure - strlen(figure), " THROTTLED");
    if (strcmp(fb_json_str(rec, "stats.quality"), "unstable") == 0 || /* contention.h: not a figure to trust */
        strcmp(fb_json_str(rec, "stats.quality"), "contended") == 0)
        snprintf(figure + strlen(figure), sizeof figure - strlen(figure), " %s", fb_json_str(rec, "stats.quality"));
    fprintf(w->o->progress, "[%*d/%d] %s%s  %s %s on %s, %s, %s | %d failed, %d pruned, ~%s left\n",
            (int)snprintf(NULL, 0, "%d", sum->total), done, sum->total, st, figure,
            w->s->cases[cfg->kase].family->kernel(cfg->kernel)->name, params, sweep_backend(w, cfg),
            cfg->is_double ? "double" : "single", w->s->cases[cfg->kase].matrices[cfg->matrix],
            sum->failed + sum->wrong, sum->pruned, eta);
    if (strcmp(st, "ok") && strcmp(st, "pruned") && fb_json_str(rec, "reason")[0])
        fprintf(w->o->progress, "    %s: %s\n", st, fb_json_str(rec, "reason"));
    if (fb_json_str(rec, "stats.quality_why")[0])
        fprintf(w->o->progress, "    %s: %s\n", fb_json_str(rec, "stats.quality"),
                fb_json_str(rec, "stats.quality_why"));
    fflush(w->o->progress);
}

fb_status sweep_write(sweep *w, const sweep_config *cfg, json_t *rec)
{
    fb_status status = FB_OK;
    add_common_fields(w, cfg, rec);
    FB_CHECK(fb_results_append(w->out, rec));
    json_object_set_new(w->done, cfg->key, json_true());
    w->sum->recorded++;
    count(w->sum, rec);
    update_best(w, cfg, rec);
    progress_line(w, cfg, rec);
fail:
    return status;
}

/* ---- stream references ---- */

/* "suite|stream|target|precision|kernel", and "|round=R" after the first
 * round; a share's adds where it ran (sweep_origin_suffix), as each share
 * measures its own device's reference and one file joins them all. */
static void stream_record_key(const sweep *w, const char *skey, const char *kernel, int round, char *buf, size_t len)
{
    char origin[512];
    size_t n = (size_t)snprintf(buf, len, "%s|stream|%s|%s", w->s->name, skey, kernel);
    if (round > 1 && n < len) n += (size_t)snprintf(buf + n, len - n, "|round=%d", round);
    sweep_origin_suffix(w, origin, sizeof origin);
    if (n < len) snprintf(buf + n, len - n, "%s", origin);
}

/* Where the sweep's triad is no DRAM triad (a suite's small stream_n, a
 * cache too large for the memory), the terminal says so as stream does. */
static void stream_note(sweep *w, const fb_device_info *d, const fb_stream_config *cfg)
{
    char note[512];
    const fb_stream_size s = fb_stream_size_of(d, cfg->is_double, cfg->n);
    fb_stream_size_note(d, &s, note, sizeof note);
    if (*note) fprintf(w->o->progress, "sweep: note: %s\n", note);
}

static fb_status stream_one(sweep *w, int target, int is_double, int round)
{
    fb_status status = FB_OK, run_status;
    fb_target *t = w->targets[target].t;
    fb_stream_config cfg = {
        .n = fb_stream_size_of(fb_target_info(t), is_double, w->s->stream_n).n, .is_double = is_double, .wg = 256};
    fb_stream_result r[FB_STREAM_NKERNELS];
    char skey[128], rkey[160], key[2048], dot_key[2048];
    memset(r, 0, sizeof r);
    cfg.measure = fb_measure_defaults();
    cfg.measure.budget_s = 0.5;
    stream_key(w, target, is_double, skey, sizeof skey);
    read_key(skey, rkey, sizeof rkey);
    stream_record_key(w, skey, "triad", round, key, sizeof key);
    stream_record_key(w, skey, "dot", round, dot_key, sizeof dot_key);
    if (json_is_number(json_object_get(w->done, key))) {
        if (round == 1) json_object_set(w->stream_gbs, skey, json_object_get(w->done, key));
        if (round == 1 && json_is_number(json_object_get(w->done, dot_key)))
            json_object_set(w->stream_gbs, rkey, json_object_get(w->done, dot_key));
        return FB_OK;
    }
    fprintf(w->o->progress, "sweep: stream triad on %s, %s (n = %zu)\n", w->targets[target].spec,
            is_double ? "double" : "single", cfg.n);
    stream_note(w, fb_target_info(t), &cfg);
    sweep_switch_target(w, target); /* a later round's stream follows the last round's configurations */
    run_status = fb_stream_run(t, &cfg, r, NULL, NULL);
    if (run_status == FB_ERR_INTERRUPTED) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
    for (int k = 0; k < FB_STREAM_NKERNELS && r[k].m.nsamples > 0; ++k) {
        json_t *rec = fb_stream_record(fb_target_info(t), &cfg, &r[k]);
        stream_record_key(w, skey, r[k].model->name, round, key, sizeof key);
        add_place(w, "stream", key, round, rec);
        status = fb_results_append(w->out, rec);
        json_decref(rec);
        FB_CHECK(status);
    }
    if (run_status != FB_OK) /* later rounds' streams are repetitions: only a failure is news */
        fprintf(w->o->progress, "sweep: stream on %s failed (%s): no roofline fraction\n", w->targets[target].spec,
                fb_error_message());
    else if (round == 1) {
        json_object_set_new(w->stream_gbs, skey, json_real(r[FB_STREAM_TRIAD].gbs));
        json_object_set_new(w->stream_gbs, rkey, json_real(r[FB_STREAM_DOT].gbs));
    }
fail:
    fb_stream_results_free(r);
    return status;
}

fb_status sweep_stream(sweep *w, int round)
{
    fb_status status = FB_OK;
    for (int t = 0; t < w->ntargets; ++t)
        for (int d = 1; d >= 0 && w->targets[t].t; --d) {
            int used = 0;
            for (int i = 0; i < w->nplan && !used; ++i)
                used = w->plan[i].backend == t && w->plan[i].is_double == d;
            if (used) FB_CHECK(stream_one(w, t, d, round));
        }
fail:
    return status;
}
