/* interleave.c - the ratio verdict of `compare --interleave` and its table
 * (interleave.h). Pure: the rounds' files are read by the caller. */
#include "interleave.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../records/export.h"
#include "../../core/stats.h"

#define LIST_MAX 10 /* "only in NEW" lists longer than this are cut */

double fb_sign_test_p(int k, int n)
{
    double p = 0;
    if (n <= 0 || k <= 0) return 1.0;
    if (k > n) return 0.0;
    /* in logarithms: C(n, i) / 2^n over- and underflows past a thousand rounds */
    for (int i = k; i <= n; ++i)
        p += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    return fmin(1.0, p);
}

int fb_interleave_min_rounds(double alpha)
{
    int n = 1;
    while (n < 1000 && fb_sign_test_p(n, n) > alpha)
        ++n;
    return n;
}

fb_ratio_verdict fb_interleave_judge(const double *ratios, int n, double threshold, double alpha)
{
    fb_ratio_verdict v = {FB_INCONCLUSIVE, n, 0, 0, 1, 1, 1, 1};
    double *sorted = n > 0 ? malloc((size_t)n * sizeof *sorted) : NULL;
    if (!sorted) return v; /* no rounds (or no memory): no evidence either way */
    memcpy(sorted, ratios, (size_t)n * sizeof *sorted);
    fb_sort_doubles(sorted, (size_t)n);
    v.median = fb_median_sorted(sorted, (size_t)n);
    v.lo = sorted[0];
    v.hi = sorted[n - 1];
    for (int i = 0; i < n; ++i) {
        v.above += ratios[i] > 1;
        v.below += ratios[i] < 1;
    }
    free(sorted);
    if (v.median > 1) v.p = fb_sign_test_p(v.above, v.above + v.below);
    if (v.median < 1) v.p = fb_sign_test_p(v.below, v.above + v.below);
    if (fb_change_size(v.median - 1) < threshold)
        v.verdict = FB_SAME;
    else if (v.p <= alpha)
        v.verdict = v.median > 1 ? FB_SLOWER : FB_FASTER;
    return v;
}

/* ---- the rounds' records, by configuration --------------------------------- */

/* Per round and side: compare's key -> the index of the record to use (the
 * last usable one; the last one when none is usable). */
typedef struct rounds_index {
    fb_results_set *const *sets;
    json_t **map;
    int rounds;
} rounds_index;

static fb_status index_round(const fb_results_set *set, json_t *map, json_t *order, json_t *seen)
{
    fb_status status = FB_OK;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        char *key = fb_measured_key(r->json, FB_KEY_PARAMS | FB_KEY_FILE);
        if (!key) FB_FAIL(FB_ERR_NOMEM, "out of host memory pairing %s", set->path);
        json_t *had = json_object_get(map, key);
        if (!had || fb_record_usable(r) || !fb_record_usable(&set->records[json_integer_value(had)]))
            json_object_set_new(map, key, json_integer(i));
        if (order && !json_object_get(seen, key)) {
            json_object_set_new(seen, key, json_true());
            json_array_append_new(order, json_string(key));
        }
        free(key);
    }
fail:
    return status;
}

static void index_free(rounds_index *ix)
{
    for (int r = 0; ix->map && r < ix->rounds; ++r)
        json_decref(ix->map[r]);
    free(ix->map);
    ix->map = NULL;
}

/* order gets every key in first-seen order (NULL: not wanted). */
static fb_status index_build(fb_results_set *const *sets, int rounds, json_t *order, json_t *seen, rounds_index *ix)
{
    fb_status status = FB_OK;
    ix->sets = sets;
    ix->rounds = rounds;
    FB_ALLOC(ix->map, rounds, "the rounds' index");
    for (int r = 0; r < rounds; ++r) {
        ix->map[r] = json_object();
        if (!ix->map[r]) FB_FAIL(FB_ERR_NOMEM, "out of host memory pairing %s", sets[r]->path);
        FB_CHECK(index_round(sets[r], ix->map[r], order, seen));
    }
fail:
    return status;
}

static const fb_record *record_at(const rounds_index *ix, int r, const char *key)
{
    const json_t *i = json_object_get(ix->map[r], key);
    return i ? &ix->sets[r]->records[json_integer_value(i)] : NULL;
}

static int contended(const fb_record *r)
{
    return !strcmp(fb_json_str(r->json, "stats.quality"), "contended") ||
           json_is_true(fb_json_get(r->json, "environment.contended"));
}

/* ---- one configuration ----------------------------------------------------- */

/* A round's median from its samples, as compare takes it (the samples are
 * the truth; stats.median_s is their summary). */
static double round_median(const fb_record *r) { return fb_median(r->samples, (size_t)r->nsamples); }

typedef struct row {
    fb_verdict verdict;
    fb_ratio_verdict v;
    double base_median, new_median; /* medians of the rounds' medians */
    int paired;                     /* rounds with a usable record on both sides */
    int contended;                  /* of them, rounds with a contended run on either side */
    int in_both;                    /* some round has a record of it on both sides */
    char label[512], classname[256], note[600];
    char load[96]; /* "FASTER under load: 8 of 8 rounds contended"; "" when judged on quiet rounds only */
} row;

static void failure_note(const char *side, int round, const fb_record *r, char *buf, size_t len)
{
    char why[400];
    fb_record_failure(r, why, sizeof why);
    snprintf(buf, len, "%s round %d line %d: %s", side, round + 1, r->line, why);
}

/* What the rounds of one configuration hold. */
typedef struct walk {
    double *ratios, *bmed, *nmed; /* per paired round; each side's usable rounds' medians */
    int nb, nn, in_base;
    int base_failed, new_failed, wrong; /* the first round of each (-1: none) */
    const fb_record *named;             /* the first record of it: its label */
} walk;

static void walk_rounds(const rounds_index *b, const rounds_index *n, const char *key, walk *k, row *w)
{
    for (int r = 0; r < b->rounds; ++r) {
        const fb_record *rb = record_at(b, r, key), *rn = record_at(n, r, key);
        int bu = rb && fb_record_usable(rb), nu = rn && fb_record_usable(rn);
        k->in_base |= rb != NULL;
        w->in_both |= rb != NULL && rn != NULL;
        if (!k->named) k->named = rb ? rb : rn;
        if (bu) k->bmed[k->nb++] = round_median(rb);
        if (nu) k->nmed[k->nn++] = round_median(rn);
        if (rb && !bu && k->base_failed < 0) k->base_failed = r;
        if (rn && !nu && k->new_failed < 0) k->new_failed = r;
        if (rn && !strcmp(fb_json_str(rn->json, "status"), "wrong-result") && k->wrong < 0) k->wrong = r;
        if (!bu || !nu || !(round_median(rb) > 0)) continue;
        k->ratios[w->paired++] = round_median(rn) / round_median(rb);
        w->contended += contended(rb) || contended(rn);
    }
}

/* The row's verdict: a wrong result outranks everything, then whether
 * each side measured it, then the ratios' rule. */
static void verdict_of(const rounds_index *b, const rounds_index *n, const char *key, const walk *k, row *w)
{
    if (k->wrong >= 0) {
        w->verdict = FB_WRONG;
        failure_note("NEW", k->wrong, record_at(n, k->wrong, key), w->note, sizeof w->note);
    } else if (!k->in_base) {
        w->verdict = FB_NEW_ONLY;
    } else if (!k->nb) {
        w->verdict = FB_FAILED;
        failure_note("BASE", k->base_failed, record_at(b, k->base_failed, key), w->note, sizeof w->note);
    } else if (!w->paired) {
        w->verdict = FB_MISSING;
        if (k->new_failed >= 0)
            failure_note("NEW", k->new_failed, record_at(n, k->new_failed, key), w->note, sizeof w->note);
        else
            snprintf(w->note, sizeof w->note, "NEW has no record of it in any round");
    } else {
        w->verdict = w->v.verdict;
        if (w->paired < b->rounds)
            snprintf(w->note, sizeof w->note, "%d of %d rounds paired (a side failed or lacked it in the others)",
                     w->paired, b->rounds);
    }
}

/* One configuration over the rounds: its ratios, their verdict, its row. */
static fb_status judge(const rounds_index *b, const rounds_index *n, const char *key, const fb_compare_options *opt,
                       row *w)
{
    fb_status status = FB_OK;
    walk k = {NULL, NULL, NULL, 0, 0, 0, -1, -1, -1, NULL};
    FB_ALLOC(k.ratios, b->rounds, "round ratios");
    FB_ALLOC(k.bmed, b->rounds, "round medians");
    FB_ALLOC(k.nmed, b->rounds, "round medians");
    walk_rounds(b, n, key, &k, w);
    fb_record_label(k.named, w->label, sizeof w->label);
    snprintf(w->classname, sizeof w->classname, "%s/%s", fb_json_str(k.named->json, "benchmark"),
             fb_json_str(k.named->json, "kernel"));
    w->base_median = fb_median(k.bmed, (size_t)k.nb);
    w->new_median = fb_median(k.nmed, (size_t)k.nn);
    w->v = fb_interleave_judge(k.ratios, w->paired, opt->threshold, opt->alpha);
    verdict_of(b, n, key, &k, w);
fail:
    free(k.ratios);
    free(k.bmed);
    free(k.nmed);
    return status;
}

/* Benjamini-Hochberg over the configurations judged: with dozens of them a
 * sign test's p of 0.035 turns up by chance (an A/A comparison of the
 * quick suite beside a busy process gave one FASTER in 41 so). A SLOWER or
 * FASTER stands only when its p is at most the largest p_(k) with
 * p_(k) <= k alpha / m, ranking the m judged configurations' p; the others
 * become INCONCLUSIVE, saying why. */
static void control_false_discoveries(row *rows, int nrows, double alpha)
{
    double *p = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *p), cutoff = -1;
    int m = 0;
    if (!p) return;
    for (int i = 0; i < nrows; ++i)
        if (rows[i].verdict <= FB_INCONCLUSIVE) p[m++] = rows[i].v.p;
    fb_sort_doubles(p, (size_t)m);
    for (int k = m; k >= 1 && cutoff < 0; --k)
        if (p[k - 1] <= k * alpha / m) cutoff = p[k - 1];
    free(p);
    for (int i = 0; i < nrows; ++i) {
        row *w = &rows[i];
        if ((w->verdict != FB_SLOWER && w->verdict != FB_FASTER) || w->v.p <= cutoff) continue;
        snprintf(w->note, sizeof w->note,
                 "%s by its own sign test, but p %.3g does not survive the false-discovery control over %d "
                 "configurations (Benjamini-Hochberg at %g): more rounds would tell",
                 fb_verdict_name(w->verdict), w->v.p, m, alpha);
        w->verdict = FB_INCONCLUSIVE;
    }
}

/* A verdict on rounds that ran contended is true for that load only (a
 * 2-thread build FASTER than a 1-thread one beside a busy process was
 * SLOWER +100% on the quiet machine): the verdict says so, and how many
 * rounds. */
static void load_text(row *w)
{
    const int quiet = w->paired - w->contended;
    w->load[0] = '\0';
    if (w->verdict > FB_INCONCLUSIVE || !w->contended) return;
    snprintf(w->load, sizeof w->load, "%s under load: %d of %d rounds contended", fb_verdict_name(w->verdict),
             w->contended, w->paired);
    if (quiet) snprintf(w->load + strlen(w->load), sizeof w->load - strlen(w->load), ", %d quiet", quiet);
}

/* ---- the two sides' settings ------------------------------------------------- */

/* The settings of environment.openmp a difference of which is named. */
// clang-format off
static const char *const env_settings[][2] = {
    {"OpenMP threads", "environment.openmp.threads"},
    {"wait policy", "environment.openmp.wait.policy"},
    {"binding", "environment.openmp.proc_bind"},
    {"places", "environment.openmp.places"},
};
// clang-format on
/* The objects of the variables in force (OMP_*, GOMP_*; POCL_*). */
static const char *const env_variables[] = {"environment.openmp.variables", "environment.pocl.variables"};
#define NSETTINGS (sizeof env_settings / sizeof env_settings[0])
#define NVARIABLES (sizeof env_variables / sizeof env_variables[0])

static void value_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(buf, len, "%g", json_number_value(v));
    else
        snprintf(buf, len, "(unset)");
}

/* settings[name][value] = true. */
static void note_setting(json_t *settings, const char *name, const json_t *v)
{
    char text[256];
    json_t *values = json_object_get(settings, name);
    if (!values) json_object_set_new(settings, name, values = json_object());
    value_text(v, text, sizeof text);
    json_object_set_new(values, text, json_true());
}

/* Every variable any record of a side has, as keys of names. */
static void variable_names(fb_results_set *const *sets, int rounds, json_t *names)
{
    const char *name;
    json_t *v;
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < sets[r]->nrecords; ++i)
            for (size_t k = 0; k < NVARIABLES; ++k)
                json_object_foreach((json_t *)fb_json_get(sets[r]->records[i].json, env_variables[k]), name, v)
                    json_object_set_new(names, name, json_true());
}

/* One side's settings over its rounds: name -> {value: true}, a variable
 * a record lacks "(unset)". Records without "environment" (written before
 * it) say nothing. */
static void side_settings(fb_results_set *const *sets, int rounds, json_t *names, json_t *settings)
{
    const char *name;
    json_t *v;
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < sets[r]->nrecords; ++i) {
            const json_t *rec = sets[r]->records[i].json;
            if (!json_is_object(json_object_get(rec, "environment"))) continue;
            for (size_t k = 0; k < NSETTINGS; ++k)
                note_setting(settings, env_settings[k][0], fb_json_get(rec, env_settings[k][1]));
            json_object_foreach(names, name, v)
            {
                const json_t *value = NULL;
                for (size_t k = 0; k < NVARIABLES && !value; ++k)
                    value = json_object_get(fb_json_get(rec, env_variables[k]), name);
                note_setting(settings, name, value);
            }
        }
    }
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* "2", or "1 or 2" where a side's rounds differ; values in text order. */
static void values_text(json_t *values, char *buf, size_t len)
{
    const char *keys[64], *k;
    json_t *v;
    size_t n = 0;
    buf[0] = '\0';
    json_object_foreach(values, k, v)
    {
        if (n < 64) keys[n++] = k;
    }
    qsort(keys, n, sizeof *keys, cmp_text);
    for (size_t i = 0; i < n; ++i)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " or " : "", keys[i]);
    if (!n) snprintf(buf, len, "(not recorded)");
}

/* One line per setting the sides differ in, into diffs: "OpenMP
 * threads: BASE 2, NEW 1". The settings first, then the variables in
 * name order. */
static void setting_differences(json_t *base, json_t *next, const json_t *names, json_t *diffs)
{
    char b[512], n[512], line[1100];
    const char *order[NSETTINGS + 256], *name;
    json_t *v;
    size_t count = 0, nvars;
    for (size_t k = 0; k < NSETTINGS; ++k)
        order[count++] = env_settings[k][0];
    json_object_foreach((json_t *)names, name, v)
    {
        if (count < NSETTINGS + 256) order[count++] = name;
    }
    nvars = count - NSETTINGS;
    qsort(order + NSETTINGS, nvars, sizeof *order, cmp_text);
    for (size_t k = 0; k < count; ++k) {
        json_t *bv = json_object_get(base, order[k]), *nv = json_object_get(next, order[k]);
        if (!bv || !nv) continue; /* a side with no record of its environment: nothing to tell */
        values_text(bv, b, sizeof b);
        values_text(nv, n, sizeof n);
        if (!strcmp(b, n)) continue;
        snprintf(line, sizeof line, "%s: BASE %s, NEW %s", order[k], b, n);
        json_array_append_new(diffs, json_string(line));
    }
}

/* What the two sides' records say of their OpenMP and PoCL settings, where
 * they differ: a verdict between a 2-thread and a 1-thread build is about
 * the threads, and the header must say so. */
static fb_status environment_differences(fb_results_set *const *base, fb_results_set *const *next, int rounds,
                                         json_t *diffs)
{
    fb_status status = FB_OK;
    json_t *names = json_object(), *bs = json_object(), *ns = json_object();
    if (!names || !bs || !ns) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the rounds' settings");
    variable_names(base, rounds, names);
    variable_names(next, rounds, names);
    side_settings(base, rounds, names, bs);
    side_settings(next, rounds, names, ns);
    setting_differences(bs, ns, names, diffs);
fail:
    json_decref(names);
    json_decref(bs);
    json_decref(ns);
    return status;
}

/* ---- output ------------------------------------------------------------------ */

/* The cells of a judged row: change, range, up/down, p, medians, contended. */
typedef struct cells {
    char change[16], range[32], votes[24], p[16], tb[32], tn[32], contended[24];
} cells;

static void row_cells(const row *w, cells *c)
{
    snprintf(c->change, sizeof c->change, "%+.1f%%", 100 * (w->v.median - 1));
    snprintf(c->range, sizeof c->range, "%+.0f%%..%+.0f%%", 100 * (w->v.lo - 1), 100 * (w->v.hi - 1));
    snprintf(c->votes, sizeof c->votes, "%d/%d of %d", w->v.above, w->v.below, w->paired);
    fb_compare_format_p(w->v.p, c->p, sizeof c->p);
    fb_compare_format_time(w->base_median, c->tb, sizeof c->tb);
    fb_compare_format_time(w->new_median, c->tn, sizeof c->tn);
    snprintf(c->contended, sizeof c->contended, "%d of %d", w->contended, w->paired);
}

/* The settings the sides differ in, before anything else: a verdict is
 * about them as much as about the code. */
static void print_differences(const json_t *diffs, const fb_compare_options *opt, FILE *out)
{
    size_t i;
    const json_t *d;
    if (!json_array_size(diffs)) return;
    fprintf(out, "%s ran with other settings than BASE (their records' environment):%s\n",
            opt->markdown ? "**NEW**" : "NEW", opt->markdown ? "\n" : "");
    json_array_foreach(diffs, i, d) fprintf(out, "%s%s\n", opt->markdown ? "- " : "  ", json_string_value(d));
    fputc('\n', out);
}

static void print_head(int rounds, const fb_compare_options *opt, FILE *out)
{
    int least = fb_interleave_min_rounds(opt->alpha);
    const char *rule =
        "ratio = NEW's median / BASE's median in each round. SLOWER (FASTER): the median ratio is above 1 + "
        "threshold (below 1 / (1 + threshold)), a one-sided sign test over the rounds agrees, and the "
        "suite's false-discovery control keeps it";
    if (opt->markdown) {
        fprintf(out, "### flowbench compare --interleave: %d rounds\n\n", rounds);
        fprintf(out, "%s (threshold %.3g%%, p <= %g); SAME: within the threshold; else INCONCLUSIVE.\n\n", rule,
                100 * opt->threshold, opt->alpha);
        fprintf(out, "| verdict | configuration | base median | new median | change | range | up/down | p | "
                     "contended rounds |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        return;
    }
    /* no line starts with a verdict's name: scripts count rows with grep '^SLOWER ' */
    fprintf(out, "%s\n(threshold %.3g%%, p <= %g: at least %d rounds, all agreeing); SAME: within the threshold;\n",
            rule, 100 * opt->threshold, opt->alpha, least);
    fprintf(out, "else INCONCLUSIVE. Contended rounds are counted, not left out: both sides of a round share the "
                 "load, and a verdict on them says \"under load\".\n\n");
    fprintf(out, "%-12s %8s %15s %11s %7s %11s %11s %9s  %s\n", "verdict", "change", "range", "up/down", "p", "base",
            "new", "contended", "configuration");
}

static void print_row(const row *w, const fb_compare_options *opt, FILE *out)
{
    cells c = {"-", "-", "-", "-", "-", "-", "-"};
    int judged = w->verdict <= FB_INCONCLUSIVE;
    if (judged) row_cells(w, &c);
    if (opt->markdown) {
        int loud = w->verdict != FB_SAME;
        fprintf(out, "| %s%s%s | ", loud ? "**" : "", fb_verdict_name(w->verdict), loud ? "**" : "");
        fb_md_text(out, w->label);
        fprintf(out, " | %s | %s | %s | %s | %s | %s | %s |\n", c.tb, c.tn, c.change, c.range, c.votes, c.p,
                c.contended);
        for (int k = 0; k < 2; ++k) {
            const char *line = k ? w->note : w->load;
            if (!*line) continue;
            fputs("| | ", out);
            fb_md_text(out, line);
            fputs(" | | | | | | | |\n", out);
        }
        return;
    }
    fprintf(out, "%-12s %8s %15s %11s %7s %11s %11s %9s  %s\n", fb_verdict_name(w->verdict), c.change, c.range, c.votes,
            c.p, c.tb, c.tn, c.contended, w->label);
    if (*w->load) fprintf(out, "%-12s %s\n", "", w->load);
    if (*w->note) fprintf(out, "%-12s %s\n", "", w->note);
}

static int row_fails(const row *w, const fb_compare_options *opt)
{
    return w->verdict == FB_SLOWER || (w->verdict == FB_WRONG && !opt->allow_wrong) ||
           (w->verdict == FB_MISSING && !opt->allow_missing);
}

static void junit_message(const row *w, const fb_compare_options *opt, char *buf, size_t len)
{
    char p[16];
    if (w->verdict > FB_INCONCLUSIVE) {
        snprintf(buf, len, "%s: %s", fb_verdict_name(w->verdict), *w->note ? w->note : "not compared");
        return;
    }
    fb_compare_format_p(w->v.p, p, sizeof p);
    snprintf(buf, len,
             "%s: median ratio %.4g (%+.1f%%, threshold %.3g%%) over %d interleaved rounds: %d above 1, %d "
             "below, "
             "sign test p %s (alpha %g); range %+.1f%%..%+.1f%%; contended in %d of %d rounds%s%s",
             *w->load ? w->load : fb_verdict_name(w->verdict), w->v.median, 100 * (w->v.median - 1),
             100 * opt->threshold, w->paired, w->v.above, w->v.below, p, opt->alpha, 100 * (w->v.lo - 1),
             100 * (w->v.hi - 1), w->contended, w->paired, *w->note ? "; " : "", w->note);
}

/* The settings the sides differ in, as the suite's properties. */
static void junit_differences(FILE *f, const json_t *diffs)
{
    size_t i;
    const json_t *d;
    if (!json_array_size(diffs)) return;
    fputs("    <properties>\n", f);
    json_array_foreach(diffs, i, d)
    {
        fputs("      <property name=\"NEW's settings differ\" value=\"", f);
        fb_compare_xml_text(json_string_value(d), f);
        fputs("\"/>\n", f);
    }
    fputs("    </properties>\n", f);
}

/* A passed case under load keeps its verdict's words (<system-out>): a
 * FASTER on a busy runner is not one on a quiet machine. */
static void write_junit(const row *rows, int nrows, int rounds, const json_t *diffs, const fb_compare_options *opt)
{
    FILE *f = opt->junit;
    int failures = 0, skipped = 0;
    char msg[1200] = "", suite[64];
    for (int i = 0; i < nrows; ++i) {
        failures += row_fails(&rows[i], opt);
        skipped += !row_fails(&rows[i], opt) && rows[i].verdict > FB_SLOWER && rows[i].verdict != FB_NEW_ONLY;
    }
    snprintf(suite, sizeof suite, "flowbench compare --interleave, %d rounds", rounds);
    fb_junit_begin(f, suite, nrows, failures, skipped);
    junit_differences(f, diffs);
    for (int i = 0; i < nrows; ++i) {
        const row *w = &rows[i];
        const int passed = w->verdict <= FB_FASTER || w->verdict == FB_NEW_ONLY;
        if (!passed || *w->load) junit_message(w, opt, msg, sizeof msg);
        if (passed && *w->load) {
            fb_junit_write_output(f, w->classname, w->label, msg);
            continue;
        }
        fb_junit_write_case(f, w->classname, w->label,
                            passed              ? NULL
                            : row_fails(w, opt) ? "failure"
                                                : "skipped",
                            fb_verdict_name(w->verdict), msg);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
}

static void print_rows(const row *rows, int nrows, const fb_compare_options *opt, FILE *out)
{
    int listed = 0;
    for (int i = 0; i < nrows; ++i)
        if (rows[i].verdict != FB_NEW_ONLY) print_row(&rows[i], opt, out);
    for (int i = 0; i < nrows; ++i) {
        if (rows[i].verdict != FB_NEW_ONLY) continue;
        if (!listed) fprintf(out, "\nonly in NEW (new, not compared):\n");
        if (listed++ < LIST_MAX) fprintf(out, "%s%s\n", opt->markdown ? "- " : "  ", rows[i].label);
    }
    if (listed > LIST_MAX) fprintf(out, "%s... and %d more\n", opt->markdown ? "- " : "  ", listed - LIST_MAX);
}

static void print_summary(const fb_compare_summary *s, int rounds, const fb_compare_options *opt, FILE *out)
{
    int least = fb_interleave_min_rounds(opt->alpha);
    fb_compare_print_counts(s, opt, "the rounds disagree", out);
    if (s->unsettled)
        fprintf(out,
                "%d configuration%s judged under load (a contended run in some round; said under each row): both "
                "sides of a round shared the load, so the verdict holds for it, not for a quiet machine\n",
                s->unsettled, s->unsettled == 1 ? "" : "s");
    if (rounds < least)
        fprintf(out,
                "note: %d round%s cannot reach p <= %g (the sign test needs at least %d): nothing can be SLOWER or "
                "FASTER; run more rounds (--rounds)\n",
                rounds, rounds == 1 ? "" : "s", opt->alpha, least);
}

fb_status fb_interleave_sets(fb_results_set *const *base, fb_results_set *const *next, int rounds,
                             const fb_compare_options *opt, FILE *out, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    rounds_index bi = {0}, ni = {0};
    json_t *order = json_array(), *seen = json_object(), *diffs = json_array();
    row *rows = NULL;
    int nrows = 0, paired = 0;
    memset(s, 0, sizeof *s);
    if (!order || !seen || !diffs) FB_FAIL(FB_ERR_NOMEM, "out of host memory pairing the rounds");
    FB_CHECK(environment_differences(base, next, rounds, diffs));
    FB_CHECK(index_build(base, rounds, order, seen, &bi));
    FB_CHECK(index_build(next, rounds, order, seen, &ni));
    FB_ALLOC(rows, json_array_size(order), "the comparison's rows");
    for (size_t k = 0; k < json_array_size(order); ++k) {
        row *w = &rows[nrows++];
        FB_CHECK(judge(&bi, &ni, json_string_value(json_array_get(order, k)), opt, w));
        paired += w->in_both;
    }
    control_false_discoveries(rows, nrows, opt->alpha);
    for (int i = 0; i < nrows; ++i) {
        load_text(&rows[i]);
        s->unsettled += *rows[i].load != '\0';
        fb_compare_count(s, rows[i].verdict);
    }
    print_differences(diffs, opt, out);
    print_head(rounds, opt, out);
    print_rows(rows, nrows, opt, out);
    print_summary(s, rounds, opt, out);
    if (!paired)
        FB_FAIL(FB_ERR_INPUT,
                "compare --interleave: no configuration has records of both sides in any round (nothing to compare)");
    if (opt->junit) write_junit(rows, nrows, rounds, diffs, opt);
fail:
    free(rows);
    index_free(&bi);
    index_free(&ni);
    json_decref(order);
    json_decref(seen);
    json_decref(diffs);
    return status;
}
