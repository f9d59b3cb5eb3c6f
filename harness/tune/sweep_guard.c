/* sweep_guard.c - a configuration that crashes or hangs its process is
 * recorded, and the sweep goes on (core/guard.h). A guarded sweep tells
 * the guard, before each configuration, its key, its hang limit and the
 * in-flight marker, and leaves a recipe for a successor: this command's
 * run ids and its counts so far. When the process dies inside a
 * configuration, the guard appends how to the marker and starts the
 * command again with the recipe: the successor resumes this command's
 * runs, records the configuration from the marker as "crashed" or
 * "timeout" (kernel and file named), goes on with the rest, and prints
 * the summary of the whole command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/user_kernel.h"
#include "../core/guard.h"
#include "../core/measure.h"
#include "../results/records/reader.h"
#include "sweep_state.h"

/* A configuration that ends its samples checks timeout_s itself; one that
 * never returns is killed at twice that plus room for compiling. Without
 * timeout_s: a minute for compiling and the data, and the measurement's
 * budget four times over; a family whose run is longer by nature (the
 * solver's) says so (fb_family.run_seconds). */
void sweep_guard_begin(const sweep *w, const sweep_config *cfg)
{
    const fb_suite_case *cs = &w->s->cases[cfg->kase];
    if (fb_guard_in_child())
        fb_guard_begin(cfg->key,
                       fb_family_hang_limit_s(cs->family, cs->measure.timeout_s, cs->measure.measure.budget_s),
                       w->inflight_path);
}

json_t *sweep_crash_record(const sweep *w, const sweep_config *cfg)
{
    const json_t *note = json_object_get(w->crashed, cfg->key);
    const fb_family_kernel *k = w->s->cases[cfg->kase].family->kernel(cfg->kernel);
    char reason[2048], whose[1200] = "";
    if (!json_is_object(note)) return sweep_failure(w, cfg, "crashed", sweep_crashed_reason);
    if (k->user) snprintf(whose, sizeof whose, " (kernel %s of %s)", k->name, k->user->path);
    snprintf(reason, sizeof reason, "its process %s while this configuration ran%s; the sweep went on in a new process",
             fb_json_str(note, "how"), whose);
    json_t *rec = sweep_failure(w, cfg, fb_json_str(note, "status"), reason);
    /* hung, not slow: a timeout the sweep counts as failed to run */
    if (rec && !strcmp(fb_json_str(note, "status"), "timeout")) json_object_set_new(rec, "killed", json_true());
    return rec;
}

/* ---- the counts of a command's processes ---- */

/* The plan and what was recorded before the command are the first
 * process's; the records of every process add up. */
void sweep_guard_carry(sweep *w)
{
    fb_sweep_summary before = w->restart->before, *sum = w->sum;
    sum->total = before.total, sum->skipped = before.skipped;
    for (int i = 2; i < SWEEP_NCOUNTS - 1; ++i)
        *sweep_count(sum, i) += *sweep_count(&before, i);
    if (before.unavailable > sum->unavailable) sum->unavailable = before.unavailable;
    w->started = w->restart->started;
}

/* "every=E started=T counts=C1,...,C11 runs=ID,..." */
void sweep_guard_report(const sweep *w)
{
    char recipe[8192];
    size_t n;
    if (!fb_guard_in_child()) return;
    n = (size_t)snprintf(recipe, sizeof recipe,
                         "every=%d started=%.6f counts=", w->restart ? w->restart->every_run : w->o->resume,
                         w->started);
    for (int i = 0; i < SWEEP_NCOUNTS && n < sizeof recipe; ++i)
        n += (size_t)snprintf(recipe + n, sizeof recipe - n, "%s%d", i ? "," : "", *sweep_count(w->sum, i));
    n += (size_t)snprintf(recipe + n, sizeof recipe - n, " runs=");
    for (int i = 0; w->restart && i < w->restart->nruns && n < sizeof recipe; ++i)
        n += (size_t)snprintf(recipe + n, sizeof recipe - n, "%s,", w->restart->run_ids[i]);
    if (w->out && n < sizeof recipe) snprintf(recipe + n, sizeof recipe - n, "%s", fb_results_run_id(w->out));
    fb_guard_set_restart(recipe);
}

static fb_status read_runs(const char *text, sweep_restart *r)
{
    fb_status status = FB_OK;
    for (const char *p = text; *p && *p != ' ';) {
        size_t len = strcspn(p, ", ");
        char(*grown)[64] = realloc(r->run_ids, (size_t)(r->nruns + 1) * sizeof *grown);
        if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory resuming the sweep");
        r->run_ids = grown;
        snprintf(r->run_ids[r->nruns++], 64, "%.*s", (int)(len < 63 ? len : 63), p);
        p += len + (p[len] == ',');
    }
fail:
    return status;
}

static fb_status read_recipe(const char *recipe, sweep_restart *r)
{
    fb_status status = FB_OK;
    const char *counts = strstr(recipe, "counts="), *runs = strstr(recipe, "runs=");
    memset(r, 0, sizeof *r);
    if (sscanf(recipe, "every=%d started=%lf", &r->every_run, &r->started) != 2 || !counts || !runs)
        FB_FAIL(FB_ERR_INPUT, "the guard's restart recipe is damaged: '%.80s'", recipe);
    counts += strlen("counts=");
    for (int i = 0; i < SWEEP_NCOUNTS; ++i) {
        char *end;
        *sweep_count(&r->before, i) = (int)strtol(counts, &end, 10);
        counts = end + (*end == ',');
    }
    FB_CHECK(read_runs(runs + strlen("runs="), r));
fail:
    return status;
}

fb_status sweep_guard_restart(sweep_restart *restart, int *successor)
{
    memset(restart, 0, sizeof *restart);
    *successor = fb_guard_in_child() && fb_guard_restart();
    return *successor ? read_recipe(fb_guard_restart(), restart) : FB_OK;
}
