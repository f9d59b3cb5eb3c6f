/* tune_case.c - see tune_case.h. */
#include "tune_case.h"

#include <string.h>

#include "../solver/ns_family_run.h"
#include "ns/ns_kernels.h"

/* tune's options that mean nothing to a solver point (a whole run of the
 * case, timed per step, in double), each refused with that reason. */
fb_status fb_tune_case_check_options(const fb_parsed *args)
{
    fb_status status = FB_OK;
    static const char *const measuring[] = {"min-samples", "max-samples", "spread", "budget", "abandon", NULL};
    static const char *const other[] = {"matrix", "grid", "precision", "replay", "seeds", NULL};
    const char *given, *backend = fb_cli_value(args, "backend");
    const char *kernel = fb_cli_value(args, "kernel");
    if (!fb_cli_value(args, "case"))
        FB_FAIL(FB_ERR_USAGE, "tune: the solver's kernels (ns) are tuned on a case: --case CASE [--level L | "
                              "--cube N] --kernel ns --backend opencl|cuda");
    if (!kernel || strcmp(kernel, "ns") != 0)
        FB_FAIL(FB_ERR_USAGE, "tune --case: give --kernel ns (the solver's kernels are tuned together, one point for "
                              "all of them; flowbench solve --list)");
    if ((given = fb_cli_first_given(args, measuring)))
        FB_FAIL(FB_ERR_USAGE, "--%s is not for --case: each solver point is a whole run, timed per step (--steps N)",
                given);
    if ((given = fb_cli_first_given(args, other)))
        FB_FAIL(FB_ERR_USAGE, "--%s is not for --case (the solver tunes in double on its case's mesh)", given);
    if (!backend || !strncmp(backend, "openmp", 6))
        FB_FAIL(FB_ERR_USAGE, "tune --case: give --backend opencl or cuda (on openmp the solver runs its kernels at "
                              "the OpenMP baseline's one point)");
fail:
    return status;
}

/* The solver's problem: the case (--case, --level, --cube, --steps,
 * --mesh) as the ns family's spec, and the points --param leaves (every
 * declared value of an axis it does not name). */
fb_status fb_tune_case_problem(const fb_parsed *args, char *spec, size_t len, fb_search_space *space)
{
    fb_status status = FB_OK;
    int level = -1, cube = 0, steps = 0;
    FB_CHECK(fb_cli_int(args, "level", -1, &level));
    FB_CHECK(fb_cli_int(args, "cube", 0, &cube));
    FB_CHECK(fb_cli_int(args, "steps", 0, &steps));
    if (fb_cli_value(args, "steps") && steps < 1) FB_FAIL(FB_ERR_USAGE, "--steps: must be at least 1");
    fb_ns_problem_spec(spec, len, fb_cli_value(args, "case"), level, cube, steps, fb_cli_value(args, "mesh"));
    const char *const *lists;
    const int nlists = fb_cli_values(args, "param", &lists);
    FB_CHECK(fb_search_space_from_lists(lists, nlists, fb_ns_axes, FB_NS_NAXES, 1, 1, "the solver",
                                        "flowbench solve --list", space));
fail:
    return status;
}

/* Each solver point is a whole run: a search of more than
 * FB_TUNE_CASE_MAX_RUNS runs is refused unless --evals caps it or --param
 * narrows the axes. */
fb_status fb_tune_case_check_runs(const fb_parsed *args, const fb_search_options *search, const fb_search_space *space)
{
    fb_status status = FB_OK;
    const int n = fb_search_space_size(space), quarter = n / 4 + (n % 4 != 0);
    if (search->budget > 0 || fb_cli_value(args, "param")) return FB_OK;
    if (search->strategy == FB_STRATEGY_EXHAUSTIVE && n > FB_TUNE_CASE_MAX_RUNS)
        FB_FAIL(FB_ERR_USAGE,
                "tune: the solver's axes have %d points, more than %d solver runs: narrow them with --param "
                "NAME=V1,V2 (or cap the runs with --evals N)",
                n, FB_TUNE_CASE_MAX_RUNS);
    if (search->strategy != FB_STRATEGY_EXHAUSTIVE && quarter > FB_TUNE_CASE_MAX_RUNS)
        FB_FAIL(FB_ERR_USAGE,
                "--strategy %s: a quarter of the solver's %d points is %d solver runs, more than %d: give --evals N "
                "or narrow the axes with --param NAME=V1,V2",
                fb_strategy_name(search->strategy), n, quarter, FB_TUNE_CASE_MAX_RUNS);
fail:
    return status;
}
