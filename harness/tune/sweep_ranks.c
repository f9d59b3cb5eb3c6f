/* sweep_ranks.c - a sweep split into shares (contracts in sweep.h and
 * sweep_state.h): --shard I/N, and the P ranks of an MPI launch, each
 * writing its own file that rank 0 joins into OUT. Every collective of the
 * sweep is here, called by every rank in the same order; a rank that fails
 * says so in the next one (fb_sweep_all_ok), so none is left waiting. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/grow.h"
#include "../core/comm.h"
#include "../results/records/merge.h"
#include "../results/records/reader.h"
#include "sweep_state.h"

/* ---- agreeing ---- */

/* The largest status of all ranks (a collective; the rank's own alone). */
static fb_status worst_status(fb_status mine)
{
    int64_t v = (int64_t)mine;
    fb_comm_allreduce_i64(&v, 1, FB_COMM_MAX);
    return (fb_status)v;
}

int fb_sweep_all_ok(fb_status mine) { return worst_status(mine) == FB_OK; }

/* After a collective step: this rank's error, or, when only another rank
 * failed, an error of its kind that only rank 0 prints (the rank that
 * failed says why). */
fb_status sweep_agree(sweep *w, fb_status mine)
{
    fb_status worst = worst_status(mine);
    if (mine != FB_OK || worst == FB_OK) return mine;
    w->sum->quiet = w->rank != 0; /* rank 0 says that one did */
    return fb_error_set(worst, __FILE__, __LINE__, "another rank of the sweep stopped (its message says why)");
}

/* ---- the rank files ---- */

void sweep_rank_path(const char *out, int rank, char *buf, size_t len) { snprintf(buf, len, "%s.rank-%d", out, rank); }

/* The rank number of a directory entry named BASE.rank-N SUFFIX, or -1. */
static long rank_of(const char *name, const char *base, const char *suffix)
{
    static const char mark[] = ".rank-";
    size_t nb = strlen(base), nm = sizeof mark - 1;
    char *end = NULL;
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, mark, nm) != 0) return -1;
    const char *digits = name + nb + nm;
    if (*digits < '0' || *digits > '9') return -1;
    long r = strtol(digits, &end, 10);
    return strcmp(end, suffix) == 0 && r >= 0 && r < 1000000000 ? r : -1;
}

static int by_rank(const void *a, const void *b)
{
    long ra = *(const long *)a, rb = *(const long *)b;
    return (ra > rb) - (ra < rb);
}

/* The ranks whose OUT.rank-R SUFFIX exists beside OUT, ascending (read
 * from the directory, so that no character of OUT is taken as a pattern). */
static fb_status list_rank_files(const char *out, const char *suffix, long **ranks, int *n)
{
    fb_status status = FB_OK;
    char dir[1100];
    const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
    DIR *d;
    struct dirent *e;
    int cap = 0;
    *ranks = NULL, *n = 0;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
    if (!(d = opendir(dir))) return FB_OK; /* the results file's own open says what is wrong */
    while ((e = readdir(d)) != NULL) {
        long r = rank_of(e->d_name, base, suffix);
        if (r < 0) continue;
        long *grown = fb_grow(*ranks, &cap, *n + 1, sizeof *grown);
        if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing %s.rank-*", out);
        *ranks = grown;
        (*ranks)[(*n)++] = r;
    }
    if (*n > 1) qsort(*ranks, (size_t)*n, sizeof **ranks, by_rank); /* NULL when none: qsort must not see it */
fail:
    closedir(d);
    return status;
}

static void free_paths(char **paths, int n)
{
    for (int i = 0; i < n; ++i)
        free(paths[i]);
    free(paths);
}

/* The paths of list_rank_files. */
static fb_status rank_files(const char *out, const char *suffix, char ***paths, int *n)
{
    fb_status status = FB_OK;
    long *ranks = NULL;
    char buf[1200];
    *paths = NULL;
    FB_CHECK(list_rank_files(out, suffix, &ranks, n));
    FB_ALLOC(*paths, *n, "the rank files' names");
    for (int i = 0; i < *n; ++i) {
        sweep_rank_path(out, (int)ranks[i], buf, sizeof buf - strlen(suffix));
        strcat(buf, suffix);
        if (!((*paths)[i] = strdup(buf))) FB_FAIL(FB_ERR_NOMEM, "out of host memory listing %s.rank-*", out);
    }
fail:
    free(ranks);
    return status;
}

fb_status sweep_leftover_markers(const char *out, char ***paths, int *n)
{
    return rank_files(out, ".inflight", paths, n);
}

/* Joins the rank files into OUT (open in w->out) and deletes them once
 * joined; `why` says which ones, for the line on progress. */
static fb_status join(sweep *w, char **paths, int n, const char *why)
{
    fb_status status = FB_OK;
    fb_merge_summary m;
    if (n == 0) return FB_OK;
    FB_CHECK(fb_merge_into(w->out, w->o->out_path, (const char *const *)paths, n, &m));
    for (int i = 0; i < n; ++i)
        if (unlink(paths[i]) != 0 && errno != ENOENT)
            fprintf(w->o->progress, "sweep: %s: joined into %s, but cannot be removed (%s)\n", paths[i], w->o->out_path,
                    strerror(errno));
    fprintf(w->o->progress, "sweep: %s: joined %d record(s) of %d rank file(s)%s%s\n", w->o->out_path, m.records, n,
            why, m.present ? " (the rest were joined before)" : "");
fail:
    return status;
}

fb_status sweep_absorb_leftovers(sweep *w)
{
    fb_status status = FB_OK;
    char **paths = NULL;
    int n = 0;
    FB_CHECK(rank_files(w->o->out_path, "", &paths, &n));
    status = join(w, paths, n, " a run that did not end left");
    if (status != FB_OK)
        FB_FAIL(status, "%s; the .rank-R files are kept (they hold that run's records)", fb_error_message());
fail:
    free_paths(paths, n);
    return status;
}

/* ---- rank 0's state, on every rank ---- */

/* Rank 0's text (malloc'd) on every rank. Allocations agree before the
 * bytes travel, so no rank waits on one that could not take them. */
static fb_status bcast_text(sweep *w, char **text)
{
    fb_status status = FB_OK;
    int64_t len = w->rank == 0 ? (int64_t)strlen(*text) : 0;
    fb_comm_bcast(&len, sizeof len, 0);
    if (w->rank != 0) {
        *text = malloc((size_t)len + 1);
        status = *text ? FB_OK
                       : fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__,
                                      "out of host memory (%lld bytes)"
                                      " for the sweep's recorded keys",
                                      (long long)len);
    }
    FB_CHECK(sweep_agree(w, status));
    fb_comm_bcast(*text, (size_t)len, 0);
    (*text)[len] = '\0';
fail:
    return status;
}

/* Rank 0's done and crashed keys and run id, as text. */
static char *state_text(const sweep *w)
{
    json_t *state =
        json_pack("{s:O, s:O, s:s}", "done", w->done, "crashed", w->crashed, "run_id", fb_results_run_id(w->out));
    char *text = state ? json_dumps(state, JSON_COMPACT) : NULL;
    json_decref(state);
    return text;
}

fb_status sweep_share_state(sweep *w)
{
    fb_status status = FB_OK;
    char *text = NULL;
    json_t *state = NULL;
    if (w->ranks <= 1) return FB_OK;
    if (w->rank == 0 && !(text = state_text(w)))
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory sending the recorded keys");
    FB_CHECK(sweep_agree(w, status));
    FB_CHECK(bcast_text(w, &text));
    if (!(state = json_loads(text, 0, NULL)))
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "the sweep's recorded keys did not arrive whole");
    FB_CHECK(sweep_agree(w, status));
    if (w->rank != 0) {
        json_object_update(w->done, json_object_get(state, "done"));
        json_object_update(w->crashed, json_object_get(state, "crashed"));
        snprintf(w->run_id, sizeof w->run_id, "%s", fb_json_str(state, "run_id"));
    }
fail:
    json_decref(state);
    free(text);
    return status;
}

/* ---- the plan's shares ---- */

fb_status sweep_share_plan(sweep *w)
{
    int kept = 0, todo = 0, shard = w->o->shard - 1, nshards = w->o->nshards;
    for (int i = 0; i < w->nplan; ++i) {
        const sweep_config *cfg = &w->plan[i];
        if (nshards > 0 && i % nshards != shard) continue;
        w->planned++;
        if (w->ranks > 1 && sweep_is_done(w, cfg->key)) {
            w->recorded_before++; /* rank 0 adds them to the summary */
            continue;
        }
        if (w->ranks > 1 && todo++ % w->ranks != w->rank) continue;
        if (!w->targets[cfg->backend].t) continue; /* said once when opening */
        w->plan[kept++] = *cfg;
    }
    w->nplan = kept;
    return FB_OK;
}

/* ---- what a record of a share says ---- */

void sweep_add_origin(const sweep *w, json_t *rec)
{
    char shard[48];
    if (!w->o->nshards && w->ranks <= 1) return;
    json_object_set_new(rec, "host", json_string(fb_comm_host()));
    if (w->o->nshards) {
        snprintf(shard, sizeof shard, "%d/%d", w->o->shard, w->o->nshards);
        json_object_set_new(rec, "shard", json_string(shard));
    }
    if (w->ranks > 1) {
        json_object_set_new(rec, "rank", json_integer(w->rank));
        json_object_set_new(rec, "ranks", json_integer(w->ranks));
    }
}

void sweep_origin_suffix(const sweep *w, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (!w->o->nshards && w->ranks <= 1) return;
    if (w->o->nshards) n += (size_t)snprintf(buf + n, len - n, "|shard=%d/%d", w->o->shard, w->o->nshards);
    if (w->ranks > 1 && n < len) n += (size_t)snprintf(buf + n, len - n, "|rank=%d", w->rank);
    if (n < len) snprintf(buf + n, len - n, "|host=%s", fb_comm_host());
}

/* ---- the headers ---- */

/* {"rank": R, "host": H, "devices": [...]}: what this rank runs on. */
static json_t *rank_devices(const sweep *w)
{
    json_t *devices = json_array();
    for (int i = 0; i < w->ntargets; ++i) {
        json_t *d;
        if (!w->targets[i].t) continue;
        d = fb_json_device(fb_target_info(w->targets[i].t));
        json_object_set_new(d, "rank", json_integer(w->rank));
        json_object_set_new(d, "host", json_string(fb_comm_host()));
        json_array_append_new(devices, d);
    }
    return json_pack("{s:i, s:s, s:o}", "rank", w->rank, "host", fb_comm_host(), "devices", devices);
}

/* Rank 0: every rank's devices (text from fb_comm_gather, counts[r] bytes
 * each) into one array, and their hosts by rank. */
static fb_status all_devices(const char *text, const size_t *counts, int ranks, json_t *devices, json_t *hosts)
{
    fb_status status = FB_OK;
    size_t at = 0;
    for (int r = 0; r < ranks; at += counts[r], ++r) {
        json_t *one = json_loadb(text + at, counts[r], 0, NULL);
        if (!one) FB_FAIL(FB_ERR_NOMEM, "rank %d's devices did not arrive whole", r);
        json_array_extend(devices, json_object_get(one, "devices"));
        json_array_append(hosts, json_object_get(one, "host"));
        json_decref(one);
    }
fail:
    return status;
}

/* Every rank's devices to rank 0, which writes OUT's header with them
 * (what could fail alone is agreed on before the gather). */
static fb_status write_out_header(sweep *w, json_t *extra, json_t *hosts)
{
    fb_status status = FB_OK;
    json_t *mine = rank_devices(w), *devices = json_array(), *header = json_deep_copy(extra);
    char *text = mine ? json_dumps(mine, JSON_COMPACT) : NULL, *all = NULL;
    size_t *counts = calloc((size_t)w->ranks, sizeof *counts);
    if (!text || !counts || !devices || !header)
        status = fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory describing the devices");
    FB_CHECK(sweep_agree(w, status));
    FB_CHECK(fb_comm_gather(text, strlen(text), 0, (void **)&all, counts));
    if (w->rank != 0) goto fail;
    FB_CHECK(all_devices(all, counts, w->ranks, devices, hosts));
    json_object_set(header, "devices", devices);
    json_object_set_new(header, "ranks", json_integer(w->ranks));
    FB_CHECK(fb_results_write_header(w->out, "sweep", NULL, 0, header));
fail:
    json_decref(mine), json_decref(devices), json_decref(header);
    free(text), free(all), free(counts);
    return status;
}

fb_status sweep_write_header(sweep *w, const json_t *extra)
{
    fb_device_info infos[SWEEP_MAX_TARGETS];
    int n = 0;
    for (int i = 0; i < w->ntargets; ++i)
        if (w->targets[i].t) infos[n++] = *fb_target_info(w->targets[i].t);
    return fb_results_write_header(w->out, "sweep", infos, n, extra);
}

/* Rank R > 0's file: its own header, in rank 0's run. */
static fb_status write_rank_header(sweep *w, const json_t *extra)
{
    fb_status status = FB_OK;
    json_t *header = json_deep_copy(extra);
    if (!header) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the devices");
    json_object_set_new(header, "rank", json_integer(w->rank));
    json_object_set_new(header, "ranks", json_integer(w->ranks));
    FB_CHECK(sweep_write_header(w, header));
fail:
    json_decref(header);
    return status;
}

/* Whether path is there, looking again for a while: a network file system
 * may show a file another node has just created a moment late. */
static int appears(const char *path)
{
    const struct timespec pause = {0, 250000000L};
    struct stat st;
    for (int i = 0; i < 20; ++i) {
        if (stat(path, &st) == 0) return 1;
        nanosleep(&pause, NULL);
    }
    return 0;
}

/* Rank 0 must read every rank's file at the end: one it cannot see now was
 * written on a file system the ranks do not share. */
static fb_status check_visible(const sweep *w, const json_t *hosts)
{
    fb_status status = FB_OK;
    char path[1200];
    for (int r = 1; r < w->ranks; ++r) {
        sweep_rank_path(w->o->out_path, r, path, sizeof path);
        if (!appears(path))
            FB_FAIL(FB_ERR_USAGE,
                    "%s, written by rank %d on %s, is not there for rank 0 on %s: --out must be on a file system"
                    " every rank shares (docs/scaling.md)",
                    path, r, json_string_value(json_array_get(hosts, (size_t)r)), fb_comm_host());
    }
fail:
    return status;
}

fb_status sweep_ranks_headers(sweep *w, json_t *extra)
{
    fb_status status = FB_OK;
    json_t *hosts = json_array();
    status = w->rank == 0 ? FB_OK : write_rank_header(w, extra);
    FB_CHECK(sweep_agree(w, status)); /* every rank file exists before rank 0 looks */
    status = write_out_header(w, extra, hosts);
    FB_CHECK(sweep_agree(w, status));
    FB_CHECK(sweep_agree(w, w->rank == 0 ? check_visible(w, hosts) : FB_OK));
fail:
    json_decref(hosts);
    return status;
}

/* ---- the end ---- */

/* Every rank's counts, summed (the largest where a sum means nothing), on
 * every rank; rank 0 adds what OUT held before. */
static void reduce_summary(sweep *w)
{
    fb_sweep_summary *s = w->sum;
    int64_t v[SWEEP_NCOUNTS - 1], m[2] = {s->unavailable, s->stopped};
    if (w->rank == 0) s->total += w->recorded_before, s->skipped += w->recorded_before;
    for (int i = 0; i < SWEEP_NCOUNTS - 1; ++i)
        v[i] = *sweep_count(s, i);
    fb_comm_allreduce_i64(v, SWEEP_NCOUNTS - 1, FB_COMM_SUM);
    fb_comm_allreduce_i64(m, 2, FB_COMM_MAX);
    fb_comm_allreduce(&s->seconds, 1, FB_COMM_MAX);
    for (int i = 0; i < SWEEP_NCOUNTS - 1; ++i)
        *sweep_count(s, i) = (int)v[i];
    s->unavailable = (int)m[0], s->stopped = (int)m[1];
    s->ranks = w->ranks;
}

/* Rank 0: OUT.rank-1 .. P-1 into OUT, deleted once joined. */
static fb_status join_ranks(sweep *w)
{
    fb_status status = FB_OK;
    char **paths = NULL, path[1200];
    int n = 0;
    FB_ALLOC(paths, w->ranks, "the rank files' names");
    for (int r = 1; r < w->ranks; ++r) {
        sweep_rank_path(w->o->out_path, r, path, sizeof path);
        if (!(paths[n++] = strdup(path))) FB_FAIL(FB_ERR_NOMEM, "out of host memory joining the rank files");
    }
    status = join(w, paths, n, "");
    if (status != FB_OK)
        FB_FAIL(status, "%s; the .rank-R files are kept: `flowbench sweep ... --resume` joins them",
                fb_error_message());
fail:
    free_paths(paths, n);
    return status;
}

fb_status sweep_ranks_finish(sweep *w, fb_status status)
{
    fb_status worst, joined;
    char own[2048];
    if (w->ranks <= 1) return status;
    if (w->rank != 0) fb_results_close(w->out), w->out = NULL; /* whole and unlocked before rank 0 reads it */
    snprintf(own, sizeof own, "%s", fb_error_message());
    worst = worst_status(status);
    reduce_summary(w);
    joined = worst_status(w->rank == 0 ? join_ranks(w) : FB_OK);
    if (w->rank == 0 && joined != FB_OK) {
        if (status != FB_OK) fprintf(stderr, "flowbench: %s\n", own); /* said here; the join's is returned */
        return joined;
    }
    if (status != FB_OK) return fb_error_set(status, __FILE__, __LINE__, "%s", own);
    if (worst == FB_OK && joined == FB_OK) return FB_OK;
    w->sum->quiet = w->rank != 0;
    return fb_error_set(worst != FB_OK ? worst : joined, __FILE__, __LINE__,
                        "another rank of the sweep stopped (its message says why)");
}
