/* confirm_fresh.c - the confirmation's candidates each measured in a fresh
 * process (confirm_fresh.h). */
#include "confirm_fresh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fresh.h"

typedef struct child {
    char **argv;  /* the command again, the point's placeholders last */
    int point_at; /* the point's first argument: "NAME=V,..." or, per axis, the value of each --param */
    int per_axis;
    const fb_family_kernel *k;
    fb_objective objective; /* what each process's record is judged by */
} child;

static fb_status set_arg(char **slot, const char *text)
{
    fb_status status = FB_OK;
    free(*slot);
    if (!(*slot = strdup(text))) FB_FAIL(FB_ERR_NOMEM, "out of host memory confirming");
fail:
    return status;
}

/* The point into the child's arguments. */
static fb_status place_point(child *c, const fb_param_point *p)
{
    fb_status status = FB_OK;
    char text[400];
    if (!c->per_axis) {
        fb_param_point_format(c->k->params, c->k->nparams, p, text, sizeof text);
        return set_arg(&c->argv[c->point_at], text);
    }
    for (int i = 0; i < c->k->nparams; ++i) {
        snprintf(text, sizeof text, "%s=%d", c->k->params[i].name, p->values[i]);
        FB_CHECK(set_arg(&c->argv[c->point_at + 2 * i], text));
    }
fail:
    return status;
}

/* One point in a fresh process: its record's median, or why it has none. */
static fb_status measure_in_child(void *ctx, const fb_param_point *p, double *median, json_t **record, char *failure,
                                  size_t len)
{
    fb_status status = FB_OK;
    child *c = ctx;
    fb_fresh_result r;
    char why[256];
    FB_CHECK(place_point(c, p));
    FB_CHECK(fb_fresh_run(c->argv, &r));
    *record = json_loads(r.out, 0, NULL);
    *median = INFINITY;
    if (r.exit_code == 0 && json_is_object(*record)) {
        *median = fb_objective_of_record(c->objective, *record, why, sizeof why);
        if (isnan(*median)) snprintf(failure, len, "no energy measured: %s", why), *median = INFINITY;
    } else
        snprintf(failure, len, "exit %d: %s", r.exit_code, *r.last ? r.last : "no record");
    fb_fresh_result_free(&r);
fail:
    return status;
}

/* command, then the point's placeholders ("--measure-point -", or
 * "--param -" per axis), every argument its own copy (set_arg replaces
 * the placeholders); c->point_at: the first placeholder's value. */
static fb_status child_argv(const char *const *command, child *c)
{
    fb_status status = FB_OK;
    int n = 0, ncommand = 0;
    while (command[ncommand])
        ncommand++;
    FB_ALLOC(c->argv, (size_t)(ncommand + 2 * (c->k->nparams + 1) + 1), "a new process's arguments");
    for (int i = 0; i < ncommand; ++i)
        FB_CHECK(set_arg(&c->argv[n++], command[i]));
    c->point_at = n + 1;
    for (int i = 0; i < (c->per_axis ? c->k->nparams : 1); ++i) {
        FB_CHECK(set_arg(&c->argv[n++], c->per_axis ? "--param" : "--measure-point"));
        FB_CHECK(set_arg(&c->argv[n++], "-"));
    }
fail:
    return status;
}

fb_status fb_confirm_in_processes(const char *const *command, int per_axis, const fb_family_kernel *k,
                                  fb_objective objective, int rounds, FILE *progress, fb_confirm_outcome *out)
{
    fb_status status = FB_OK;
    child c = {NULL, 0, per_axis, k, objective};
    FB_CHECK(child_argv(command, &c));
    FB_CHECK(fb_confirm_run(out, rounds, k, measure_in_child, &c, progress));
fail:
    for (int i = 0; c.argv && c.argv[i]; ++i)
        free(c.argv[i]);
    free(c.argv);
    return status;
}
