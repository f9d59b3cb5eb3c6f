/* processes.c - one configuration in N fresh processes (processes.h). */
#include "processes.h"

#include <string.h>

#include "../../core/fresh.h"
#include "../records/quality.h"
#include "../records/reader.h"

/* One process: its record from its --json output, and one line said. */
static fb_status run_process(char **argv, int i, int n, FILE *progress, fb_processes *out)
{
    fb_status status = FB_OK;
    fb_fresh_result r;
    json_error_t err;
    FB_CHECK(fb_fresh_run(argv, &r));
    json_t *rec = json_loads(r.out, 0, &err);
    if (!json_is_object(rec))
        FB_FAIL(r.exit_code == 2 ? FB_ERR_USAGE : FB_ERR_BACKEND,
                "%s --processes: process %d of %d ended with exit %d%s%s", argv[1], i + 1, n, r.exit_code,
                *r.last ? ": " : "", r.last);
    out->records[out->n] = rec;
    out->medians[out->n++] = fb_json_num(rec, "stats.median_s");
    if (r.exit_code == 1) out->failed_check = 1;
    fprintf(progress, "process %d of %d: median %.4g ms, %s%s%s\n", i + 1, n, fb_json_num(rec, "stats.median_s") * 1e3,
            fb_json_str(rec, "stats.quality"), *fb_json_str(rec, "stats.quality_why") ? ": " : "",
            fb_json_str(rec, "stats.quality_why"));
fail:
    fb_fresh_result_free(&r);
    return status;
}

fb_status fb_processes_run(char **argv, int n, FILE *progress, fb_processes *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    if (n < 2 || n > FB_PROCESSES_MAX)
        FB_FAIL(FB_ERR_USAGE, "%s: %d processes, not a count in [2, %d]", argv[1], n, FB_PROCESSES_MAX);
    for (int i = 0; i < n; ++i)
        FB_CHECK(run_process(argv, i, n, progress, out));
    fb_json_judge_processes(out->records, out->medians, out->n, out->verdict, sizeof out->verdict);
fail:
    return status;
}

int fb_processes_two_modes(const fb_processes *p) { return p->n && strstr(p->verdict, "two modes") != NULL; }

void fb_processes_free(fb_processes *p)
{
    for (int i = 0; i < p->n; ++i)
        json_decref(p->records[i]);
    p->n = 0;
}
