/* solve_plan.c - see solve_plan.h. */
#include "solve_plan.h"

#include <string.h>

#include "../solver/ns_device.h"
#include "../tune/cache.h"

/* The combinations of --param, --tune, --tuned and --cache that make no
 * sense, each refused in one line. */
static fb_status check_modes(const fb_parsed *args, const solve_opts *o, int nparams)
{
    fb_status status = FB_OK;
    int host = o->rq.compare, device = o->rq.compare;
    for (int i = 0; i < o->rq.nbackends; ++i) {
        int is_host = strncmp(o->rq.backends[i], "openmp", 6) == 0;
        host |= is_host, device |= !is_host;
    }
    if (fb_cli_value(args, "cache") && !o->rq.tune && !o->rq.tuned)
        FB_FAIL(FB_ERR_USAGE, "--cache is for --tune (written) and --tuned (read)");
    if (o->rq.tune && o->rq.tuned) FB_FAIL(FB_ERR_USAGE, "--tune and --tuned exclude each other");
    if (o->rq.tuned && nparams) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    if (nparams && !device)
        FB_FAIL(FB_ERR_USAGE, "--param is for the device backends (opencl, cuda); openmp runs the solver's kernels "
                              "at the OpenMP baseline's one point (docs/solver.md)");
    if ((o->rq.tuned || o->rq.tune) && host)
        FB_FAIL(FB_ERR_USAGE,
                "--%s is for the device backends (opencl, cuda): openmp runs the solver's kernels at the "
                "OpenMP baseline's one point (docs/solver.md)",
                o->rq.tune ? "tune" : "tuned");
fail:
    return status;
}

static fb_status check_sweep(const fb_parsed *args, const solve_opts *o, int nparams)
{
    fb_status status = FB_OK;
    const int npoints = fb_search_space_size(&o->rq.space);
    if (o->rq.compare || o->rq.nbackends != 1)
        FB_FAIL(FB_ERR_USAGE, "solve: a sweep (--param lists, --tune) runs on one --backend, opencl or cuda");
    if (fb_cli_value(args, "vtk") || fb_cli_value(args, "profiles"))
        FB_FAIL(FB_ERR_USAGE,
                "solve: --vtk and --profiles take one run, not a sweep (each point would overwrite them)");
    if (fb_cli_flag(args, "json"))
        FB_FAIL(FB_ERR_USAGE, "solve: --json prints one run's record; a sweep writes a record per point with --out");
    if (o->rq.tune && !nparams && npoints > MAX_TUNE_POINTS)
        FB_FAIL(FB_ERR_USAGE,
                "--tune: the solver's axes have %d points, more than %d solver runs: narrow them with "
                "--param NAME=V1,V2 (or tune --case ... --evals N caps the runs)",
                npoints, MAX_TUNE_POINTS);
fail:
    return status;
}

fb_status fb_solve_read_plan(const fb_parsed *args, solve_opts *o)
{
    fb_status status = FB_OK;
    const char *const *params;
    const int nparams = fb_cli_values(args, "param", &params);
    int lists = 0;
    for (int i = 0; i < nparams; ++i)
        lists |= strchr(params[i], ',') != NULL;
    o->rq.tune = fb_cli_flag(args, "tune"), o->rq.tuned = fb_cli_flag(args, "tuned");
    o->sweep = o->rq.tune || lists;
    if (fb_cli_value(args, "confirm") && !o->rq.tune)
        FB_FAIL(FB_ERR_USAGE, "--confirm: only --tune confirms its best point before storing it");
    fb_cache_path(fb_cli_value(args, "cache"), o->cache, sizeof o->cache);
    FB_CHECK(check_modes(args, o, nparams));
    if (o->rq.tune) FB_CHECK(fb_cache_check(o->cache)); /* stored into after the sweep: refused before it */
    FB_CHECK(fb_search_space_from_lists(params, nparams, fb_ns_axes, FB_NS_NAXES, o->rq.tune && !nparams, o->sweep,
                                        "the solver", LIST_HINT, &o->rq.space));
    o->rq.point = o->rq.space.start;
    if (o->sweep) FB_CHECK(check_sweep(args, o, nparams));
    if (o->sweep) o->rq.quiet = 1; /* the sweep prints a line per point instead */
fail:
    return status;
}
