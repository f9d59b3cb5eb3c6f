/* contention.h - what else the machine did while a measurement ran, and
 * whether its samples can be trusted (docs/measurement.md, "On a shared
 * machine").
 *
 * A measurement opens a window (fb_contention_begin), polls it between
 * samples (fb_contention_poll, at most once per FB_CONTENTION_POLL_S) and
 * closes it (fb_contention_end). The window reads the run-queue wait of
 * this process's threads (/proc/self/task/STAR/schedstat: the time they
 * were ready to run while another task held their CPU), the VM steal time
 * (/proc/stat) and the 1-minute load before and after; each poll counts
 * the machine's runnable tasks (/proc/loadavg) less this process's own
 * running threads (/proc/self/task/STAR/stat): the other work. Run-queue
 * wait is the direct signal: a count of runnable tasks also sees a kernel
 * thread that ran for a microsecond on an idle CPU (this VM's kdamond
 * does), the wait only sees work that took this run's CPUs.
 * $FLOWBENCH_PROC_ROOT replaces /proc (the tests' planted machines).
 *
 * The rule (fb_contention_judge): a window is contended when
 *   - its threads waited for a CPU more than FB_CONTENTION_WAIT_BUSY of the
 *     window (per CPU this run uses), over a window of at least
 *     FB_CONTENTION_MIN_WINDOW_S (fb_measure samples until it has one
 *     before it calls a measurement converged), while most polls saw more
 *     other runnable tasks than the CPUs this run leaves free. Both are
 *     needed: one preemption by a kernel thread is a long wait in a 2 ms
 *     window but no competitor; a process's own threads wait for each
 *     other (PoCL's host thread beside its workers: 18-29% quiet) with a
 *     kernel thread seen at one poll; passive threads beside one busy
 *     process waited only 6-10%, yet their medians moved 18% between two
 *     such runs (quiet: 0-0.5% for OpenMP). Where schedstat is missing,
 *     more than half of at least two polls seeing such tasks is enough; or
 *   - steal took more than FB_CONTENTION_STEAL of the CPU time over a
 *     window of at least FB_CONTENTION_STEAL_TICKS clock ticks; or
 *   - on an NVIDIA GPU, NVML saw another process with a compute context
 *     on it during the window (gpu_others, from the energy meter's reads:
 *     energy.h).
 *
 * Samples are unstable (fb_samples_judge) when their interquartile range
 * is over FB_UNSTABLE_IQR of the median, or they fall in two modes: a gap
 * of at least FB_UNSTABLE_GAP x between consecutive sorted samples with at
 * least FB_UNSTABLE_MODE_SHARE of them (and two) on each side. One slow
 * sample (a preemption) moves neither.
 */
#ifndef FB_CONTENTION_H
#define FB_CONTENTION_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define FB_CONTENTION_POLL_S 0.01
#define FB_CONTENTION_WAIT_BUSY 0.02
#define FB_CONTENTION_MIN_WINDOW_S 0.002
#define FB_CONTENTION_STEAL 0.05
#define FB_CONTENTION_STEAL_TICKS 50
#define FB_UNSTABLE_IQR 0.20
#define FB_UNSTABLE_GAP 1.5
#define FB_UNSTABLE_MODE_SHARE 0.2
#define FB_SELF_WAIT 0.50

typedef enum fb_quality {
    FB_QUALITY_STABLE,    /* tight samples of one mode on a machine that was not contended */
    FB_QUALITY_UNSTABLE,  /* samples spread or in two modes */
    FB_QUALITY_CONTENDED, /* other work competed for this run's CPUs (or the VM's host did) */
} fb_quality;

typedef struct fb_contention {
    int on;                /* 0: no window was opened (not recorded) */
    int cpus;              /* online CPUs */
    int cpu_threads;       /* CPUs the measured work keeps busy (OpenMP threads; 1 for a GPU's host thread) */
    int polls, busy_polls; /* busy: more other runnable tasks than free CPUs */
    int others_first, others_last, others_max;
    double others_sum;
    double load_first, load_last; /* 1-minute load average, -1 unknown */
    int steal_known;
    unsigned long long steal0, total0, steal_ticks, total_ticks;
    int gpu_others; /* other processes with a compute context on the measured GPU (NVML), -1 unknown */
    int wait_known;
    unsigned long long wait0_ns, wait_ns; /* run-queue wait at the start, and since */
    double start, wall_s, last_poll;
} fb_contention;

/* cpu_threads <= 0 means every CPU. */
void fb_contention_begin(fb_contention *w, int cpu_threads);
void fb_contention_poll(fb_contention *w);     /* rate-limited */
void fb_contention_poll_now(fb_contention *w); /* not rate-limited */
void fb_contention_end(fb_contention *w);

/* The run-queue wait over the window per CPU used, -1 where unknown. */
double fb_contention_wait_fraction(const fb_contention *w);

/* 0 while the window is too short for the wait rule to speak. */
int fb_contention_judgeable(const fb_contention *w);

/* The run's own threads waited for a CPU more than FB_SELF_WAIT of the
 * window (more than half: "most of the time") while no competitor was
 * runnable at most polls: a runtime with more threads than CPUs (PoCL's
 * pool beside its host thread, unpinned: 45-52% in the slow mode of a
 * bimodal run). Not contention (nothing else ran), but a run whose speed
 * depends on where the scheduler put its threads: its samples count as
 * unstable, with why and what helps. The fast mode of small kernels waits
 * up to 45% too (csr-vector on gen:cube:20, 37 us a launch, pinned: the
 * host thread beside the workers), so the rule only catches the clearest
 * cases: pinning (backends/opencl.c) is what removes the mode, and
 * --processes N is what sees one that remains. */
int fb_contention_self_wait(const fb_contention *w, char *why, size_t len);

/* Whether any signal of other work on the CPUs was read (the run queue or
 * this process's waits): without one, a record says contention "not
 * measured" (contended null), never quiet. */
int fb_contention_measured(const fb_contention *w);

/* 1 when contended, with the reason ("2 other runnable tasks on 2 CPUs, 2
 * used by this run"); 0 otherwise (why gets ""). */
int fb_contention_judge(const fb_contention *w, char *why, size_t len);

/* Other runnable tasks right now (the machine's runnable less this
 * process's running threads), -1 where /proc cannot say. */
int fb_other_runnable(void);

/* The spread figures of n samples: CV, quartiles; 1 when they are
 * unstable, with the reason in why. */
typedef struct fb_spread {
    double cv, q1, q3, min, median;
    int two_modes, low_count; /* low_count samples below the gap */
    double low_mode, high_mode;
} fb_spread;
int fb_samples_judge(const double *samples, int n, fb_spread *out, char *why, size_t len);

/* The medians of one configuration measured in n fresh processes
 * (core/fresh.h): 1 when they fall in two modes, sorted neighbours
 * FB_UNSTABLE_GAP apart or more (one process in a mode is enough: what a
 * process decides once, where its threads run, is the same for all its
 * samples), with the reason in why. */
int fb_processes_judge(const double *medians, int n, char *why, size_t len);

/* The measurement's quality from its samples and its window, with the text
 * every output prints after "unstable: " or "contended: " (the samples'
 * CV, min and median, then the contention's reason). */
fb_quality fb_quality_judge(const double *samples, int n, const fb_contention *w, char *why, size_t len);
const char *fb_quality_name(fb_quality q);

/* The record's "environment" object: the window's signals and verdict,
 * and the process's facts (fb_process_environment). NULL if w->on == 0. */
json_t *fb_environment_json(const fb_contention *w);

/* The facts of this process, read once: OpenMP settings (every OMP_ and
 * GOMP_ variable, threads, binding, places, the wait policy and who chose
 * it), the CPU governor, and the calibration (the median latency of an
 * empty OpenMP parallel region). A new reference each call. */
json_t *fb_process_environment(void);

/* Measures the empty parallel region once per process (at the first
 * window, before the first samples); later calls do nothing. */
void fb_calibrate_once(void);

/* Records a backend's empty-launch latency (seconds, median) for the
 * environment's calibration; the target measures it once per device. */
void fb_calibration_set_launch(const char *device_id, double seconds);

/* The OpenMP wait policy at start (main, before any parallel region): when
 * the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT and other work
 * competes (runnable in most polls of a look of up to 250 ms:
 * wait_policy.c), re-executes this program with OMP_WAIT_POLICY=passive
 * (libgomp reads its environment once, when it loads); the first
 * measurement says so (fb_wait_policy_say_once). Returns only when no
 * re-execution happened; the decision is recorded either way. */
void fb_wait_policy_decide(char **argv);

/* Passed from the process that decided to the one it re-executed, and to
 * the fresh processes it starts (core/fresh.h): why. A quiet machine's
 * decision starts with FB_WAIT_POLICY_QUIET. */
#define FB_WAIT_POLICY_DECISION_VAR "FLOWBENCH_WAIT_POLICY_DECISION"
#define FB_WAIT_POLICY_QUIET "default kept"

/* 1 when the decision at start saw competing work (passive waiting, or
 * an MPI launcher's process that could not switch to it). */
int fb_wait_policy_busy_at_start(void);

/* Says the decision on f once per process, where it changed something
 * (passive waiting chosen, or an MPI launcher's process that could not
 * switch): at the first measurement, so a usage error stays one line. */
void fb_wait_policy_say_once(FILE *f);

/* Why PoCL's workers are pinned or not (backends/opencl.c decides before
 * the first platform query; the environment reports it). */
#define FB_POCL_AFFINITY_DECISION_VAR "FLOWBENCH_POCL_AFFINITY_DECISION"

#endif
