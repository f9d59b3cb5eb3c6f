/* speedup.c - the solver's speedup, its flag and its record (speedup.h). */
#include "speedup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../records/reader.h"

static double ratio(double base, double run) { return base > 0 && run > 0 ? base / run : NAN; }

void fb_speedup_side_why(const fb_speedup_side *side, char *buf, size_t len)
{
    size_t n = strlen(buf);
    if (!fb_quality_flagged(side->quality) || n + 1 >= len) return;
    snprintf(buf + n, len - n, "%s%s %s: %s", n ? "; " : "", side->id ? side->id : "?", fb_quality_name(side->quality),
             side->why && *side->why ? side->why : "(no reason recorded)");
}

void fb_speedup_of(const fb_speedup_side *base, const fb_speedup_side *run, fb_speedup *out)
{
    memset(out, 0, sizeof *out);
    out->per_step = ratio(base->step_s, run->step_s);
    out->total = ratio(base->total_s, run->total_s);
    out->trusted = !fb_quality_flagged(base->quality) && !fb_quality_flagged(run->quality);
    out->throttled = base->throttled || run->throttled;
    fb_speedup_side_why(base, out->why, sizeof out->why);
    if (run != base) fb_speedup_side_why(run, out->why, sizeof out->why);
}

void fb_speedup_text(double value, int trusted, int throttled, char *buf, size_t len)
{
    if (isnan(value))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2fx%s%s", value, trusted ? "" : FB_SPEEDUP_FLAG, throttled ? FB_THROTTLED_FLAG : "");
}

static json_t *number_or_null(double x) { return isnan(x) ? json_null() : json_real(x); }

json_t *fb_speedup_json(const fb_speedup *s, const char *over)
{
    json_t *j = json_object();
    json_object_set_new(j, "over", json_string(over));
    json_object_set_new(j, "per_step", number_or_null(s->per_step));
    json_object_set_new(j, "total", number_or_null(s->total));
    json_object_set_new(j, "trusted", json_boolean(s->trusted));
    json_object_set_new(j, "why", s->trusted ? json_null() : json_string(s->why));
    json_object_set_new(j, "throttled", json_boolean(s->throttled));
    json_object_set_new(j, "definition",
                        json_pack("{s:s, s:s}", "per_step", FB_SPEEDUP_PER_STEP_DEF, "total", FB_SPEEDUP_TOTAL_DEF));
    return j;
}

/* A transfer the record does not have took no time (openmp records have 0). */
static double seconds_or_zero(const json_t *rec, const char *path)
{
    double x = fb_json_num(rec, path);
    return isnan(x) ? 0.0 : x;
}

int fb_speedup_side_of_record(const json_t *rec, fb_speedup_side *side)
{
    memset(side, 0, sizeof *side);
    side->id = fb_json_str(rec, "device");
    side->step_s = fb_json_num(rec, "stats.median_s");
    side->total_s = fb_json_num(rec, "total_s") + seconds_or_zero(rec, "timings.cpu_to_gpu_s") +
                    seconds_or_zero(rec, "timings.gpu_to_cpu_s");
    side->quality = fb_json_quality(rec, &side->why);
    side->throttled = json_is_true(fb_json_get(rec, "energy.throttled"));
    return side->step_s > 0;
}
