/* interleave_run.c - the processes of `compare --interleave`
 * (interleave_run.h): the rounds' sweeps, their state on disk, Ctrl-C. */
#include "interleave_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../core/clock.h"
#include "../../core/files.h"
#include "../../core/hash.h"
#include "../../core/interrupt.h"
#include "../records/reader.h"
#include "interleave.h"

extern char **environ;

#define STATE_VERSION 2 /* 2: the binaries' content hashes */

enum { BASE, NEW, SIDES };
static const char *const side_name[SIDES] = {"BASE", "NEW"};
static const char *const side_file[SIDES] = {"base", "new"};

typedef struct interleave {
    const char *bin[SIDES];
    const char *suite;              /* the file */
    char real[SIDES + 1][PATH_MAX]; /* the binaries' and the suite's real paths: what DIR's rounds are of */
    char dir[PATH_MAX / 2];
    char state_path[PATH_MAX];
    int rounds;
    char hash[SIDES][24]; /* the binaries' content (a rebuild at the same path is another build) */
    json_t *state; /* {"flowbench_interleave": 2, "base", "new", "suite", "base_hash", "new_hash", "finished": [...]} */
    fb_results_set **sets[SIDES]; /* per round, loaded once the round is finished */
} interleave;

/* ---- inputs ------------------------------------------------------------------ */

static fb_status check_binary(const char *path, const char *what)
{
    fb_status status = FB_OK;
    struct stat st;
    if (stat(path, &st) != 0) FB_FAIL(FB_ERR_USAGE, "%s: %s: %s", path, what, strerror(errno));
    if (!S_ISREG(st.st_mode)) FB_FAIL(FB_ERR_USAGE, "%s: %s: not a regular file", path, what);
    if (access(path, X_OK) != 0) FB_FAIL(FB_ERR_USAGE, "%s: %s: not executable (%s)", path, what, strerror(errno));
fail:
    return status;
}

/* 16 hex digits of the file's FNV-1a: which build a binary is. */
static fb_status content_hash(const char *path, char *out, size_t len)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    char buf[1 << 16];
    uint64_t h = FB_HASH_SEED;
    FB_CHECK(fb_file_fopen_read(path, "the binary", &f));
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
        h = fb_hash_bytes(h, buf, n);
    if (ferror(f)) FB_FAIL(FB_ERR_IO, "%s: cannot read the binary: %s", path, strerror(errno));
    snprintf(out, len, "%016llx", (unsigned long long)h);
fail:
    if (f) fclose(f);
    return status;
}

static fb_status check_suite(const char *path)
{
    char why[1200];
    FILE *f = NULL;
    if (fb_file_fopen_read(path, "the suite", &f) == FB_OK) {
        fclose(f);
        return FB_OK;
    }
    snprintf(why, sizeof why, "%s", fb_error_message()); /* the message buffer is about to be written */
    return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "%s", why);
}

/* "results/interleave-quick" for cases/quick.suite. */
static void default_dir(const char *suite, char *buf, size_t len)
{
    const char *base = strrchr(suite, '/') ? strrchr(suite, '/') + 1 : suite;
    size_t n = strcspn(base, ".");
    snprintf(buf, len, "results/interleave-%.*s", (int)(n ? n : strlen(base)), base);
}

/* The same files under other names are the same rounds: DIR's state
 * holds real paths (the file was just checked, so it resolves). */
static void resolve(const char *path, char real[PATH_MAX])
{
    if (!realpath(path, real)) snprintf(real, PATH_MAX, "%s", path);
}

/* --junit inside DIR could replace a round's results or the state file
 * the next run resumes from: refused before any round runs. */
static fb_status check_junit(const char *junit, const char *dir)
{
    char parent[PATH_MAX], real_parent[PATH_MAX], real_dir[PATH_MAX];
    if (!junit) return FB_OK;
    snprintf(parent, sizeof parent, "%s", junit);
    char *slash = strrchr(parent, '/');
    if (slash)
        slash[slash == parent] = '\0'; /* "/x" keeps "/" */
    else
        snprintf(parent, sizeof parent, ".");
    if (!realpath(parent, real_parent) || !realpath(dir, real_dir) || strcmp(real_parent, real_dir)) return FB_OK;
    return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                        "compare --interleave: --junit %s is inside the rounds' folder %s: write it elsewhere", junit,
                        dir);
}

static fb_status read_request(const fb_interleave_request *rq, interleave *il)
{
    fb_status status = FB_OK;
    il->bin[BASE] = rq->base_bin;
    il->bin[NEW] = rq->new_bin;
    il->suite = rq->suite;
    il->rounds = rq->rounds;
    if (il->rounds < 1) FB_FAIL(FB_ERR_USAGE, "--rounds: %d is not a count of rounds", il->rounds);
    FB_CHECK(check_binary(il->bin[BASE], "BASE_BIN"));
    FB_CHECK(check_binary(il->bin[NEW], "NEW_BIN"));
    FB_CHECK(content_hash(il->bin[BASE], il->hash[BASE], sizeof il->hash[BASE]));
    FB_CHECK(content_hash(il->bin[NEW], il->hash[NEW], sizeof il->hash[NEW]));
    FB_CHECK(check_suite(il->suite));
    resolve(il->bin[BASE], il->real[BASE]);
    resolve(il->bin[NEW], il->real[NEW]);
    resolve(il->suite, il->real[SIDES]);
    if (rq->dir)
        snprintf(il->dir, sizeof il->dir, "%s", rq->dir);
    else
        default_dir(il->suite, il->dir, sizeof il->dir);
    snprintf(il->state_path, sizeof il->state_path, "%s/interleave.json", il->dir);
    FB_CHECK(check_junit(rq->junit, il->dir));
fail:
    return status;
}

/* ---- the state on disk ---------------------------------------------------------- */

static fb_status save_state(const interleave *il)
{
    fb_status status = FB_OK;
    fb_file_writer w;
    FB_CHECK(fb_file_writer_open(il->state_path, &w));
    json_dumpf(il->state, w.f, JSON_INDENT(1));
    fputc('\n', w.f);
    status = fb_file_writer_close(&w, 1);
fail:
    return status;
}

/* The same binaries and suite as the rounds DIR holds, or a refusal: a
 * round of other builds would be judged as if it were one of these. */
static fb_status check_state(const interleave *il)
{
    fb_status status = FB_OK;
    const json_t *s = il->state;
    const char *base = json_string_value(json_object_get(s, "base")),
               *next = json_string_value(json_object_get(s, "new"));
    const char *suite = json_string_value(json_object_get(s, "suite"));
    if (json_integer_value(json_object_get(s, "flowbench_interleave")) != STATE_VERSION || !base || !next || !suite ||
        !json_is_array(json_object_get(s, "finished")))
        FB_FAIL(FB_ERR_INPUT, "%s: not the state of compare --interleave (version %d)", il->state_path, STATE_VERSION);
    if (strcmp(base, il->real[BASE]) || strcmp(next, il->real[NEW]) || strcmp(suite, il->real[SIDES]))
        FB_FAIL(FB_ERR_USAGE,
                "%s: holds rounds of %s against %s on %s, not of %s against %s on %s (use another --out, or remove "
                "%s)",
                il->state_path, base, next, suite, il->real[BASE], il->real[NEW], il->real[SIDES], il->dir);
    for (int side = 0; side < SIDES; ++side) {
        const char *was = json_string_value(json_object_get(s, side == BASE ? "base_hash" : "new_hash"));
        if (!was || strcmp(was, il->hash[side]))
            FB_FAIL(FB_ERR_USAGE,
                    "%s: %s was rebuilt since these rounds ran (content %s then, %s now): its rounds would be judged "
                    "as this build's (use another --out, or remove %s)",
                    il->state_path, il->real[side], was ? was : "not recorded", il->hash[side], il->dir);
    }
fail:
    return status;
}

static fb_status open_state(interleave *il)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    json_error_t err;
    FB_CHECK(fb_make_dirs(il->dir));
    FB_CHECK(fb_file_fopen_read_if_exists(il->state_path, "the interleave state", &f));
    if (!f) {
        il->state = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:[]}", "flowbench_interleave", STATE_VERSION, "base",
                              il->real[BASE], "new", il->real[NEW], "suite", il->real[SIDES], "base_hash",
                              il->hash[BASE], "new_hash", il->hash[NEW], "finished");
        if (!il->state) FB_FAIL(FB_ERR_NOMEM, "out of host memory starting %s", il->state_path);
        return save_state(il);
    }
    il->state = json_loadf(f, 0, &err);
    fclose(f);
    if (!il->state) FB_FAIL(FB_ERR_INPUT, "%s:%d: not JSON (%s)", il->state_path, err.line, err.text);
    FB_CHECK(check_state(il));
fail:
    return status;
}

static int finished(const interleave *il, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(il->state, "finished"), i, v)
    {
        if (json_is_string(v) && !strcmp(json_string_value(v), name)) return 1;
    }
    return 0;
}

static int rounds_finished(const interleave *il)
{
    char name[64];
    int r = 0;
    for (;; ++r) {
        snprintf(name, sizeof name, "r%d-base", r + 1);
        if (!finished(il, name)) return r;
        snprintf(name, sizeof name, "r%d-new", r + 1);
        if (!finished(il, name)) return r;
    }
}

/* ---- one side of a round ------------------------------------------------------- */

static void side_paths(const interleave *il, int round, int side, char *out, char *log, size_t len)
{
    snprintf(out, len, "%s/%s-r%d.jsonl", il->dir, side_file[side], round);
    snprintf(log, len, "%s/%s-r%d.log", il->dir, side_file[side], round);
}

static void on_child(int sig) { (void)sig; }

/* What wait_child changes and puts back. */
typedef struct held_signals {
    struct sigaction child;
    sigset_t mask;    /* the mask before */
    sigset_t waiting; /* the mask while suspended: SIGCHLD, SIGINT and SIGTERM let in */
} held_signals;

static void hold_signals(held_signals *h)
{
    struct sigaction sa;
    sigset_t hold;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child; /* the default disposition of SIGCHLD would not wake sigsuspend */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &h->child);
    sigemptyset(&hold);
    sigaddset(&hold, SIGCHLD);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigprocmask(SIG_BLOCK, &hold, &h->mask);
    h->waiting = h->mask;
    sigdelset(&h->waiting, SIGCHLD);
    sigdelset(&h->waiting, SIGINT);
    sigdelset(&h->waiting, SIGTERM);
}

static void release_signals(const held_signals *h)
{
    sigprocmask(SIG_SETMASK, &h->mask, NULL);
    sigaction(SIGCHLD, &h->child, NULL);
}

/* Waits for the child without polling (a process waking every few
 * milliseconds would itself be load on the sweep it waits for): SIGCHLD,
 * SIGINT and SIGTERM are held while it checks, and sigsuspend lets any of
 * them in. The first Ctrl-C or SIGTERM of this process is handed on to the
 * child's process group once, as SIGINT: the sweep then stops between
 * configurations with its records on disk (a second one would end it
 * inside one, which its --resume counts as a crash). A second signal to
 * this process ends it at once (interrupt.h); the sweep still stops
 * cleanly. */
static fb_status wait_child(pid_t pid, int *wstatus)
{
    fb_status status = FB_OK;
    held_signals h;
    int handed_on = 0;
    hold_signals(&h);
    for (;;) {
        if (fb_interrupted && !handed_on) {
            kill(-pid, SIGINT);
            handed_on = 1;
        }
        pid_t r = waitpid(pid, wstatus, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) {
            status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "waiting for a sweep: %s", strerror(errno));
            break;
        }
        if (r == 0) sigsuspend(&h.waiting);
    }
    release_signals(&h);
    return status;
}

/* The child in a process group of its own, so that a terminal's Ctrl-C
 * reaches this process alone, which hands it on once (wait_child); its
 * output, both streams, appended to log. */
static fb_status spawn_sweep(const char *bin, char *const argv[], const char *log, pid_t *pid)
{
    fb_status status = FB_OK;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dflt;
    int rc;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_APPEND, 0666);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGCHLD);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dflt);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(pid, bin, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) FB_FAIL(FB_ERR_USAGE, "%s: cannot run: %s", bin, strerror(rc));
fail:
    return status;
}

/* The last line of text the sweep wrote: usually its "flowbench: why". */
static void last_line(const char *path, char *buf, size_t len)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    snprintf(buf, len, "(it wrote nothing)");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) snprintf(buf, len, "%.*s", (int)(len - 1), line); /* a long line is cut */
    }
    fclose(f);
}

/* The CLI says only "interrupted": what is kept is said here. */
static fb_status interrupted_in(const interleave *il, int round, int side)
{
    fprintf(stderr,
            "interleave: interrupted in round %d (%s); %d finished round(s) are kept in %s: the same command "
            "continues\n",
            round, side_name[side], rounds_finished(il), il->dir);
    return fb_error_set(FB_ERR_INTERRUPTED, __FILE__, __LINE__, "interrupted");
}

/* What the sweep's end means: 0 (or 1, a configuration failed or gave a
 * wrong result, which its records say) finishes the side. */
static fb_status judge_exit(const interleave *il, int round, int side, int wstatus, const char *log)
{
    fb_status status = FB_OK;
    char last[600];
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (code == 0 || code == 1) return FB_OK;
    if (fb_interrupted || code == 130 || (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGINT))
        return interrupted_in(il, round, side);
    last_line(log, last, sizeof last);
    if (WIFSIGNALED(wstatus))
        FB_FAIL(FB_ERR_BACKEND, "%s sweep %s (round %d, %s) was killed by signal %d: %s (log: %s)", il->bin[side],
                il->suite, round, side_name[side], WTERMSIG(wstatus), last, log);
    FB_FAIL(code == 2 ? FB_ERR_INPUT : FB_ERR_BACKEND, "%s sweep %s (round %d, %s) exited %d: %s (log: %s)",
            il->bin[side], il->suite, round, side_name[side], code, last, log);
fail:
    return status;
}

/* A sweep that exited 0 or 1 wrote its results: one that did not (a
 * wrapper script that runs nothing, a binary that is not flowbench) is
 * not a finished side, or every later run would fail to open its file. */
static fb_status check_written(const interleave *il, int round, int side, const char *out, const char *log)
{
    struct stat st;
    if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) return FB_OK;
    return fb_error_set(FB_ERR_BACKEND, __FILE__, __LINE__,
                        "%s sweep %s (round %d, %s) exited without writing its results %s (log: %s)", il->bin[side],
                        il->suite, round, side_name[side], out, log);
}

/* Runs one side of a round unless the state says it finished; a side
 * that was cut short continues with --resume. */
static fb_status run_side(interleave *il, int round, int side)
{
    fb_status status = FB_OK;
    char out[PATH_MAX], log[PATH_MAX], name[64];
    pid_t pid;
    int wstatus = 0;
    snprintf(name, sizeof name, "r%d-%s", round, side_file[side]);
    if (finished(il, name)) return FB_OK;
    side_paths(il, round, side, out, log, sizeof out);
    char *argv[] = {(char *)il->bin[side], "sweep", (char *)il->suite, "--out", out, NULL, NULL};
    if (access(out, F_OK) == 0) argv[5] = "--resume"; /* a side cut short: what it recorded stays */
    if (fb_interrupted) return interrupted_in(il, round, side);
    FB_CHECK(spawn_sweep(il->bin[side], argv, log, &pid));
    FB_CHECK(wait_child(pid, &wstatus));
    FB_CHECK(judge_exit(il, round, side, wstatus, log));
    FB_CHECK(check_written(il, round, side, out, log));
    json_array_append_new(json_object_get(il->state, "finished"), json_string(name));
    FB_CHECK(save_state(il));
fail:
    return status;
}

/* ---- rounds ------------------------------------------------------------------- */

static int contended_records(const fb_results_set *set, int *total)
{
    int n = 0;
    *total = 0;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        *total += fb_record_usable(r);
        n += fb_record_usable(r) && (!strcmp(fb_json_str(r->json, "stats.quality"), "contended") ||
                                     json_is_true(fb_json_get(r->json, "environment.contended")));
    }
    return n;
}

static fb_status load_round(interleave *il, int round)
{
    fb_status status = FB_OK;
    char out[PATH_MAX], log[PATH_MAX];
    for (int side = 0; side < SIDES; ++side) {
        if (il->sets[side][round - 1]) continue;
        side_paths(il, round, side, out, log, sizeof out);
        FB_CHECK(fb_results_load(out, &il->sets[side][round - 1]));
    }
fail:
    return status;
}

static fb_status run_round(interleave *il, int round)
{
    fb_status status = FB_OK;
    int first = round % 2 ? BASE : NEW, nb, nn, cb, cn;
    double t0 = fb_now();
    fprintf(stderr, "interleave: round %d/%d: %s (%s) then %s (%s)\n", round, il->rounds, side_name[first],
            il->bin[first], side_name[!first], il->bin[!first]);
    FB_CHECK(run_side(il, round, first));
    FB_CHECK(run_side(il, round, !first));
    FB_CHECK(load_round(il, round));
    cb = contended_records(il->sets[BASE][round - 1], &nb);
    cn = contended_records(il->sets[NEW][round - 1], &nn);
    fprintf(stderr, "interleave: round %d/%d done in %.1f s: contended records BASE %d of %d, NEW %d of %d\n", round,
            il->rounds, fb_now() - t0, cb, nb, cn, nn);
fail:
    return status;
}

static fb_status run_rounds(interleave *il)
{
    fb_status status = FB_OK;
    int done = rounds_finished(il);
    if (done)
        fprintf(stderr, "interleave: %s holds %d finished round(s)%s\n", il->dir, done,
                done >= il->rounds ? "; judging them" : "; continuing");
    for (int r = 1; r <= il->rounds; ++r) {
        if (r <= done) {
            FB_CHECK(load_round(il, r));
            continue;
        }
        FB_CHECK(run_round(il, r));
    }
fail:
    return status;
}

static void interleave_free(interleave *il)
{
    for (int side = 0; side < SIDES; ++side) {
        for (int r = 0; il->sets[side] && r < il->rounds; ++r)
            fb_results_set_free(il->sets[side][r]);
        free(il->sets[side]);
    }
    json_decref(il->state);
}

fb_status fb_interleave_run(const fb_interleave_request *rq, const fb_compare_options *opt, fb_compare_summary *summary)
{
    fb_status status = FB_OK;
    interleave il;
    memset(&il, 0, sizeof il);
    memset(summary, 0, sizeof *summary);
    FB_CHECK(read_request(rq, &il));
    FB_ALLOC(il.sets[BASE], il.rounds, "the rounds' results");
    FB_ALLOC(il.sets[NEW], il.rounds, "the rounds' results");
    FB_CHECK(open_state(&il));
    FB_CHECK(run_rounds(&il));
    if (opt->markdown)
        printf("BASE `%s`, NEW `%s`, suite `%s`, %d rounds in `%s`\n\n", il.bin[BASE], il.bin[NEW], il.suite, il.rounds,
               il.dir);
    else
        printf("compare --interleave: BASE %s, NEW %s, suite %s, %d rounds in %s\n", il.bin[BASE], il.bin[NEW],
               il.suite, il.rounds, il.dir);
    FB_CHECK(fb_interleave_sets(il.sets[BASE], il.sets[NEW], il.rounds, opt, stdout, summary));
fail:
    interleave_free(&il);
    return status;
}
