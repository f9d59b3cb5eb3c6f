/* sweep_state.c - the sweep's bookkeeping: targets, the open problem,
 * resuming from the results file, the in-flight marker, stream
 * references, the best time per kernel and the progress line. */
#include "sweep_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/counters.h"
#include "../core/files.h"
#include "../results/reader.h"

const char sweep_crashed_reason[] =
    "the previous sweep process ended while this configuration ran (crash, hang or kill); not retried";

/* ---- targets ---- */

int sweep_target_index(const sweep *w, const char *spec)
{
    for (int i = 0; i < w->ntargets; ++i)
        if (!strcmp(w->targets[i].spec, spec)) return i;
    return -1;
}

const char *sweep_backend(const sweep *w, const sweep_config *cfg) { return w->targets[cfg->backend].spec; }

static fb_status open_target(sweep *w, const char *spec)
{
    fb_status status = FB_OK;
    sweep_target *st = &w->targets[w->ntargets];
    if (sweep_target_index(w, spec) >= 0) return FB_OK;
    if (w->ntargets == SWEEP_MAX_TARGETS) FB_FAIL(FB_ERR_USAGE, "a sweep takes at most %d backends", SWEEP_MAX_TARGETS);
    w->ntargets++;
    snprintf(st->spec, sizeof st->spec, "%s", spec);
    status = fb_target_open(spec, &st->t);
    if (status == FB_ERR_USAGE) goto fail; /* an unknown backend name is a typo, not a missing device */
    status = FB_OK;
    if (!st->t) {
        snprintf(st->why, sizeof st->why, "%s", fb_error_message());
        fprintf(w->o->progress, "sweep: %s unavailable (%s): its configurations are left out\n", spec, st->why);
    }
fail:
    return status;
}

/* --counters: PAPI counts this process's OpenMP threads, so the openmp
 * target only; the others record why not. */
static fb_status open_counters(sweep *w, sweep_target *st)
{
    char why[200];
    if (!w->o->counters || !st->t) return FB_OK;
    if (!strcmp(fb_target_info(st->t)->backend, "openmp")) return fb_counters_open(w->o->counters, &st->counters);
    snprintf(why, sizeof why, "%s runs its work outside this process's OpenMP threads", fb_target_info(st->t)->id);
    return fb_counters_unavailable(why, &st->counters);
}

fb_status sweep_open_targets(sweep *w)
{
    fb_status status = FB_OK;
    for (int i = 0; i < w->o->nbackends; ++i)
        FB_CHECK(open_target(w, w->o->backends[i]));
    for (int c = 0; c < w->s->ncases && !w->o->nbackends; ++c)
        for (int b = 0; b < w->s->cases[c].nbackends; ++b)
            FB_CHECK(open_target(w, w->s->cases[c].backends[b]));
    for (int i = 0; i < w->ntargets; ++i) {
        const char *why;
        FB_CHECK(open_counters(w, &w->targets[i]));
        if (w->targets[i].counters && !fb_counters_available(w->targets[i].counters, &why))
            fprintf(w->o->progress, "sweep: counters on %s unavailable: %s\n", w->targets[i].spec, why);
    }
fail:
    return status;
}

/* ---- the problem ---- */

fb_status sweep_open_problem(sweep *w, const sweep_config *cfg)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    const char *spec = cs->matrices[cfg->matrix];
    if (w->problem_family == cs->family && !strcmp(w->problem_spec, spec)) return FB_OK;
    if (w->problem_family) w->problem_family->problem_close(w->problem);
    w->problem = NULL;
    w->problem_family = cs->family;
    w->problem_error[0] = '\0';
    snprintf(w->problem_spec, sizeof w->problem_spec, "%s", spec);
    fprintf(w->o->progress, "sweep: opening %s\n", spec);
    if (cs->family->problem_open(spec, &w->problem) != FB_OK) {
        snprintf(w->problem_error, sizeof w->problem_error, "%s", fb_error_message());
        fprintf(w->o->progress, "sweep: %s: its configurations are recorded as failed\n", w->problem_error);
        w->problem = NULL;
    }
    return FB_OK;
}

/* ---- resuming ---- */

/* A header: the options its sweep ran with must be this command's, or
 * resuming would append another plan to the file. Headers written before
 * the options were recorded cannot be checked. */
static fb_status check_header(sweep *w, const json_t *rec)
{
    const json_t *opts = json_object_get(rec, "sweep");
    if (json_is_object(opts)) return fb_sweep_check_options(opts, w->o);
    if (!w->unchecked_said)
        fprintf(w->o->progress, "sweep: %s: a run's header does not record its options; not checked against these\n",
                w->o->out_path);
    w->unchecked_said = 1;
    return FB_OK;
}

static fb_status remember(sweep *w, const json_t *rec)
{
    if (!strcmp(fb_json_str(rec, "type"), "header")) return check_header(w, rec);
    const char *key = json_string_value(json_object_get(rec, "sweep_key"));
    const json_t *gbs = json_object_get(rec, "gbs");
    int is_triad = !strcmp(fb_json_str(rec, "kernel"), "triad") && !strcmp(fb_json_str(rec, "status"), "ok");
    if (key)
        json_object_set_new(w->done, key, is_triad && json_is_number(gbs) ? json_copy((json_t *)gbs) : json_true());
    return FB_OK;
}

static fb_status read_done(sweep *w)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    FB_CHECK(fb_file_fopen_read_if_exists(w->o->out_path, "the results file", &f));
    if (!f) return FB_OK;
    /* fb_results_begin has repaired a cut last line; a line that is not
     * JSON (an older writer's interleaving) holds no key to skip */
    while ((len = getline(&line, &cap, f)) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        if (rec) status = remember(w, rec);
        json_decref(rec);
        if (status != FB_OK) goto fail;
    }
fail:
    free(line);
    if (f) fclose(f);
    return status;
}

static void read_inflight(sweep *w)
{
    FILE *f = fopen(w->inflight_path, "r");
    if (!f) return;
    if (fgets(w->crashed_key, sizeof w->crashed_key, f)) w->crashed_key[strcspn(w->crashed_key, "\n")] = '\0';
    fclose(f);
    if (sweep_is_done(w, w->crashed_key))
        w->crashed_key[0] = '\0';
    else if (w->crashed_key[0])
        fprintf(w->o->progress, "sweep: the previous run ended inside %s: recording it as crashed\n", w->crashed_key);
}

int sweep_is_done(const sweep *w, const char *key) { return json_object_get(w->done, key) != NULL; }

static fb_status write_header(sweep *w)
{
    fb_status status = FB_OK;
    fb_device_info infos[SWEEP_MAX_TARGETS];
    json_t *extra = NULL;
    int n = 0;
    for (int i = 0; i < w->ntargets; ++i)
        if (w->targets[i].t) infos[n++] = *fb_target_info(w->targets[i].t);
    extra = json_pack("{s:o}", "sweep", fb_sweep_options_json(w->o));
    FB_CHECK(fb_results_write_header(w->out, "sweep", infos, n, extra));
fail:
    json_decref(extra);
    return status;
}

fb_status sweep_state_open(sweep *w)
{
    fb_status status = FB_OK;
    w->done = json_object();
    w->best = json_object();
    w->stream_gbs = json_object();
    snprintf(w->inflight_path, sizeof w->inflight_path, "%s.inflight", w->o->out_path);
    /* the lock first: a second sweep on the file stops here, before it
     * reads what is done or writes anything */
    FB_CHECK(fb_results_begin(w->o->out_path, &w->out));
    if (w->o->resume) {
        FB_CHECK(read_done(w));
        read_inflight(w);
        for (int i = 0; i < w->nplan; ++i)
            w->sum->skipped += sweep_is_done(w, w->plan[i].key);
        fprintf(w->o->progress, "sweep: resuming %s: %d of %d configurations already recorded\n", w->o->out_path,
                w->sum->skipped, w->nplan);
    }
    FB_CHECK(write_header(w));
fail:
    return status;
}

void sweep_state_close(sweep *w)
{
    if (w->problem_family) w->problem_family->problem_close(w->problem);
    for (int i = 0; i < w->ntargets; ++i) {
        fb_counters_close(w->targets[i].counters);
        fb_target_close(w->targets[i].t);
    }
    fb_results_close(w->out);
    json_decref(w->done);
    json_decref(w->best);
    json_decref(w->stream_gbs);
    json_decref(w->tuning);
}

/* ---- the in-flight marker ---- */

fb_status sweep_inflight_begin(sweep *w, const sweep_config *cfg)
{
    fb_status status = FB_OK;
    FILE *f = fopen(w->inflight_path, "w");
    if (!f) FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", w->inflight_path, strerror(errno));
    fprintf(f, "%s\n", cfg->key);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", w->inflight_path, strerror(errno));
    }
    fclose(f);
fail:
    return status;
}

void sweep_inflight_end(sweep *w) { unlink(w->inflight_path); }
