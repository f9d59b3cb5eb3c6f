/* tune_confirm.h - `flowbench tune`'s confirmation on the command line
 * (tune/confirm.h): the same tune command run again in fresh processes,
 * each measuring one point (--measure-point, which prints that point's
 * record as JSON and stores nothing), the rounds interleaved. Kept out of
 * cmd_tune.c, which calls these entry points. docs/tuning.md, "Tuning that
 * reproduces". */
#ifndef FB_CLI_TUNE_CONFIRM_H
#define FB_CLI_TUNE_CONFIRM_H

#include "cli.h"
#include "../tune/confirm_fresh.h"
#include "../tune/tune.h"

#define FB_CLI_OPTION_CONFIRM                                                                                          \
    {                                                                                                                  \
        "confirm", "N",                                                                                                \
            "measure the search's best, its runner-ups and the default again in N fresh processes each, interleaved, " \
            "and "                                                                                                     \
            "store the best only when it beats the default (default 5)",                                               \
            0                                                                                                          \
    }
#define FB_CLI_OPTION_MEASURE_POINT                                                                                    \
    {                                                                                                                  \
        "measure-point", "NAME=V,...",                                                                                 \
            "measure this one point of --kernel and print its record as JSON, nothing stored (what the confirmation "  \
            "runs "                                                                                                    \
            "in each fresh process)",                                                                                  \
            0                                                                                                          \
    }

/* `tune ... --measure-point P`: the child's whole work, on rq's opened
 * problem and target. */
fb_status fb_tune_cli_measure_point(const fb_parsed *args, const fb_tune_request *rq);

/* Whether this tune confirms before storing: it stores (no --no-cache, no
 * --replay), or --confirm was given. *rounds its rounds. */
fb_status fb_tune_cli_confirm_wanted(const fb_parsed *args, int *rounds, int *wanted);

/* The confirmation of o's search (the default point is def): rounds
 * rounds of `flowbench COMMAND` children, built from args without drop
 * (NULL-terminated option names) and with extra, each measuring one point
 * given as --measure-point NAME=V,... (tune), or as one --param NAME=V per
 * axis (solve: per_axis). Each process's median on stderr, the verdict on
 * say. */
fb_status fb_cli_confirm(const char *command, const fb_parsed *args, const char *const *drop, const char *const *extra,
                         int per_axis, const fb_tune_request *rq, const fb_tune_outcome *o, const fb_param_point *def,
                         int rounds, FILE *say, fb_confirm_outcome *out);

/* tune's: fb_cli_confirm of `tune` with its search options dropped. */
fb_status fb_tune_cli_confirm(const fb_parsed *args, const fb_tune_request *rq, const fb_tune_outcome *o,
                              const fb_param_point *def, int rounds, fb_confirm_outcome *out);

#endif
