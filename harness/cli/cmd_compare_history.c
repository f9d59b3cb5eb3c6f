/* cmd_compare_history.c - `compare --history DB NEW` (compare_history_cli.h). */
#include <stdio.h>

#include "compare_history_cli.h"
#include "../results/gate/compare_history.h"
#include "../results/history/history_store.h"
#include "../results/gate/noise.h"

/* Options of the two-file or interleaved compare that mean nothing here. */
static fb_status check_options(const fb_parsed *args)
{
    /* --alpha too: the gate is a robust z-score of 4 and --threshold, no test at a level (docs) */
    static const char *const other[] = {"interleave", "rounds",  "out",         "json",    "learn-noise", "noise-file",
                                        "no-noise",   "min-gbs", "any-machine", "pair-by", "alpha",       NULL};
    fb_status status = FB_OK;
    const char *given = fb_cli_first_given(args, other);
    if (given)
        FB_FAIL(FB_ERR_USAGE, "compare --history: --%s does not apply (it judges NEW against the history)", given);
    if (args->npositional != 1)
        FB_FAIL(FB_ERR_USAGE, "compare --history DB NEW: one results file expected, %d given", args->npositional);
fail:
    return status;
}

int fb_compare_history_command(const fb_parsed *args, fb_compare_read_options read_options)
{
    fb_status status = FB_OK;
    fb_compare_options opt = fb_compare_defaults();
    fb_compare_summary summary = {0};
    fb_results_set *next = NULL;
    fb_history *h = NULL;
    fb_cli_out junit = {0};
    int lookback = FB_HISTORY_LOOKBACK;
    char noise[1024];
    const fb_named_file inputs[] = {{"--history", fb_cli_value(args, "history")}, {"NEW", args->positional[0]}};
    const fb_named_file store = {"noise store", noise};
    const fb_named_file outputs[] = {{"--junit", fb_cli_value(args, "junit")}};
    FB_CHECK(check_options(args));
    FB_CHECK(read_options(args, &opt));
    FB_CHECK(fb_cli_int(args, "lookback", lookback, &lookback));
    if (lookback < FB_HISTORY_MIN_BASELINE || lookback > FB_HISTORY_MAX_LOOKBACK)
        FB_FAIL(FB_ERR_USAGE, "--lookback: %d is not in [%d, %d]", lookback, FB_HISTORY_MIN_BASELINE,
                FB_HISTORY_MAX_LOOKBACK);
    FB_CHECK(fb_files_check_distinct("compare", inputs, 2, outputs, 1));
    /* the noise store is not read here, but a report named like it would
     * replace (or make) the floors the two-file compare gates with */
    fb_noise_path(NULL, noise, sizeof noise);
    FB_CHECK(fb_files_check_stores("compare", &store, 1, outputs, 1));
    FB_CHECK(fb_results_load(args->positional[0], &next));
    FB_CHECK(fb_history_open(fb_cli_value(args, "history"), 0, &h));
    FB_CHECK(fb_history_check_intact(h));
    if (fb_cli_value(args, "junit")) {
        FB_CHECK(fb_cli_out_open(fb_cli_value(args, "junit"), &junit));
        opt.junit = junit.f;
    }
    status = fb_compare_history(h, next, &opt, lookback, stdout, &summary);
fail:
    fflush(stdout);
    if (junit.f) status = fb_cli_out_close(&junit, status);
    fb_history_close(h);
    fb_results_set_free(next);
    if (status != FB_OK) return fb_comm_report(status);
    return fb_compare_gate(&summary, &opt);
}
