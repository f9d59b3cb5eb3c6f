/* sweep_summary.c - a sweep run as the `sweep` command runs it
 * (sweep.h, fb_sweep_run_summarised). */
#include "sweep.h"

#include "../core/comm.h"
#include "../core/prefixed.h"

/* The counts, then where the results are, or the command that continues a
 * stopped sweep. */
static void print_summary(const fb_suite *s, const fb_sweep_options *o, const fb_sweep_summary *sum)
{
    char resume[4096], ranks[64] = "";
    fb_sweep_resume_command(s, o, resume, sizeof resume);
    if (sum->ranks > 1) snprintf(ranks, sizeof ranks, " on %d ranks", sum->ranks);
    fprintf(stderr,
            "sweep %s: %d configurations%s: %d ok, %d wrong result, %d failed, %d pruned, %d abandoned, %d timed out,"
            " %d peer library missing; %d recorded before; %d backend(s) unavailable; %.1f s\n",
            s->name, sum->total, ranks, sum->ok, sum->wrong, sum->failed, sum->pruned, sum->abandoned, sum->timeouts,
            sum->missing, sum->skipped, sum->unavailable, sum->seconds);
    if (sum->stopped)
        fprintf(stderr, "sweep %s: stopped with %d of %d recorded; continue with%s: %s\n", s->name,
                sum->skipped + sum->recorded, sum->total,
                sum->ranks > 1 ? " (under mpirun or srun, any number of ranks, or none)" : "", resume);
    else
        fprintf(stderr, "sweep %s: results in %s\n", s->name, o->out_path);
}

/* On several ranks each progress line says whose it is. */
static FILE *progress_stream(void)
{
    char prefix[320];
    FILE *f;
    if (fb_comm_size() <= 1) return stderr;
    snprintf(prefix, sizeof prefix, "[rank %d/%d %s] ", fb_comm_rank(), fb_comm_size(), fb_comm_host());
    f = fb_prefixed_stderr(prefix);
    return f ? f : stderr;
}

/* The sweep and its summary (rank 0's alone on several ranks); *quiet:
 * the error returned is one another rank said. */
static fb_status run_and_say(const fb_suite *suite, const fb_sweep_options *o, int *quiet)
{
    fb_status status = FB_OK;
    fb_sweep_summary sum;
    status = fb_sweep_run(suite, o, &sum);
    *quiet = sum.quiet;
    if (fb_comm_rank() == 0 && sum.total && (status == FB_OK || sum.recorded || sum.stopped))
        print_summary(suite, o, &sum);
    /* Pruned, abandoned, timed out and a missing peer library are what a
     * sweep expects to meet; a configuration that could not run or gave a
     * wrong answer is not. The counts are every rank's. */
    if (status == FB_OK && (sum.wrong || sum.failed)) {
        *quiet = fb_comm_rank() != 0;
        FB_FAIL(FB_ERR_CHECK, "sweep %s: %d configuration(s) failed to run and %d gave a wrong result (records in %s)",
                suite->name, sum.failed, sum.wrong, o->out_path);
    }
fail:
    return status;
}

fb_status fb_sweep_run_summarised(const fb_suite *suite, fb_sweep_options *o, int *quiet)
{
    o->progress = progress_stream();
    fb_status status = run_and_say(suite, o, quiet);
    if (o->progress != stderr) fclose(o->progress);
    o->progress = stderr;
    return status;
}
