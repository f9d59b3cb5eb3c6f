/* compare_files.c - two results files compared as `compare` does it
 * (compare_files.h). */
#include "compare_files.h"

#include "noise.h"
#include "../../core/interrupt.h"

/* A machine mismatch stops the comparison unless any_machine says go on. */
static fb_status check_machines(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt,
                                FILE *out)
{
    fb_status status = fb_compare_machines(base, next, out);
    if (status == FB_OK || !opt->any_machine) return status;
    fprintf(out, "warning: %s; comparing anyway (--any-machine)\n", fb_error_message());
    return FB_OK;
}

/* The machine's learned floors into opt->noise, unless no_noise. */
static fb_status load_noise(const fb_compare_files_request *rq, fb_compare_options *opt, const char *path,
                            const char *machine, FILE *out)
{
    fb_status status = FB_OK;
    if (rq->no_noise) {
        if (rq->learn) FB_FAIL(FB_ERR_USAGE, "--no-noise and --learn-noise exclude each other");
        fprintf(out, "noise: the stored A/A floor is ignored (--no-noise)\n");
        return FB_OK;
    }
    FB_CHECK(fb_noise_use(path, machine, opt, out));
fail:
    return status;
}

fb_status fb_compare_files(const fb_compare_files_request *rq, fb_compare_options *opt, FILE *out,
                           fb_compare_summary *summary)
{
    fb_status status = FB_OK;
    fb_results_set *base = NULL, *next = NULL;
    char noise_path[1024], machine[2048];
    if (rq->learn && opt->any_machine)
        FB_FAIL(FB_ERR_USAGE, "--learn-noise: A/A noise is of one machine; no --any-machine");
    FB_CHECK(fb_results_load(rq->base, &base));
    FB_CHECK(fb_results_load(rq->next, &next));
    FB_CHECK(check_machines(base, next, opt, out));
    fb_noise_path(rq->noise_file, noise_path, sizeof noise_path);
    fb_noise_machine(next, machine, sizeof machine);
    FB_CHECK(load_noise(rq, opt, noise_path, machine, out));
    if (rq->learn) opt->learned = json_object();
    FB_CHECK(fb_interrupt_at_once_begin()); /* compare.c polls no signal: one ends the comparison at once */
    status = fb_compare_sets(base, next, opt, out, summary);
    fb_interrupt_at_once_end();
    FB_CHECK(status);
    if (rq->learn) FB_CHECK(fb_noise_learn_compared(noise_path, machine, opt, summary, out));
fail:
    fb_results_set_free(base);
    fb_results_set_free(next);
    return status;
}
