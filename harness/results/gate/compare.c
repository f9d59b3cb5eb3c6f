/* compare.c - Mann-Whitney U, the SAME/FASTER/SLOWER rule, the machine
 * check and the comparison table of `flowbench compare`. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../records/export.h"
#include "../../core/grow.h"
#include "../../core/stats.h"

/* Exact p-values are counted for samples up to this size (no ties): the
 * table has (m+1)(n+1)(mn+1) entries, 1.4 MB at 20 x 20. */
#define EXACT_MAX 20
#define LIST_MAX 10 /* "only in" lists longer than this are cut */

fb_compare_options fb_compare_defaults(void)
{
    fb_compare_options o = {
        .threshold = 0.05, .alpha = 0.01, .pair_by = FB_PAIR_CONFIG, .floor_cap = FB_COMPARE_FLOOR_CAP};
    return o;
}

const char *fb_verdict_name(fb_verdict v)
{
    static const char *const names[] = {"SAME",  "FASTER",  "SLOWER", "INCONCLUSIVE",
                                        "WRONG", "MISSING", "FAILED", "NEW"};
    return v >= FB_SAME && v <= FB_NEW_ONLY ? names[v] : "?";
}

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

double fb_change_size(double change)
{
    double r = 1 + change;
    return r > 0 ? fmax(r, 1 / r) - 1 : INFINITY;
}

static fb_comparison verdict(double base_median, double new_median, fb_sample_test test, double noise,
                             const fb_compare_options *opt)
{
    fb_comparison c;
    memset(&c, 0, sizeof c);
    c.base_median = base_median;
    c.new_median = new_median;
    c.change = base_median > 0 ? new_median / base_median - 1 : 0;
    c.noise = noise;
    c.test = test;
    c.verdict = FB_SAME;
    double size = fb_change_size(c.change);
    if (c.test.p >= opt->alpha || size < opt->threshold) return c;
    if (size <= noise)
        c.verdict = FB_INCONCLUSIVE;
    else
        c.verdict = c.change > 0 ? FB_SLOWER : FB_FASTER;
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

void fb_compare_format_time(double s, char *buf, size_t len)
{
    if (s >= 1)
        snprintf(buf, len, "%.4g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g us", s * 1e6);
}

void fb_compare_shorten(const char *why, size_t max, char *buf, size_t len)
{
    size_t n = strlen(why), cut;
    if (max + 4 > len) max = len > 4 ? len - 4 : 0;
    if (n <= max) {
        snprintf(buf, len, "%s", why);
        return;
    }
    for (cut = max; cut > max / 2 && why[cut] != ' '; --cut) /* a word boundary in the second half */
        ;
    if (why[cut] != ' ') cut = max;
    while (cut > 0 && (why[cut - 1] == ',' || why[cut - 1] == ' ' || why[cut - 1] == ':' || why[cut - 1] == ';'))
        --cut;
    snprintf(buf, len, "%.*s...", (int)cut, why);
}

void fb_compare_format_p(double p, char *buf, size_t len)
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
                "SLOWER/FASTER: median time moved by >= %.3g%% and Mann-Whitney U p < %g, beyond the noise (the "
                "spread of repeated runs, or the machine's learned A/A floor, marked A). INCONCLUSIVE: significant "
                "but inside that noise, resting on a contended or unstable run, or a floor above the %.3g%% cap "
                "(does not fail). WRONG: NEW's result failed its check. MISSING: NEW has no usable record of it.\n\n",
                100 * opt->threshold, opt->alpha, 100 * opt->floor_cap);
        fprintf(out, "| verdict | configuration | base median | new median | change | noise | p | evidence |\n");
        fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|\n");
        return;
    }
    fprintf(out, "compare %s -> %s: SLOWER/FASTER when the median time moves by >= %.3g%%\n", base->path, next->path,
            100 * opt->threshold);
    fprintf(out, "and a two-sided Mann-Whitney U test rejects equal distributions at alpha = %g: over the\n",
            opt->alpha);
    fprintf(out, "samples, or over run medians when both files repeat a configuration often enough (then\n");
    fprintf(out, "between-run noise is in the test). A change no larger than the noise - the spread of\n");
    /* no line starts with a verdict's name: scripts count rows with grep '^SLOWER ' */
    fprintf(out, "the run medians, or the machine's A/A floor learned with --learn-noise (marked A) - is\n");
    fprintf(out, "called INCONCLUSIVE and does not fail; so is a change resting on a contended or unstable\n");
    fprintf(out, "run, or on a configuration whose floor is above %.3g%% (this machine cannot gate it).\n",
            100 * opt->floor_cap);
    fprintf(out, "WRONG: NEW's result failed its check;\n");
    fprintf(out, "MISSING: BASE measured it, NEW has no usable record of it\n\n");
    fprintf(out, "%-12s %8s %7s %7s %11s %11s %26s  %s\n", "verdict", "change", "noise", "p", "base", "new", "evidence",
            "configuration");
}

/* ---- pairing ------------------------------------------------------------ */

/* A file's records keyed by what they measured. The reader's key also holds
 * suite and case, which say who asked for the measurement, not what it was:
 * an spmv record and a sweep record of one configuration must pair. */
typedef struct pair_index {
    const fb_results_set *set;
    char **key;      /* per record: benchmark|kernel|backend|device|precision|params|problem|cold[|kernel file hash] */
    char **unhashed; /* per record: the same without the kernel file's hash (--pair-by kernel: an edited kernel) */
    char **family;   /* per record: the same without params and hash (--pair-by kernel: a changed setting) */
    int *order;      /* record indices sorted by key, then file order */
} pair_index;

static const pair_index *sort_index; /* qsort has no context argument in C11 */

static int cmp_index(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b, c = strcmp(sort_index->key[i], sort_index->key[j]);
    return c ? c : (i > j) - (i < j);
}

static void index_free(pair_index *ix)
{
    for (int i = 0; ix->key && ix->unhashed && ix->family && i < ix->set->nrecords; ++i) {
        free(ix->key[i]);
        free(ix->unhashed[i]);
        free(ix->family[i]);
    }
    free(ix->key);
    free(ix->unhashed);
    free(ix->family);
    free(ix->order);
    memset(ix, 0, sizeof *ix);
}

static fb_status index_build(const fb_results_set *set, pair_index *ix)
{
    fb_status status = FB_OK;
    int n = set->nrecords;
    memset(ix, 0, sizeof *ix);
    ix->set = set;
    ix->key = calloc((size_t)n + 1, sizeof *ix->key);
    ix->unhashed = calloc((size_t)n + 1, sizeof *ix->unhashed);
    ix->family = calloc((size_t)n + 1, sizeof *ix->family);
    ix->order = calloc((size_t)n + 1, sizeof *ix->order);
    if (!ix->key || !ix->unhashed || !ix->family || !ix->order)
        FB_FAIL(FB_ERR_NOMEM, "out of host memory pairing %s", set->path);
    for (int i = 0; i < n; ++i) {
        ix->key[i] = fb_measured_key(set->records[i].json, FB_KEY_PARAMS | FB_KEY_FILE);
        ix->unhashed[i] = fb_measured_key(set->records[i].json, FB_KEY_PARAMS);
        ix->family[i] = fb_measured_key(set->records[i].json, 0);
        ix->order[i] = i;
        if (!ix->key[i] || !ix->unhashed[i] || !ix->family[i])
            FB_FAIL(FB_ERR_NOMEM, "out of host memory pairing %s", set->path);
    }
    sort_index = ix;
    qsort(ix->order, (size_t)n, sizeof *ix->order, cmp_index);
    return FB_OK;
fail:
    index_free(ix);
    return status;
}

/* The records with this key, in file order: how many, and where they start in ix->order. */
static int index_find(const pair_index *ix, const char *key, int *first)
{
    int lo = 0, hi = ix->set->nrecords, n = 0;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(ix->key[ix->order[mid]], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo + n < ix->set->nrecords && strcmp(ix->key[ix->order[lo + n]], key) == 0)
        ++n;
    *first = lo;
    return n;
}

/* 1 when record i is the last of its configuration in the file. */
static int index_last(const pair_index *ix, int i)
{
    int first, n = index_find(ix, ix->key[i], &first);
    return ix->order[first + n - 1] == i;
}

/* With --pair-by kernel: the one configuration of this kernel and problem
 * that ix holds, or NULL when it holds none or several (a sweep: pairing
 * one of them with BASE's setting would be a guess). */
static const char *only_setting(const pair_index *ix, const char *family)
{
    const char *found = NULL;
    for (int i = 0; i < ix->set->nrecords; ++i) {
        if (strcmp(ix->family[i], family) != 0) continue;
        if (found && strcmp(found, ix->key[i]) != 0) return NULL;
        found = ix->key[i];
    }
    return found;
}

static int same_key(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* With --pair-by kernel: the configuration of ix's last record measuring
 * this kernel file's kernel at this setting whatever the file's content
 * (an edited user kernel against its previous version), or NULL. */
static const char *same_setting(const pair_index *ix, const char *unhashed)
{
    for (int i = ix->set->nrecords - 1; i >= 0; --i)
        if (strcmp(ix->unhashed[i], unhashed) == 0) return ix->key[i];
    return NULL;
}

/* NEW's configuration paired with BASE's record i, or NULL. */
static const char *partner(const pair_index *b, const pair_index *n, int i, const fb_compare_options *opt)
{
    int first;
    if (index_find(n, b->key[i], &first)) return b->key[i];
    if (opt->pair_by != FB_PAIR_KERNEL) return NULL;
    const char *edited = same_setting(n, b->unhashed[i]);
    if (edited) return edited;
    if (!same_key(only_setting(b, b->family[i]), b->key[i])) return NULL;
    return only_setting(n, b->family[i]);
}

/* "WG_SIZE 128 vs 256, BLOCK 4 vs (none)": the parameters that differ. */
static void params_diff(const json_t *a, const json_t *b, char *buf, size_t len)
{
    const char *k;
    const json_t *v;
    size_t used = 0;
    buf[0] = '\0';
    for (int pass = 0; pass < 2; ++pass) {
        const json_t *x = pass ? b : a, *y = pass ? a : b;
        json_object_foreach((json_t *)x, k, v)
        {
            const json_t *w = json_object_get(y, k);
            if ((pass && w) || json_equal(v, w)) continue; /* pass 1: only the names a lacks */
            char *vs = json_dumps(pass ? w : v, JSON_ENCODE_ANY), *ws = json_dumps(pass ? v : w, JSON_ENCODE_ANY);
            if (used < len)
                used += (size_t)snprintf(buf + used, len - used, "%s%s %s vs %s", used ? ", " : "", k,
                                         vs ? vs : "(none)", ws ? ws : "(none)");
            free(vs);
            free(ws);
        }
    }
}

static const char *const key_fields[] = {"benchmark", "kernel",           "backend", "device_name",
                                         "precision", "kernel_file.hash", NULL};

/* Fields of the key that differ between BASE's record i and NEW's record
 * j, as "params differ: WG_SIZE 128 vs 256" or "device_name differs: A vs
 * B"; returns how many. The precomputed keys keep this cheap: it runs for
 * every NEW record per missing configuration. */
static int key_diff(const pair_index *b, int i, const pair_index *n, int j, char *buf, size_t len)
{
    const json_t *x = b->set->records[i].json, *y = n->set->records[j].json;
    int count = 0;
    for (int f = 0; key_fields[f]; ++f)
        if (strcmp(fb_json_str(x, key_fields[f]), fb_json_str(y, key_fields[f])) != 0 && !count++ && buf)
            snprintf(buf, len, "%s differs: %s vs %s", key_fields[f], fb_json_str(x, key_fields[f]),
                     fb_json_str(y, key_fields[f]));
    if (!json_equal(json_object_get(x, "params"), json_object_get(y, "params")) && !count++ && buf) {
        char d[400];
        params_diff(json_object_get(x, "params"), json_object_get(y, "params"), d, sizeof d);
        snprintf(buf, len, "params differ: %s", d);
    }
    if (!count && strcmp(b->family[i], n->family[j]) != 0 && ++count && buf)
        snprintf(buf, len, "problem (matrix or grid) or cold flag differs");
    return count;
}

/* Why BASE's record i has no partner: its first difference from the NEW
 * record that differs in the fewest key fields. */
static void why_unpaired(const pair_index *b, int i, const pair_index *n, char *buf, size_t len)
{
    int best = 1 << 30, at = -1;
    for (int j = 0; j < n->set->nrecords; ++j) {
        int d = key_diff(b, i, n, j, NULL, 0);
        if (d && d < best) {
            best = d;
            at = j;
        }
    }
    if (at < 0)
        snprintf(buf, len, "NEW has no measurement records");
    else
        key_diff(b, i, n, at, buf, len);
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
    int throttled;                  /* usable runs whose energy.throttled is true */
    const fb_record *throttled_run; /* the last of them */
    int unsettled;                  /* usable runs whose stats.quality is contended or unstable */
    const fb_record *unsettled_run; /* the first of them, a contended one before an unstable one */
} pooled;

/* 1 when a usable record's stats.quality is "contended" or "unstable"
 * (*kind gets that word, *why its quality_why or ""); 0 for "stable" and
 * for records without the field (older files). */
static int record_unsettled(const fb_record *r, const char **kind, const char **why)
{
    const char *q = fb_json_str(r->json, "stats.quality");
    if (strcmp(q, "contended") != 0 && strcmp(q, "unstable") != 0) return 0; /* "" in older files: stable */
    if (kind) *kind = q;
    if (why) *why = fb_json_str(r->json, "stats.quality_why");
    return 1;
}

static void note_unsettled(pooled *p, const fb_record *r)
{
    const char *kind;
    if (!record_unsettled(r, &kind, NULL)) return;
    p->unsettled++;
    if (!p->unsettled_run ||
        (!strcmp(kind, "contended") && strcmp(fb_json_str(p->unsettled_run->json, "stats.quality"), "contended") != 0))
        p->unsettled_run = r;
}

static fb_status pool_runs(const pair_index *ix, const char *key, pooled *p)
{
    fb_status status = FB_OK;
    const fb_results_set *set = ix->set;
    int first;
    size_t count = (size_t)index_find(ix, key, &first), total = 0;
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < count; ++i)
        total += (size_t)set->records[ix->order[first + (int)i]].nsamples;
    FB_ALLOC(p->samples, total + 1, "pooled samples");
    FB_ALLOC(p->medians, count + 1, "run medians");
    for (size_t i = 0; i < count; ++i) {
        const fb_record *r = &set->records[ix->order[first + (int)i]];
        p->runs++;
        p->last = r;
        if (!fb_record_usable(r)) {
            p->last_failed = r;
            continue;
        }
        if (json_is_true(fb_json_get(r->json, "energy.throttled"))) p->throttled++, p->throttled_run = r;
        note_unsettled(p, r);
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
/* 1 when every run of the slower side is slower than every run of the
 * other: with too few runs for a test over run medians, runs that overlap
 * say the machine, not the code, made the difference. */
static int runs_separate(const pooled *b, const pooled *n, double change)
{
    const pooled *slow = change > 0 ? n : b, *fast = change > 0 ? b : n;
    double slowest_fast = 0, fastest_slow = INFINITY;
    for (int i = 0; i < fast->usable; ++i)
        slowest_fast = fmax(slowest_fast, fast->medians[i]);
    for (int i = 0; i < slow->usable; ++i)
        fastest_slow = fmin(fastest_slow, slow->medians[i]);
    return fastest_slow > slowest_fast;
}

static fb_comparison compare_pooled(const pooled *b, const pooled *n, double learned, const fb_compare_options *opt,
                                    int *by_runs)
{
    fb_comparison c;
    *by_runs = b->usable > 1 && n->usable > 1 && smallest_p(b->usable, n->usable) < opt->alpha;
    if (*by_runs)
        return verdict(b->median, n->median, fb_mann_whitney(b->medians, b->usable, n->medians, n->usable), learned,
                       opt);
    c = verdict(b->median, n->median, fb_mann_whitney(b->samples, b->n, n->samples, n->n),
                fmax(learned, fmax(b->noise, n->noise)), opt);
    if ((c.verdict == FB_SLOWER || c.verdict == FB_FASTER) && !runs_separate(b, n, c.change))
        c.verdict = FB_INCONCLUSIVE;
    return c;
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

/* ---- the verdicts, the table and the JUnit file ---------------------------- */

/* Why a row is INCONCLUSIVE (counted apart in the summary). */
typedef enum row_cause {
    CAUSE_NOISE,       /* significant, but inside the noise between runs */
    CAUSE_UNSETTLED,   /* a SLOWER or FASTER resting on a contended or unstable run */
    CAUSE_CANNOT_GATE, /* the learned floor is above the cap */
} row_cause;

/* One configuration of BASE (or one NEW has alone) and what became of it. */
typedef struct row {
    fb_verdict verdict;
    row_cause cause;
    int not_learned; /* --learn-noise left this pair out */
    int throttled;   /* a SLOWER or FASTER with a throttled run on either side: shown as SLOWER*, FASTER* */
    fb_comparison c; /* for SAME/FASTER/SLOWER */
    double new_gbs;  /* NEW's GB/s at its pooled median (NaN: not judged, or no GB/s in its records) */
    int below_floor; /* new_gbs under opt->min_gbs */
    char label[512], classname[256], evidence[64], noise[16], note[600];
} row;

typedef struct rows {
    row *v;
    int n, cap;
} rows;

static row *rows_add(rows *r)
{
    row *v = fb_grow(r->v, &r->cap, r->n + 1, sizeof *v);
    if (!v) return NULL;
    r->v = v;
    memset(&r->v[r->n], 0, sizeof r->v[0]);
    return &r->v[r->n++];
}

static void row_names(row *w, const fb_record *r)
{
    fb_record_label(r, w->label, sizeof w->label);
    snprintf(w->classname, sizeof w->classname, "%s/%s", fb_json_str(r->json, "benchmark"),
             fb_json_str(r->json, "kernel"));
}

static void failure_note(const char *side, const fb_record *r, char *buf, size_t len)
{
    char why[400];
    fb_record_failure(r, why, sizeof why);
    snprintf(buf, len, "%s line %d: %s", side, r->line, why);
}

static int wrong_runs(const pair_index *ix, const char *key, const fb_record **last)
{
    int first, n = index_find(ix, key, &first), wrong = 0;
    for (int i = 0; i < n; ++i) {
        const fb_record *r = &ix->set->records[ix->order[first + i]];
        if (strcmp(fb_json_str(r->json, "status"), "wrong-result") == 0) {
            wrong++;
            *last = r;
        }
    }
    return wrong;
}

/* The learned A/A floor of a configuration (0 when none) and its count. */
static double learned_floor(const fb_compare_options *opt, const char *key, int *n)
{
    const json_t *entry = json_object_get(opt->noise, key);
    *n = (int)json_integer_value(json_object_get(entry, "n"));
    return *n > 0 ? json_number_value(json_object_get(entry, "floor")) : 0;
}

/* A SLOWER or FASTER resting on a run measured while the device throttled
 * (energy.throttled: a power, thermal or clock limit, or the CPU frequency
 * moving; core/energy.h) is marked: the machine may have made the change.
 * It still counts (and fails the gate when SLOWER): a code change can cause
 * the throttling, so hiding the verdict could hide a real regression. */
static void throttle_note(const pooled *b, const pooled *n, row *w)
{
    const pooled *side = n->throttled ? n : b;
    size_t used = strlen(w->note);
    if (!b->throttled && !n->throttled) return;
    w->throttled = 1;
    snprintf(w->note + used, sizeof w->note - used,
             "%sthrottled during the measurement: BASE %d of %d runs, NEW %d of %d (%s line %d: %s)", used ? "; " : "",
             b->throttled, b->usable, n->throttled, n->usable, side == n ? "NEW" : "BASE", side->throttled_run->line,
             fb_json_str(side->throttled_run->json, "energy.throttle_why"));
}

/* Appends "; text" (or text to an empty note). */
static void note_add(row *w, const char *text)
{
    size_t used = strlen(w->note);
    snprintf(w->note + used, sizeof w->note - used, "%s%s", used ? "; " : "", text);
}

/* A floor above the cap: the machine's noise between runs is larger than
 * the changes a gate is for, so no verdict of this pair means anything. */
static void cannot_gate(double floor, int learned_n, const fb_compare_options *opt, row *w)
{
    char text[300];
    w->verdict = FB_INCONCLUSIVE;
    w->cause = CAUSE_CANNOT_GATE;
    snprintf(text, sizeof text,
             "cannot gate on this machine (A/A noise %.1f%%: the floor learned from %d A/A comparison%s is above the "
             "%.3g%% cap; compare --interleave can judge it)",
             100 * floor, learned_n, learned_n == 1 ? "" : "s", 100 * opt->floor_cap);
    note_add(w, text);
}

/* A SLOWER or FASTER resting on a contended or unstable run: the machine
 * may have made the change. The first reason is shown (NEW's first), cut
 * short; the counts say how many runs of each side it concerns. */
static void unsettled(const pooled *b, const pooled *n, row *w)
{
    const pooled *side = n->unsettled ? n : b;
    const char *kind = "", *why = "";
    char cut[160], text[400];
    record_unsettled(side->unsettled_run, &kind, &why);
    fb_compare_shorten(why, 120, cut, sizeof cut);
    w->verdict = FB_INCONCLUSIVE;
    w->cause = CAUSE_UNSETTLED;
    snprintf(text, sizeof text,
             "%s %s, line %d: %s (%s not trusted: BASE %d of %d runs, NEW %d of %d contended or unstable)",
             side == n ? "NEW" : "BASE", kind, side->unsettled_run->line, cut, fb_verdict_name(w->c.verdict),
             b->unsettled, b->usable, n->unsettled, n->usable);
    note_add(w, text);
}

/* --min-gbs: NEW's GB/s at its pooled median (the last run's GB/s scaled
 * by its median to the pooled one), under the floor fails the gate
 * whatever the verdict against BASE: a slow drift passes every pairwise
 * gate. */
static void floor_check(const pooled *n, const fb_compare_options *opt, row *w)
{
    double gbs = fb_json_num(n->last->json, "gbs"), last_median = fb_json_num(n->last->json, "stats.median_s");
    char text[160];
    w->new_gbs = gbs > 0 && last_median > 0 && n->median > 0 ? gbs * last_median / n->median : NAN;
    if (!(opt->min_gbs > 0) || !(w->new_gbs < opt->min_gbs)) return;
    w->below_floor = 1;
    snprintf(text, sizeof text, "NEW %.3g GB/s is below the --min-gbs floor of %.3g GB/s", w->new_gbs, opt->min_gbs);
    note_add(w, text);
}

/* Paired by kernel across an edit of the user's kernel file: the row says
 * so, with both files' content hashes (first 12 digits) and NEW's path. */
static void file_change_note(const json_t *base, const json_t *next, row *w)
{
    const char *bh = fb_json_str(base, "kernel_file.hash"), *nh = fb_json_str(next, "kernel_file.hash");
    char text[400];
    if (strcmp(bh, nh) == 0) return;
    snprintf(text, sizeof text, "paired by kernel, kernel file changed: %.12s vs %.12s (%s)", *bh ? bh : "(none)",
             *nh ? nh : "(none)", *nh ? fb_json_str(next, "kernel_file.path") : fb_json_str(base, "kernel_file.path"));
    note_add(w, text);
}

/* The verdict of a pair both sides measured; with --learn-noise the size
 * of its change is handed back as one more A/A observation, unless a run
 * of either side was contended or unstable: a floor learned from a busy
 * moment would hide real changes later. */
static void judge_pair(const pooled *b, const pooled *n, const char *key, const fb_compare_options *opt, row *w)
{
    int by_runs, learned_n;
    double floor = learned_floor(opt, key, &learned_n);
    w->c = compare_pooled(b, n, floor, opt, &by_runs);
    w->c.learned = floor > 0 && w->c.noise == floor ? learned_n : 0;
    w->verdict = w->c.verdict;
    if (opt->learned && !b->unsettled && !n->unsettled)
        json_object_set_new(opt->learned, key, json_real(fb_change_size(w->c.change)));
    w->not_learned = opt->learned && (b->unsettled || n->unsettled);
    snprintf(w->noise, sizeof w->noise, "-");
    if (w->c.noise > 0) snprintf(w->noise, sizeof w->noise, "%.1f%%%s", 100 * w->c.noise, w->c.learned ? "A" : "");
    evidence_text(b, n, by_runs, w->evidence, sizeof w->evidence);
    if (w->verdict == FB_INCONCLUSIVE && fb_change_size(w->c.change) > w->c.noise)
        note_add(w, "beyond the noise, but the runs overlap: the slower side's fastest run is "
                    "not slower than the other side's slowest");
    if (!json_equal(json_object_get(b->last->json, "params"), json_object_get(n->last->json, "params"))) {
        char d[500], text[540];
        params_diff(json_object_get(b->last->json, "params"), json_object_get(n->last->json, "params"), d, sizeof d);
        snprintf(text, sizeof text, "paired by kernel, params differ: %s", d);
        note_add(w, text);
    }
    file_change_note(b->last->json, n->last->json, w);
    if (opt->floor_cap > 0 && floor > opt->floor_cap)
        cannot_gate(floor, learned_n, opt, w);
    else if ((w->verdict == FB_SLOWER || w->verdict == FB_FASTER) && (b->unsettled || n->unsettled))
        unsettled(b, n, w);
    if (w->verdict == FB_SLOWER || w->verdict == FB_FASTER) throttle_note(b, n, w);
    floor_check(n, opt, w);
}

/* BASE's configuration `key` against NEW's `nkey` (NULL: none): a wrong
 * result in NEW outranks everything, since its timing means nothing. */
static fb_status judge(const pair_index *b, const pair_index *n, int i, const char *nkey, const fb_compare_options *opt,
                       row *w)
{
    fb_status status = FB_OK;
    pooled pb = {0}, pn = {0};
    const fb_record *wrong = NULL;
    FB_CHECK(pool_runs(b, b->key[i], &pb));
    if (nkey) FB_CHECK(pool_runs(n, nkey, &pn));
    row_names(w, &b->set->records[i]);
    if (nkey && wrong_runs(n, nkey, &wrong)) {
        w->verdict = FB_WRONG;
        failure_note("NEW", wrong, w->note, sizeof w->note);
    } else if (!pb.usable) {
        w->verdict = FB_FAILED;
        failure_note("BASE", pb.last_failed, w->note, sizeof w->note);
    } else if (!nkey) {
        w->verdict = FB_MISSING;
        why_unpaired(b, i, n, w->note, sizeof w->note);
    } else if (!pn.usable) {
        w->verdict = FB_MISSING;
        failure_note("NEW", pn.last_failed, w->note, sizeof w->note);
    } else {
        judge_pair(&pb, &pn, nkey, opt, w);
    }
fail:
    pooled_free(&pb);
    pooled_free(&pn);
    return status;
}

/* 1 when NEW's configuration j is some BASE configuration's partner. */
static int paired_in_base(const pair_index *b, const pair_index *n, int j, const fb_compare_options *opt)
{
    int first;
    if (index_find(b, n->key[j], &first)) return 1;
    if (opt->pair_by == FB_PAIR_KERNEL && same_setting(b, n->unhashed[j])) return 1;
    return opt->pair_by == FB_PAIR_KERNEL && same_key(only_setting(n, n->family[j]), n->key[j]) &&
           only_setting(b, n->family[j]) != NULL;
}

static void count_row(const row *w, fb_compare_summary *s)
{
    s->below_floor += w->below_floor;
    s->throttled += w->throttled;
    s->not_learned += w->not_learned;
    if (w->verdict == FB_INCONCLUSIVE && w->cause == CAUSE_UNSETTLED)
        s->unsettled++;
    else if (w->verdict == FB_INCONCLUSIVE && w->cause == CAUSE_CANNOT_GATE)
        s->cannot_gate++;
    else
        fb_compare_count(s, w->verdict);
}

void fb_compare_count(fb_compare_summary *s, fb_verdict v)
{
    switch (v) {
    case FB_SAME: s->same++; break;
    case FB_FASTER: s->faster++; break;
    case FB_SLOWER: s->slower++; break;
    case FB_INCONCLUSIVE: s->inconclusive++; break;
    case FB_WRONG: s->wrong++; break;
    case FB_MISSING: s->missing++; break;
    case FB_FAILED: s->failed++; break;
    case FB_NEW_ONLY: s->only_new++; break;
    }
}

/* Every configuration of BASE in file order, then those only NEW has;
 * *paired counts BASE configurations NEW has a partner for. */
static fb_status collect_rows(const pair_index *b, const pair_index *n, const fb_compare_options *opt, rows *out,
                              int *paired)
{
    fb_status status = FB_OK;
    *paired = 0;
    for (int i = 0; i < b->set->nrecords; ++i) {
        if (!index_last(b, i)) continue;
        const char *nkey = partner(b, n, i, opt);
        row *w = rows_add(out);
        if (!w) FB_FAIL(FB_ERR_NOMEM, "out of host memory comparing %s", b->set->path);
        *paired += nkey != NULL;
        FB_CHECK(judge(b, n, i, nkey, opt, w));
    }
    for (int j = 0; j < n->set->nrecords; ++j) {
        if (!index_last(n, j) || paired_in_base(b, n, j, opt)) continue;
        row *w = rows_add(out);
        if (!w) FB_FAIL(FB_ERR_NOMEM, "out of host memory comparing %s", b->set->path);
        w->verdict = FB_NEW_ONLY;
        row_names(w, &n->set->records[j]);
    }
fail:
    return status;
}

static void print_markdown_row(const row *w, const char *const cols[4], int judged, FILE *out)
{
    int loud = w->verdict != FB_SAME;
    fprintf(out, "| %s%s%s%s | ", loud ? "**" : "", fb_verdict_name(w->verdict), w->throttled ? "\\*" : "",
            loud ? "**" : "");
    fb_md_text(out, w->label);
    fprintf(out, " | %s | %s | %s | %s | %s | ", cols[0], cols[1], cols[2], judged ? w->noise : "-", cols[3]);
    fb_md_text(out, judged ? w->evidence : w->note);
    fputs(" |\n", out);
    if (judged && *w->note) {
        fputs("| | ", out);
        fb_md_text(out, w->note);
        fputs(" | | | | | | |\n", out);
    }
}

static void print_row(const row *w, const fb_compare_options *opt, FILE *out)
{
    char tb[32] = "-", tn[32] = "-", p[16] = "-", change[16] = "-";
    int judged = w->verdict <= FB_INCONCLUSIVE;
    if (judged) {
        fb_compare_format_time(w->c.base_median, tb, sizeof tb);
        fb_compare_format_time(w->c.new_median, tn, sizeof tn);
        fb_compare_format_p(w->c.test.p, p, sizeof p);
        snprintf(change, sizeof change, "%+.1f%%", 100 * w->c.change);
    }
    if (opt->markdown) {
        const char *const cols[4] = {tb, tn, change, p};
        print_markdown_row(w, cols, judged, out);
        return;
    }
    char verdict[24];
    snprintf(verdict, sizeof verdict, "%s%s", fb_verdict_name(w->verdict), w->throttled ? "*" : "");
    fprintf(out, "%-12s %8s %7s %7s %11s %11s %26s  %s\n", verdict, change, judged ? w->noise : "-", p, tb, tn,
            judged ? w->evidence : "-", w->label);
    if (*w->note) fprintf(out, "%-12s %s\n", "", w->note);
}

static void print_rows(const rows *r, const fb_compare_options *opt, FILE *out)
{
    int listed = 0;
    for (int i = 0; i < r->n; ++i)
        if (r->v[i].verdict != FB_NEW_ONLY) print_row(&r->v[i], opt, out);
    for (int i = 0; i < r->n; ++i) {
        if (r->v[i].verdict != FB_NEW_ONLY) continue;
        if (!listed) fprintf(out, "\nonly in NEW (new, not compared):\n");
        if (listed++ < LIST_MAX) fprintf(out, "%s%s\n", opt->markdown ? "- " : "  ", r->v[i].label);
    }
    if (listed > LIST_MAX) fprintf(out, "%s... and %d more\n", opt->markdown ? "- " : "  ", listed - LIST_MAX);
}

/* --min-gbs: every configuration under the floor, whatever its verdict. */
static void print_below_floor(const rows *r, const fb_compare_options *opt, FILE *out)
{
    int listed = 0;
    for (int i = 0; i < r->n; ++i) {
        if (!r->v[i].below_floor) continue;
        if (!listed) fprintf(out, "\nbelow the --min-gbs floor of %.3g GB/s (failing the gate):\n", opt->min_gbs);
        if (listed++ < LIST_MAX)
            fprintf(out, "%s%s: %.3g GB/s\n", opt->markdown ? "- " : "  ", r->v[i].label, r->v[i].new_gbs);
    }
    if (listed > LIST_MAX) fprintf(out, "%s... and %d more\n", opt->markdown ? "- " : "  ", listed - LIST_MAX);
}

/* XML text and attribute values: the five special characters escaped,
 * control characters (not allowed in XML 1.0) dropped. */
void fb_compare_xml_text(const char *s, FILE *f)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') fputc(*s, f);
        }
    }
}

void fb_junit_begin(FILE *f, const char *suite, int tests, int failures, int skipped)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
    fb_compare_xml_text(suite, f);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", tests, failures, skipped);
}

void fb_junit_write_case(FILE *f, const char *classname, const char *name, const char *outcome, const char *type,
                         const char *message)
{
    fputs("    <testcase classname=\"", f);
    fb_compare_xml_text(classname, f);
    fputs("\" name=\"", f);
    fb_compare_xml_text(name, f);
    if (!outcome) {
        fputs("\"/>\n", f);
        return;
    }
    fprintf(f, "\">\n      <%s type=\"", outcome);
    fb_compare_xml_text(type, f);
    fputs("\" message=\"", f);
    fb_compare_xml_text(message, f);
    fputs("\"/>\n    </testcase>\n", f);
}

void fb_junit_write_output(FILE *f, const char *classname, const char *name, const char *output)
{
    fputs("    <testcase classname=\"", f);
    fb_compare_xml_text(classname, f);
    fputs("\" name=\"", f);
    fb_compare_xml_text(name, f);
    fputs("\">\n      <system-out>", f);
    fb_compare_xml_text(output, f);
    fputs("</system-out>\n    </testcase>\n", f);
}

/* Does this row fail the gate? */
static int row_fails(const row *w, const fb_compare_options *opt)
{
    return w->verdict == FB_SLOWER || w->below_floor || (w->verdict == FB_WRONG && !opt->allow_wrong) ||
           (w->verdict == FB_MISSING && !opt->allow_missing);
}

static void junit_message(const row *w, const fb_compare_options *opt, char *buf, size_t len)
{
    char tb[32], tn[32], p[16];
    if (w->verdict > FB_INCONCLUSIVE) {
        snprintf(buf, len, "%s: %s", fb_verdict_name(w->verdict), *w->note ? w->note : "not compared");
        return;
    }
    fb_compare_format_time(w->c.base_median, tb, sizeof tb);
    fb_compare_format_time(w->c.new_median, tn, sizeof tn);
    fb_compare_format_p(w->c.test.p, p, sizeof p);
    int with_note = w->throttled || w->below_floor || (w->verdict == FB_INCONCLUSIVE && w->cause != CAUSE_NOISE);
    snprintf(buf, len,
             "%s%s: median %s -> %s (%+.1f%%, threshold %.3g%%, noise %s), Mann-Whitney p %s (alpha %g), %s%s%s",
             fb_verdict_name(w->verdict), w->throttled ? "*" : "", tb, tn, 100 * w->c.change, 100 * opt->threshold,
             w->noise, p, opt->alpha, w->evidence, with_note ? "; " : "", with_note ? w->note : "");
}

/* Failures are what fails the gate; an allowed WRONG or MISSING and a
 * configuration BASE could not measure are skipped (not judged). */
static void junit_case(const row *w, const fb_compare_options *opt, FILE *f)
{
    char msg[1024];
    const int passed = (w->verdict <= FB_FASTER || w->verdict == FB_NEW_ONLY) && !w->below_floor;
    junit_message(w, opt, msg, sizeof msg);
    fb_junit_write_case(f, w->classname, w->label,
                        passed              ? NULL
                        : row_fails(w, opt) ? "failure"
                                            : "skipped",
                        w->below_floor && w->verdict <= FB_FASTER ? "BELOW_FLOOR" : fb_verdict_name(w->verdict), msg);
}

static void write_junit(const rows *r, const fb_compare_options *opt, const fb_results_set *base,
                        const fb_results_set *next)
{
    FILE *f = opt->junit;
    int failures = 0, skipped = 0;
    char suite[2 * sizeof base->path + 32];
    for (int i = 0; i < r->n; ++i) {
        failures += row_fails(&r->v[i], opt);
        skipped += !row_fails(&r->v[i], opt) && r->v[i].verdict > FB_SLOWER && r->v[i].verdict != FB_NEW_ONLY;
    }
    snprintf(suite, sizeof suite, "flowbench compare %s -> %s", base->path, next->path);
    fb_junit_begin(f, suite, r->n, failures, skipped);
    for (int i = 0; i < r->n; ++i)
        junit_case(&r->v[i], opt, f);
    fputs("  </testsuite>\n</testsuites>\n", f);
}

/* One row as JSON: the numbers behind its verdict (NaN, JSON's null, where
 * it was not judged). */
static json_t *row_json(const row *w, const fb_compare_options *opt)
{
    int judged = w->verdict <= FB_INCONCLUSIVE;
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:s}", "configuration", w->label, "class", w->classname,
                          "verdict", fb_verdict_name(w->verdict), "throttled", w->throttled, "fails_gate",
                          row_fails(w, opt), "evidence", judged ? w->evidence : "", "note", w->note);
    if (o && opt->min_gbs > 0) json_object_set_new(o, "below_floor", json_boolean(w->below_floor));
    if (o && judged && isfinite(w->new_gbs)) json_object_set_new(o, "new_gbs", json_real(w->new_gbs));
    if (o && judged)
        json_object_update_missing_new(o, json_pack("{s:f, s:f, s:f, s:f, s:s}", "base_median_s", w->c.base_median,
                                                    "new_median_s", w->c.new_median, "change", w->c.change, "p",
                                                    w->c.test.p, "noise", w->noise));
    return o;
}

static void write_json(const rows *r, const fb_compare_options *opt, const fb_results_set *base,
                       const fb_results_set *next, const fb_compare_summary *s)
{
    json_t *list = json_array();
    for (int i = 0; i < r->n; ++i)
        json_array_append_new(list, row_json(&r->v[i], opt));
    json_t *doc =
        json_pack("{s:s, s:s, s:f, s:f, s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}, s:o}", "base",
                  base->path, "new", next->path, "threshold", opt->threshold, "alpha", opt->alpha, "gate",
                  fb_compare_gate(s, opt) ? "fail" : "pass", "summary", "slower", s->slower, "faster", s->faster,
                  "same", s->same, "inconclusive", s->inconclusive + s->unsettled + s->cannot_gate, "wrong", s->wrong,
                  "missing", s->missing, "not_compared", s->failed, "new_only", s->only_new, "throttled", s->throttled,
                  "unsettled", s->unsettled, "cannot_gate", s->cannot_gate, "configurations", list);
    if (doc && opt->min_gbs > 0) {
        json_object_set_new(doc, "min_gbs", json_real(opt->min_gbs));
        json_object_set_new(json_object_get(doc, "summary"), "below_floor", json_integer(s->below_floor));
    }
    if (doc) json_dumpf(doc, opt->json, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    fputc('\n', opt->json);
    json_decref(doc);
}

void fb_compare_print_counts(const fb_compare_summary *s, const fb_compare_options *opt, const char *inconclusive,
                             FILE *out)
{
    fprintf(out,
            "\n%s%d SLOWER, %d FASTER, %d SAME, %d INCONCLUSIVE (%s); %d WRONG%s, %d MISSING%s; %d not compared "
            "(BASE failed), %d new%s\n",
            opt->markdown ? "**" : "summary: ", s->slower, s->faster, s->same, s->inconclusive, inconclusive, s->wrong,
            opt->allow_wrong ? " (allowed)" : "", s->missing, opt->allow_missing ? " (allowed)" : "", s->failed,
            s->only_new, opt->markdown ? "**" : "");
}

static void print_summary(const fb_compare_summary *s, const fb_compare_options *opt, FILE *out)
{
    fb_compare_print_counts(s, opt, "inside the noise", out);
    if (opt->min_gbs > 0)
        fprintf(out, "%d below the --min-gbs floor of %.3g GB/s%s\n", s->below_floor, opt->min_gbs,
                s->below_floor ? " (failing the gate)" : "");
    if (s->unsettled)
        fprintf(out,
                "%d INCONCLUSIVE because a run was contended or unstable: a SLOWER or FASTER the machine may have made "
                "(see the notes; compare --interleave shares the load between both sides)\n",
                s->unsettled);
    if (s->cannot_gate)
        fprintf(out,
                "%d INCONCLUSIVE because this machine cannot gate them: their A/A noise floor is above the %.3g%% cap "
                "(see the notes; compare --interleave can judge them)\n",
                s->cannot_gate, 100 * opt->floor_cap);
    if (s->throttled)
        fprintf(out,
                "%d SLOWER/FASTER verdict%s marked * rest on runs measured while the device throttled (see the "
                "notes)\n",
                s->throttled, s->throttled == 1 ? "" : "s");
}

int fb_compare_gate(const fb_compare_summary *s, const fb_compare_options *opt)
{
    return s->slower > 0 || s->below_floor > 0 || (s->wrong > 0 && !opt->allow_wrong) ||
           (s->missing > 0 && !opt->allow_missing);
}

fb_status fb_compare_sets(const fb_results_set *base, const fb_results_set *next, const fb_compare_options *opt,
                          FILE *out, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    pair_index bi = {0}, ni = {0};
    rows r = {0};
    int paired = 0;
    memset(s, 0, sizeof *s);
    FB_CHECK(index_build(base, &bi));
    FB_CHECK(index_build(next, &ni));
    FB_CHECK(collect_rows(&bi, &ni, opt, &r, &paired));
    for (int i = 0; i < r.n; ++i)
        count_row(&r.v[i], s);
    print_head(base, next, opt, out);
    print_rows(&r, opt, out);
    print_below_floor(&r, opt, out);
    print_summary(s, opt, out);
    if (!paired)
        FB_FAIL(FB_ERR_INPUT, "compare: no configuration of %s is in %s (nothing to compare%s)", base->path, next->path,
                opt->pair_by == FB_PAIR_KERNEL
                    ? ""
                    : "; --pair-by kernel ignores changed parameters and edited kernel files");
    if (opt->junit) write_junit(&r, opt, base, next);
    if (opt->json) write_json(&r, opt, base, next, s);
fail:
    free(r.v);
    if (bi.set) index_free(&bi);
    if (ni.set) index_free(&ni);
    return status;
}
