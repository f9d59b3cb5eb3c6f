/* plan.c - a one-case suite planned, run and shown (plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/records/reader.h"
#include "../results/presentation/record_text.h"

static void print_kernel_plan(const fb_suite_case *c, int k)
{
    const fb_family_kernel *fk = c->family->kernel(c->kernels[k]);
    int64_t points = fb_suite_point_count(c, c->kernels[k]);
    int shown = 0;
    printf("  %s:", fk->name);
    for (int p = 0; p < fk->nparams; ++p)
        for (int a = 0; a < c->naxes; ++a) {
            if (strcmp(c->axes[a].name, fk->params[p].name)) continue;
            printf("%s %s=", shown++ ? (c->axes[a].zip_group >= 0 ? " with" : " x") : "", c->axes[a].name);
            for (int v = 0; v < c->axes[a].nvalues; ++v)
                printf("%s%d", v ? "," : "", c->axes[a].values[v]);
        }
    printf("%s = %lld point%s\n", shown ? "" : " the default point", (long long)points, points == 1 ? "" : "s");
}

/* The kernel points of the plan's one case, all kernels together. */
static int64_t plan_points(const fb_suite_case *c)
{
    int64_t points = 0;
    for (int k = 0; k < c->nkernels; ++k)
        points += fb_suite_point_count(c, c->kernels[k]);
    return points;
}

static void print_plan(const fb_suite *s, const char *out)
{
    const fb_suite_case *c = &s->cases[0];
    int64_t points = plan_points(c);
    printf("plan: %lld configuration%s = %d problem%s x %lld kernel point%s, on %s, %s; records in %s\n",
           (long long)(points * c->nmatrices), points * c->nmatrices == 1 ? "" : "s", c->nmatrices,
           c->nmatrices == 1 ? "" : "s", (long long)points, points == 1 ? "" : "s", c->backends[0],
           c->is_double[0] ? "double" : "single", out ? out : "a temporary file (--out FILE keeps them)");
    for (int k = 0; k < c->nkernels; ++k)
        print_kernel_plan(c, k);
    fflush(stdout);
}

/* This run's records: those after the file's last header. */
static fb_status print_results(const char *path, const char *problem_key)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    FB_CHECK(fb_results_load(path, &set));
    if (!set->nheaders) goto fail;
    const json_t *last = set->headers[set->nheaders - 1];
    fb_record_print_row_header(stdout, problem_key);
    for (int i = 0; i < set->nrecords; ++i) {
        const json_t *rec = set->records[i].json;
        if (set->records[i].header != last || strcmp(fb_json_str(rec, "benchmark"), "stream") == 0) continue;
        fb_record_print_row(stdout, rec, problem_key);
    }
fail:
    fb_results_set_free(set);
    return status;
}

static fb_status temporary_out(char *path, size_t len)
{
    fb_status status = FB_OK;
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, len, "%s/flowbench-plan-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) FB_FAIL(FB_ERR_IO, "%s: cannot create the plan's temporary results file", path);
    close(fd);
    unlink(path); /* the sweep starts a new file with its header */
fail:
    return status;
}

/* The sweep's size limit, said in the command's terms: the sweep's own
 * message names a suite's line and `sweep --max-points`, which a command
 * line has neither of. */
static fb_status check_size(const fb_suite *s, const fb_sweep_options *o)
{
    fb_status status = fb_sweep_check_size(s, o);
    const fb_suite_case *c = &s->cases[0];
    if (status != FB_OK)
        FB_FAIL(status,
                "%s: the command line plans %lld configurations (%d problem%s x %lld kernel points), more than the "
                "limit of %lld: give fewer values in --param, or put them in a suite and run sweep --max-points N",
                s->name, (long long)(plan_points(c) * c->nmatrices), c->nmatrices, c->nmatrices == 1 ? "" : "s",
                (long long)plan_points(c),
                (long long)(o->max_points > 0 ? o->max_points : FB_SUITE_MAX_POINTS_DEFAULT));
fail:
    return status;
}

static fb_status run_plan(const fb_suite *s, fb_sweep_options *o, const char *kept_in, int dry_run,
                          const char *problem_key)
{
    fb_status status = FB_OK;
    fb_sweep_summary sum;
    FB_CHECK(check_size(s, o));
    FB_CHECK(fb_suite_check_problems(s));
    print_plan(s, dry_run ? "none (--dry-run)" : kept_in);
    if (dry_run) return fb_sweep_dry_run(s, o, stdout);
    status = fb_sweep_run(s, o, &sum);
    if (sum.recorded) {
        fb_status shown = print_results(o->out_path, problem_key);
        if (status == FB_OK) status = shown;
    }
    FB_CHECK(status);
    printf("plan: %d ok, %d wrong result, %d failed, %d pruned\n", sum.ok, sum.wrong, sum.failed, sum.pruned);
    if (sum.wrong || sum.failed)
        FB_FAIL(FB_ERR_CHECK, "%s: %d configuration(s) failed to run and %d gave a wrong result", s->name, sum.failed,
                sum.wrong);
    if (!sum.ok) FB_FAIL(FB_ERR_USAGE, "%s: no configuration of the plan could run here (see pruned above)", s->name);
fail:
    return status;
}

fb_status fb_plan_run(const fb_suite *s, fb_sweep_options *o, const char *out, int dry_run, const char *problem_key)
{
    fb_status status = FB_OK;
    char path[4096];
    const int temporary = !out && !dry_run;
    if (temporary)
        FB_CHECK(temporary_out(path, sizeof path));
    else
        snprintf(path, sizeof path, "%s", out ? out : "");
    o->out_path = path;
    status = run_plan(s, o, out, dry_run, problem_key);
    if (temporary) unlink(path);
fail:
    o->out_path = NULL;
    return status;
}
