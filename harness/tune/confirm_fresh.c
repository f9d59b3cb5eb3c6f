/* confirm_fresh.c - the confirmation's candidates each measured in a fresh
 * process (confirm.h, fb_confirm_in_processes). */
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

fb_status fb_confirm_in_processes(char **argv, int per_axis, const fb_family_kernel *k, fb_objective objective,
                                  int rounds, FILE *progress, fb_confirm_outcome *out)
{
    child c = {argv, 0, per_axis, k, objective};
    while (argv[c.point_at])
        c.point_at++;
    c.point_at -= per_axis ? 2 * k->nparams - 1 : 1;
    return fb_confirm_run(out, rounds, k, measure_in_child, &c, progress);
}
