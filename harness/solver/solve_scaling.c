/* solve_scaling.c - the scaling study of the solver (contracts in
 * solve_scaling.h). */
#include "solve_scaling.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../backends/target.h"
#include "../core/comm.h"
#include "../core/interrupt.h"
#include "../results/records/reader.h"
#include "../results/records/results.h"
#include "output.h"

#define MAX_COUNTS 16
#define MAX_WORDS 64

typedef struct study {
    int weak;
    int ranks[MAX_COUNTS], ncounts;
    char launcher[1024];
    char dir[PATH_MAX - 64]; /* temporary: each run's results and output */
    const fb_solve_case *c;
    const char *backend;
    int base_n; /* weak: nodes per side at the first count */
} study;

static fb_status read_counts(const char *text, study *s)
{
    fb_status status = FB_OK;
    const char *p = text;
    s->ncounts = 0;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || v < 1 || v > 100000)
            FB_FAIL(FB_ERR_USAGE, "--ranks: '%s' is not a list of rank counts (1 .. 100000) like 1,2,4", text);
        if (s->ncounts == MAX_COUNTS) FB_FAIL(FB_ERR_USAGE, "--ranks: at most %d counts", MAX_COUNTS);
        if (s->ncounts && v <= s->ranks[s->ncounts - 1])
            FB_FAIL(FB_ERR_USAGE, "--ranks: '%s': give the counts increasing", text);
        s->ranks[s->ncounts++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (s->ncounts < 2) FB_FAIL(FB_ERR_USAGE, "--ranks: '%s': a scaling study needs at least two counts", text);
fail:
    return status;
}

static fb_status read_study(const fb_scaling_request *rq, const fb_solve_case *c, const char *backend, study *s)
{
    fb_status status = FB_OK;
    const char *mode = rq->mode;
    const char *env = getenv("FLOWBENCH_LAUNCHER");
    memset(s, 0, sizeof *s);
    if (fb_comm_size() > 1)
        FB_FAIL(FB_ERR_USAGE, "solve --scaling: run it without mpirun/srun: it starts the ranks itself (--launcher)");
    if (rq->refused)
        FB_FAIL(FB_ERR_USAGE, "solve --scaling: --%s belongs to a single run, not a scaling study", rq->refused);
    if (strcmp(mode, "strong") != 0 && strcmp(mode, "weak") != 0)
        FB_FAIL(FB_ERR_USAGE, "--scaling: '%s' is not strong or weak", mode);
    s->weak = strcmp(mode, "weak") == 0;
    s->c = c, s->backend = backend;
    FB_CHECK(read_counts(rq->ranks ? rq->ranks : "1,2,4", s));
    snprintf(s->launcher, sizeof s->launcher, "%s", rq->launcher ? rq->launcher : env && *env ? env : "mpirun -np {P}");
    if (!strstr(s->launcher, "{P}"))
        FB_FAIL(FB_ERR_USAGE, "--launcher: '%s' has no {P} where the rank count goes (like 'mpirun -np {P}')",
                s->launcher);
    if (s->weak && c->ops->mesh_file)
        FB_FAIL(FB_ERR_USAGE, "solve %s --scaling weak: the mesh is a file and cannot grow with the ranks", c->name);
    s->base_n = (int)lround(cbrt((double)c->mesh.nnodes));
fail:
    return status;
}

/* Nodes per side at count k: the first count's, grown so that nodes per
 * rank stay near constant. */
static int weak_n(const study *s, int k) { return (int)lround(s->base_n * cbrt((double)s->ranks[k] / s->ranks[0])); }

/* A command line built word by word into one buffer. */
typedef struct words {
    char buf[8192];
    size_t used;
    char *argv[MAX_WORDS];
    int argc;
} words;

static void put(words *w, const char *text)
{
    int n = snprintf(w->buf + w->used, sizeof w->buf - w->used, "%s", text);
    if (n < 0 || (size_t)n >= sizeof w->buf - w->used || w->argc == MAX_WORDS - 1) return;
    w->argv[w->argc++] = w->buf + w->used;
    w->argv[w->argc] = NULL;
    w->used += (size_t)n + 1;
}

/* The run's command: launcher words, this binary, solve CASE and the
 * options of a single run that the study passes on. */
static void child_command(const fb_scaling_request *rq, const study *s, int k, words *w)
{
    char self[PATH_MAX] = "flowbench", word[PATH_MAX + 32], launcher[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = '\0';
    memset(w, 0, sizeof *w);
    snprintf(launcher, sizeof launcher, "%s", s->launcher);
    for (char *tok = strtok(launcher, " "); tok; tok = strtok(NULL, " ")) {
        snprintf(word, sizeof word, "%d", s->ranks[k]);
        put(w, strcmp(tok, "{P}") == 0 ? word : tok);
    }
    const char *fixed[] = {self, "solve", s->c->name, "--backend", s->backend, "--quiet"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; ++i)
        put(w, fixed[i]);
    for (int i = 0; i < rq->npassed; ++i) {
        if (s->weak && strcmp(rq->passed[i][0], "level") == 0) continue;
        snprintf(word, sizeof word, "--%s", rq->passed[i][0]);
        put(w, word);
        put(w, rq->passed[i][1]);
    }
    if (rq->no_stream) put(w, "--no-stream");
    if (s->weak || rq->cube_given) {
        snprintf(word, sizeof word, "%d", s->weak ? weak_n(s, k) : s->c->cube_n);
        put(w, "--cube");
        put(w, word);
    }
    snprintf(word, sizeof word, "%s/run-%d.jsonl", s->dir, k);
    put(w, "--out");
    put(w, word);
}

/* Runs argv with stdout into OUT (the run's table), stderr shown. */
static fb_status run_child(char **argv, const char *out, int *exit_code)
{
    fb_status status = FB_OK;
    int wstatus = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) FB_FAIL(FB_ERR_IO, "solve --scaling: cannot start %s (%s)", argv[0], strerror(errno));
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "flowbench: solve --scaling: cannot run '%s' (%s)\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR) FB_FAIL(FB_ERR_IO, "solve --scaling: lost %s (%s)", argv[0], strerror(errno));
    *exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
fail:
    return status;
}

/* The run's record: the last measurement of its results file (read by
 * the results reader, as plot and compare read it). */
static fb_status read_record(const char *path, json_t **rec)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    *rec = NULL;
    FB_CHECK(fb_results_load(path, &set));
    if (set->nrecords == 0) FB_FAIL(FB_ERR_CHECK, "solve --scaling: %s holds no record of the run", path);
    *rec = json_incref(set->records[set->nrecords - 1].json);
fail:
    fb_results_set_free(set);
    return status;
}

/* The run's "scaling" part against the first count's step time t1. */
static void add_scaling(const study *s, int k, json_t *rec, double t1)
{
    const double t = fb_json_num(rec, "stats.median_s"), p = (double)s->ranks[k] / s->ranks[0];
    const double eff = s->weak ? t1 / t : t1 / t / p;
    json_object_set_new(rec, "scaling",
                        json_pack("{s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:s}", "mode", s->weak ? "weak" : "strong",
                                  "ranks", s->ranks[k], "base_ranks", s->ranks[0], "base_step_s", t1, "step_s", t,
                                  "speedup", s->weak ? eff * p : t1 / t, "efficiency", eff, "launcher", s->launcher));
}

static void print_head(const study *s)
{
    printf("scaling %s: solve %s on %s, launcher '%s'\n", s->weak ? "weak" : "strong", s->c->name, s->backend,
           s->launcher);
    printf("  %6s %9s %13s %8s %10s %7s %7s %8s\n", "ranks", "nodes", "ms per step", "speedup", "efficiency", "halo %",
           "reduce %", "CG its");
}

static void print_row(const json_t *rec)
{
    const double t = fb_json_num(rec, "scaling.step_s");
    printf("  %6d %9.0f %13.3f %8.2f %9.1f%% ", (int)fb_json_num(rec, "scaling.ranks"), fb_json_num(rec, "mesh.nodes"),
           1e3 * t, fb_json_num(rec, "scaling.speedup"), 100 * fb_json_num(rec, "scaling.efficiency"));
    if (json_object_get(rec, "mpi"))
        printf("%6.1f%% %6.1f%% ", 100 * fb_json_num(rec, "mpi.halo_s.median") / t,
               100 * fb_json_num(rec, "mpi.allreduce_s.median") / t);
    else
        printf("%7s %7s ", "-", "-");
    printf("%8.1f\n", fb_json_num(rec, "cg.its_mean"));
}

/* One count: its run, its record with the scaling part, its row. */
static fb_status run_count(const fb_scaling_request *rq, study *s, int k, double *t1, fb_results *out)
{
    fb_status status = FB_OK;
    char table[PATH_MAX + 32], path[PATH_MAX + 32];
    static words cmd;
    json_t *rec = NULL;
    int code = 0;
    child_command(rq, s, k, &cmd);
    snprintf(table, sizeof table, "%s/run-%d.txt", s->dir, k);
    snprintf(path, sizeof path, "%s/run-%d.jsonl", s->dir, k);
    FB_CHECK(run_child(cmd.argv, table, &code));
    if (code == 130 || fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted at %d ranks", s->ranks[k]);
    if (code != 0)
        FB_FAIL(FB_ERR_CHECK, "solve --scaling: the run on %d ranks failed (exit %d; its message is above)",
                s->ranks[k], code);
    FB_CHECK(read_record(path, &rec));
    if (k == 0) *t1 = fb_json_num(rec, "stats.median_s");
    add_scaling(s, k, rec, *t1);
    print_row(rec);
    fflush(stdout);
    if (out) FB_CHECK(fb_results_append(out, rec));
fail:
    json_decref(rec);
    unlink(table);
    unlink(path);
    return status;
}

fb_status fb_solve_scaling_run(const fb_scaling_request *rq, const fb_solve_case *c, const char *backend)
{
    fb_status status = FB_OK;
    study s;
    fb_results *out = NULL;
    fb_target *host = NULL;
    double t1 = 0;
    FB_CHECK(read_study(rq, c, backend, &s));
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/flowbench-scaling-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s.dir)) FB_FAIL(FB_ERR_IO, "solve --scaling: cannot make a directory %s (%s)", s.dir, strerror(errno));
    if (rq->out) {
        FB_CHECK(fb_target_open("openmp", &host));
        FB_CHECK(fb_results_open(rq->out, "solve", fb_target_info(host), 1, &out));
    }
    print_head(&s);
    for (int k = 0; k < s.ncounts; ++k)
        FB_CHECK(run_count(rq, &s, k, &t1, out));
fail:
    if (s.dir[0]) rmdir(s.dir);
    fb_results_close(out);
    fb_target_close(host);
    return status;
}
