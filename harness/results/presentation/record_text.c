/* record_text.c - see record_text.h. */
#include "record_text.h"

#include <math.h>
#include <string.h>

#include "../records/reader.h"

void fb_record_print_params(FILE *f, const json_t *rec)
{
    const char *name;
    json_t *v, *params = json_object_get(rec, "params");
    fprintf(f, "  params:");
    json_object_foreach(params, name, v) fprintf(f, " %s=%lld", name, (long long)json_integer_value(v));
    if (!json_object_size(params)) fprintf(f, " (none)");
    fprintf(f, "\n");
}

/* What the compiler made of the kernel; registers and occupancy only where
 * the runtime says (CUDA). */
void fb_record_print_resources(FILE *f, const json_t *k)
{
    if (!k) return;
    fprintf(f, "  kernel: ");
    if (fb_json_num(k, "registers") > 0) fprintf(f, "%.0f registers, ", fb_json_num(k, "registers"));
    fprintf(f, "%.0f B private, %.0f B local per group, max group %.0f", fb_json_num(k, "private_bytes"),
            fb_json_num(k, "local_bytes"), fb_json_num(k, "max_group_items"));
    if (fb_json_num(k, "groups_per_unit") > 0)
        fprintf(f, ", %.0f groups per compute unit, occupancy %.0f%%", fb_json_num(k, "groups_per_unit"),
                100.0 * fb_json_num(k, "occupancy"));
    fprintf(f, "\n");
}

void fb_record_print_sell(FILE *f, const json_t *sell)
{
    if (!sell) return;
    fprintf(f, "  sell: %.0f slices, %.0f stored entries (padding %.1f%%)%s, converted in %.3f ms (not timed)\n",
            fb_json_num(sell, "slices"), fb_json_num(sell, "stored"), 100.0 * fb_json_num(sell, "padding"),
            json_is_true(json_object_get(sell, "permuted")) ? ", rows sorted" : "",
            fb_json_num(sell, "conversion_s") * 1e3);
}

/* "converged" (the rule that stopped it) when stable, else "unstable: why" (fb_measurement_verdict). */
void fb_record_print_median(FILE *f, const json_t *rec)
{
    const char *quality = fb_json_str(rec, "stats.quality");
    char verdict[400];
    if (!*quality || strcmp(quality, "stable") == 0)
        snprintf(verdict, sizeof verdict, "%s", fb_json_str(rec, "stats.stop"));
    else
        snprintf(verdict, sizeof verdict, "%s: %s", quality, fb_json_str(rec, "stats.quality_why"));
    fprintf(f, "  median %.4f ms over %.0f samples (95%% CI +-%.2f%%, %s)\n", fb_json_num(rec, "stats.median_s") * 1e3,
            fb_json_num(rec, "stats.n"), 100.0 * fb_json_num(rec, "stats.median_spread"), verdict);
}

void fb_record_print_check(FILE *f, const json_t *rec)
{
    const char *reason = fb_json_str(rec, "reason");
    int ok = json_is_true(json_object_get(json_object_get(rec, "check"), "ok"));
    if (!ok && *reason) /* the record's words: a NaN in y has no relative error to show */
        fprintf(f, "  check: WRONG (%s)\n", reason);
    else
        fprintf(f, "  check: %s (max rel error %.3g, tolerance %.3g)\n", ok ? "ok" : "WRONG",
                fb_json_num(rec, "check.max_rel_error"), fb_json_num(rec, "check.tolerance"));
}

void fb_record_print_counters(FILE *f, const json_t *counters)
{
    const char *key;
    json_t *v;
    if (!counters) return;
    if (json_object_get(counters, "unavailable")) {
        fprintf(f, "  counters unavailable: %s\n", json_string_value(json_object_get(counters, "unavailable")));
        return;
    }
    fprintf(f, "  counters per run:");
    json_object_foreach(json_object_get(counters, "events"), key, v) fprintf(f, " %s %.4g", key, json_number_value(v));
    json_object_foreach(json_object_get(counters, "derived"), key, v)
        fprintf(f, " | %s %.3g", key, json_number_value(v));
    fprintf(f, "\n");
}

/* Joules with a unit a reader takes in at once: "1.23 mJ". */
static void joules_text(double j, char *buf, size_t len)
{
    if (j >= 1 || j <= 0)
        snprintf(buf, len, "%.4g J", j);
    else if (j >= 1e-3)
        snprintf(buf, len, "%.4g mJ", j * 1e3);
    else
        snprintf(buf, len, "%.4g uJ", j * 1e6);
}

static void print_clocks(FILE *f, const json_t *e)
{
    if (!isnan(fb_json_num(e, "clocks.sm_mhz_min")))
        fprintf(f, "; SM %.0f-%.0f MHz", fb_json_num(e, "clocks.sm_mhz_min"), fb_json_num(e, "clocks.sm_mhz_max"));
    if (!isnan(fb_json_num(e, "clocks.mem_mhz_min")))
        fprintf(f, ", memory %.0f-%.0f MHz", fb_json_num(e, "clocks.mem_mhz_min"),
                fb_json_num(e, "clocks.mem_mhz_max"));
    if (!isnan(fb_json_num(e, "clocks.cpu_mhz_min")))
        fprintf(f, "; CPU %.0f-%.0f MHz", fb_json_num(e, "clocks.cpu_mhz_min"), fb_json_num(e, "clocks.cpu_mhz_max"));
    if (!isnan(fb_json_num(e, "temperature_c.max")))
        fprintf(f, ", %.0f-%.0f C", fb_json_num(e, "temperature_c.start"), fb_json_num(e, "temperature_c.max"));
}

void fb_record_print_energy(FILE *f, const char *label, const json_t *energy)
{
    char per_run[32], total[32];
    if (!energy) return;
    if (!json_object_get(energy, "unavailable")) {
        joules_text(fb_json_num(energy, "joules_per_run"), per_run, sizeof per_run);
        joules_text(fb_json_num(energy, "joules"), total, sizeof total);
        fprintf(f, "  energy%s%s%s: %s per run", label ? " (" : "", label ? label : "", label ? ")" : "", per_run);
        if (!isnan(fb_json_num(energy, "gflop_per_j")))
            fprintf(f, ", %.4g GFLOP/J", fb_json_num(energy, "gflop_per_j"));
        fprintf(f, "; %.4g W, %s over %.3g s (%.0f runs, %.0f of them to fill the window; %s %s)",
                fb_json_num(energy, "avg_power_w"), total, fb_json_num(energy, "window_s"), fb_json_num(energy, "runs"),
                fb_json_num(energy, "extra_runs"), fb_json_str(energy, "source"), fb_json_str(energy, "method"));
        print_clocks(f, energy);
        fprintf(f, "\n");
        if (*fb_json_str(energy, "note")) fprintf(f, "  energy note: %s\n", fb_json_str(energy, "note"));
    }
    if (json_is_true(json_object_get(energy, "throttled")))
        fprintf(f, "  THROTTLED%s%s%s: %s\n", label ? " (" : "", label ? label : "", label ? ")" : "",
                fb_json_str(energy, "throttle_why"));
}
