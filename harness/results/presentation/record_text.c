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

void fb_record_print_bandwidth(FILE *f, const json_t *rec)
{
    fprintf(f, "%.3f GB/s of %.4g model bytes", fb_json_num(rec, "gbs"), fb_json_num(rec, "bytes"));
    if (fb_json_num(rec, "stream_gbs") > 0)
        fprintf(f, " = %.1f%% of stream triad %.2f GB/s", 100.0 * fb_json_num(rec, "fraction_of_stream"),
                fb_json_num(rec, "stream_gbs"));
    if (json_is_number(json_object_get(rec, "fraction_of_read")))
        fprintf(f, ", %.1f%% of the read ceiling %.2f GB/s", 100.0 * fb_json_num(rec, "fraction_of_read"),
                fb_json_num(rec, "read_gbs"));
    else if (fb_json_num(rec, "read_gbs") > 0) /* dot far below the triad: read_note says why */
        fprintf(f, "; no read ceiling (stream dot %.2f GB/s)", fb_json_num(rec, "read_gbs"));
}

/* sss's conversion, and a hint where slots carry a large share of the
 * products (each costs 20 bytes and a second pass: the format then loses). */
static void print_sss(FILE *f, const json_t *sss)
{
    const double lower = fb_json_num(sss, "lower"), slots = fb_json_num(sss, "conflicts");
    if (fb_json_num(sss, "chunks") == 0) {
        fprintf(f, "  sss-atomic: %.0f lower entries, converted in %.3f ms (not timed)\n", lower,
                fb_json_num(sss, "conversion_s") * 1e3);
        return;
    }
    fprintf(f,
            "  sss: %.0f lower entries in %.0f chunks, %.0f products through slots to %.0f rows, converted in %.3f ms "
            "(not timed)\n",
            lower, fb_json_num(sss, "chunks"), slots, fb_json_num(sss, "fix_rows"),
            fb_json_num(sss, "conversion_s") * 1e3);
    if (lower > 0 && slots > 0.2 * lower)
        fprintf(f,
                "  sss: %.0f%% of the lower entries went through slots (short chunks or long-range couplings): fewer "
                "CHUNKS, or --reorder rcm (SRC:reorder=rcm in a plan or suite), makes them few\n",
                100.0 * slots / lower);
}

void fb_record_print_format_notes(FILE *f, const json_t *rec)
{
    const json_t *c = json_object_get(rec, "csr16");
    const json_t *loss = json_object_get(json_object_get(rec, "check"), "error_vs_double_values");
    if (c)
        fprintf(
            f,
            "  csr16: %.0f bases of %.0f rows, %.0f kept at 32 bits (%.0f entries), converted in %.3f ms (not timed)\n",
            fb_json_num(c, "bases"), fb_json_num(c, "base_rows"), fb_json_num(c, "wide_bases"),
            fb_json_num(c, "wide_entries"), fb_json_num(c, "conversion_s") * 1e3);
    const json_t *sss = json_object_get(rec, "sss");
    if (sss) print_sss(f, sss);
    if (loss)
        fprintf(f, "  values in single precision: error against the double values' product %.3g (declared)\n",
                json_number_value(loss));
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

/* ---- a decomposed heat2d run ---- */

static double ms(const json_t *rec, const char *path) { return 1e3 * fb_json_num(rec, path); }

void fb_record_print_decomposed(FILE *f, const json_t *rec)
{
    fprintf(f, "heat2d %s on %.0f rank%s, %.0fx%.0f blocks (%s) of %s (%s), %s\n", fb_json_str(rec, "kernel"),
            fb_json_num(rec, "decomposition.ranks"), fb_json_num(rec, "decomposition.ranks") == 1 ? "" : "s",
            fb_json_num(rec, "decomposition.px"), fb_json_num(rec, "decomposition.py"),
            fb_json_str(rec, "decomposition.kind"), fb_json_str(rec, "backend"), fb_json_str(rec, "device_name"),
            fb_json_str(rec, "precision"));
    fprintf(f,
            "  grid: %s, %.0f cells; %.0f steps = %.0f iterations per transient, %.0f transients (median reported)\n",
            fb_json_str(rec, "grid.spec"), fb_json_num(rec, "grid.cells"), fb_json_num(rec, "decomposition.steps"),
            fb_json_num(rec, "decomposition.iterations"), fb_json_num(rec, "decomposition.repeats"));
    const json_t *hosts = json_object_get(json_object_get(rec, "decomposition"), "hosts");
    fprintf(f, "  hosts:");
    for (size_t k = 0; k < json_array_size(hosts); ++k)
        fprintf(f, "%s %s", k ? "," : "", json_string_value(json_array_get(hosts, k)));
    fprintf(f,
            "\n  per iteration: %.4f ms = compute %.4f + edge copies %.4f + halo %.4f + allreduce %.4f ms "
            "(means over ranks); %.3f ns per cell\n",
            ms(rec, "per_iteration.wall_s"), ms(rec, "per_iteration.compute_s"), ms(rec, "per_iteration.edge_copy_s"),
            ms(rec, "per_iteration.halo_s"), ms(rec, "per_iteration.allreduce_s"), fb_json_num(rec, "ns_per_cell"));
    fprintf(f,
            "  load balance: compute max/min %.3f (%.4f / %.4f ms); exchanged %.0f bytes in %.0f messages per "
            "iteration (all ranks), %.1f%% of the time\n",
            fb_json_num(rec, "per_iteration.load_balance"), ms(rec, "per_iteration.compute_max_s"),
            ms(rec, "per_iteration.compute_min_s"), fb_json_num(rec, "per_iteration.bytes"),
            fb_json_num(rec, "per_iteration.messages"), 100.0 * fb_json_num(rec, "per_iteration.exchange_share"));
    const json_t *ok = json_object_get(json_object_get(rec, "check"), "identical_to_single_device");
    fprintf(f,
            "  check: %s: %s one device, bit for bit (%.0f differing cells; %.0f iterations, one device %.0f); "
            "one device against the reference: rel error %.3g, tolerance %.3g\n",
            fb_json_str(rec, "status"), json_is_true(ok) ? "identical to" : "NOT identical to",
            fb_json_num(rec, "check.mismatched_cells"), fb_json_num(rec, "check.iterations"),
            fb_json_num(rec, "check.single_device_iterations"), fb_json_num(rec, "check.max_rel_error"),
            fb_json_num(rec, "check.tolerance"));
    fprintf(f, "  %4s  %-16s %-12s %-21s %9s %9s %9s %9s  (ms per iteration)\n", "rank", "host", "device",
            "cells i0+nx, j0+ny", "compute", "copies", "halo", "allreduce");
    const json_t *ranks = json_object_get(rec, "per_rank");
    for (size_t k = 0; k < json_array_size(ranks); ++k) {
        const json_t *q = json_array_get(ranks, k);
        char cells[64];
        snprintf(cells, sizeof cells, "%.0f+%.0f, %.0f+%.0f", fb_json_num(q, "i0"), fb_json_num(q, "nx"),
                 fb_json_num(q, "j0"), fb_json_num(q, "ny"));
        fprintf(f, "  %4zu  %-16.16s %-12.12s %-21s %9.4f %9.4f %9.4f %9.4f\n", k, fb_json_str(q, "host"),
                fb_json_str(q, "device"), cells, ms(q, "compute_s"), ms(q, "edge_copy_s"), ms(q, "halo_s"),
                ms(q, "allreduce_s"));
    }
    fb_record_print_energy(f, NULL, json_object_get(rec, "energy"));
    if (*fb_json_str(rec, "reason")) fprintf(f, "  reason: %s\n", fb_json_str(rec, "reason"));
}

static const char *problem_name(const json_t *rec, const char *key)
{
    const json_t *p = json_object_get(rec, key);
    const char *name = fb_json_str(p, "name");
    return *name ? name : fb_json_str(p, "source");
}

static void params_text(const json_t *params, char *buf, size_t len)
{
    const char *key;
    json_t *v;
    size_t used = 0;
    buf[0] = 0;
    json_object_foreach((json_t *)params, key, v)
    {
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%lld", used ? " " : "", key,
                                     (long long)json_integer_value(v));
    }
}

void fb_record_print_row(FILE *f, const json_t *rec, const char *problem_key)
{
    char params[256];
    const char *st = fb_json_str(rec, "status");
    params_text(json_object_get(rec, "params"), params, sizeof params);
    fprintf(f, "  %-18s %-24s %-40s %-12s", fb_json_str(rec, "kernel"), problem_name(rec, problem_key),
            *params ? params : "-", st);
    if (!strcmp(st, "ok")) {
        fprintf(f, " %10.3f us %8.3f GB/s", fb_json_num(rec, "stats.median_s") * 1e6, fb_json_num(rec, "gbs"));
        if (json_is_number(json_object_get(rec, "fraction_of_stream")))
            fprintf(f, " %5.2f of triad", fb_json_num(rec, "fraction_of_stream"));
        if (json_is_number(json_object_get(rec, "fraction_of_read")))
            fprintf(f, " %5.2f of read", fb_json_num(rec, "fraction_of_read"));
    } else if (*fb_json_str(rec, "reason")) {
        fprintf(f, " %s", fb_json_str(rec, "reason"));
    }
    fprintf(f, "\n");
}

void fb_record_print_row_header(FILE *f, const char *problem_key)
{
    fprintf(f, "  %-18s %-24s %-40s %-12s %13s %13s\n", "kernel", problem_key, "params", "status", "median", "GB/s");
}

void fb_record_print_spmv(FILE *f, const json_t *rec, const char *source, int nrows, int ncols, long long stored,
                          int reordered)
{
    const json_t *global = json_object_get(json_object_get(rec, "launch"), "global");
    fprintf(f, "spmv %s on %s (%s), %s\n", fb_json_str(rec, "kernel"), fb_json_str(rec, "device"),
            fb_json_str(rec, "device_name"), fb_json_str(rec, "precision"));
    fprintf(f, "  matrix: %s, %d x %d, %lld stored entries%s\n", source, nrows, ncols, stored,
            reordered ? ", rcm order" : "");
    fb_record_print_params(f, rec);
    if (json_object_get(rec, "mpi"))
        fprintf(f, "  ranks: %.0f (%s), %.0f thread each; no stream triad on ranks\n", fb_json_num(rec, "mpi.ranks"),
                fb_json_str(rec, "mpi.library"), fb_json_num(rec, "mpi.threads_per_rank"));
    if (json_array_size(global))
        fprintf(f, "  launch: global %.0f, local %.0f\n", json_number_value(json_array_get(global, 0)),
                json_number_value(json_array_get(json_object_get(json_object_get(rec, "launch"), "local"), 0)));
    fb_record_print_resources(f, json_object_get(rec, "kernel_resources"));
    fb_record_print_sell(f, json_object_get(rec, "sell"));
    fb_record_print_format_notes(f, rec);
    fb_record_print_median(f, rec);
    fprintf(f, "  %.3f GFLOP/s, ", fb_json_num(rec, "gflops"));
    fb_record_print_bandwidth(f, rec);
    fprintf(f, "\n");
    fb_record_print_check(f, rec);
    if (json_object_get(rec, "auto")) fprintf(f, "  auto: %s\n", fb_json_str(rec, "auto.why"));
}

void fb_record_print_grid(FILE *f, const json_t *rec, const char *family, const char *spec)
{
    fprintf(f, "%s %s on %s (%s), %s\n", family, fb_json_str(rec, "kernel"), fb_json_str(rec, "device"),
            fb_json_str(rec, "device_name"), fb_json_str(rec, "precision"));
    fprintf(f, "  grid: %s, %.0f cells\n", spec, fb_json_num(rec, "grid.cells"));
    fb_record_print_params(f, rec);
    fprintf(f, "  median %.4f ms over %.0f samples = %.3f ns per cell; ", fb_json_num(rec, "stats.median_s") * 1e3,
            fb_json_num(rec, "stats.n"), fb_json_num(rec, "ns_per_cell"));
    fb_record_print_bandwidth(f, rec);
    if (fb_json_str(rec, "stats.quality_why")[0])
        fprintf(f, "\n  %s: %s", fb_json_str(rec, "stats.quality"), fb_json_str(rec, "stats.quality_why"));
    if (strcmp(fb_json_str(rec, "status"), "ok") && *fb_json_str(rec, "reason")) /* the record's words: a NaN */
        fprintf(f, "\n  check: %s (%s)\n", fb_json_str(rec, "status"), fb_json_str(rec, "reason")); /* has no error */
    else
        fprintf(f, "\n  check: %s (rel error %.3g, tolerance %.3g)\n", fb_json_str(rec, "status"),
                fb_json_num(rec, "check.max_rel_error"), fb_json_num(rec, "check.tolerance"));
    fb_record_print_energy(f, NULL, json_object_get(rec, "energy"));
}
