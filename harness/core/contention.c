/* contention.c - the window of runnable-task polls and steal time around a
 * measurement, the rule that calls it contended, and the samples' spread
 * test (contention.h). Reading /proc never fails a measurement: where a
 * file cannot be read the signal is unknown and the record says so. */
#include "contention.h"

#include "measure.h"
#include "sysinfo.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "0.52 0.31 0.20 3/412 9071": the 1-minute load and the runnable count. */
static int read_loadavg(double *load1, int *runnable)
{
    FILE *f = fb_proc_open("loadavg");
    int total = 0, ok = 0;
    if (!f) return 0;
    ok = fscanf(f, "%lf %*f %*f %d/%d", load1, runnable, &total) == 3;
    fclose(f);
    return ok;
}

/* Threads of this process in state R (running or runnable). */
static int own_running(void)
{
    char dirpath[512], rel[512], line[512];
    snprintf(dirpath, sizeof dirpath, "%s/self/task", fb_proc_root());
    DIR *d = opendir(dirpath);
    int n = 0;
    if (!d) return 1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(rel, sizeof rel, "self/task/%.200s/stat", e->d_name);
        FILE *f = fb_proc_open(rel);
        if (!f) continue;
        /* "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ')' */
        if (fgets(line, sizeof line, f)) {
            const char *close = strrchr(line, ')');
            n += close && close[1] == ' ' && close[2] == 'R';
        }
        fclose(f);
    }
    closedir(d);
    return n > 0 ? n : 1; /* the reader itself runs */
}

/* This process's running threads are counted on both sides of the
 * machine's count: a spinning OpenMP worker that goes to sleep between the
 * two reads would otherwise count as someone else's work. */
int fb_other_runnable(void)
{
    double load1;
    int runnable, own = own_running();
    if (!read_loadavg(&load1, &runnable)) return -1;
    int after = own_running(), others = runnable - (after > own ? after : own);
    return others > 0 ? others : 0;
}

/* The "cpu" line of /proc/stat: steal is the eighth field. */
static int read_steal(unsigned long long *steal, unsigned long long *total)
{
    FILE *f = fb_proc_open("stat");
    unsigned long long v[10] = {0};
    int got = 0;
    if (!f) return 0;
    got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                 &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    if (got < 8) return 0;
    *steal = v[7];
    *total = 0;
    for (int i = 0; i < 8; ++i) /* guest time is already in user */
        *total += v[i];
    return 1;
}

/* The run-queue wait of every thread of this process, summed
 * (/proc/self/task/STAR/schedstat: "run_ns wait_ns slices"): time its
 * threads were ready to run while another task had their CPU. */
static int read_wait(unsigned long long *wait_ns)
{
    char dirpath[512], rel[512];
    snprintf(dirpath, sizeof dirpath, "%s/self/task", fb_proc_root());
    DIR *d = opendir(dirpath);
    int seen = 0;
    *wait_ns = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        unsigned long long run, wait;
        if (e->d_name[0] == '.') continue;
        snprintf(rel, sizeof rel, "self/task/%.200s/schedstat", e->d_name);
        FILE *f = fb_proc_open(rel);
        if (!f) continue;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) *wait_ns += wait, seen = 1;
        fclose(f);
    }
    closedir(d);
    return seen;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void fb_contention_poll_now(fb_contention *w)
{
    unsigned long long wait;
    int others = fb_other_runnable();
    w->last_poll = fb_now();
    w->wall_s = w->last_poll - w->start;
    if (w->wait_known && read_wait(&wait) && wait >= w->wait0_ns) w->wait_ns = wait - w->wait0_ns;
    if (others < 0) return;
    if (w->polls == 0) w->others_first = others;
    w->others_last = others;
    w->others_max = others > w->others_max ? others : w->others_max;
    w->others_sum += others;
    w->busy_polls += others > w->cpus - w->cpu_threads;
    w->polls++;
}

void fb_contention_poll(fb_contention *w)
{
    if (w->on && fb_now() - w->last_poll >= FB_CONTENTION_POLL_S) fb_contention_poll_now(w);
}

static int said_unmeasured;

/* A signal of other work on the CPUs was read: the run queue (loadavg) or
 * this process's threads' waits. Without either, "not contended" would be
 * a guess: a container that hides /proc looks quiet however busy it is. */
int fb_contention_measured(const fb_contention *w) { return w->polls > 0 || w->wait_known; }

void fb_contention_begin(fb_contention *w, int cpu_threads)
{
    int runnable;
    fb_calibrate_once();
    memset(w, 0, sizeof *w);
    w->on = 1;
    w->cpus = online_cpus();
    w->cpu_threads = cpu_threads > 0 && cpu_threads < w->cpus ? cpu_threads : w->cpus;
    w->load_first = w->load_last = -1;
    w->gpu_others = -1;
    if (!read_loadavg(&w->load_first, &runnable)) w->load_first = -1;
    w->steal_known = read_steal(&w->steal0, &w->total0);
    w->wait_known = read_wait(&w->wait0_ns);
    w->start = fb_now();
    fb_contention_poll_now(w);
    if (!fb_contention_measured(w) && !said_unmeasured) {
        said_unmeasured = 1;
        fprintf(stderr,
                "note: other work on the CPUs cannot be read (%s/loadavg, %s/self/task/*/schedstat): records "
                "say contention not measured\n",
                fb_proc_root(), fb_proc_root());
    }
}

void fb_contention_end(fb_contention *w)
{
    unsigned long long steal, total;
    int runnable;
    if (!w->on) return;
    fb_contention_poll_now(w);
    if (!read_loadavg(&w->load_last, &runnable)) w->load_last = -1;
    if (w->steal_known && read_steal(&steal, &total) && total >= w->total0) {
        w->steal_ticks = steal - w->steal0;
        w->total_ticks = total - w->total0;
    } else {
        w->steal_known = 0;
    }
}

static double steal_fraction(const fb_contention *w)
{
    return w->total_ticks > 0 ? (double)w->steal_ticks / (double)w->total_ticks : 0.0;
}

double fb_contention_wait_fraction(const fb_contention *w)
{
    return w->wait_known && w->wall_s > 0 ? 1e-9 * (double)w->wait_ns / (w->wall_s * w->cpu_threads) : -1;
}

int fb_contention_judgeable(const fb_contention *w)
{
    return !w->wait_known || w->wall_s >= FB_CONTENTION_MIN_WINDOW_S;
}

/* This run's CPUs: its threads waited for them while others ran (the
 * wait rule), or, without schedstat, others were runnable at most polls. */
static int cpus_contended(const fb_contention *w, char *why, size_t len)
{
    const int mostly = w->polls >= 2 && 2 * w->busy_polls > w->polls;
    const char *s_tasks = w->others_max == 1 ? "" : "s", *s_cpus = w->cpus == 1 ? "" : "s";
    if (w->wait_known && w->wall_s >= FB_CONTENTION_MIN_WINDOW_S) {
        const double waited = fb_contention_wait_fraction(w);
        if (!(waited > FB_CONTENTION_WAIT_BUSY && mostly)) return 0;
        snprintf(why, len,
                 "this run's threads waited for a CPU %.0f%% of the time, with up to %d other runnable task%s on %d "
                 "CPU%s, %d used by this run",
                 100 * waited, w->others_max, s_tasks, w->cpus, s_cpus, w->cpu_threads);
        return 1;
    }
    if (w->wait_known || !mostly) return 0;
    snprintf(why, len, "up to %d other runnable task%s on %d CPU%s, %d used by this run (%d of %d polls)",
             w->others_max, s_tasks, w->cpus, s_cpus, w->cpu_threads, w->busy_polls, w->polls);
    return 1;
}

int fb_contention_self_wait(const fb_contention *w, char *why, size_t len)
{
    const int mostly = w->polls >= 2 && 2 * w->busy_polls > w->polls;
    const double waited = fb_contention_wait_fraction(w);
    if (len) why[0] = '\0';
    if (!w->on || !w->wait_known || w->wall_s < FB_CONTENTION_MIN_WINDOW_S || mostly || !(waited > FB_SELF_WAIT))
        return 0;
    snprintf(why, len,
             "this run's own threads waited for a CPU %.0f%% of the time with no other work runnable: more runtime "
             "threads than CPUs (PoCL's workers beside its host thread: POCL_AFFINITY=1 pins them, "
             "POCL_MAX_PTHREAD_COUNT caps them; OpenMP: OMP_NUM_THREADS)",
             100 * waited);
    return 1;
}

int fb_contention_judge(const fb_contention *w, char *why, size_t len)
{
    if (len) why[0] = '\0';
    if (!w->on) return 0;
    if (cpus_contended(w, why, len)) return 1;
    if (w->gpu_others > 0) {
        snprintf(why, len, "%d other process%s with a compute context on the GPU (NVML)", w->gpu_others,
                 w->gpu_others == 1 ? "" : "es");
        return 1;
    }
    if (w->steal_known && w->total_ticks >= FB_CONTENTION_STEAL_TICKS && steal_fraction(w) > FB_CONTENTION_STEAL) {
        snprintf(why, len, "VM steal %.0f%% of the CPU time (the hypervisor ran other guests on these CPUs)",
                 100 * steal_fraction(w));
        return 1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the common "type 7"). */
static double quantile_sorted(const double *s, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return s[n - 1];
    return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

/* The widest ratio between neighbours with enough samples on each side. */
static void find_modes(const double *s, int n, fb_spread *out)
{
    int side = (int)ceil(FB_UNSTABLE_MODE_SHARE * n);
    double best = 0;
    side = side < 2 ? 2 : side;
    for (int i = side - 1; i + side < n; ++i) {
        double ratio = s[i] > 0 ? s[i + 1] / s[i] : 0;
        if (ratio >= FB_UNSTABLE_GAP && ratio > best) {
            best = ratio;
            out->two_modes = 1;
            out->low_count = i + 1;
        }
    }
    if (out->two_modes) {
        out->low_mode = quantile_sorted(s, out->low_count, 0.5);
        out->high_mode = quantile_sorted(s + out->low_count, n - out->low_count, 0.5);
    }
}

static void spread_of(const double *samples, int n, fb_spread *out)
{
    double *s = malloc((size_t)n * sizeof *s), sum = 0, ss = 0;
    memset(out, 0, sizeof *out);
    if (!s) return;
    memcpy(s, samples, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    for (int i = 0; i < n; ++i)
        sum += s[i];
    for (int i = 0; i < n; ++i)
        ss += (s[i] - sum / n) * (s[i] - sum / n);
    out->cv = n > 1 && sum > 0 ? sqrt(ss / (n - 1)) / (sum / n) : 0;
    out->min = s[0];
    out->median = quantile_sorted(s, n, 0.5);
    out->q1 = quantile_sorted(s, n, 0.25);
    out->q3 = quantile_sorted(s, n, 0.75);
    find_modes(s, n, out);
    free(s);
}

int fb_samples_judge(const double *samples, int n, fb_spread *out, char *why, size_t len)
{
    if (len) why[0] = '\0';
    memset(out, 0, sizeof *out);
    if (n < 1) return 0;
    spread_of(samples, n, out);
    if (n < 4 || !(out->median > 0)) return 0; /* too few to tell a spread from a mode */
    if (out->two_modes) {
        snprintf(why, len, "two modes, %d samples near %.3g ms and %d near %.3g ms", out->low_count,
                 out->low_mode * 1e3, n - out->low_count, out->high_mode * 1e3);
        return 1;
    }
    if ((out->q3 - out->q1) / out->median > FB_UNSTABLE_IQR) {
        snprintf(why, len, "interquartile range %.0f%% of the median", 100 * (out->q3 - out->q1) / out->median);
        return 1;
    }
    return 0;
}

int fb_processes_judge(const double *medians, int n, char *why, size_t len)
{
    double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s), best = 0;
    int split = 0;
    if (len) why[0] = '\0';
    if (!s || n < 2) {
        free(s);
        return 0;
    }
    memcpy(s, medians, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    for (int i = 0; i + 1 < n; ++i) {
        const double ratio = s[i] > 0 ? s[i + 1] / s[i] : 0;
        if (ratio >= FB_UNSTABLE_GAP && ratio > best) best = ratio, split = i + 1;
    }
    if (split)
        snprintf(why, len, "across %d processes, two modes: %d near %.3g ms and %d near %.3g ms", n, split,
                 quantile_sorted(s, split, 0.5) * 1e3, n - split, quantile_sorted(s + split, n - split, 0.5) * 1e3);
    free(s);
    return split > 0;
}

const char *fb_quality_name(fb_quality q)
{
    switch (q) {
    case FB_QUALITY_STABLE: return "stable";
    case FB_QUALITY_UNSTABLE: return "unstable";
    case FB_QUALITY_CONTENDED: return "contended";
    }
    return "unknown";
}

fb_quality fb_quality_judge(const double *samples, int n, const fb_contention *w, char *why, size_t len)
{
    char spread_why[320], busy_why[200];
    fb_spread sp;
    int unstable = fb_samples_judge(samples, n, &sp, spread_why, sizeof spread_why);
    if (!unstable) unstable = fb_contention_self_wait(w, spread_why, sizeof spread_why);
    const int contended = fb_contention_judge(w, busy_why, sizeof busy_why);
    if (len) why[0] = '\0';
    if (!unstable && !contended) return FB_QUALITY_STABLE;
    snprintf(why, len, "CV %.0f%%, min %.3g ms, median %.3g ms%s%s%s%s", 100 * sp.cv, sp.min * 1e3, sp.median * 1e3,
             unstable ? ", " : "", unstable ? spread_why : "", contended ? ": " : "", contended ? busy_why : "");
    return contended ? FB_QUALITY_CONTENDED : FB_QUALITY_UNSTABLE;
}

json_t *fb_environment_json(const fb_contention *w)
{
    char why[200];
    if (!w->on) return NULL;
    const int contended = fb_contention_judge(w, why, sizeof why);
    json_t *env = fb_process_environment();
    json_t *others = w->polls > 0 ? json_pack("{s:i, s:i, s:i, s:f, s:i, s:i}", "before", w->others_first, "after",
                                              w->others_last, "max", w->others_max, "mean", w->others_sum / w->polls,
                                              "polls", w->polls, "busy_polls", w->busy_polls)
                                  : json_null();
    json_object_set_new(env, "cpus", json_integer(w->cpus));
    json_object_set_new(env, "cpu_threads", json_integer(w->cpu_threads));
    json_object_set_new(env, "other_runnable", others);
    json_object_set_new(env, "load_before", w->load_first >= 0 ? json_real(w->load_first) : json_null());
    json_object_set_new(env, "load_after", w->load_last >= 0 ? json_real(w->load_last) : json_null());
    json_object_set_new(env, "run_queue_wait_fraction",
                        w->wait_known ? json_real(fb_contention_wait_fraction(w)) : json_null());
    json_object_set_new(env, "window_s", json_real(w->wall_s));
    json_object_set_new(env, "gpu_other_processes", w->gpu_others >= 0 ? json_integer(w->gpu_others) : json_null());
    json_object_set_new(env, "steal_fraction", w->steal_known ? json_real(steal_fraction(w)) : json_null());
    if (!contended && !fb_contention_measured(w)) {
        json_object_set_new(env, "contended", json_null());
        json_object_set_new(env, "contended_why",
                            json_string("not measured: no signal of other work could be read (the run queue and "
                                        "this process's waits, from /proc)"));
        return env;
    }
    json_object_set_new(env, "contended", json_boolean(contended));
    json_object_set_new(env, "contended_why", contended ? json_string(why) : json_null());
    return env;
}
