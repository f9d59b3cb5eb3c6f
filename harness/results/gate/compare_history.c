/* compare_history.c - NEW against the history's baselines (compare_history.h). */
#include "compare_history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../records/quality.h"
#include "../../core/stats.h"

/* The centre (log seconds) and robust spread of a baseline. */
static void baseline_scale(const double *medians, int n, double *scratch, double *centre, double *spread)
{
    for (int i = 0; i < n; ++i)
        scratch[i] = log(medians[i]);
    fb_sort_doubles(scratch, (size_t)n);
    *centre = fb_median_sorted(scratch, (size_t)n);
    for (int i = 0; i < n; ++i)
        scratch[i] = fabs(scratch[i] - *centre);
    fb_sort_doubles(scratch, (size_t)n);
    *spread = fmax(1.4826 * fb_median_sorted(scratch, (size_t)n), FB_HISTORY_MIN_SPREAD);
}

double fb_history_gate_limit(const double *medians, int n, double threshold, double *centre, double *scratch)
{
    double c, spread;
    baseline_scale(medians, n, scratch, &c, &spread);
    *centre = exp(c);
    return exp(c) * fmax(1 + threshold, exp(FB_HISTORY_Z * spread));
}

/* ---- JUnit ---------------------------------------------------------------- */

void fb_history_junit_write(FILE *f, const char *suite, const fb_junit_case *cases, int n)
{
    int failures = 0, skipped = 0;
    for (int i = 0; i < n; ++i) {
        failures += cases[i].type && cases[i].failed;
        skipped += cases[i].type && !cases[i].failed;
    }
    fb_junit_begin(f, suite, n, failures, skipped);
    for (int i = 0; i < n; ++i) {
        const fb_junit_case *c = &cases[i];
        fb_junit_write_case(f, c->classname, c->name,
                            !c->type    ? NULL
                            : c->failed ? "failure"
                                        : "skipped",
                            c->type, c->message);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
}

/* ---- judging NEW ------------------------------------------------------------ */

typedef struct judged {
    fb_junit_case jc;
    fb_verdict verdict;
} judged;

/* "stream/triad" from a record. */
static void class_of(const json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", fb_json_str(rec, "benchmark"), fb_json_str(rec, "kernel"));
}

/* The verdict from the z-score and the change (see the header). */
static fb_verdict verdict_of(double z, double change, double threshold)
{
    int large = fb_change_size(change) >= threshold;
    if (large && z >= FB_HISTORY_Z) return FB_SLOWER;
    if (large && z <= -FB_HISTORY_Z) return FB_FASTER;
    return large ? FB_INCONCLUSIVE : FB_SAME;
}

/* NEW's time of a configuration: with `sweep --repeat R` NEW holds R
 * records of it (its rounds), and the median of their usable records'
 * medians is judged, as a commit's point in the history is the median of
 * its runs'; else the one record's. *rounds = the records pooled. */
static double pooled_median(const fb_results_set *next, const fb_record *r, int *rounds)
{
    int first, n = fb_results_find_all(next, r->key, &first), k = 0;
    double *v = malloc((size_t)(n + 1) * sizeof *v), now = fb_record_median(r);
    for (int i = 0; v && i < n; ++i) {
        const fb_record *round = &next->records[next->by_key[first + i]];
        if (fb_record_usable(round)) v[k++] = fb_record_median(round);
    }
    if (k > 1) now = fb_median(v, (size_t)k);
    *rounds = k > 1 ? k : 1;
    free(v);
    return now;
}

/* A usable record of NEW (now: its time, pooled over `rounds` rounds)
 * against its baseline b[0..n). */
static void judge_usable(const fb_record *r, double now, int rounds, const double *b, int n,
                         const fb_compare_options *opt, double *scratch, judged *j, fb_compare_summary *s)
{
    char tn[32], tb[32], pooled[40] = "";
    const char *why = "";
    double centre, spread;
    baseline_scale(b, n, scratch, &centre, &spread);
    double z = (log(now) - centre) / spread, change = now / exp(centre) - 1;
    fb_quality q = fb_json_quality(r->json, &why);
    j->verdict = verdict_of(z, change, opt->threshold);
    int unsettled = fb_quality_flagged(q) && (j->verdict == FB_SLOWER || j->verdict == FB_FASTER);
    fb_compare_format_time(now, tn, sizeof tn);
    if (rounds > 1) snprintf(pooled, sizeof pooled, " (of %d rounds)", rounds);
    fb_compare_format_time(exp(centre), tb, sizeof tb);
    snprintf(
        j->jc.message, sizeof j->jc.message,
        "%s: median %s%s vs %s, the median of the last %d stable runs (%+.1f%%, robust z %.1f, threshold %.3g%%)%s%s",
        unsettled ? "INCONCLUSIVE" : fb_verdict_name(j->verdict), tn, pooled, tb, n, 100 * change, z,
        100 * opt->threshold, unsettled ? "; NEW was " : "", unsettled ? fb_quality_name(q) : "");
    if (unsettled && why && *why) {
        size_t used = strlen(j->jc.message);
        snprintf(j->jc.message + used, sizeof j->jc.message - used, ": %s", why);
    }
    if (unsettled) j->verdict = FB_INCONCLUSIVE;
    s->unsettled += unsettled;
    if (!unsettled) fb_compare_count(s, j->verdict);
}

/* One configuration of NEW: its verdict and message. */
static fb_status judge_record(fb_history *h, const fb_results_set *next, const fb_record *r, const char *exclude,
                              int lookback, const fb_compare_options *opt, double *b, judged *j, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    char machine[1024], why[300];
    int n = 0;
    char *key = fb_measured_key(r->json, FB_KEY_PARAMS | FB_KEY_FILE);
    if (!key) FB_FAIL(FB_ERR_NOMEM, "out of host memory keying a record");
    fb_history_machine(r, machine, sizeof machine);
    FB_CHECK(fb_history_baseline(h, key, machine, exclude, lookback, b, &n));
    if (!fb_record_usable(r)) {
        j->verdict = strcmp(fb_json_str(r->json, "status"), "wrong-result") == 0 ? FB_WRONG : FB_MISSING;
        fb_record_failure(r, why, sizeof why);
        snprintf(j->jc.message, sizeof j->jc.message, "%s: NEW has no usable record (%s)", fb_verdict_name(j->verdict),
                 why);
        fb_compare_count(s, j->verdict);
    } else if (n < FB_HISTORY_MIN_BASELINE) {
        j->verdict = FB_NEW_ONLY;
        snprintf(j->jc.message, sizeof j->jc.message,
                 "not judged: %d stable run(s) of it on this machine in the history, %d needed", n,
                 FB_HISTORY_MIN_BASELINE);
        fb_compare_count(s, j->verdict);
    } else {
        int rounds;
        const double now = pooled_median(next, r, &rounds);
        judge_usable(r, now, rounds, b, n, opt, b + n, j, s);
    }
fail:
    free(key);
    return status;
}

static int fails_gate(const judged *j, const fb_compare_options *opt)
{
    return j->verdict == FB_SLOWER || (j->verdict == FB_WRONG && !opt->allow_wrong) ||
           (j->verdict == FB_MISSING && !opt->allow_missing);
}

static void print_row(const judged *j, const fb_compare_options *opt, FILE *out)
{
    const char *text = strchr(j->jc.message, ':');
    const char *verdict = j->verdict == FB_NEW_ONLY ? "NEW" : fb_verdict_name(j->verdict);
    if (opt->markdown)
        fprintf(out, "| %s | %s | %s |\n", verdict, j->jc.name, text ? text + 2 : j->jc.message);
    else
        fprintf(out, "%-12s %s: %s\n", verdict, j->jc.name, text ? text + 2 : j->jc.message);
}

static fb_status judge_all(fb_history *h, const fb_results_set *next, const char *exclude, int lookback,
                           const fb_compare_options *opt, judged *rows, int *nrows, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    double *b = NULL;
    FB_ALLOC(b, 2 * lookback + 1, "a baseline");
    *nrows = 0;
    for (int i = 0; i < next->nlatest; ++i) {
        const fb_record *r = &next->records[next->latest[i]];
        judged *j = &rows[*nrows];
        if (strcmp(fb_json_str(r->json, "type"), "measurement") != 0) continue;
        memset(j, 0, sizeof *j);
        class_of(r->json, j->jc.classname, sizeof j->jc.classname);
        fb_record_label(r, j->jc.name, sizeof j->jc.name);
        FB_CHECK(judge_record(h, next, r, exclude, lookback, opt, b, j, s));
        if (j->verdict != FB_SAME && j->verdict != FB_FASTER) {
            j->jc.type = j->verdict == FB_NEW_ONLY ? "NEW" : fb_verdict_name(j->verdict);
            j->jc.failed = fails_gate(j, opt);
        }
        ++*nrows;
    }
fail:
    free(b);
    return status;
}

fb_status fb_compare_history(fb_history *h, const fb_results_set *next, const fb_compare_options *opt, int lookback,
                             FILE *out, fb_compare_summary *s)
{
    fb_status status = FB_OK;
    judged *rows = NULL;
    fb_junit_case *cases = NULL;
    char exclude[17], suite[1200];
    int n = 0;
    memset(s, 0, sizeof *s);
    FB_CHECK(fb_history_run_hash(next, exclude));
    FB_ALLOC(rows, next->nlatest + 1, "the verdicts");
    FB_CHECK(judge_all(h, next, exclude, lookback, opt, rows, &n, s));
    fprintf(out, "%s%s against the last %d stable runs per configuration in %s\n", opt->markdown ? "**" : "",
            next->path, lookback, fb_history_path(h));
    if (opt->markdown) fputs("| verdict | configuration | evidence |\n|---|---|---|\n", out);
    for (int i = 0; i < n; ++i)
        print_row(&rows[i], opt, out);
    fb_compare_print_counts(s, opt, "inside the history's noise", out);
    if (opt->junit) {
        FB_ALLOC(cases, n + 1, "the JUnit cases");
        for (int i = 0; i < n; ++i)
            cases[i] = rows[i].jc;
        snprintf(suite, sizeof suite, "flowbench compare --history %s %s", fb_history_path(h), next->path);
        fb_history_junit_write(opt->junit, suite, cases, n);
    }
fail:
    free(rows);
    free(cases);
    return status;
}

/* ---- history detect: the change points that gate ---- */

/* Whether change point c of a series is a regression the gate fails on. */
static int gates(const fb_history_detect_run *d, const fb_history_series *s, const int *idx, const fb_change_point *cp,
                 int ncp, int c)
{
    if (cp[c].change <= 0) return 0;
    if (d->since >= 0) return s->points[idx[cp[c].at]].when >= d->since;
    return c == ncp - 1; /* still slower now */
}

static void print_change(const fb_history_series *s, const int *idx, int n, const fb_change_point *cp, int fails)
{
    char before[32], after[32];
    fb_compare_format_time(cp->before, before, sizeof before);
    fb_compare_format_time(cp->after, after, sizeof after);
    printf("  at %s (commit %d of %d, after %s): %+.1f%% %s, p %.2g (median %s -> %s)%s\n",
           s->points[idx[cp->at]].commit, cp->at + 1, n, s->points[idx[cp->at - 1]].commit, 100 * cp->change,
           cp->change > 0 ? "slower" : "faster", cp->p, before, after, fails ? "  REGRESSION" : "");
}

/* "stream/triad" from a key "stream|triad|...". */
static void class_of_key(const char *key, char *buf, size_t len)
{
    const char *bar = strchr(key, '|'), *end = bar ? strchr(bar + 1, '|') : NULL;
    snprintf(buf, len, "%.*s/%.*s", bar ? (int)(bar - key) : 0, key, end ? (int)(end - bar - 1) : 0,
             bar ? bar + 1 : "");
}

fb_status fb_history_detect_series(fb_history_detect_run *d, const fb_history_series *s, fb_junit_case *jc)
{
    fb_status status = FB_OK;
    double *v = NULL;
    int *idx = NULL, ncp = 0, failing = 0;
    fb_change_point *cp = NULL;
    FB_ALLOC(v, s->npoints + 1, "a series");
    FB_ALLOC(idx, s->npoints + 1, "a series");
    FB_ALLOC(cp, s->npoints + 1, "a series");
    int n = fb_history_series_values(s, v, idx);
    FB_CHECK(fb_detect_steps(v, n, &d->opt, cp, &ncp));
    class_of_key(s->key, jc->classname, sizeof jc->classname);
    snprintf(jc->name, sizeof jc->name, "%s", s->label);
    if (ncp) printf("%s [%s]\n", s->label, s->machine);
    for (int c = 0; c < ncp; ++c) {
        int fails = gates(d, s, idx, cp, ncp, c);
        print_change(s, idx, n, &cp[c], fails);
        if (fails && !failing) {
            jc->type = "REGRESSION";
            jc->failed = 1;
            snprintf(jc->message, sizeof jc->message, "slower by %+.1f%% from commit %s (p %.2g)", 100 * cp[c].change,
                     s->points[idx[cp[c].at]].commit, cp[c].p);
        }
        failing |= fails;
    }
    d->configs++;
    d->changed += ncp > 0;
    d->regressions += failing;
fail:
    free(v);
    free(idx);
    free(cp);
    return status;
}
