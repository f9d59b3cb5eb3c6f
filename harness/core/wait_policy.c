/* wait_policy.c - the OpenMP wait policy decided at start (contention.h):
 * passive waiting when other work competes for the CPUs. Apart from
 * environment.c, which reports the decision, because it reads the
 * machine's run queue (contention.c) and contention.c reads the
 * calibration there. */
#include "contention.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

/* Under a launcher MPI sets up the process before main: re-executing
 * would leave its bookkeeping behind, so the policy is left as it is. */
static int under_mpi_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_RANK") || getenv("PMIX_RANK") || getenv("SLURM_PROCID");
}

/* The look: a poll every START_POLL_US for up to START_POLLS polls (250
 * ms), competing work being what is there in START_BUSY_SHARE of them. A
 * first poll that sees nothing ends it at once (a busy process is always
 * runnable, so a quiet machine pays one read of /proc/loadavg); a passing
 * task (a compiler, a shell starting) ends it as soon as the share is out
 * of reach. The old look, 8 polls over 30 ms by majority, switched on
 * passive waiting for any task that ran 20 ms at start, and short kernels
 * then paid 15-40% (gen:cube:40 csr-scalar on PoCL's host: 0.25-0.28 ms
 * default, 0.30-0.36 passive) on a machine that was quiet a moment later. */
#define START_POLLS 25
#define START_POLL_US 10000
#define START_BUSY_SHARE 0.8

typedef struct start_look {
    int polls, busy, most;
    double seconds;
} start_look;

static void look_at_start(int spare, start_look *l)
{
    const int needed = (int)(START_BUSY_SHARE * START_POLLS + 0.5);
    const double t0 = fb_now();
    memset(l, 0, sizeof *l);
    for (int i = 0; i < START_POLLS; ++i) {
        int n = fb_other_runnable();
        l->polls++;
        if (n > spare) l->busy++, l->most = n > l->most ? n : l->most;
        if (l->busy == 0 || l->busy >= needed) break;
        if (l->busy + (START_POLLS - 1 - i) < needed) break; /* out of reach */
        usleep(START_POLL_US);
    }
    l->seconds = fb_now() - t0;
}

static void decided(const char *why) { setenv(FB_WAIT_POLICY_DECISION_VAR, why, 1); }

void fb_wait_policy_decide(char **argv)
{
    char why[300];
    start_look l;
    if (getenv(FB_WAIT_POLICY_DECISION_VAR) || getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    const int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), threads = omp_get_max_threads();
    const int spare = cpus > threads ? cpus - threads : 0;
    if (fb_other_runnable() < 0) { /* no run queue to read (/proc hidden): no look, no guess */
        decided(FB_WAIT_POLICY_QUIET ": not looked at: the run queue cannot be read (no /proc/loadavg), so the "
                                     "runtime's default (spinning) was kept");
        return;
    }
    look_at_start(spare, &l);
    if (l.busy < (int)(START_BUSY_SHARE * START_POLLS + 0.5)) {
        snprintf(why, sizeof why,
                 "%s: no competing work at start (other runnable tasks in %d of %d polls over %.0f ms), so the "
                 "runtime's default (spinning) was kept",
                 FB_WAIT_POLICY_QUIET, l.busy, l.polls, 1e3 * l.seconds);
        decided(why);
        return;
    }
    if (under_mpi_launcher()) {
        snprintf(why, sizeof why, "not re-executed under an MPI launcher, though %d other runnable tasks were seen",
                 l.most);
        decided(why);
        return;
    }
    snprintf(why, sizeof why,
             "passive: %d other runnable task%s in %d of %d polls over %.0f ms at start on %d CPUs, %d OpenMP "
             "threads (spinning threads would fight them for the CPUs; OMP_WAIT_POLICY chooses)",
             l.most, l.most == 1 ? "" : "s", l.busy, l.polls, 1e3 * l.seconds, cpus, threads);
    decided(why);
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
    /* exec failed: keep running with the runtime's policy, and say so */
    snprintf(why, sizeof why, "could not re-execute with passive waiting; %d other runnable tasks at start", l.most);
    decided(why);
    unsetenv("OMP_WAIT_POLICY");
}
