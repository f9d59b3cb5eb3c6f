/* compare_history.h - `compare --history DB NEW`: each configuration of
 * NEW judged against the distribution of its last stable runs in the
 * history (history_store.h), not against one BASE file.
 *
 * The baseline of a configuration is the medians of its last `lookback`
 * runs on the same machine fingerprint whose records are usable and
 * stable: unstable or contended runs are stored but never enter it, and
 * NEW's own run (by identity) is left out when it was added already. On
 * log times, the baseline's centre is their median and its spread 1.4826
 * x their median absolute deviation (at least FB_HISTORY_MIN_SPREAD). NEW
 * is SLOWER (FASTER) when its median is at least FB_HISTORY_Z spreads
 * above (below) the centre AND the change is at least the threshold (a
 * lookback z-score, as Conbench's, made robust to a wild run in the
 * window); a change of the threshold's size within FB_HISTORY_Z spreads
 * is INCONCLUSIVE (inside the history's noise); a SLOWER or FASTER of a
 * NEW record that is itself contended or unstable is INCONCLUSIVE too.
 * Fewer than FB_HISTORY_MIN_BASELINE baseline runs: not judged (new).
 */
#ifndef FB_COMPARE_HISTORY_H
#define FB_COMPARE_HISTORY_H

#include <stdio.h>

#include "compare.h"
#include "../history/history_detect.h"
#include "../history/history_store.h"

#define FB_HISTORY_LOOKBACK 20 /* default --lookback */
#define FB_HISTORY_MAX_LOOKBACK 1000
#define FB_HISTORY_MIN_BASELINE 5   /* stable runs a baseline needs */
#define FB_HISTORY_Z 4.0            /* robust z-score a change must reach */
#define FB_HISTORY_MIN_SPREAD 0.005 /* the baseline's spread floor (log units, about 0.5%) */

/* A baseline's centre (seconds) and the time above which a run of it is
 * SLOWER: centre x max(1 + threshold, exp(FB_HISTORY_Z x spread)).
 * medians: n >= 1 run medians; scratch: room for n. */
double fb_history_gate_limit(const double *medians, int n, double threshold, double *centre, double *scratch);

/* Judges every usable configuration of next against h (lookback runs),
 * prints a table and the summary to out, JUnit to opt->junit; fills s
 * (gate with fb_compare_gate). FB_ERR_INPUT when NEW has no measurement. */
fb_status fb_compare_history(fb_history *h, const fb_results_set *next, const fb_compare_options *opt, int lookback,
                             FILE *out, fb_compare_summary *s);

/* JUnit for the history commands: a testsuite of cases, each passed,
 * skipped or failed with a type and a message. */
typedef struct fb_junit_case {
    char classname[128];
    char name[512];
    const char *type; /* NULL: passed */
    int failed;       /* with a type: 1 failure, 0 skipped */
    char message[512];
} fb_junit_case;

void fb_history_junit_write(FILE *f, const char *suite, const fb_junit_case *cases, int n);

/* `history detect`'s gate over the series of a history: each series'
 * change points (history_detect.h) printed, and a slower step that gates
 * (the last one, still slower now; or with --since any at or after that
 * commit) is a REGRESSION in its JUnit case. */
typedef struct fb_history_detect_run {
    fb_detect_options opt;
    long long since; /* -1: no --since */
    int configs, changed, regressions;
    fb_junit_case *cases;
} fb_history_detect_run;

/* One series into d's counts and its case jc; its lines to stdout. */
fb_status fb_history_detect_series(fb_history_detect_run *d, const fb_history_series *s, fb_junit_case *jc);

#endif
