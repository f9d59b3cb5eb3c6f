/* tune_confirm.c - tune's confirmation in fresh processes (tune_confirm.h). */
#include "tune_confirm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fresh.h"
#include "../results/records/reader.h"

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
    if (*rounds < 3 || *rounds > FB_CONFIRM_MAX_ROUNDS) /* 2 processes predict nothing of a third */
        FB_FAIL(FB_ERR_USAGE, "--confirm: %d is not a count of rounds in [3, %d]", *rounds, FB_CONFIRM_MAX_ROUNDS);
    const int replay = fb_cli_declares(args, "replay") && fb_cli_value(args, "replay");
    const int no_cache = fb_cli_declares(args, "no-cache") && fb_cli_flag(args, "no-cache");
    if (given && replay) FB_FAIL(FB_ERR_USAGE, "--confirm: a --replay search measures nothing to confirm");
    *wanted = given || (!no_cache && !replay);
fail:
    return status;
}

typedef struct spawn_ctx {
    char **argv;  /* the child's arguments, the point's last */
    int point_at; /* the point's first argument: "NAME=V,..." or, per axis, the value of each --param */
    int per_axis;
    const fb_family_kernel *k;
    fb_objective objective; /* what each process's record is judged by */
} spawn_ctx;

static fb_status set_arg(char **slot, const char *text)
{
    fb_status status = FB_OK;
    free(*slot);
    if (!(*slot = strdup(text))) FB_FAIL(FB_ERR_NOMEM, "out of host memory confirming");
fail:
    return status;
}

/* The point into the child's arguments. */
static fb_status place_point(spawn_ctx *ctx, const fb_param_point *p)
{
    fb_status status = FB_OK;
    char text[400];
    if (!ctx->per_axis) {
        point_arg(ctx->k, p, text, sizeof text);
        return set_arg(&ctx->argv[ctx->point_at], text);
    }
    for (int i = 0; i < ctx->k->nparams; ++i) {
        snprintf(text, sizeof text, "%s=%d", ctx->k->params[i].name, p->values[i]);
        FB_CHECK(set_arg(&ctx->argv[ctx->point_at + 2 * i], text));
    }
fail:
    return status;
}

/* One point in a fresh process: its record's median, or why it has none. */
static fb_status measure_in_child(void *vctx, const fb_param_point *p, double *median, json_t **record, char *failure,
                                  size_t len)
{
    fb_status status = FB_OK;
    spawn_ctx *ctx = vctx;
    fb_fresh_result r;
    FB_CHECK(place_point(ctx, p));
    FB_CHECK(fb_fresh_run(ctx->argv, &r));
    *record = json_loads(r.out, 0, NULL);
    *median = INFINITY;
    char why[256];
    if (r.exit_code == 0 && json_is_object(*record)) {
        *median = fb_objective_of_record(ctx->objective, *record, why, sizeof why);
        if (isnan(*median)) snprintf(failure, len, "no energy measured: %s", why), *median = INFINITY;
    } else
        snprintf(failure, len, "exit %d: %s", r.exit_code, *r.last ? r.last : "no record");
    fb_fresh_result_free(&r);
fail:
    return status;
}

/* extra, then the point's placeholders: "--measure-point -" or "--param -"
 * per axis. */
static fb_status child_extra(const char *const *extra, int per_axis, int naxes, const char ***out)
{
    fb_status status = FB_OK;
    int n = 0, nextra = 0;
    while (extra && extra[nextra])
        nextra++;
    const char **all = NULL;
    FB_ALLOC(all, (size_t)(nextra + 2 * (naxes + 1) + 1), "a new process's arguments");
    for (int i = 0; i < nextra; ++i)
        all[n++] = extra[i];
    for (int i = 0; i < (per_axis ? naxes : 1); ++i)
        all[n++] = per_axis ? "--param" : "--measure-point", all[n++] = "-";
    *out = all;
fail:
    return status;
}

fb_status fb_cli_confirm(const char *command, const fb_parsed *args, const char *const *drop, const char *const *extra,
                         int per_axis, const fb_tune_request *rq, const fb_tune_outcome *o, const fb_param_point *def,
                         int rounds, FILE *say, fb_confirm_outcome *out)
{
    fb_status status = FB_OK;
    spawn_ctx ctx = {NULL, 0, per_axis, rq->family->kernel(rq->kernel), rq->objective};
    const char **all = NULL;
    char verdict[1000];
    fb_confirm_candidates(&o->search, def, out);
    FB_CHECK(child_extra(extra, per_axis, ctx.k->nparams, &all));
    FB_CHECK(fb_cli_child_argv(command, args, drop, all, &ctx.argv));
    while (ctx.argv[ctx.point_at])
        ctx.point_at++;
    ctx.point_at -= per_axis ? 2 * ctx.k->nparams - 1 : 1;
    FB_CHECK(fb_confirm_run(out, rounds, ctx.k, measure_in_child, &ctx, stderr));
    fb_confirm_verdict(out, ctx.k, verdict, sizeof verdict);
    fprintf(say, "  confirmed in fresh processes (%d rounds, interleaved): %s\n", out->rounds, verdict);
fail:
    free(all);
    fb_cli_child_argv_free(ctx.argv);
    return status;
}

fb_status fb_tune_cli_confirm(const fb_parsed *args, const fb_tune_request *rq, const fb_tune_outcome *o,
                              const fb_param_point *def, int rounds, fb_confirm_outcome *out)
{
    static const char *const drop[] = {"out",           "strategy", "evals",  "seed",    "start",     "prior",
                                       "no-variants",   "replay",   "seeds",  "abandon", "confirm",   "no-cache",
                                       "measure-point", "cache",    "header", "json",    "fit-prior", NULL};
    static const char *const extra[] = {"--no-cache", NULL};
    return fb_cli_confirm("tune", args, drop, extra, 0, rq, o, def, rounds, stdout, out);
}
