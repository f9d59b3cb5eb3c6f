/* search.h - search strategies over a kernel's discrete parameter space,
 * used by `flowbench tune` and tested on synthetic cost functions.
 *
 * The space is the cross product of the kernel's axes (params.h): axis i
 * takes the values values[i][0..nvalues[i]-1], in the order the kernel
 * declares them (ascending for every shipped kernel, so index distance is a
 * meaningful neighbourhood for the guided search). A strategy proposes
 * points and calls the cost function, which measures one configuration:
 *
 *   *cost = seconds (finite, > 0)  a measured configuration
 *   *cost = INFINITY               it ran but failed (build error, wrong
 *                                  result, time-out): counts as an evaluation
 *   *cost = NAN                    pruned without running (the device or the
 *                                  problem cannot take it): not an evaluation
 *
 * Returning a status other than FB_OK (FB_ERR_INTERRUPTED, ...) stops the
 * search at once and passes the status through; the result so far is kept.
 * A strategy never evaluates the same point twice: a revisit is answered
 * from its history and does not count. A cost call that returns an error
 * is not in the history (it has no cost).
 */
#ifndef FB_TUNE_SEARCH_H
#define FB_TUNE_SEARCH_H

#include <stdint.h>

#include "../core/params.h"
#include "../core/status.h"

typedef enum fb_strategy {
    FB_STRATEGY_EXHAUSTIVE, /* every point, in lexicographic index order (the paper's brute force) */
    FB_STRATEGY_RANDOM,     /* `budget` distinct points drawn uniformly (default: as anneal) */
    FB_STRATEGY_ANNEAL,     /* simulated annealing over index neighbours, from the start point */
    FB_STRATEGY_BAYES       /* Bayesian optimisation: a Gaussian process of log cost, expected improvement */
} fb_strategy;

typedef struct fb_search_space {
    int naxes;                  /* 0..FB_MAX_PARAMS; 0 = one point */
    int nvalues[FB_MAX_PARAMS]; /* >= 1 each */
    int values[FB_MAX_PARAMS][FB_MAX_PARAM_VALUES];
    fb_param_point start;           /* the default point (values, not indices) */
    int categorical[FB_MAX_PARAMS]; /* 1: the axis names choices (fb_axis_role_is_categorical) */
} fb_search_space;

/* cost: see above. ctx is the caller's. */
typedef fb_status (*fb_cost_fn)(void *ctx, const fb_param_point *point, double *cost);

typedef struct fb_search_eval {
    fb_param_point point;
    double cost; /* seconds, INFINITY (failed) or NAN (pruned) */
} fb_search_eval;

typedef struct fb_search_result {
    fb_param_point best;     /* valid when best_cost is finite */
    double best_cost;        /* INFINITY if nothing ran successfully */
    int evaluations;         /* cost calls that were not pruned */
    int pruned;              /* cost calls answered NAN */
    int space_size;          /* points in the space */
    fb_search_eval *history; /* every cost call in order (malloc'd), nhistory entries */
    int nhistory;
} fb_search_result;

/* A ranking of points, lower first (a prior's expected cost ratio,
 * prior.h); ctx is the caller's. */
typedef double (*fb_rank_fn)(void *ctx, const fb_param_point *point);

typedef struct fb_search_options {
    fb_strategy strategy;
    int budget;    /* max evaluations (pruned ones excluded); <= 0: exhaustive the whole
                      space, random and anneal a quarter of it (at least 4) */
    uint64_t seed; /* random, anneal and bayes; the same seed gives the same sequence */
    /* Anneal's first point (values; each snapped to the nearest value of
     * its axis), e.g. a prior's prediction (prior.h); NULL: space->start,
     * the kernel's default. */
    const fb_param_point *start;
    /* Optional: anneal proposes the one-axis neighbours in this order
     * (ties: the side with more of the space first, as without it), so a
     * walk tries first the step a prior expects to pay; it restarts at the
     * best-ranked unvisited point, and accepts no worse point (a descent
     * from the prior's start). NULL: no ranking, annealing as above. */
    fb_rank_fn rank;
    void *rank_ctx;
} fb_search_options;

/* Parses "exhaustive", "random", "anneal", "bayes"; FB_ERR_USAGE naming the choices. */
fb_status fb_strategy_parse(const char *name, fb_strategy *out);
const char *fb_strategy_name(fb_strategy s);

/* 1 for the strategies that begin at a start point and take a ranking
 * (anneal, bayes): the ones a prior can guide. */
int fb_strategy_starts(fb_strategy s);

/* Number of points in the space (product of nvalues). */
int fb_search_space_size(const fb_search_space *space);

/* The space of axes that lists ("NAME=V1,V2,...", as --param gives them;
 * the last list of an axis wins) narrow: values ascending, as the
 * neighbourhoods want, each one the axis declares when `declared` (a
 * search covers the declared space; one run may take another); an axis no
 * list names takes every declared value (whole = 1) or only its default
 * (whole = 0). The space starts at the default where the lists hold it,
 * else at each list's smallest value. FB_ERR_USAGE, one line naming the
 * axis or value, `owner` ("the solver") and `hint` (where the axes are
 * listed). */
fb_status fb_search_space_from_lists(const char *const *lists, int nlists, const fb_param_axis *axes, int naxes,
                                     int whole, int declared, const char *owner, const char *hint,
                                     fb_search_space *space);

/* Runs the strategy. *out is filled (and must be freed) even when the status
 * is not FB_OK. FB_ERR_USAGE for an empty or malformed space. */
fb_status fb_search(const fb_search_space *space, const fb_search_options *opt, fb_cost_fn cost, void *ctx,
                    fb_search_result *out);

void fb_search_result_free(fb_search_result *r);

/* The history's entry for point p, or NULL when the search did not call
 * the cost function there. */
const fb_search_eval *fb_search_result_find(const fb_search_result *r, const fb_param_point *p);

#endif
