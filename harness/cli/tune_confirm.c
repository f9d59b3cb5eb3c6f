/* tune_confirm.c - tune's confirmation in fresh processes (tune_confirm.h). */
#include "tune_confirm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fresh.h"
#include "../results/reader.h"

/* "NAME=V,NAME=V": every axis of k, one argument. */
static void point_arg(const fb_family_kernel *k, const fb_param_point *p, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < k->nparams && at < len; ++i)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%d", i ? "," : "", k->params[i].name, p->values[i]);
}

static int axis_of(const fb_family_kernel *k, const char *name, size_t len)
{
    for (int i = 0; i < k->nparams; ++i)
        if (strlen(k->params[i].name) == len && !strncmp(k->params[i].name, name, len)) return i;
    return -1;
}

/* The point --measure-point names: the default, with each NAME=V given. */
static fb_status parse_point(const fb_family_kernel *k, const char *text, fb_param_point *p)
{
    fb_status status = FB_OK;
    char why[200];
    *p = fb_param_default_point(k->params, k->nparams);
    for (const char *at = text; *at;) {
        const size_t len = strcspn(at, ","), name_len = strcspn(at, "=,");
        const int axis = axis_of(k, at, name_len);
        if (axis < 0 || at[name_len] != '=')
            FB_FAIL(FB_ERR_USAGE, "--measure-point: '%.*s' is not NAME=V of an axis of %s", (int)len, at, k->name);
        if (fb_param_value_parse(at + name_len + 1, len - name_len - 1, &p->values[axis], why, sizeof why) != 0)
            FB_FAIL(FB_ERR_USAGE, "--measure-point: %s: %s", k->params[axis].name, why);
        at += len + (at[len] == ',');
    }
fail:
    return status;
}

fb_status fb_tune_cli_measure_point(const fb_parsed *args, const fb_tune_request *rq)
{
    fb_status status = FB_OK;
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    fb_param_point p;
    double seconds = NAN;
    json_t *rec = NULL;
    FB_CHECK(parse_point(k, fb_cli_value(args, "measure-point"), &p));
    FB_CHECK(fb_tune_measure(rq, rq->kernel, &p, &seconds, &rec));
    if (!rec)
        FB_FAIL(FB_ERR_USAGE, "--measure-point %s: the point cannot run here (pruned)",
                fb_cli_value(args, "measure-point"));
    json_dumpf(rec, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    if (!isfinite(seconds)) FB_FAIL(FB_ERR_CHECK, "%s: %s", k->name, fb_json_str(rec, "reason"));
fail:
    json_decref(rec);
    return status;
}

fb_status fb_tune_cli_confirm_wanted(const fb_parsed *args, int *rounds, int *wanted)
{
    fb_status status = FB_OK;
    const int given = fb_cli_value(args, "confirm") != NULL;
    *wanted = 0;
    FB_CHECK(fb_cli_int(args, "confirm", FB_CONFIRM_ROUNDS, rounds));
    if (*rounds < 2 || *rounds > FB_CONFIRM_MAX_ROUNDS)
        FB_FAIL(FB_ERR_USAGE, "--confirm: %d is not a count of rounds in [2, %d]", *rounds, FB_CONFIRM_MAX_ROUNDS);
    if (given && fb_cli_value(args, "replay"))
        FB_FAIL(FB_ERR_USAGE, "--confirm: a --replay search measures nothing to confirm");
    *wanted = given || (!fb_cli_flag(args, "no-cache") && !fb_cli_value(args, "replay"));
fail:
    return status;
}

typedef struct spawn_ctx {
    char **argv; /* the child's arguments, the point last */
    int point_at;
    const fb_family_kernel *k;
} spawn_ctx;

/* One point in a fresh process: its record's median, or why it has none. */
static fb_status measure_in_child(void *vctx, const fb_param_point *p, double *median, json_t **record, char *failure,
                                  size_t len)
{
    fb_status status = FB_OK;
    spawn_ctx *ctx = vctx;
    fb_fresh_result r;
    char text[400];
    point_arg(ctx->k, p, text, sizeof text);
    free(ctx->argv[ctx->point_at]);
    if (!(ctx->argv[ctx->point_at] = strdup(text))) FB_FAIL(FB_ERR_NOMEM, "out of host memory confirming");
    FB_CHECK(fb_fresh_run(ctx->argv, &r));
    *record = json_loads(r.out, 0, NULL);
    *median = INFINITY;
    if (r.exit_code == 0 && json_is_object(*record))
        *median = fb_json_num(*record, "stats.median_s");
    else
        snprintf(failure, len, "exit %d: %s", r.exit_code, *r.last ? r.last : "no record");
    fb_fresh_result_free(&r);
fail:
    return status;
}

fb_status fb_tune_cli_confirm(const fb_parsed *args, const fb_tune_request *rq, const fb_tune_outcome *o,
                              const fb_param_point *def, int rounds, fb_confirm_outcome *out)
{
    static const char *const drop[] = {"out",           "strategy", "evals",  "seed",    "start",     "prior",
                                       "no-variants",   "replay",   "seeds",  "abandon", "confirm",   "no-cache",
                                       "measure-point", "cache",    "header", "json",    "fit-prior", NULL};
    static const char *const extra[] = {"--no-cache", "--measure-point", "-", NULL};
    fb_status status = FB_OK;
    spawn_ctx ctx = {NULL, 0, rq->family->kernel(rq->kernel)};
    char verdict[700];
    fb_confirm_candidates(&o->search, def, out);
    FB_CHECK(fb_cli_child_argv("tune", args, drop, extra, &ctx.argv));
    while (ctx.argv[ctx.point_at + 1])
        ctx.point_at++;
    FB_CHECK(fb_confirm_run(out, rounds, ctx.k, measure_in_child, &ctx, stderr));
    fb_confirm_verdict(out, ctx.k, verdict, sizeof verdict);
    printf("  confirmed in fresh processes (%d rounds, interleaved): %s\n", out->rounds, verdict);
fail:
    fb_cli_child_argv_free(ctx.argv);
    return status;
}
