/* tune_confirm.c - tune's confirmation in fresh processes (tune_confirm.h). */
#include "tune_confirm.h"

#include <math.h>
#include <stdio.h>

#include "../tune/confirm_fresh.h"
#include "../results/records/reader.h"

fb_status fb_tune_cli_measure_point(const fb_parsed *args, const fb_tune_request *rq)
{
    fb_status status = FB_OK;
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    fb_param_point p;
    double seconds = NAN;
    json_t *rec = NULL;
    char why[300];
    if (fb_param_point_parse(k->params, k->nparams, fb_cli_value(args, "measure-point"), &p, why, sizeof why) != 0)
        FB_FAIL(FB_ERR_USAGE, "--measure-point: %s: %s", k->name, why);
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

fb_status fb_cli_confirm(const char *command, const fb_parsed *args, const char *const *drop, const char *const *extra,
                         int per_axis, const fb_tune_request *rq, const fb_tune_outcome *o, const fb_param_point *def,
                         int rounds, FILE *say, fb_confirm_outcome *out)
{
    fb_status status = FB_OK;
    const fb_family_kernel *k = rq->family->kernel(rq->kernel);
    char **argv = NULL, verdict[1000];
    fb_confirm_candidates(&o->search, def, out);
    FB_CHECK(fb_cli_child_argv(command, args, drop, extra, &argv));
    FB_CHECK(fb_confirm_in_processes((const char *const *)argv, per_axis, k, rq->objective, rounds, stderr, out));
    fb_confirm_verdict(out, k, verdict, sizeof verdict);
    fprintf(say, "  confirmed in fresh processes (%d rounds, interleaved): %s\n", out->rounds, verdict);
fail:
    fb_cli_child_argv_free(argv);
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
