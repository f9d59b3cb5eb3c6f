/* sweep_state.c - the sweep's bookkeeping: targets, the open problem,
 * resuming from the results file, the in-flight marker, stream
 * references, the best time per kernel and the progress line. */
#include "sweep_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/comm.h"
#include "../core/counters.h"
#include "../core/files.h"
#include "../core/interrupt.h"
#include "../bench/user_kernel.h"
#include "../results/records/reader.h"

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
    fb_target_rank_spec(spec, st->device, sizeof st->device);
    if (strcmp(st->device, spec) != 0)
        fprintf(w->o->progress, "sweep: %s is %s here (local rank %d)\n", spec, st->device, fb_comm_local_rank());
    status = fb_target_open(st->device, &st->t);
    if (status == FB_ERR_USAGE) goto fail; /* an unknown backend name is a typo, not a missing device */
    status = FB_OK;
    if (!st->t) {
        snprintf(st->why, sizeof st->why, "%s", fb_error_message());
        fprintf(w->o->progress, "sweep: %s unavailable (%s): its configurations are left out\n", st->device, st->why);
    }
fail:
    return status;
}

/* Between configurations on different targets: the previous device's work
 * is finished and its CPU threads get a moment to go idle. PoCL's workers
 * keep spinning after a kernel; measured on 2 cores, the first OpenMP
 * configuration after an OpenCL stream ran at a hundredth of its speed. */
void sweep_switch_target(sweep *w, int next)
{
    const struct timespec pause = {0, 200000000L};
    if (w->last_target == next) return;
    if (w->last_target >= 0 && w->targets[w->last_target].t) fb_target_finish(w->targets[w->last_target].t);
    if (w->last_target >= 0) nanosleep(&pause, NULL);
    w->last_target = next;
}

/* --counters: PAPI counts this process's OpenMP threads, so the openmp
 * target only; the others record why not. */
static fb_status open_counters(sweep *w, sweep_target *st)
{
    char why[200];
    if (!w->o->counters || !st->t) return FB_OK;
    if (fb_target_info(st->t)->in_process) return fb_counters_open(w->o->counters, &st->counters);
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

/* The content hash of every user kernel file the suite's cases run, by
 * path: pinned in the header, so that a process resuming the run (after
 * --resume, or the guard's successor after a crash, which reads the file
 * again) refuses an edited file instead of mixing two kernels' records. */
static json_t *kernel_files_json(const fb_suite *s)
{
    json_t *files = json_object();
    for (int c = 0; files && c < s->ncases; ++c)
        for (int k = 0; k < s->cases[c].nkernels; ++k) {
            const fb_family_kernel *fk = s->cases[c].family->kernel(s->cases[c].kernels[k]);
            if (fk->user) json_object_set_new(files, fk->user->path, json_string(fk->user->hash));
        }
    return files;
}

static fb_status check_kernel_files(const sweep *w, const json_t *recorded)
{
    fb_status status = FB_OK;
    json_t *now = kernel_files_json(w->s);
    const char *path;
    const json_t *was;
    json_object_foreach((json_t *)recorded, path, was)
    {
        const char *hash = json_string_value(json_object_get(now, path));
        if (hash && strcmp(hash, json_string_value(was) ? json_string_value(was) : ""))
            FB_FAIL(FB_ERR_USAGE,
                    "--resume: kernel file %s changed since %s was begun (content %s then, %s now): its records "
                    "would mix two kernels; restore the file or record into a new results file",
                    path, w->o->out_path, json_string_value(was) ? json_string_value(was) : "?", hash);
    }
fail:
    json_decref(now);
    return status;
}

/* A header: the options its sweep ran with must be this command's, or
 * resuming would append another plan to the file; its kernel files must
 * be the same content. Headers written before the options were recorded
 * cannot be checked. */
static fb_status check_header(sweep *w, const json_t *rec)
{
    const json_t *opts = json_object_get(rec, "sweep"), *files = json_object_get(rec, "kernel_files");
    fb_status status = json_is_object(files) ? check_kernel_files(w, files) : FB_OK;
    if (status != FB_OK) return status;
    if (json_is_object(opts)) return fb_sweep_check_options(opts, w->o);
    if (!w->unchecked_said)
        fprintf(w->o->progress, "sweep: %s: a run's header does not record its options; not checked against these\n",
                w->o->out_path);
    w->unchecked_said = 1;
    return FB_OK;
}

/* A process started after a crash, of a command without --resume,
 * resumes its own command's runs only: the file's earlier runs are not
 * what it was asked to continue. */
static int of_this_command(const sweep *w, const json_t *rec)
{
    if (!w->restart || w->restart->every_run) return 1;
    for (int i = 0; i < w->restart->nruns; ++i)
        if (!strcmp(fb_json_str(rec, "run_id"), w->restart->run_ids[i])) return 1;
    return 0;
}

static fb_status remember(sweep *w, const json_t *rec)
{
    if (!of_this_command(w, rec)) return FB_OK;
    if (!strcmp(fb_json_str(rec, "type"), "header")) return check_header(w, rec);
    const char *key = json_string_value(json_object_get(rec, "sweep_key"));
    const json_t *gbs = json_object_get(rec, "gbs");
    /* a resumed sweep divides by the stream it already ran: the triad's and
     * dot's GB/s are kept, every other record is only done */
    const char *kernel = fb_json_str(rec, "kernel");
    int is_reference = !strcmp(fb_json_str(rec, "benchmark"), "stream") &&
                       (!strcmp(kernel, "triad") || !strcmp(kernel, "dot")) &&
                       !strcmp(fb_json_str(rec, "status"), "ok");
    if (key)
        json_object_set_new(w->done, key, is_reference && json_is_number(gbs) ? json_copy((json_t *)gbs) : json_true());
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

/* The guard's note (sweep_guard.c): "ended STATUS HOW". */
static json_t *guard_note(const char *line)
{
    char status[16];
    int at = 0;
    if (sscanf(line, "ended %15s %n", status, &at) != 1 || !at) return NULL;
    if (strcmp(status, "crashed") && strcmp(status, "timeout")) return NULL;
    return json_pack("{s:s, s:s%}", "status", status, "how", line + at, strcspn(line + at, "\n"));
}

fb_status sweep_read_recorded(sweep *w)
{
    if (!w->o->resume || !w->o->out_path) return FB_OK;
    if (!w->done) w->done = json_object();
    if (!w->done)
        return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory reading %s", w->o->out_path);
    return read_done(w);
}

/* One in-flight marker: the key its process was running when it ended,
 * then "signalled" when a signal had asked it to stop (under several
 * ranks: the launcher ending every rank because one died), which is no
 * crash of that configuration: it runs again; or the guard's note of how
 * the process died in it. */
static void read_marker(sweep *w, const char *path)
{
    char key[2048] = "", line[1024];
    int signalled = 0;
    json_t *note = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(key, sizeof key, f)) key[strcspn(key, "\n")] = '\0';
    while (fgets(line, sizeof line, f)) {
        signalled |= !strncmp(line, "signalled", 9);
        if (!note) note = guard_note(line);
    }
    fclose(f);
    if (!key[0] || sweep_is_done(w, key) || signalled) {
        if (key[0] && !sweep_is_done(w, key))
            fprintf(w->o->progress, "sweep: the previous run was stopped inside %s: it runs again\n", key);
        json_decref(note);
        return;
    }
    json_object_set_new(w->crashed, key, note ? note : json_true());
    if (!note) fprintf(w->o->progress, "sweep: the previous run ended inside %s: recording it as crashed\n", key);
}

/* OUT.inflight (the one process's, rank 0's) and every rank's; those of
 * ranks are deleted once read, as a run with fewer ranks would not
 * overwrite them. */
static fb_status read_markers(sweep *w)
{
    fb_status status = FB_OK;
    char **paths = NULL;
    int n = 0;
    read_marker(w, w->inflight_path);
    FB_CHECK(sweep_leftover_markers(w->o->out_path, &paths, &n));
    for (int i = 0; i < n; ++i) {
        read_marker(w, paths[i]);
        unlink(paths[i]);
    }
fail:
    for (int i = 0; i < n; ++i)
        free(paths[i]);
    free(paths);
    return status;
}

/* Rank 0, or the one process. */
static fb_status open_out(sweep *w)
{
    fb_status status = FB_OK;
    /* the lock first: a second sweep on the file stops here, before it
     * reads what is done or writes anything */
    FB_CHECK(fb_results_begin(w->o->out_path, &w->out));
    FB_CHECK(sweep_absorb_leftovers(w));
    if (!w->o->resume) return FB_OK;
    FB_CHECK(read_done(w));
    FB_CHECK(read_markers(w));
fail:
    return status;
}

/* Rank R > 0: OUT.rank-R, in rank 0's run. */
static fb_status open_rank_file(sweep *w)
{
    fb_status status = fb_results_begin(w->out_path, &w->out);
    if (status == FB_OK) fb_results_set_run_id(w->out, w->run_id);
    return status;
}

static void say_share(const sweep *w)
{
    if (w->ranks > 1 && w->rank == 0 && w->o->resume)
        fprintf(w->o->progress,
                "sweep: resuming %s: %d of %d configurations already recorded; the other %d are dealt to %d ranks\n",
                w->o->out_path, w->recorded_before, w->planned, w->planned - w->recorded_before, w->ranks);
    else if (w->ranks <= 1 && w->o->resume && !w->restart) /* a successor: the guard said it goes on */
        fprintf(w->o->progress, "sweep: resuming %s: %d of %d configurations already recorded\n", w->o->out_path,
                w->sum->skipped, w->nplan);
    if (w->ranks > 1)
        fprintf(w->o->progress, "sweep: %d configuration(s) on this rank, recorded in %s\n", w->nplan, w->out_path);
}

/* Under several ranks, from OUT's opening by rank 0 to every rank's file
 * with its header. */
static fb_status open_ranks(sweep *w, const json_t *extra)
{
    fb_status status = w->rank == 0 ? open_out(w) : FB_OK;
    if (status == FB_OK && !extra)
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory opening %s", w->o->out_path);
    FB_CHECK(sweep_agree(w, status));
    FB_CHECK(sweep_share_state(w));
    FB_CHECK(sweep_share_plan(w));
    w->sum->total = w->nplan;
    say_share(w);
    FB_CHECK(sweep_agree(w, w->rank == 0 ? FB_OK : open_rank_file(w)));
    status = sweep_ranks_headers(w, (json_t *)extra);
fail:
    if (status != FB_OK && w->rank > 0 && w->out) { /* it holds a header at most */
        fb_results_close(w->out), w->out = NULL;
        unlink(w->out_path);
    }
    return status;
}

static fb_status open_one(sweep *w, const json_t *extra)
{
    fb_status status = FB_OK;
    FB_CHECK(open_out(w));
    FB_CHECK(sweep_share_plan(w));
    w->sum->total = w->nplan;
    for (int i = 0; i < w->nplan; ++i)
        w->sum->skipped += sweep_is_done(w, w->plan[i].key);
    say_share(w);
    FB_CHECK(sweep_write_header(w, extra));
fail:
    return status;
}

fb_status sweep_state_open(sweep *w)
{
    fb_status status = FB_OK;
    json_t *extra = NULL;
    w->done = json_object();
    w->best = json_object();
    w->stream_gbs = json_object();
    w->crashed = json_object();
    w->rank = fb_comm_rank(), w->ranks = fb_comm_size();
    if (w->rank == 0)
        snprintf(w->out_path, sizeof w->out_path, "%s", w->o->out_path);
    else
        sweep_rank_path(w->o->out_path, w->rank, w->out_path, sizeof w->out_path);
    snprintf(w->inflight_path, sizeof w->inflight_path, "%s.inflight", w->out_path);
    if (w->ranks > 1) fb_interrupt_note_on_signal(w->inflight_path);
    extra = json_pack("{s:o, s:s, s:o}", "sweep", fb_sweep_options_json(w->o), "suite", w->s->name, "kernel_files",
                      kernel_files_json(w->s));
    if (w->ranks > 1)
        status = open_ranks(w, extra); /* agrees on extra, too */
    else if (!extra)
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory opening %s", w->o->out_path);
    else
        status = open_one(w, extra);
    json_decref(extra);
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
    json_decref(w->crashed);
    fb_interrupt_note_on_signal(NULL);
    if (w->has_filter) regfree(&w->filter);
    free(w->plan);
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
