/* search.c - the search strategies of search.h.
 *
 * Every strategy works on point indices: a point is its flat index into the
 * cross product of the axes (row-major, last axis fastest), and values are
 * looked up only to call the cost function. A per-point table maps each
 * point to its history entry, so no point is ever measured twice; spaces
 * above MAX_SEARCH_POINTS are refused rather than hashed, because such a
 * table costs 4 bytes a point and no shipped kernel comes near the limit.
 *
 * A cost call that fails (status other than FB_OK) is not recorded in the
 * history: it has no cost to record. After k cost calls of which the k-th
 * failed, the history holds the k-1 calls that answered. */
#include "search.h"
#include "search_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEARCH_POINTS (1 << 20)

/* Neighbours of one point: one axis +-1 and +-2, two axes +-1 each. */
#define MAX_NEIGHBOURS (4 * FB_MAX_PARAMS + 2 * FB_MAX_PARAMS * (FB_MAX_PARAMS - 1))

/* Annealing temperature at the start, on relative cost: a move 5% worse is
 * first accepted with probability 1/e, enough to step over bumps the size of
 * measurement noise. On the landscapes of test_search.c and on harder random
 * quadratics, success hardly changes between 0 and 0.05 and falls from 0.1
 * up: budgets of a quarter of the space cannot afford many uphill steps. */
#define ANNEAL_T0 0.05

static const char *const strategy_names[] = {"exhaustive", "random", "anneal", "bayes"};
#define NSTRATEGIES ((int)(sizeof strategy_names / sizeof strategy_names[0]))

fb_status fb_strategy_parse(const char *name, fb_strategy *out)
{
    fb_status status = FB_OK;
    for (int s = 0; name && s < NSTRATEGIES; ++s) {
        if (strcmp(name, strategy_names[s]) == 0) {
            *out = (fb_strategy)s;
            return FB_OK;
        }
    }
    FB_FAIL(FB_ERR_USAGE, "--strategy: '%s' is not exhaustive, random, anneal or bayes", name ? name : "");
fail:
    return status;
}

const char *fb_strategy_name(fb_strategy s)
{
    return (int)s >= 0 && (int)s < NSTRATEGIES ? strategy_names[s] : "unknown";
}

int fb_strategy_starts(fb_strategy s) { return s == FB_STRATEGY_ANNEAL || s == FB_STRATEGY_BAYES; }

int fb_search_space_size(const fb_search_space *space)
{
    if (space->naxes < 0 || space->naxes > FB_MAX_PARAMS) return 0;
    int size = 1;
    for (int a = 0; a < space->naxes; ++a) {
        if (space->nvalues[a] < 1 || space->nvalues[a] > FB_MAX_PARAM_VALUES) return 0;
        size *= space->nvalues[a];
    }
    return size;
}

void fb_search_result_free(fb_search_result *r)
{
    if (!r) return;
    free(r->history);
    memset(r, 0, sizeof *r);
}

const fb_search_eval *fb_search_result_find(const fb_search_result *r, const fb_param_point *p)
{
    for (int i = 0; i < r->nhistory; ++i)
        if (!memcmp(&r->history[i].point, p, sizeof *p)) return &r->history[i];
    return NULL;
}

/* ---- exhaustive and random ---------------------------------------------- */

static fb_status search_exhaustive(search_run *run)
{
    fb_status status = FB_OK;
    double cost;
    for (int i = 0; i < run->npoints && fb_search_budget_left(run); ++i)
        FB_CHECK(fb_search_evaluate(run, i, &cost));
fail:
    return status;
}

/* Random evaluates the kernel's default first: a best it reports is then
 * never slower than the default it is compared with (a draw that missed
 * the default could store a point slower than what runs without tuning). */
static fb_status search_random(search_run *run)
{
    fb_status status = FB_OK;
    int *order = NULL, def = fb_search_start_index(run->space, &run->space->start);
    FB_ALLOC(order, run->npoints, "the random search order");
    for (int i = 0; i < run->npoints; ++i)
        order[i] = i;
    order[0] = def, order[def] = 0;
    double cost;
    if (fb_search_budget_left(run)) FB_CHECK(fb_search_evaluate(run, def, &cost));
    /* After it, a Fisher-Yates shuffle drawn one step at a time: each draw
     * is uniform over the points not tried yet, and only as many draws as
     * needed. */
    for (int i = 1; i < run->npoints && fb_search_budget_left(run); ++i) {
        int j = i + fb_search_rng_below(&run->rng, run->npoints - i);
        int chosen = order[j];
        order[j] = order[i];
        order[i] = chosen;
        FB_CHECK(fb_search_evaluate(run, chosen, &cost));
    }
fail:
    free(order);
    return status;
}

/* ---- anneal --------------------------------------------------------------
 *
 * A first-improvement descent with annealing acceptance, built for the small
 * budgets tuning gets (a quarter of a space of a few dozen points). From the
 * current point it proposes, in order:
 *   1. the last improving move again: on smooth landscapes a good direction
 *      usually stays good, and this walks a slope at one evaluation a step;
 *   2. the one-axis +-1 moves, the direction with more of the space ahead
 *      first (with no other information, the optimum is more likely there;
 *      from a default in the middle of one axis this alone decides whether a
 *      4-evaluation walk reaches the far end), ties in random order; with a
 *      ranking (a prior's), the best-ranked move first, and the room ahead
 *      only between equal ranks: the prior knows which side paid on
 *      similar matrices;
 *   3. the wider ring: one axis +-2 (crosses plateaus) and two axes +-1
 *      (follows valleys that run diagonally, where every one-axis step goes
 *      uphill). By then the +-1 neighbours are known, so this ring is ranked
 *      by the slope they show: a diagonal scores the sum of its two one-axis
 *      steps' cost changes, a +-2 twice its +-1 step's.
 * A better point is taken at once; a worse one with probability
 * exp(-(c_new/c_cur - 1)/T), T cooling linearly to 0 over the budget
 * (never, with a ranking: see accept_move).
 * Pruned neighbours cost nothing, so proposing goes on until something is
 * evaluated. When the current point's neighbourhood is exhausted the walk
 * returns to the best point, and when that one is exhausted too it jumps to
 * a random unvisited point. */

typedef struct walk {
    int cur;
    double cur_cost; /* NAN or INFINITY: anything evaluable is better */
    int momentum[FB_MAX_PARAMS];
    int has_momentum;
    int next[MAX_NEIGHBOURS + 1]; /* the current point's neighbours, in proposal order */
    int nnext, inext;
    int wide_from; /* next[wide_from..] is the wider ring */
    int wide_ranked;
} walk;

/* Stable, so items shuffled beforehand keep ties in random order. */
static void sort_by_key(int *items, double *key, int n)
{
    for (int i = 1; i < n; ++i) {
        int item = items[i];
        double k = key[i];
        int j = i;
        for (; j > 0 && key[j - 1] > k; --j) {
            items[j] = items[j - 1];
            key[j] = key[j - 1];
        }
        items[j] = item;
        key[j] = k;
    }
}

static int near_ring(const fb_search_space *space, const int coords[FB_MAX_PARAMS], int *ring)
{
    int n = 0;
    for (int a = 0; a < space->naxes; ++a) {
        for (int s = -1; s <= 1; s += 2) {
            int delta[FB_MAX_PARAMS] = {0};
            delta[a] = s;
            if ((ring[n] = fb_search_shifted(space, coords, delta)) >= 0) n++;
        }
    }
    return n;
}

static int wide_ring(const fb_search_space *space, const int coords[FB_MAX_PARAMS], int *ring)
{
    int n = 0;
    for (int a = 0; a < space->naxes; ++a) {
        for (int sa = -1; sa <= 1; sa += 2) {
            int delta[FB_MAX_PARAMS] = {0};
            delta[a] = 2 * sa;
            if ((ring[n] = fb_search_shifted(space, coords, delta)) >= 0) n++;
            for (int b = a + 1; b < space->naxes; ++b) {
                for (int sb = -1; sb <= 1; sb += 2) {
                    int diagonal[FB_MAX_PARAMS] = {0};
                    diagonal[a] = sa;
                    diagonal[b] = sb;
                    if ((ring[n] = fb_search_shifted(space, coords, diagonal)) >= 0) n++;
                }
            }
        }
    }
    return n;
}

/* Index steps left beyond `from` in the direction of the move to `index`. */
static int room_ahead(const fb_search_space *space, const int from[FB_MAX_PARAMS], int index)
{
    int to[FB_MAX_PARAMS], room = 0;
    fb_search_coords(space, index, to);
    for (int a = 0; a < space->naxes; ++a) {
        if (to[a] > from[a]) room += space->nvalues[a] - 1 - from[a];
        if (to[a] < from[a]) room += from[a];
    }
    return room;
}

static void plan_neighbours(search_run *run, walk *w)
{
    const fb_search_space *space = run->space;
    int coords[FB_MAX_PARAMS] = {0}, near[2 * FB_MAX_PARAMS];
    double key[2 * FB_MAX_PARAMS];
    fb_search_coords(space, w->cur, coords);
    w->nnext = w->inext = 0;
    int ahead = w->has_momentum ? fb_search_shifted(space, coords, w->momentum) : -1;
    if (ahead >= 0) w->next[w->nnext++] = ahead;
    int nnear = near_ring(space, coords, near);
    fb_search_shuffle(&run->rng, near, nnear);
    for (int i = 0; i < nnear; ++i)
        key[i] = -room_ahead(space, coords, near[i]);
    sort_by_key(near, key, nnear);
    for (int i = 0; run->rank && i < nnear; ++i) {
        fb_param_point p = fb_search_point(space, near[i]);
        key[i] = run->rank(run->rank_ctx, &p);
    }
    if (run->rank) sort_by_key(near, key, nnear); /* stable: equal ranks keep the room order */
    memcpy(w->next + w->nnext, near, (size_t)nnear * sizeof *near);
    w->nnext += nnear;
    w->wide_from = w->nnext;
    w->wide_ranked = 0;
    int nwide = wide_ring(space, coords, w->next + w->nnext);
    fb_search_shuffle(&run->rng, w->next + w->nnext, nwide);
    w->nnext += nwide;
}

static double known_cost(const search_run *run, int index)
{
    return index >= 0 && run->slot[index] >= 0 ? run->out->history[run->slot[index]].cost : NAN;
}

/* The cost change the one-axis steps toward `index` showed; pruned steps
 * tell nothing and add 0. */
static double slope_toward(const search_run *run, const walk *w, int index)
{
    int from[FB_MAX_PARAMS], to[FB_MAX_PARAMS];
    fb_search_coords(run->space, w->cur, from);
    fb_search_coords(run->space, index, to);
    double change = 0;
    for (int a = 0; a < run->space->naxes; ++a) {
        if (to[a] == from[a]) continue;
        int unit[FB_MAX_PARAMS] = {0};
        unit[a] = to[a] > from[a] ? 1 : -1;
        double c = known_cost(run, fb_search_shifted(run->space, from, unit));
        if (!isnan(c)) change += abs(to[a] - from[a]) * (c - w->cur_cost);
    }
    return change;
}

static void rank_wide_ring(const search_run *run, walk *w)
{
    double key[MAX_NEIGHBOURS];
    int n = w->nnext - w->wide_from, *ring = w->next + w->wide_from;
    w->wide_ranked = 1;
    if (!isfinite(w->cur_cost)) return; /* no slope from a failed or pruned point */
    for (int i = 0; i < n; ++i)
        key[i] = slope_toward(run, w, ring[i]);
    sort_by_key(ring, key, n);
}

/* Jumps (back to the best, to a random point) carry no direction;
 * moves do, when they improve. */
static void jump_to(search_run *run, walk *w, int index, double cost, int direction)
{
    int from[FB_MAX_PARAMS], to[FB_MAX_PARAMS];
    fb_search_coords(run->space, w->cur, from);
    fb_search_coords(run->space, index, to);
    w->has_momentum = direction && cost < w->cur_cost;
    for (int a = 0; a < run->space->naxes; ++a)
        w->momentum[a] = to[a] - from[a];
    w->cur = index;
    w->cur_cost = cost;
    plan_neighbours(run, w);
}

static int next_unvisited_neighbour(const search_run *run, walk *w)
{
    while (w->inext < w->nnext) {
        if (w->inext == w->wide_from && !w->wide_ranked) rank_wide_ring(run, w);
        int index = w->next[w->inext++];
        if (run->slot[index] < 0) return index;
    }
    return -1;
}

static int has_unvisited_neighbour(const search_run *run, const walk *w)
{
    for (int i = w->inext; i < w->nnext; ++i)
        if (run->slot[w->next[i]] < 0) return 1;
    return 0;
}

/* Where a walk with a ranking jumps: the best-ranked of RESTART_DRAWS
 * unvisited points drawn at random (every unvisited point when there are
 * no more; the shipped spaces have at most 66), so the jump goes where the
 * prior expects the next basin rather than anywhere, while a huge space
 * costs no more than RESTART_DRAWS rankings. */
#define RESTART_DRAWS 64

static int ranked_unvisited(search_run *run)
{
    int left = run->npoints - run->nvisited, seen = 0, taken = 0, best = -1, ties = 0;
    double best_rank = INFINITY;
    for (int i = 0; i < run->npoints && taken < RESTART_DRAWS; ++i) {
        if (run->slot[i] >= 0) continue;
        /* selection sampling: take this point with probability (draws
         * still wanted) / (unvisited points not yet looked at) */
        if (fb_search_rng_below(&run->rng, left - seen++) >= RESTART_DRAWS - taken) continue;
        taken++;
        fb_param_point p = fb_search_point(run->space, i);
        double r = run->rank(run->rank_ctx, &p);
        if (best >= 0 && r > best_rank) continue;
        ties = best >= 0 && r == best_rank ? ties + 1 : 1;
        if (ties == 1 || fb_search_rng_below(&run->rng, ties) == 0) best = i; /* equal ranks: one of them uniformly */
        best_rank = r;
    }
    return best;
}

static double temperature(const search_run *run)
{
    double left = 1.0 - (double)run->out->evaluations / run->budget;
    return left > 0 ? ANNEAL_T0 * left : 0;
}

/* With a ranking the walk is a descent: it starts where the prior expects
 * the best and leaves a used-up basin by a ranked restart, so an uphill
 * step only spends evaluations. Measured on the tune-study landscapes
 * (docs/tuning.md): annealing from the prior's start accepted a 4-7% worse
 * first step in 15-17% of the seeds of two pairs and lost them. */
static int accept_move(search_run *run, double cur, double cand)
{
    if (!isfinite(cur)) return 1;  /* leave a failed or pruned point */
    if (!isfinite(cand)) return 0; /* never walk onto a failure */
    if (cand < cur) return 1;
    if (run->rank) return 0;
    double t = temperature(run);
    return t > 0 && cur > 0 && fb_search_rng_unit(&run->rng) < exp(-(cand / cur - 1) / t);
}

/* The neighbourhood of the current point is exhausted. */
static fb_status restart(search_run *run, walk *w)
{
    fb_status status = FB_OK;
    if (run->best_index >= 0 && run->best_index != w->cur) {
        jump_to(run, w, run->best_index, run->out->best_cost, 0);
        if (has_unvisited_neighbour(run, w)) return FB_OK;
    }
    int index = run->rank ? ranked_unvisited(run) : fb_search_random_unvisited(run);
    double cost;
    FB_CHECK(fb_search_evaluate(run, index, &cost));
    jump_to(run, w, index, cost, 0);
fail:
    return status;
}

static fb_status search_anneal(search_run *run)
{
    fb_status status = FB_OK;
    walk w = {.cur = fb_search_start_index(run->space, run->start)};
    double cost;
    FB_CHECK(fb_search_evaluate(run, w.cur, &cost));
    jump_to(run, &w, w.cur, cost, 0);
    while (fb_search_budget_left(run)) {
        int cand = next_unvisited_neighbour(run, &w);
        if (cand < 0) {
            FB_CHECK(restart(run, &w));
            continue;
        }
        FB_CHECK(fb_search_evaluate(run, cand, &cost));
        if (!isnan(cost) && accept_move(run, w.cur_cost, cost)) jump_to(run, &w, cand, cost, 1);
    }
fail:
    return status;
}

/* ---- entry point -------------------------------------------------------- */

static fb_status check_space(const fb_search_space *space)
{
    fb_status status = FB_OK;
    if (space->naxes < 0 || space->naxes > FB_MAX_PARAMS)
        FB_FAIL(FB_ERR_USAGE, "search space: %d axes (0 to %d allowed)", space->naxes, FB_MAX_PARAMS);
    for (int a = 0; a < space->naxes; ++a)
        if (space->nvalues[a] < 1 || space->nvalues[a] > FB_MAX_PARAM_VALUES)
            FB_FAIL(FB_ERR_USAGE, "search space: axis %d has %d values (1 to %d allowed)", a, space->nvalues[a],
                    FB_MAX_PARAM_VALUES);
    if (fb_search_space_size(space) > MAX_SEARCH_POINTS)
        FB_FAIL(FB_ERR_USAGE, "search space: %d points (at most %d supported)", fb_search_space_size(space),
                MAX_SEARCH_POINTS);
fail:
    return status;
}

/* Anneal and random without a budget get a quarter of the space: what the
 * guided search is designed to need, and random gets the same to compare;
 * tiny spaces get a few points more, since a walk of one or two steps
 * cannot even look both ways. */
static int resolve_budget(const fb_search_options *opt, int npoints)
{
    if (opt->budget > 0) return opt->budget < npoints ? opt->budget : npoints;
    if (opt->strategy == FB_STRATEGY_EXHAUSTIVE) return npoints;
    int quarter = (npoints + 3) / 4, at_least = npoints < 4 ? npoints : 4;
    return quarter > at_least ? quarter : at_least;
}

fb_status fb_search(const fb_search_space *space, const fb_search_options *opt, fb_cost_fn cost, void *ctx,
                    fb_search_result *out)
{
    fb_status status = FB_OK;
    search_run run = {.best_index = -1};
    if (!out) FB_FAIL(FB_ERR_USAGE, "fb_search: no result to fill");
    memset(out, 0, sizeof *out);
    out->best_cost = INFINITY;
    if (!space || !opt || !cost) FB_FAIL(FB_ERR_USAGE, "fb_search: space, options and cost function are required");
    FB_CHECK(check_space(space));
    run.space = space;
    run.cost = cost;
    run.ctx = ctx;
    run.out = out;
    run.npoints = out->space_size = fb_search_space_size(space);
    run.budget = resolve_budget(opt, run.npoints);
    run.rng = opt->seed;
    run.start = opt->start ? opt->start : &space->start;
    run.rank = opt->rank;
    run.rank_ctx = opt->rank_ctx;
    FB_ALLOC(run.slot, run.npoints, "the search's visited map");
    for (int i = 0; i < run.npoints; ++i)
        run.slot[i] = -1;
    switch (opt->strategy) {
    case FB_STRATEGY_EXHAUSTIVE: FB_CHECK(search_exhaustive(&run)); break;
    case FB_STRATEGY_RANDOM: FB_CHECK(search_random(&run)); break;
    case FB_STRATEGY_ANNEAL: FB_CHECK(search_anneal(&run)); break;
    case FB_STRATEGY_BAYES: FB_CHECK(fb_search_bayes(&run)); break;
    default: FB_FAIL(FB_ERR_USAGE, "fb_search: unknown strategy %d", (int)opt->strategy);
    }
fail:
    free(run.slot);
    return status;
}
