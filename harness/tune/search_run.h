/* search_run.h - one search's state and the helpers every strategy uses
 * (search_run.c), shared by the strategies' files (search.c: exhaustive,
 * random, anneal; search_bayes.c: bayes). Not a public interface:
 * search.h is. */
#ifndef FB_TUNE_SEARCH_RUN_H
#define FB_TUNE_SEARCH_RUN_H

#include <stdint.h>

#include "search.h"

typedef struct search_run {
    const fb_search_space *space;
    fb_cost_fn cost;
    void *ctx;
    fb_search_result *out;
    int npoints;
    int budget; /* evaluations allowed, already resolved from the options */
    int *slot;  /* per point: its history entry, -1 while unvisited */
    int nvisited;
    int capacity;   /* entries allocated in out->history */
    int best_index; /* -1 while no point has a finite cost */
    uint64_t rng;
    const fb_param_point *start; /* anneal's first point */
    fb_rank_fn rank;             /* NULL: none */
    void *rank_ctx;
} search_run;

/* A small self-contained generator (splitmix64): the same seed gives the
 * same sequence on every platform, which the search's determinism
 * promises. Below n: uniform in [0, n); unit: in [0, 1). */
uint64_t fb_search_rng_next(uint64_t *state);
int fb_search_rng_below(uint64_t *state, int n);
double fb_search_rng_unit(uint64_t *state);
void fb_search_shuffle(uint64_t *state, int *items, int n);

/* Point coordinates (value indices per axis) to its index and back; the
 * point's values; the index of coords + delta, or -1 outside the space. */
int fb_search_index(const fb_search_space *space, const int coords[FB_MAX_PARAMS]);
fb_param_point fb_search_point(const fb_search_space *space, int index);
int fb_search_shifted(const fb_search_space *space, const int coords[FB_MAX_PARAMS], const int delta[FB_MAX_PARAMS]);

/* 1 while the budget and the unvisited points last. */
int fb_search_budget_left(const search_run *run);

/* Point index's coordinates (value indices per axis). */
void fb_search_coords(const fb_search_space *space, int index, int coords[FB_MAX_PARAMS]);

/* The index of the point nearest to start (values snapped per axis). */
int fb_search_start_index(const fb_search_space *space, const fb_param_point *start);

/* The cost of point index, called at most once per point (a revisit is
 * answered from the history); recorded, and the best kept. */
fb_status fb_search_evaluate(search_run *run, int index, double *cost);

/* An unvisited point drawn uniformly with the run's generator, or -1. */
int fb_search_random_unvisited(search_run *run);

/* Bayesian optimisation (search_bayes.c). */
fb_status fb_search_bayes(search_run *run);

#endif
