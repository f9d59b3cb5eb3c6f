/* test_search.c - the search strategies on synthetic cost landscapes shaped
 * like real kernel spaces: smooth in log-parameter (index) space, with
 * pruned corners and a few percent of measurement noise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/search.h"

#define MAX_POINTS 256

/* ---- synthetic landscapes ------------------------------------------------ */

typedef struct fake fake;

/* Noise-free cost at index coordinates i (axis 0) and j (axis 1); NAN when
 * the point is pruned. */
typedef double (*shape_fn)(const fake *f, int i, int j);

struct fake {
    const fb_search_space *space;
    shape_fn shape;
    int oi, oj;   /* where the shape puts its minimum */
    int k;        /* shape-specific (the valley's offset) */
    double noise; /* relative, uniform in [-noise, +noise] */
    uint64_t rng;
    int calls;
    int fail_at; /* return FB_ERR_INTERRUPTED on this call (0: never) */
    int duplicates;
    int called[MAX_POINTS];
    int order[MAX_POINTS]; /* flat index of each call */
};

static uint64_t test_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int value_index(const fb_search_space *s, int axis, int value)
{
    for (int k = 0; k < s->nvalues[axis]; ++k)
        if (s->values[axis][k] == value) return k;
    fail_msg("value %d is not on axis %d", value, axis);
    return -1;
}

static int flat_index(const fb_search_space *s, const fb_param_point *p)
{
    int index = 0;
    for (int a = 0; a < s->naxes; ++a)
        index = index * s->nvalues[a] + value_index(s, a, p->values[a]);
    return index;
}

static void point_coords(const fb_search_space *s, const fb_param_point *p, int *i, int *j)
{
    *i = s->naxes > 0 ? value_index(s, 0, p->values[0]) : 0;
    *j = s->naxes > 1 ? value_index(s, 1, p->values[1]) : 0;
}

static double true_cost(const fake *f, const fb_param_point *p)
{
    int i, j;
    point_coords(f->space, p, &i, &j);
    return f->shape(f, i, j);
}

static fb_status fake_cost(void *ctx, const fb_param_point *p, double *cost)
{
    fake *f = ctx;
    f->calls++;
    if (f->fail_at && f->calls == f->fail_at)
        return fb_error_set(FB_ERR_INTERRUPTED, __FILE__, __LINE__, "synthetic interrupt");
    int index = flat_index(f->space, p);
    assert_true(index < MAX_POINTS);
    if (f->called[index]++) f->duplicates++;
    f->order[f->calls - 1] = index;
    double u = (double)(test_rng(&f->rng) >> 11) * 0x1p-53;
    *cost = true_cost(f, p) * (1 + f->noise * (2 * u - 1));
    return FB_OK;
}

/* csr-multirow: WORKGROUP_SIZE_BITS 5..10 x ROWS_PER_WORKGROUP_BITS 0..10, default (7, 4). */
static fb_search_space multirow_space(void)
{
    fb_search_space s = {.naxes = 2, .nvalues = {6, 11}};
    for (int k = 0; k < 6; ++k)
        s.values[0][k] = 5 + k;
    for (int k = 0; k < 11; ++k)
        s.values[1][k] = k;
    s.start.values[0] = 7;
    s.start.values[1] = 4;
    return s;
}

/* csr-vector: WG_SIZE 32..1024 x VECTOR_SIZE 1..64, default (128, 8). */
static fb_search_space vector_space(void)
{
    fb_search_space s = {.naxes = 2, .nvalues = {6, 7}};
    for (int k = 0; k < 6; ++k)
        s.values[0][k] = 32 << k;
    for (int k = 0; k < 7; ++k)
        s.values[1][k] = 1 << k;
    s.start.values[0] = 128;
    s.start.values[1] = 8;
    return s;
}

/* csr-scalar: WG_SIZE 32..1024, default 128. */
static fb_search_space wg_space(void)
{
    fb_search_space s = {.naxes = 1, .nvalues = {6}};
    for (int k = 0; k < 6; ++k)
        s.values[0][k] = 32 << k;
    s.start.values[0] = 128;
    return s;
}

/* A tilted elliptic bowl: only the minimum itself is within 5%. */
static double bowl(const fake *f, int i, int j)
{
    double di = i - f->oi, dj = j - f->oj;
    return 1e-3 * (1 + 0.10 * di * di + 0.06 * dj * dj + 0.03 * di * dj);
}

/* A diagonal valley where the threads per row (W - R) matter most and the
 * group size a little; R > W is pruned as in csr-multirow. One-axis steps
 * leave the valley floor, so walking it needs diagonal moves or uphill ones. */
static double valley(const fake *f, int i, int j)
{
    int w = i + 5, r = j;
    if (r > w) return NAN;
    double off = w - r - f->k, along = i - f->oi;
    return 1e-3 * (1 + 0.12 * off * off + 0.07 * along * along);
}

/* csr-vector: VECTOR_SIZE > WG_SIZE is pruned, and so is a local-memory
 * corner (WG_SIZE * VECTOR_SIZE > 16384); the bowl's centre may lie in the
 * pruned region, leaving the best point on its border. */
static double vector_bowl(const fake *f, int i, int j)
{
    int wg = 32 << i, vs = 1 << j;
    if (vs > wg || wg * vs > 16384) return NAN;
    double di = i - f->oi, dj = j - f->oj;
    return 1e-3 * (1 + 0.08 * di * di + 0.15 * dj * dj - 0.04 * di * dj);
}

static double parabola(const fake *f, int i, int j)
{
    (void)j;
    double di = i - f->oi;
    return 1e-3 * (1 + 0.10 * di * di);
}

static double cheapest_true_cost(const fake *f)
{
    double best = INFINITY;
    int ni = f->space->naxes > 0 ? f->space->nvalues[0] : 1, nj = f->space->naxes > 1 ? f->space->nvalues[1] : 1;
    for (int i = 0; i < ni; ++i)
        for (int j = 0; j < nj; ++j)
            if (f->shape(f, i, j) < best) best = f->shape(f, i, j);
    return best;
}

static int evaluable_points(const fake *f)
{
    int n = 0, ni = f->space->naxes > 0 ? f->space->nvalues[0] : 1, nj = f->space->naxes > 1 ? f->space->nvalues[1] : 1;
    for (int i = 0; i < ni; ++i)
        for (int j = 0; j < nj; ++j)
            n += !isnan(f->shape(f, i, j));
    return n;
}

/* What every strategy promises about any run, whatever the landscape. */
static void assert_result_consistent(const fake *f, const fb_search_result *r)
{
    assert_int_equal(f->duplicates, 0);
    assert_int_equal(r->nhistory, f->calls);
    assert_int_equal(r->nhistory, r->evaluations + r->pruned);
    double best = INFINITY;
    int pruned = 0;
    for (int h = 0; h < r->nhistory; ++h) {
        assert_int_equal(flat_index(f->space, &r->history[h].point), f->order[h]);
        pruned += isnan(r->history[h].cost);
        if (isfinite(r->history[h].cost) && r->history[h].cost < best) best = r->history[h].cost;
    }
    assert_int_equal(pruned, r->pruned);
    assert_true(best == r->best_cost);
}

static fb_status run_search(fake *f, fb_strategy strategy, int budget, uint64_t seed, fb_search_result *r)
{
    fb_search_options opt = {.strategy = strategy, .budget = budget, .seed = seed};
    return fb_search(f->space, &opt, fake_cost, f, r);
}

/* ---- exhaustive ----------------------------------------------------------- */

static void test_exhaustive_finds_exact_optimum_in_order(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    fake f = {.space = &s, .shape = bowl, .oi = 4, .oj = 7};
    fb_search_result r;
    assert_int_equal(run_search(&f, FB_STRATEGY_EXHAUSTIVE, 0, 1, &r), FB_OK);
    assert_int_equal(r.space_size, 66);
    assert_int_equal(fb_search_space_size(&s), 66);
    assert_int_equal(f.calls, 66);
    assert_int_equal(r.evaluations, 66);
    assert_result_consistent(&f, &r);
    for (int h = 0; h < r.nhistory; ++h)
        assert_int_equal(f.order[h], h); /* last axis fastest */
    assert_int_equal(r.best.values[0], 9);
    assert_int_equal(r.best.values[1], 7);
    assert_true(r.best_cost == cheapest_true_cost(&f));
    fb_search_result_free(&r);
    assert_null(r.history);
    assert_int_equal(r.nhistory, 0);

    fake g = {.space = &s, .shape = bowl, .oi = 4, .oj = 7};
    assert_int_equal(run_search(&g, FB_STRATEGY_EXHAUSTIVE, 20, 1, &r), FB_OK);
    assert_int_equal(g.calls, 20);
    for (int h = 0; h < r.nhistory; ++h)
        assert_int_equal(g.order[h], h);
    fb_search_result_free(&r);
}

/* ---- random --------------------------------------------------------------- */

static void test_random_whole_space_finds_optimum(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    fake f = {.space = &s, .shape = bowl, .oi = 1, .oj = 3};
    fb_search_result r;
    assert_int_equal(run_search(&f, FB_STRATEGY_RANDOM, 66, 7, &r), FB_OK);
    assert_int_equal(r.evaluations, 66);
    assert_result_consistent(&f, &r);
    assert_int_equal(r.best.values[0], 6);
    assert_int_equal(r.best.values[1], 3);
    fb_search_result_free(&r);
}

static void test_random_budget_distinct_and_seeded(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    fake a = {.space = &s, .shape = bowl, .oi = 2, .oj = 2}, b = a, c = a;
    fb_search_result ra, rb, rc;
    assert_int_equal(run_search(&a, FB_STRATEGY_RANDOM, 10, 42, &ra), FB_OK);
    assert_int_equal(run_search(&b, FB_STRATEGY_RANDOM, 10, 42, &rb), FB_OK);
    assert_int_equal(run_search(&c, FB_STRATEGY_RANDOM, 10, 43, &rc), FB_OK);
    assert_int_equal(ra.evaluations, 10);
    assert_int_equal(a.calls, 10);
    assert_result_consistent(&a, &ra);
    assert_memory_equal(a.order, b.order, sizeof a.order);
    assert_memory_not_equal(a.order, c.order, 10 * sizeof a.order[0]);
    /* the kernel's default first, whatever the seed: the best is never slower than it */
    assert_int_equal(a.order[0], flat_index(&s, &s.start));
    assert_int_equal(c.order[0], flat_index(&s, &s.start));
    assert_true(ra.best_cost <= true_cost(&a, &s.start));
    fb_search_result_free(&ra);
    fb_search_result_free(&rb);
    fb_search_result_free(&rc);
}

/* ---- anneal --------------------------------------------------------------- */

typedef struct landscape {
    const char *name;
    fb_search_space (*space)(void);
    shape_fn shape;
    int oi_lo, oi_hi, oj_lo, oj_hi, k_lo, k_hi; /* drawn per seed */
    int budget;                                 /* 0: 25% of the space, rounded up */
} landscape;

static int draw(uint64_t *rng, int lo, int hi) { return lo + (int)(test_rng(rng) % (uint64_t)(hi - lo + 1)); }

/* Runs `seeds` noisy searches, checks each run's promises and returns the
 * fraction whose best point is truly within 5% of the optimum. */
static double success(fb_strategy strategy, const landscape *l, int seeds)
{
    fb_search_space s = l->space();
    int size = fb_search_space_size(&s);
    int budget = l->budget ? l->budget : (size + 3) / 4;
    int good = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
        uint64_t rng = 1000 + (uint64_t)seed;
        fake f = {.space = &s, .shape = l->shape, .noise = 0.02, .rng = rng};
        f.oi = draw(&rng, l->oi_lo, l->oi_hi);
        f.oj = draw(&rng, l->oj_lo, l->oj_hi);
        f.k = draw(&rng, l->k_lo, l->k_hi);
        fb_search_result r;
        assert_int_equal(run_search(&f, strategy, budget, (uint64_t)seed, &r), FB_OK);
        assert_result_consistent(&f, &r);
        int evaluable = evaluable_points(&f);
        assert_int_equal(r.evaluations, budget < evaluable ? budget : evaluable);
        assert_true(isfinite(r.best_cost));
        good += true_cost(&f, &r.best) <= 1.05 * cheapest_true_cost(&f);
        fb_search_result_free(&r);
    }
    double fraction = (double)good / seeds;
    printf("%-6s %-28s budget %2d of %3d points: within 5%% in %3.0f%% of %d seeds\n", fb_strategy_name(strategy),
           l->name, budget, size, 100 * fraction, seeds);
    return fraction;
}

static const landscape landscapes[] = {
    {"bowl 6x11", multirow_space, bowl, 1, 4, 1, 9, 0, 0, 0},
    {"diagonal valley 6x11", multirow_space, valley, 2, 4, 0, 0, 2, 4, 0},
    {"vector 6x7, pruned corners", vector_space, vector_bowl, 0, 5, 0, 6, 0, 0, 0},
    /* 25% of 6 points is 2 evaluations: too few to look both ways from
     * the default, so the 1-axis case gets the default budget (4). */
    {"1 axis, 6 points", wg_space, parabola, 0, 5, 0, 0, 0, 0, 4},
};

static void test_anneal_near_optimum_with_quarter_budget(void **state)
{
    (void)state;
    for (size_t l = 0; l < sizeof landscapes / sizeof landscapes[0]; ++l)
        assert_true(success(FB_STRATEGY_ANNEAL, &landscapes[l], 50) >= 0.9);
}

static void test_anneal_default_budget_and_start(void **state)
{
    (void)state;
    fb_search_space s = vector_space();
    s.start.values[0] = 100; /* not on the axis: the nearest value, 128 */
    fake f = {.space = &s, .shape = vector_bowl, .oi = 3, .oj = 3};
    fb_search_result r;
    assert_int_equal(run_search(&f, FB_STRATEGY_ANNEAL, 0, 5, &r), FB_OK);
    assert_int_equal(r.evaluations, 11); /* a quarter of 42, rounded up */
    assert_int_equal(r.history[0].point.values[0], 128);
    assert_int_equal(r.history[0].point.values[1], 8);
    assert_result_consistent(&f, &r);
    fb_search_result_free(&r);

    fb_search_space tiny = wg_space();
    tiny.nvalues[0] = 3;
    fake g = {.space = &tiny, .shape = parabola, .oi = 0};
    assert_int_equal(run_search(&g, FB_STRATEGY_ANNEAL, 0, 5, &r), FB_OK);
    assert_int_equal(r.evaluations, 3); /* stops when every point was visited */
    assert_result_consistent(&g, &r);
    assert_int_equal(r.best.values[0], 32);
    fb_search_result_free(&r);
}

/* ---- a start and a ranking from a prior (prior.h) -------------------------- */

/* The evaluation (1-based) at which the search first measured the optimum
 * (oi, oj), or budget + 1 if it never did. */
static int evaluations_to_optimum(const fake *f, const fb_search_result *r)
{
    for (int h = 0; h < r->nhistory; ++h) {
        int i, j;
        point_coords(f->space, &r->history[h].point, &i, &j);
        if (i == f->oi && j == f->oj) return h + 1;
    }
    return r->nhistory + 1;
}

static void test_anneal_from_good_start_needs_fewer_evaluations(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    fb_param_point near_optimum = {{10, 9}}; /* indices (5, 9): one step from the optimum (5, 10) */
    int from_default = 0, from_start = 0, seeds = 50, at_once = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
        fake f = {.space = &s, .shape = bowl, .oi = 5, .oj = 10, .noise = 0.02, .rng = (uint64_t)seed};
        fake g = f;
        fb_search_result r;
        fb_search_options opt = {.strategy = FB_STRATEGY_ANNEAL, .budget = 66, .seed = (uint64_t)seed};
        assert_int_equal(fb_search(&s, &opt, fake_cost, &f, &r), FB_OK);
        assert_result_consistent(&f, &r);
        from_default += evaluations_to_optimum(&f, &r);
        fb_search_result_free(&r);

        opt.start = &near_optimum;
        assert_int_equal(fb_search(&s, &opt, fake_cost, &g, &r), FB_OK);
        assert_result_consistent(&g, &r);
        assert_int_equal(r.history[0].point.values[0], 10);
        assert_int_equal(r.history[0].point.values[1], 9);
        int n = evaluations_to_optimum(&g, &r);
        at_once += n <= 4; /* the start and its 3 one-axis neighbours (unless it took a worse step first) */
        from_start += n;
        fb_search_result_free(&r);
    }
    printf("anneal to the optimum of a corner bowl: %.1f evaluations from the default, %.1f from a prior's start"
           " (within 4 in %d of %d seeds)\n",
           (double)from_default / seeds, (double)from_start / seeds, at_once, seeds);
    assert_true(2 * from_start < from_default);
    assert_true(at_once >= 40); /* 44 of 50 here: the others accepted a worse step first */

    /* and so a budget of 4, far under a quarter of 66, reaches it every time */
    fake f = {.space = &s, .shape = bowl, .oi = 5, .oj = 10, .noise = 0.02, .rng = 7};
    fb_search_options opt = {.strategy = FB_STRATEGY_ANNEAL, .budget = 4, .seed = 7, .start = &near_optimum};
    fb_search_result r;
    assert_int_equal(fb_search(&s, &opt, fake_cost, &f, &r), FB_OK);
    assert_int_equal(r.evaluations, 4);
    assert_int_equal(r.best.values[0], 10);
    assert_int_equal(r.best.values[1], 10);
    fb_search_result_free(&r);
}

/* A ranking that prefers the points nearest (in index steps) to a target. */
typedef struct toward {
    const fb_search_space *space;
    int ti, tj;
} toward;

static double rank_toward(void *ctx, const fb_param_point *p)
{
    const toward *t = ctx;
    int i = value_index(t->space, 0, p->values[0]), j = value_index(t->space, 1, p->values[1]);
    return abs(i - t->ti) + abs(j - t->tj);
}

/* Only (oi, oj) is cheap; every other point is 5x to 500x dearer, so no
 * temperature accepts a move away from it. */
static double spike(const fake *f, int i, int j)
{
    double di = i - f->oi, dj = j - f->oj;
    return 1e-3 * (1 + 5 * (di * di + dj * dj));
}

static fb_search_space holes_space(void);

/* One axis of 16 values; index 8 is a local minimum, 2% dearer per step
 * away from it, and index 0 the global one. */
static double ridge(const fake *f, int i, int j)
{
    (void)f, (void)j;
    return i == 0 ? 0.5e-3 : 1e-3 * (1 + 0.02 * abs(i - 8));
}

static double rank_low(void *ctx, const fb_param_point *p)
{
    (void)ctx;
    return p->values[0];
}

static void test_anneal_with_ranking_descends_then_restarts(void **state)
{
    (void)state;
    fb_search_space s = holes_space();
    s.start.values[0] = 8;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        fake f = {.space = &s, .shape = ridge, .rng = seed};
        fb_search_options opt = {.strategy = FB_STRATEGY_ANNEAL, .budget = 6, .seed = seed, .rank = rank_low};
        fb_search_result r;
        assert_int_equal(fb_search(&s, &opt, fake_cost, &f, &r), FB_OK);
        /* 8, its ring 7 (ranked first) and 9, the wider 6 and 10: none is
         * taken (a 2% worse step would be, at T = 0.05, two times in
         * three), so the walk restarts at the best-ranked point, 0 */
        assert_int_equal(f.order[0], 8);
        assert_int_equal(f.order[1], 7);
        assert_int_equal(f.order[2], 9);
        assert_int_equal(f.order[5], 0);
        assert_true(r.best.values[0] == 0);
        fb_search_result_free(&r);
    }
}

static void test_anneal_follows_the_ranking(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        /* first move: the best-ranked neighbour (3, 4), though (2, 5) has more room ahead */
        toward t = {.space = &s, .ti = 5, .tj = 4};
        fake f = {.space = &s, .shape = bowl, .oi = 5, .oj = 4, .rng = seed};
        fb_search_options opt = {
            .strategy = FB_STRATEGY_ANNEAL, .budget = 10, .seed = seed, .rank = rank_toward, .rank_ctx = &t};
        fb_search_result r;
        assert_int_equal(fb_search(&s, &opt, fake_cost, &f, &r), FB_OK);
        assert_int_equal(f.order[0], 2 * 11 + 4); /* the default (7, 4) */
        assert_int_equal(f.order[1], 3 * 11 + 4);
        assert_int_equal(evaluations_to_optimum(&f, &r), 4); /* then straight on */
        assert_result_consistent(&f, &r);
        fb_search_result_free(&r);

        /* a restart jumps to the best-ranked unvisited point: from the
         * default at the spike, 4 + 8 neighbours, then (0, 10) */
        toward far = {.space = &s, .ti = 0, .tj = 10};
        fake g = {.space = &s, .shape = spike, .oi = 2, .oj = 4, .rng = seed};
        opt.budget = 20;
        opt.rank_ctx = &far;
        assert_int_equal(fb_search(&s, &opt, fake_cost, &g, &r), FB_OK);
        assert_int_equal(g.order[13], 0 * 11 + 10);
        assert_result_consistent(&g, &r);
        fb_search_result_free(&r);
    }
}

/* ---- bayes ---------------------------------------------------------------- */

/* On the same landscapes and budgets as anneal, Bayesian optimisation
 * lands within 5% at least as often as a line it must clear. */
static void test_bayes_near_optimum_with_quarter_budget(void **state)
{
    (void)state;
    for (size_t l = 0; l < sizeof landscapes / sizeof landscapes[0]; ++l)
        assert_true(success(FB_STRATEGY_BAYES, &landscapes[l], 50) >= 0.9);
}

/* A seed gives one trace: the same points in the same order, every time;
 * and each point once. */
static void test_bayes_seeded(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    fake a = {.space = &s, .shape = valley, .oi = 3, .k = 2, .noise = 0.02, .rng = 9}, b = a, c = a;
    fb_search_result ra, rb, rc;
    assert_int_equal(run_search(&a, FB_STRATEGY_BAYES, 16, 5, &ra), FB_OK);
    assert_int_equal(run_search(&b, FB_STRATEGY_BAYES, 16, 5, &rb), FB_OK);
    assert_int_equal(run_search(&c, FB_STRATEGY_BAYES, 16, 6, &rc), FB_OK);
    assert_result_consistent(&a, &ra);
    assert_int_equal(ra.evaluations, 16);
    assert_int_equal(a.calls, b.calls);
    assert_memory_equal(a.order, b.order, (size_t)a.calls * sizeof a.order[0]);
    assert_int_equal(a.order[0], flat_index(&s, &s.start)); /* the default first */
    assert_int_equal(c.order[0], a.order[0]);
    assert_memory_not_equal(a.order, c.order, (size_t)a.calls * sizeof a.order[0]); /* another seed, another draw */
    fb_search_result_free(&ra);
    fb_search_result_free(&rb);
    fb_search_result_free(&rc);
}

/* A prior's expected cost ratio: 1 at the target, growing with the steps. */
static double ratio_toward(void *ctx, const fb_param_point *p) { return 1.0 + rank_toward(ctx, p); }

/* With a ranking that knows the basin, the model's mean is the ranking:
 * the search goes there right after the start, with no random draw. */
static void test_bayes_follows_the_ranking(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        toward t = {.space = &s, .ti = 5, .tj = 10};
        fake f = {.space = &s, .shape = bowl, .oi = 5, .oj = 10, .rng = seed};
        fb_search_options opt = {
            .strategy = FB_STRATEGY_BAYES, .budget = 4, .seed = seed, .rank = ratio_toward, .rank_ctx = &t};
        fb_search_result r;
        assert_int_equal(fb_search(&s, &opt, fake_cost, &f, &r), FB_OK);
        assert_result_consistent(&f, &r);
        assert_int_equal(f.order[0], 2 * 11 + 4); /* the default (7, 4) */
        assert_int_equal(evaluations_to_optimum(&f, &r), 2);
        fb_search_result_free(&r);
    }
}

/* ---- pruned, failed and interrupted evaluations --------------------------- */

/* 16 values on one axis: odd indices pruned, index 4 fails, minimum at 10. */
static double holes(const fake *f, int i, int j)
{
    (void)f, (void)j;
    if (i % 2) return NAN;
    if (i == 4) return INFINITY;
    return 1e-3 * (1 + 0.01 * (i - 10) * (i - 10));
}

static fb_search_space holes_space(void)
{
    fb_search_space s = {.naxes = 1, .nvalues = {16}};
    for (int k = 0; k < 16; ++k)
        s.values[0][k] = k;
    s.start.values[0] = 4;
    return s;
}

static void test_pruned_points_are_free_failures_count(void **state)
{
    (void)state;
    fb_search_space s = holes_space();
    for (int strategy = FB_STRATEGY_EXHAUSTIVE; strategy <= FB_STRATEGY_BAYES; ++strategy) {
        fake f = {.space = &s, .shape = holes};
        fb_search_result r;
        assert_int_equal(run_search(&f, (fb_strategy)strategy, 5, 3, &r), FB_OK);
        assert_int_equal(r.evaluations, 5);
        assert_result_consistent(&f, &r);
        int failed = 0;
        for (int h = 0; h < r.nhistory; ++h)
            failed += isinf(r.history[h].cost);
        if (strategy == FB_STRATEGY_EXHAUSTIVE) {
            /* indices 0..8: 0 2 4(failed) 6 8 evaluated, 1 3 5 7 pruned */
            assert_int_equal(r.nhistory, 9);
            assert_int_equal(r.pruned, 4);
            assert_int_equal(failed, 1);
            assert_int_equal(r.best.values[0], 8);
        }
        if (fb_strategy_starts((fb_strategy)strategy)) assert_int_equal(failed, 1); /* starts at the failing default */
        fb_search_result_free(&r);
    }
}

static double nothing_runs(const fake *f, int i, int j)
{
    (void)f, (void)j;
    return i % 3 ? NAN : INFINITY;
}

/* Every point pruned or failed: the search still ends, with no best. */
static void test_nothing_runs(void **state)
{
    (void)state;
    fb_search_space s = holes_space();
    for (int strategy = FB_STRATEGY_EXHAUSTIVE; strategy <= FB_STRATEGY_BAYES; ++strategy) {
        fake f = {.space = &s, .shape = nothing_runs};
        fb_search_result r;
        assert_int_equal(run_search(&f, (fb_strategy)strategy, 100, 3, &r), FB_OK);
        assert_int_equal(f.calls, 16);
        assert_int_equal(r.evaluations, 6); /* 0 3 6 9 12 15 failed */
        assert_int_equal(r.pruned, 10);
        assert_true(isinf(r.best_cost));
        assert_result_consistent(&f, &r);
        fb_search_result_free(&r);
    }
}

static void test_interrupt_stops_and_keeps_result(void **state)
{
    (void)state;
    fb_search_space s = multirow_space();
    for (int strategy = FB_STRATEGY_EXHAUSTIVE; strategy <= FB_STRATEGY_ANNEAL; ++strategy) {
        fake f = {.space = &s, .shape = bowl, .oi = 2, .oj = 5, .fail_at = 4};
        fb_search_result r;
        assert_int_equal(run_search(&f, (fb_strategy)strategy, 0, 9, &r), FB_ERR_INTERRUPTED);
        /* the 4th call failed: the 3 that answered are kept, the 4th is not recorded */
        assert_int_equal(f.calls, 4);
        assert_int_equal(r.nhistory, 3);
        assert_int_equal(r.evaluations, 3);
        double best = fmin(r.history[0].cost, fmin(r.history[1].cost, r.history[2].cost));
        assert_true(r.best_cost == best);
        fb_search_result_free(&r);
    }
}

static void test_single_point_space(void **state)
{
    (void)state;
    fb_search_space s = {.naxes = 0};
    fake f = {.space = &s, .shape = parabola};
    for (int strategy = FB_STRATEGY_EXHAUSTIVE; strategy <= FB_STRATEGY_ANNEAL; ++strategy) {
        memset(f.called, 0, sizeof f.called);
        f.calls = 0;
        fb_search_result r;
        assert_int_equal(run_search(&f, (fb_strategy)strategy, 0, 1, &r), FB_OK);
        assert_int_equal(r.space_size, 1);
        assert_int_equal(f.calls, 1);
        assert_int_equal(r.evaluations, 1);
        assert_true(isfinite(r.best_cost));
        fb_search_result_free(&r);
    }
}

/* ---- usage errors ----------------------------------------------------------- */

static void assert_space_rejected(const fb_search_space *s)
{
    fake f = {.space = s, .shape = parabola};
    fb_search_result r;
    assert_int_equal(run_search(&f, FB_STRATEGY_EXHAUSTIVE, 0, 1, &r), FB_ERR_USAGE);
    assert_int_equal(f.calls, 0);
    assert_int_equal(r.nhistory, 0);
    assert_true(isinf(r.best_cost));
    fb_search_result_free(&r);
}

static void test_bad_spaces_rejected(void **state)
{
    (void)state;
    fb_search_space s = wg_space();
    s.naxes = FB_MAX_PARAMS + 1;
    assert_space_rejected(&s);
    assert_non_null(strstr(fb_error_message(), "7 axes"));
    s.naxes = -1;
    assert_space_rejected(&s);
    s = wg_space();
    s.nvalues[0] = 0;
    assert_space_rejected(&s);
    assert_non_null(strstr(fb_error_message(), "0 values"));
    s.nvalues[0] = FB_MAX_PARAM_VALUES + 1;
    assert_space_rejected(&s);
}

static void test_strategy_names(void **state)
{
    (void)state;
    fb_strategy st = FB_STRATEGY_EXHAUSTIVE;
    for (int k = FB_STRATEGY_EXHAUSTIVE; k <= FB_STRATEGY_BAYES; ++k) {
        assert_int_equal(fb_strategy_parse(fb_strategy_name((fb_strategy)k), &st), FB_OK);
        assert_int_equal(st, k);
    }
    assert_string_equal(fb_strategy_name(FB_STRATEGY_ANNEAL), "anneal");
    assert_string_equal(fb_strategy_name(FB_STRATEGY_BAYES), "bayes");
    assert_true(fb_strategy_starts(FB_STRATEGY_BAYES) && fb_strategy_starts(FB_STRATEGY_ANNEAL));
    assert_false(fb_strategy_starts(FB_STRATEGY_RANDOM) || fb_strategy_starts(FB_STRATEGY_EXHAUSTIVE));
    assert_int_equal(fb_strategy_parse("annealing", &st), FB_ERR_USAGE);
    assert_string_equal(fb_error_message(), "--strategy: 'annealing' is not exhaustive, random, anneal or bayes");
    assert_int_equal(fb_strategy_parse("", &st), FB_ERR_USAGE);
    assert_int_equal(fb_strategy_parse("Random", &st), FB_ERR_USAGE);
    assert_int_equal(st, FB_STRATEGY_BAYES); /* the last parsed, untouched on error */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exhaustive_finds_exact_optimum_in_order),
        cmocka_unit_test(test_random_whole_space_finds_optimum),
        cmocka_unit_test(test_random_budget_distinct_and_seeded),
        cmocka_unit_test(test_anneal_near_optimum_with_quarter_budget),
        cmocka_unit_test(test_anneal_default_budget_and_start),
        cmocka_unit_test(test_anneal_from_good_start_needs_fewer_evaluations),
        cmocka_unit_test(test_anneal_follows_the_ranking),
        cmocka_unit_test(test_anneal_with_ranking_descends_then_restarts),
        cmocka_unit_test(test_bayes_near_optimum_with_quarter_budget),
        cmocka_unit_test(test_bayes_seeded),
        cmocka_unit_test(test_bayes_follows_the_ranking),
        cmocka_unit_test(test_pruned_points_are_free_failures_count),
        cmocka_unit_test(test_nothing_runs),
        cmocka_unit_test(test_interrupt_stops_and_keeps_result),
        cmocka_unit_test(test_single_point_space),
        cmocka_unit_test(test_bad_spaces_rejected),
        cmocka_unit_test(test_strategy_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
