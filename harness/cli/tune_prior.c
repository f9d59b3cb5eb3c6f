/* tune_prior.c - see tune_prior.h. */
#include "tune_prior.h"

#include <stdio.h>

#include "../tune/cache.h"
#include "../tune/prior.h"

static void prior_path(const fb_parsed *args, const char *cache_path, char *buf, size_t len)
{
    if (fb_cli_value(args, "prior"))
        snprintf(buf, len, "%s", fb_cli_value(args, "prior"));
    else
        fb_prior_path_beside(cache_path, buf, len);
}

int fb_tune_prior_fit(const fb_parsed *args)
{
    fb_status status = FB_OK;
    char cache[1024], path[1024];
    if (!fb_cli_flag(args, "fit-prior"))
        FB_FAIL(FB_ERR_USAGE, "tune: '%s' is an argument, but only --fit-prior takes files (SWEEP.jsonl...)",
                args->positional[0]);
    if (args->npositional == 0)
        FB_FAIL(FB_ERR_USAGE, "tune --fit-prior: name the recorded sweeps (tune --fit-prior SWEEP.jsonl... "
                              "[--prior FILE])");
    if (fb_cli_value(args, "matrix") || fb_cli_value(args, "kernel") || fb_cli_value(args, "replay"))
        FB_FAIL(FB_ERR_USAGE, "tune --fit-prior fits every kernel and matrix of the sweeps: it takes no --matrix, "
                              "--kernel or --replay");
    fb_cache_path(fb_cli_value(args, "cache"), cache, sizeof cache);
    prior_path(args, cache, path, sizeof path);
    FB_CHECK(fb_prior_fit_into(args->positional, args->npositional, path, stdout));
fail:
    return status == FB_OK ? 0 : fb_comm_report(status);
}

fb_status fb_tune_prior_start(const fb_parsed *args, const char *cache_path, fb_tune_request *rq, fb_tune_start *out)
{
    char path[1024];
    prior_path(args, cache_path, path, sizeof path);
    return fb_tune_start_choose(fb_cli_value(args, "start"), path, rq, out);
}
