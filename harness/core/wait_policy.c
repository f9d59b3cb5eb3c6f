/* wait_policy.c - the OpenMP wait policy decided at start (contention.h):
 * passive waiting when other work is runnable. Apart from environment.c,
 * which reports the decision, because it reads the machine's run queue
 * (contention.c) and contention.c reads the calibration there. */
#include "contention.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Under a launcher MPI sets up the process before main: re-executing
 * would leave its bookkeeping behind, so the policy is left as it is. */
static int under_mpi_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_RANK") || getenv("PMIX_RANK") || getenv("SLURM_PROCID");
}

#define START_POLLS 8
#define START_POLL_US 4000

/* Other runnable work at start, beyond the spare CPUs, in most of
 * START_POLLS polls START_POLL_US apart (about 30 ms): one poll can miss a
 * job between its time slices, and a process that is only starting (the
 * reader of a pipe) should not decide. Stops as soon as the majority is
 * out of reach (about 12 ms on a quiet machine). Returns the most others
 * seen when they were the majority, else 0. */
static int others_at_start(int spare)
{
    int busy = 0, most = 0;
    for (int i = 0; i < START_POLLS; ++i) {
        int n = fb_other_runnable();
        if (n > spare) busy++, most = n > most ? n : most;
        if (2 * busy > START_POLLS) return most;
        if (2 * (busy + START_POLLS - 1 - i) <= START_POLLS) return 0;
        usleep(START_POLL_US);
    }
    return 0;
}

void fb_wait_policy_decide(char **argv)
{
    char why[200];
    if (getenv(FB_WAIT_POLICY_DECISION_VAR) || getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    const int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), threads = omp_get_max_threads();
    const int spare = cpus > threads ? cpus - threads : 0, others = others_at_start(spare);
    if (others == 0) return;
    if (under_mpi_launcher()) {
        snprintf(why, sizeof why, "not re-executed under an MPI launcher, though %d other runnable tasks were seen",
                 others);
        setenv(FB_WAIT_POLICY_DECISION_VAR, why, 1);
        return;
    }
    snprintf(why, sizeof why,
             "passive: %d other runnable task%s at start on %d CPUs, %d OpenMP threads (spinning threads would "
             "fight them for the CPUs)",
             others, others == 1 ? "" : "s", cpus, threads);
    setenv(FB_WAIT_POLICY_DECISION_VAR, why, 1);
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
    /* exec failed: keep running with the runtime's policy, and say so */
    snprintf(why, sizeof why, "could not re-execute with passive waiting; %d other runnable tasks at start", others);
    setenv(FB_WAIT_POLICY_DECISION_VAR, why, 1);
    unsetenv("OMP_WAIT_POLICY");
}
