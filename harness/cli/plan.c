/* plan.c - a command line's axes as a one-case suite, run by the sweep
 * (plan.h). Nothing here measures or checks: it builds the fb_suite a
 * suite file with the same contents would give, and reads the records
 * back for the closing table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "user_kernel_cli.h"
#include "families.h"
#include "../tune/cache.h"
#include "../tune/suite.h"
#include "../tune/plan.h"

/* An option this command does not declare (grid has no --counters) is one not given. */
static const char *optional_value(const fb_parsed *args, const char *name)
{
    return fb_cli_declares(args, name) ? fb_cli_value(args, name) : NULL;
}

int fb_cli_plan_wanted(const fb_parsed *args, const fb_cli_plan_kind *kind)
{
    const char *const *v;
    int n = fb_cli_values(args, "param", &v);
    /* A kernel file's --param lists declare its axes; with --tuned the
     * cache picks its one point, so they plan nothing. */
    int declaring = optional_value(args, "kernel-file") && fb_cli_declares(args, "tuned") && fb_cli_flag(args, "tuned");
    for (int i = 0; i < n && !declaring; ++i)
        if (strchr(v[i], ',')) return 1;
    if (fb_cli_flag(args, "dry-run")) return 1;
    if (fb_cli_values(args, "kernel", &v) == 1 && !strcmp(v[0], "all")) return 1;
    return fb_cli_flag(args, "zip") || fb_cli_values(args, kind->problem_option, &v) > 1 ||
           fb_cli_values(args, "kernel", &v) > 1;
}

/* ---- the suite ---- */

static fb_status copy_list(const char *const *from, int n, char ***to)
{
    fb_status status = FB_OK;
    FB_ALLOC(*to, n, "the plan's list");
    for (int i = 0; i < n; ++i)
        if (!((*to)[i] = strdup(from[i]))) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the plan");
fail:
    return status;
}

static fb_status read_kernels(const fb_parsed *args, const fb_cli_plan_kind *kind, fb_suite_case *c)
{
    fb_status status = FB_OK;
    const char *const *names;
    int n = fb_cli_values(args, "kernel", &names);
    const char *dflt = kind->default_kernel ? kind->default_kernel : c->family->kernel(0)->name;
    int nk = c->family->kernel_count();
    if (n == 1 && !strcmp(names[0], "all")) { /* as a suite's `kernels: all` */
        FB_ALLOC(c->kernels, nk, "the plan's kernels");
        for (int k = 0; k < nk; ++k)
            c->kernels[c->nkernels++] = k;
        return FB_OK;
    }
    FB_ALLOC(c->kernels, n ? n : 1, "the plan's kernels");
    for (int i = 0; i < (n ? n : 1); ++i) {
        const char *name = n ? names[i] : dflt;
        int k = fb_family_kernel_find(c->family, name);
        if (k < 0)
            FB_FAIL(FB_ERR_USAGE, "--kernel: %s has no kernel '%s' (see flowbench %s --list)", c->family->name, name,
                    kind->command);
        for (int j = 0; j < c->nkernels; ++j)
            if (c->kernels[j] == k) FB_FAIL(FB_ERR_USAGE, "--kernel: %s is given twice", name);
        c->kernels[c->nkernels++] = k;
    }
fail:
    return status;
}

/* One --param list into the case: a new axis, or the later list of one
 * given before. */
static fb_status read_axis(const char *text, const fb_cli_plan_kind *kind, fb_suite_case *c)
{
    fb_status status = FB_OK;
    fb_suite_axis a = {.zip_group = -1}, *into;
    FB_ALLOC(a.values, FB_PARAM_MAX_LIST, "the plan's values");
    FB_CHECK(fb_cli_param_list(text, a.name, sizeof a.name, a.values, &a.nvalues));
    if (!fb_suite_case_has_axis(c, a.name))
        FB_FAIL(FB_ERR_USAGE, "--param: no kernel of the plan has a parameter %s (see flowbench %s --list)", a.name,
                kind->command);
    into = fb_suite_case_axis(c, a.name);
    if (into) free(into->values);
    if (!into) into = &c->axes[c->naxes++];
    *into = a;
    a.values = NULL;
fail:
    free(a.values);
    return status;
}

/* --param lists as the case's axes: each names a parameter of one of the
 * kernels; a later --param of the same name replaces the earlier, as for
 * single values; --zip advances them all together. */
static fb_status read_axes(const fb_parsed *args, const fb_cli_plan_kind *kind, fb_suite_case *c)
{
    fb_status status = FB_OK;
    const char *const *texts;
    int n = fb_cli_values(args, "param", &texts);
    FB_ALLOC(c->axes, n ? n : 1, "the plan's axes");
    for (int i = 0; i < n; ++i)
        FB_CHECK(read_axis(texts[i], kind, c));
    if (!fb_cli_flag(args, "zip")) return FB_OK;
    if (c->naxes < 2) FB_FAIL(FB_ERR_USAGE, "--zip: needs at least two --param lists to advance together");
    for (int i = 0; i < c->naxes; ++i) {
        c->axes[i].zip_group = 0;
        if (c->axes[i].nvalues != c->axes[0].nvalues)
            FB_FAIL(FB_ERR_USAGE, "--zip: %s has %d values but %s has %d", c->axes[i].name, c->axes[i].nvalues,
                    c->axes[0].name, c->axes[0].nvalues);
    }
fail:
    return status;
}

static fb_status read_problems(const fb_parsed *args, const fb_cli_plan_kind *kind, fb_suite_case *c)
{
    fb_status status = FB_OK;
    const char *const *specs;
    int n = fb_cli_values(args, kind->problem_option, &specs);
    if (n < 1) FB_FAIL(FB_ERR_USAGE, "%s: --%s is required", kind->command, kind->problem_option);
    for (int i = 0; i < n; ++i) {
        if (c->family->problem_parse) FB_CHECK(c->family->problem_parse(specs[i]));
        for (int j = 0; j < i; ++j) /* the plan would count it twice and the sweep run it once */
            if (!strcmp(specs[i], specs[j]))
                FB_FAIL(FB_ERR_USAGE, "--%s: %s is given twice", kind->problem_option, specs[i]);
    }
    FB_CHECK(copy_list(specs, n, &c->matrices));
    c->nmatrices = n;
fail:
    return status;
}

static fb_status read_case(const fb_parsed *args, const fb_cli_plan_kind *kind, fb_suite_case *c)
{
    fb_status status = FB_OK;
    const char *backend = fb_cli_value(args, "backend") ? fb_cli_value(args, "backend") : "openmp";
    snprintf(c->name, sizeof c->name, "command-line");
    FB_CHECK(fb_cli_precision(args, &c->is_double[0]));
    c->nprecisions = 1;
    FB_CHECK(copy_list(&backend, 1, &c->backends));
    c->nbackends = 1;
    FB_CHECK(read_kernels(args, kind, c));
    FB_CHECK(read_axes(args, kind, c));
    FB_CHECK(read_problems(args, kind, c));
    /* Every point the user named is measured in full: no abandoning, no deadline. */
    FB_CHECK(fb_cli_measure(args, FB_CLI_BUDGET_S, FB_CLI_SPREAD_PCT, &c->measure.measure));
fail:
    return status;
}

static fb_status refuse_single_only(const fb_parsed *args, const fb_cli_plan_kind *kind)
{
    fb_status status = FB_OK;
    const char *given = fb_cli_first_given(args, kind->single_only);
    /* a plan takes the order in the source, where each matrix names its own */
    const char *instead =
        given && !strcmp(given, "reorder") ? "; name the order in the source instead: SRC:reorder=rcm" : "";
    if (given)
        FB_FAIL(FB_ERR_USAGE,
                "--%s: describes one configuration; this command line plans several (a list in --param, a "
                "repeated --%s or --kernel, --zip)%s",
                given, kind->problem_option, instead);
fail:
    return status;
}

static fb_status build_suite(const fb_parsed *args, const fb_cli_plan_kind *kind, const fb_family *family, fb_suite *s)
{
    fb_status status = FB_OK;
    size_t n = 0;
    FB_CHECK(refuse_single_only(args, kind));
    snprintf(s->path, sizeof s->path, "the command line");
    snprintf(s->name, sizeof s->name, "%s", kind->command);
    s->stream = !fb_cli_flag(args, "no-stream");
    FB_CHECK(fb_cli_stream_size(args, "stream-size", &n));
    s->stream_n = n;
    FB_ALLOC(s->cases, 1, "the plan");
    s->ncases = 1;
    s->cases[0].family = family;
    FB_CHECK(read_case(args, kind, &s->cases[0]));
fail:
    return status;
}

static fb_status open_tuned(const fb_parsed *args, fb_sweep_options *o, char *path, size_t len)
{
    fb_status status = FB_OK;
    const char *const *params;
    if (!fb_cli_declares(args, "tuned") || !fb_cli_flag(args, "tuned")) return FB_OK;
    if (fb_cli_values(args, "param", &params)) FB_FAIL(FB_ERR_USAGE, "--tuned and --param exclude each other");
    fb_cache_path(fb_cli_value(args, "cache"), path, len);
    FB_CHECK(fb_cache_load(path, &o->tuned));
    o->cache_path = path;
fail:
    return status;
}

static fb_status plan_family(const fb_parsed *args, const fb_cli_plan_kind *kind, const fb_family **family)
{
    fb_status status = FB_OK;
    *family = kind->family;
    if (*family) return FB_OK;
    const char *name = fb_cli_value(args, "family");
    if (!name) FB_FAIL(FB_ERR_USAGE, "%s: --family F is required", kind->command);
    *family = fb_family_find(name);
    if (!*family || !fb_family_sweepable(*family))
        FB_FAIL(FB_ERR_USAGE, "--family: '%s' cannot run a plan (see flowbench %s --list)", name, kind->command);
fail:
    return status;
}

int fb_cli_plan_run(const fb_parsed *args, const fb_cli_plan_kind *kind)
{
    fb_status status = FB_OK;
    fb_suite s;
    const fb_family *family = NULL;
    fb_sweep_options o = {.counters = optional_value(args, "counters"), .progress = stderr};
    char cache[1024];
    memset(&s, 0, sizeof s);
    FB_CHECK(plan_family(args, kind, &family));
    if (fb_cli_declares(args, "kernel-file"))
        FB_CHECK(fb_cli_user_kernel(args, family, 0, NULL)); /* it joins the family */
    FB_CHECK(build_suite(args, kind, family, &s));
    FB_CHECK(open_tuned(args, &o, cache, sizeof cache));
    status = fb_plan_run(&s, &o, fb_cli_value(args, "out"), fb_cli_flag(args, "dry-run"), family->problem_key);
fail:
    fb_cache_free(o.tuned);
    fb_suite_free(&s);
    return status == FB_OK ? 0 : fb_comm_report(status);
}
