/* tune_prior.c - see tune_prior.h. */
#include "tune_prior.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tune/cache.h"
#include "../tune/prior.h"

static void prior_path(const fb_parsed *args, const char *cache_path, char *buf, size_t len)
{
    if (fb_cli_value(args, "prior"))
        snprintf(buf, len, "%s", fb_cli_value(args, "prior"));
    else
        fb_prior_path_beside(cache_path, buf, len);
}

/* ---- --fit-prior --------------------------------------------------------- */

static void print_fit(const json_t *prior, const char *path)
{
    const json_t *entries = json_object_get(prior, "entries"), *e;
    json_t *kernels = json_object(), *matrices = json_object();
    size_t i;
    json_array_foreach(entries, i, e)
    {
        json_object_set(kernels, json_string_value(json_object_get(e, "kernel")), json_true());
        json_object_set(matrices, json_string_value(json_object_get(e, "matrix_hash")), json_true());
    }
    printf("prior: %zu landscapes (%zu kernels, %zu matrices) from %zu sweep(s), written to %s\n",
           json_array_size(entries), json_object_size(kernels), json_object_size(matrices),
           json_array_size(json_object_get(prior, "fit_from")), path);
    json_decref(kernels);
    json_decref(matrices);
}

/* The prior is written over neither a sweep it is fitted to (core/files.h)
 * nor any file that is not a prior: said before the sweeps are read. */
static fb_status check_destination(const fb_parsed *args, const char *path)
{
    fb_status status = FB_OK;
    fb_named_file *sweeps = NULL, prior = {"--prior", path};
    FB_ALLOC(sweeps, args->npositional, "the sweeps' names");
    for (int i = 0; i < args->npositional; ++i)
        sweeps[i] = (fb_named_file){"SWEEP.jsonl", args->positional[i]};
    FB_CHECK(fb_files_check_distinct("tune --fit-prior", sweeps, args->npositional, &prior, 1));
    FB_CHECK(fb_prior_check_replaceable(path));
fail:
    free(sweeps);
    return status;
}

int fb_tune_prior_fit(const fb_parsed *args)
{
    fb_status status = FB_OK;
    json_t *prior = NULL;
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
    FB_CHECK(check_destination(args, path));
    FB_CHECK(fb_prior_fit(args->positional, args->npositional, &prior));
    FB_CHECK(fb_prior_save(prior, path));
    print_fit(prior, path);
fail:
    json_decref(prior);
    return status == FB_OK ? 0 : fb_comm_report(status);
}

fb_status fb_tune_prior_start(const fb_parsed *args, const char *cache_path, fb_tune_request *rq, fb_tune_start *out)
{
    char path[1024];
    prior_path(args, cache_path, path, sizeof path);
    return fb_tune_start_choose(fb_cli_value(args, "start"), path, rq, out);
}
