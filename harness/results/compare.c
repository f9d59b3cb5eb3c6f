/* compare.c - Mann-Whitney U, the SAME/FASTER/SLOWER rule, the machine
 * check and the comparison table of `flowbench compare`. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/stats.h"

/* Exact p-values are counted for samples up to this size (no ties): the
 * table has (m+1)(n+1)(mn+1) entries, 1.4 MB at 20 x 20. */
#define EXACT_MAX 20
#define LIST_MAX 10 /* "only in" lists longer than this are cut */

fb_compare_options fb_compare_defaults(void)
{
    fb_compare_options o = {0.05, 0.01, 0, 0};
    return o;
}

const char *fb_verdict_name(fb_verdict v) { return v == FB_SLOWER ? "SLOWER" : v == FB_FASTER ? "FASTER" : "SAME"; }

typedef struct tagged {
    double v;
    int from_a;
} tagged;

static int cmp_tagged(const void *x, const void *y)
{
    double a = ((const tagged *)x)->v, b = ((const tagged *)y)->v;
    return (a > b) - (a < b);
}

/* P(U <= u) for sample sizes m, n without ties: the count of orderings of
 * m + n values with U_A = k obeys f(i,j,k) = f(i-1,j,k-j) + f(i,j-1,k)
 * (the largest value is either an A, which beats all j B's, or a B). */
static double exact_cdf(int m, int n, double u)
{
    int K = m * n + 1;
    double *f = calloc((size_t)(m + 1) * (size_t)(n + 1) * (size_t)K, sizeof *f), total = 0, below = 0;
    if (!f) return 1.0; /* cannot count: report no evidence rather than a false alarm */
#define F(i, j, k) f[((size_t)(i) * (size_t)(n + 1) + (size_t)(j)) * (size_t)K + (size_t)(k)]
    F(0, 0, 0) = 1;
    for (int i = 0; i <= m; ++i)
        for (int j = 0; j <= n; ++j)
            for (int k = 0; k <= i * j && (i || j); ++k)
                F(i, j, k) = (i > 0 && k >= j ? F(i - 1, j, k - j) : 0) + (j > 0 ? F(i, j - 1, k) : 0);
    for (int k = 0; k < K; ++k) {
        total += F(m, n, k);
        if (k <= u + 1e-9) below += F(m, n, k);
    }
#undef F
    free(f);
    return below / total;
}

/* Sum of the ranks of a's values (ties get their average rank) and the tie
 * term sum(t^3 - t) over groups of t equal values. */
static double rank_sum(tagged *all, int N, double *ties)
{
    double r1 = 0;
    *ties = 0;
    qsort(all, (size_t)N, sizeof *all, cmp_tagged);
    for (int i = 0; i < N;) {
        int j = i;
        while (j + 1 < N && all[j + 1].v == all[i].v)
            ++j;
        double t = j - i + 1, rank = 0.5 * (i + j) + 1;
        for (int k = i; k <= j; ++k)
            if (all[k].from_a) r1 += rank;
        *ties += t * t * t - t;
        i = j + 1;
    }
    return r1;
}

fb_sample_test fb_mann_whitney(const double *a, int na, const double *b, int nb)
{
    fb_sample_test t = {0, 1.0, 0};
    int N = na + nb;
    double m = na, n = nb, ties;
    tagged *all = malloc((size_t)N * sizeof *all);
    if (!all || na < 1 || nb < 1) goto done; /* no evidence of a difference */
    for (int i = 0; i < na; ++i)
        all[i] = (tagged){a[i], 1};
    for (int i = 0; i < nb; ++i)
        all[na + i] = (tagged){b[i], 0};
    t.u = rank_sum(all, N, &ties) - m * (m + 1) / 2;
    if (ties == 0 && na <= EXACT_MAX && nb <= EXACT_MAX) {
        t.exact = 1;
        t.p = fmin(1.0, 2 * exact_cdf(na, nb, fmin(t.u, m * n - t.u)));
    } else {
        double var = m * n / 12 * ((N + 1) - ties / ((double)N * (N - 1)));
        double z = var > 0 ? fmax(0, fabs(t.u - m * n / 2) - 0.5) / sqrt(var) : 0;
        t.p = erfc(z / sqrt(2.0));
    }
done:
    free(all);
    return t;
}

static fb_comparison verdict(double base_median, double new_median, fb_sample_test test, double noise,
                             const fb_compare_options *opt)
{
    fb_comparison c;
    double floor = fmax(opt->threshold, noise);
    memset(&c, 0, sizeof c);
    c.base_median = base_median;
    c.new_median = new_median;
    c.change = base_median > 0 ? new_median / base_median - 1 : 0;
    c.noise = noise;
    c.test = test;
    c.verdict = FB_SAME;
    if (c.test.p < opt->alpha && c.change >= floor) c.verdict = FB_SLOWER;
    if (c.test.p < opt->alpha && c.change <= -floor) c.verdict = FB_FASTER;
    return c;
}

fb_comparison fb_compare_samples(const double *base, int nbase, const double *next, int nnext, double noise,
                                 const fb_compare_options *opt)
{
    return verdict(fb_median(base, (size_t)nbase), fb_median(next, (size_t)nnext),
                   fb_mann_whitney(base, nbase, next, nnext), noise, opt);
}

double fb_run_spread(const double *medians, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; ++i) {
        lo = fmin(lo, medians[i]);
        hi = fmax(hi, medians[i]);
    }
    return n > 1 && lo > 0 ? hi / lo - 1 : 0;
}

/* ---- machine check ---------------------------------------------------- */

/* 1 if every header of `a` has a value at `path` that some header of `b` has. */
static int header_values_within(const fb_results_set *a, const fb_results_set *b, const char *path)
{
    for (int i = 0; i < a->nheaders; ++i) {
        int found = 0;
        for (int j = 0; j < b->nheaders && !found; ++j)
            found = json_equal(fb_json_get(a->headers[i], path), fb_json_get(b->headers[j], path)) ||
                    (!fb_json_get(a->headers[i], path) && !fb_json_get(b->headers[j], path));
        if (!found) return 0;
    }
    return 1;
}

static int has_device(const fb_results_set *s, const char *backend, const char *name, int *backend_seen)
{
    for (int h = 0; h < s->nheaders; ++h) {
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(s->headers[h], "devices"), i, d)
        {
            if (strcmp(fb_json_str(d, "backend"), backend) != 0) continue;
            *backend_seen = 1;
            if (strcmp(fb_json_str(d, "name"), name) == 0) return 1;
        }
    }
    return 0;
}

/* A device of a backend both files used, present in only one of them: the
 * hardware changed (a GPU swapped), not just a backend missing. */
static fb_status check_devices(const fb_results_set *a, const fb_results_set *b, const char *an, const char *bn)
{
    fb_status status = FB_OK;
    for (int h = 0; h < a->nheaders; ++h) {
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(a->headers[h], "devices"), i, d)
        {
            int seen = 0;
            const char *backend = fb_json_str(d, "backend"), *name = fb_json_str(d, "name");
            if (!has_device(b, backend, name, &seen) && seen)
                FB_FAIL(FB_ERR_INPUT,
                        "different machines: %s has %s device '%s', %s does not (--any-machine compares anyway)", an,
                        backend, name, bn);
        }
    }
fail:
    return status;
}

static void note_difference(const fb_results_set *base, const fb_results_set *next, const char *path, FILE *notes)
{
    if (header_values_within(base, next, path) && header_values_within(next, base, path)) return;
    char *a = json_dumps(fb_json_get(base->headers[0], path), JSON_ENCODE_ANY);
    char *b = json_dumps(fb_json_get(next->headers[0], path), JSON_ENCODE_ANY);
    fprintf(notes, "note: %s differs: BASE %s, NEW %s\n", path, a ? a : "(none)", b ? b : "(none)");
    free(a);
    free(b);
}

fb_status fb_compare_machines(const fb_results_set *base, const fb_results_set *next, FILE *notes)
{
    fb_status status = FB_OK;
    static const char *const informative[] = {"host.hostname", "host.omp_threads",   "build.compiler",
                                              "build.flags",   "build.git_revision", NULL};
    if (!base->nheaders || !next->nheaders) {
        fprintf(notes, "note: %s has no header record: the machines were not checked\n",
                base->nheaders ? next->path : base->path);
        return FB_OK;
    }
    if (!header_values_within(base, next, "host.cpu") || !header_values_within(next, base, "host.cpu"))
        FB_FAIL(FB_ERR_INPUT, "different machines: BASE ran on CPU '%s', NEW on '%s' (--any-machine compares anyway)",
                fb_json_str(base->headers[0], "host.cpu"), fb_json_str(next->headers[0], "host.cpu"));
    FB_CHECK(check_devices(base, next, "BASE", "NEW"));
    FB_CHECK(check_devices(next, base, "NEW", "BASE"));
    for (int i = 0; informative[i]; ++i)
        note_difference(base, next, informative[i], notes);
fail:
    return status;
}

/* ---- the table ---------------------------------------------------------- */

static void format_time(double s, char *buf, size_t len)
{
    if (s >= 1)
        snprintf(buf, len, "%.4g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g us", s * 1e6);
}

static void format_p(double p, char *buf, size_t len)
{
    if (p < 0.001)
        snprintf(buf, len, "<0.001");
    else
        snprintf(buf, len, "%.3f", p);
}

static void print_head(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt, FILE *out)
{
    if (opt->markdown) {
        fprintf(out, "### flowbench compare: `%s` -> `%s`\n\n", base->path, next->path);
        fprintf(out,
                "SLOWER/FASTER: median time moved by >= %.3g%% (and by more than the noise between too few repeated "
                "runs), and Mann-Whitney U p < %g.\n\n",
                100 * opt->threshold, opt->alpha);
        fprintf(out, "| verdict | configuration | base median | new median | change | noise | p | evidence |\n");
        fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|\n");
        return;
    }
    fprintf(out, "compare %s -> %s: SLOWER/FASTER when the median time moves by >= %.3g%%\n", base->path, next->path,
            100 * opt->threshold);
    fprintf(out, "and a two-sided Mann-Whitney U test rejects equal distributions at alpha = %g: over the\n",
            opt->alpha);
    fprintf(out, "samples, or over run medians when both files repeat a configuration often enough (then\n");
    fprintf(out, "between-run noise is in the test); with fewer repeats the change must also exceed the\n");
    fprintf(out, "spread of the run medians (noise)\n\n");
    fprintf(out, "%-7s %8s %6s %7s %11s %11s %26s  %s\n", "verdict", "change", "noise", "p", "base", "new", "evidence",
            "configuration");
}

/* The runs of one configuration in one file, pooled: repeated runs are
 * repetitions, and the spread of their medians is the between-run noise
 * (machine state that no single run's samples can show). */
typedef struct pooled {
    double *samples, *medians; /* every usable sample; each usable run's median */
    int n, runs, usable;
    double median; /* median of the run medians: every run counts once */
    double noise;
    const fb_record *last, *last_failed;
} pooled;

static fb_status pool_runs(const fb_results_set *set, const char *key, pooled *p)
{
    fb_status status = FB_OK;
    int first;
    size_t count = (size_t)fb_results_find_all(set, key, &first), total = 0;
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < count; ++i)
        total += (size_t)set->records[set->by_key[first + (int)i]].nsamples;
    FB_ALLOC(p->samples, total, "pooled samples");
    FB_ALLOC(p->medians, count, "run medians");
    for (size_t i = 0; i < count; ++i) {
        const fb_record *r = &set->records[set->by_key[first + (int)i]];
        p->runs++;
        p->last = r;
        if (!fb_record_usable(r)) {
            p->last_failed = r;
            continue;
        }
        memcpy(p->samples + p->n, r->samples, (size_t)r->nsamples * sizeof *p->samples);
        p->n += r->nsamples;
        p->medians[p->usable++] = fb_median(r->samples, (size_t)r->nsamples); /* the samples are the truth */
    }
    p->noise = fb_run_spread(p->medians, p->usable);
    p->median = fb_median(p->medians, (size_t)p->usable);
fail:
    return status;
}

static void pooled_free(pooled *p)
{
    free(p->samples);
    free(p->medians);
    p->samples = p->medians = NULL;
}

/* The smallest two-sided p the exact test can give for m and n values
 * (complete separation): 2 / C(m + n, m). */
static double smallest_p(int m, int n)
{
    double c = 1;
    for (int i = 1; i <= m; ++i)
        c = c * (n + i) / i;
    return fmin(1, 2 / c);
}

/* Runs are the unit of replication once there are enough of them for the
 * rank test over run medians to reach alpha (5 x 5 at 0.01): between-run
 * noise is then inside the test. With fewer, every sample goes into the
 * test and the spread of the run medians is the noise floor. */
static fb_comparison compare_pooled(const pooled *b, const pooled *n, const fb_compare_options *opt, int *by_runs)
{
    *by_runs = b->usable > 1 && n->usable > 1 && smallest_p(b->usable, n->usable) < opt->alpha;
    if (*by_runs)
        return verdict(b->median, n->median, fb_mann_whitney(b->medians, b->usable, n->medians, n->usable), 0, opt);
    return verdict(b->median, n->median, fb_mann_whitney(b->samples, b->n, n->samples, n->n), fmax(b->noise, n->noise),
                   opt);
}

/* What the test was run on: "20/20 samples", "7x7 runs" (run medians) or
 * "300/255 samples, 3x3 runs" (samples, run spread as the noise floor). */
static void evidence_text(const pooled *b, const pooled *n, int by_runs, char *buf, size_t len)
{
    if (by_runs)
        snprintf(buf, len, "%dx%d runs", b->usable, n->usable);
    else if (b->usable > 1 || n->usable > 1)
        snprintf(buf, len, "%d/%d samples, %dx%d runs", b->n, n->n, b->usable, n->usable);
    else
        snprintf(buf, len, "%d/%d samples", b->n, n->n);
}

static void print_pair(const pooled *b, const pooled *n, const fb_comparison *c, int by_runs,
                       const fb_compare_options *opt, FILE *out)
{
    char label[1024], tb[32], tn[32], p[16], counts[64], noise[16] = "-";
    fb_record_label(n->last, label, sizeof label);
    format_time(c->base_median, tb, sizeof tb);
    format_time(c->new_median, tn, sizeof tn);
    format_p(c->test.p, p, sizeof p);
    if (!by_runs && (b->usable > 1 || n->usable > 1)) snprintf(noise, sizeof noise, "%.1f%%", 100 * c->noise);
    evidence_text(b, n, by_runs, counts, sizeof counts);
    if (opt->markdown)
        fprintf(out, "| %s%s%s | %s | %s | %s | %+.1f%% | %s | %s | %s |\n", c->verdict == FB_SAME ? "" : "**",
                fb_verdict_name(c->verdict), c->verdict == FB_SAME ? "" : "**", label, tb, tn, 100 * c->change, noise,
                p, counts);
    else
        fprintf(out, "%-7s %+7.1f%% %6s %7s %11s %11s %26s  %s\n", fb_verdict_name(c->verdict), 100 * c->change, noise,
                p, tb, tn, counts, label);
}

static void count_verdict(fb_verdict v, fb_compare_summary *s)
{
    if (v == FB_SLOWER)
        s->slower++;
    else if (v == FB_FASTER)
        s->faster++;
    else
        s->same++;
}

static void print_failure(const char *side, const fb_results_set *set, const fb_record *r,
                          const fb_compare_options *opt, FILE *out)
{
    char label[1024], why[512];
    fb_record_label(r, label, sizeof label);
    fb_record_failure(r, why, sizeof why);
    fprintf(out, "%s%s %s line %d: %s: %s\n", opt->markdown ? "- " : "  ", side, set->path, r->line, label, why);
}

/* One pass over BASE's configurations in file order: compared pairs are
 * printed (failures == 0), or pairs a side has no usable run of (failures). */
static fb_status visit_pairs(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt,
                             int failures, FILE *out, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    pooled b = {0}, n = {0};
    for (int i = 0; i < base->nrecords; ++i) {
        int first;
        if (base->records[i].superseded || !fb_results_find_all(next, base->records[i].key, &first)) continue;
        FB_CHECK(pool_runs(base, base->records[i].key, &b));
        FB_CHECK(pool_runs(next, base->records[i].key, &n));
        if (failures && (!b.usable || !n.usable)) {
            if (!s->failed++) fprintf(out, "\nfailed, not compared (no run with status ok and samples):\n");
            if (!b.usable) print_failure("BASE", base, b.last_failed, opt, out);
            if (!n.usable) print_failure("NEW", next, n.last_failed, opt, out);
        } else if (!failures && b.usable && n.usable) {
            int by_runs;
            fb_comparison c = compare_pooled(&b, &n, opt, &by_runs);
            count_verdict(c.verdict, s);
            print_pair(&b, &n, &c, by_runs, opt, out);
        }
        pooled_free(&b);
        pooled_free(&n);
    }
fail:
    pooled_free(&b);
    pooled_free(&n);
    return status;
}

/* Configurations of `a` that `b` lacks. */
static int list_unpaired(const fb_results_set *a, const fb_results_set *b, const char *title,
                         const fb_compare_options *opt, FILE *out)
{
    int count = 0;
    char label[1024];
    for (int i = 0; i < a->nrecords; ++i) {
        const fb_record *r = &a->records[i];
        if (r->superseded || fb_results_find(b, r->key)) continue;
        if (!count) fprintf(out, "\n%s (not compared):\n", title);
        fb_record_label(r, label, sizeof label);
        if (count++ < LIST_MAX) fprintf(out, "%s%s\n", opt->markdown ? "- " : "  ", label);
    }
    if (count > LIST_MAX) fprintf(out, "%s... and %d more\n", opt->markdown ? "- " : "  ", count - LIST_MAX);
    return count;
}

fb_status fb_compare_sets(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt,
                          FILE *out, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    memset(s, 0, sizeof *s);
    print_head(base, next, opt, out);
    FB_CHECK(visit_pairs(base, next, opt, 0, out, s));
    FB_CHECK(visit_pairs(base, next, opt, 1, out, s));
    s->only_base = list_unpaired(base, next, "only in BASE", opt, out);
    s->only_new = list_unpaired(next, base, "only in NEW", opt, out);
    fprintf(out, "\n%s%d SLOWER, %d FASTER, %d SAME; %d failed, %d only in BASE, %d only in NEW%s\n",
            opt->markdown ? "**" : "summary: ", s->slower, s->faster, s->same, s->failed, s->only_base, s->only_new,
            opt->markdown ? "**" : "");
    if (s->same + s->faster + s->slower + s->failed == 0)
        FB_FAIL(FB_ERR_INPUT, "compare: no configuration of %s is in %s (nothing to compare)", base->path, next->path);
fail:
    return status;
}
