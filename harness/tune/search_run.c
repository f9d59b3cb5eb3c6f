/* search_run.c - see search_run.h: the generator, the points of a space
 * and the record of one search, which every strategy's file uses. */
#include "search_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small self-contained PRNG (splitmix64): the same seed gives the same
 * sequence on every platform, which the search's determinism promises. ---- */

uint64_t fb_search_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The modulo bias is below 2^-40 for the at most 2^20 points of a space. */
int fb_search_rng_below(uint64_t *state, int n) { return (int)(fb_search_rng_next(state) % (uint64_t)n); }

double fb_search_rng_unit(uint64_t *state) { return (double)(fb_search_rng_next(state) >> 11) * 0x1p-53; }

void fb_search_shuffle(uint64_t *state, int *items, int n)
{
    for (int i = n - 1; i > 0; --i) {
        int j = fb_search_rng_below(state, i + 1);
        int t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

/* ---- points ------------------------------------------------------------- */

void fb_search_coords(const fb_search_space *space, int index, int coords[FB_MAX_PARAMS])
{
    for (int a = space->naxes - 1; a >= 0; --a) {
        coords[a] = index % space->nvalues[a];
        index /= space->nvalues[a];
    }
}

int fb_search_index(const fb_search_space *space, const int coords[FB_MAX_PARAMS])
{
    int index = 0;
    for (int a = 0; a < space->naxes; ++a)
        index = index * space->nvalues[a] + coords[a];
    return index;
}

fb_param_point fb_search_point(const fb_search_space *space, int index)
{
    fb_param_point point = {{0}};
    int coords[FB_MAX_PARAMS];
    fb_search_coords(space, index, coords);
    for (int a = 0; a < space->naxes; ++a)
        point.values[a] = space->values[a][coords[a]];
    return point;
}

/* The kernel's default need not be one of the values a sweep lists. */
static int nearest_value(const fb_search_space *space, int axis, int value)
{
    int best = 0;
    for (int k = 1; k < space->nvalues[axis]; ++k)
        if (abs(space->values[axis][k] - value) < abs(space->values[axis][best] - value)) best = k;
    return best;
}

int fb_search_start_index(const fb_search_space *space, const fb_param_point *start)
{
    int coords[FB_MAX_PARAMS];
    for (int a = 0; a < space->naxes; ++a)
        coords[a] = nearest_value(space, a, start->values[a]);
    return fb_search_index(space, coords);
}

/* The index of coords + delta, or -1 when that leaves the space. */
int fb_search_shifted(const fb_search_space *space, const int coords[FB_MAX_PARAMS], const int delta[FB_MAX_PARAMS])
{
    int moved[FB_MAX_PARAMS];
    for (int a = 0; a < space->naxes; ++a) {
        moved[a] = coords[a] + delta[a];
        if (moved[a] < 0 || moved[a] >= space->nvalues[a]) return -1;
    }
    return fb_search_index(space, moved);
}

/* ---- one search run: the visited map and the history -------------------- */

int fb_search_budget_left(const search_run *run)
{
    return run->out->evaluations < run->budget && run->nvisited < run->npoints;
}

static fb_status reserve_history(search_run *run)
{
    fb_status status = FB_OK;
    fb_search_result *out = run->out;
    if (out->nhistory < run->capacity) return FB_OK;
    int capacity = run->capacity ? 2 * run->capacity : 16;
    fb_search_eval *grown = realloc(out->history, (size_t)capacity * sizeof *grown);
    if (!grown)
        FB_FAIL(FB_ERR_NOMEM, "out of host memory growing the search history (%zu bytes)",
                (size_t)capacity * sizeof *grown);
    out->history = grown;
    run->capacity = capacity;
fail:
    return status;
}

static void record(search_run *run, int index, const fb_param_point *point, double cost)
{
    fb_search_result *out = run->out;
    run->slot[index] = out->nhistory;
    out->history[out->nhistory++] = (fb_search_eval){*point, cost};
    run->nvisited++;
    if (isnan(cost))
        out->pruned++;
    else
        out->evaluations++;
    if (isfinite(cost) && cost < out->best_cost) {
        out->best_cost = cost;
        out->best = *point;
        run->best_index = index;
    }
}

/* Calls the cost function at most once per point; a revisit is answered
 * from the history. */
fb_status fb_search_evaluate(search_run *run, int index, double *cost)
{
    fb_status status = FB_OK;
    if (run->slot[index] >= 0) {
        *cost = run->out->history[run->slot[index]].cost;
        return FB_OK;
    }
    FB_CHECK(reserve_history(run));
    fb_param_point point = fb_search_point(run->space, index);
    double c = NAN;
    FB_CHECK(run->cost(run->ctx, &point, &c));
    record(run, index, &point, c);
    *cost = c;
fail:
    return status;
}

int fb_search_random_unvisited(search_run *run)
{
    int skip = fb_search_rng_below(&run->rng, run->npoints - run->nvisited);
    for (int i = 0; i < run->npoints; ++i)
        if (run->slot[i] < 0 && skip-- == 0) return i;
    return -1;
}
