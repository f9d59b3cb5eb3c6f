/* cache_tools.c - see cache_tools.h. */
#include "cache_tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/files.h"

/* ---- merge --------------------------------------------------------------- */

typedef struct merge_ctx {
    const char *out;
    fb_tuning_cache **inputs;
    const char *const *names;
    int n;
    FILE *say;
    fb_cache_merge_counts counts;
} merge_ctx;

static double median_of(const json_t *entry)
{
    const json_t *m = json_object_get(entry, "median_s");
    return json_is_number(m) && json_number_value(m) > 0 ? json_number_value(m) : INFINITY;
}

static const char *origin_of(const json_t *entry, const char *fallback)
{
    const char *from = json_string_value(json_object_get(entry, "from"));
    return from ? from : fallback;
}

/* "merge: csr-vector double on DEVICE (gen:cube:29): kept {WG..} (0.041 ms, from B) over {..} (0.052 ms, from A)" */
static void say_disagreement(FILE *say, const json_t *won, const char *won_from, const json_t *lost,
                             const char *lost_from)
{
    char *wp = json_dumps(json_object_get(won, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    char *lp = json_dumps(json_object_get(lost, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    const char *problem = json_string_value(json_object_get(won, "matrix"));
    if (!problem) problem = json_string_value(json_object_get(won, "grid"));
    fprintf(say, "merge: %s %s on %s (%s): kept %s (%.4g ms, from %s) over %s (%.4g ms, from %s)\n",
            json_string_value(json_object_get(won, "kernel")), json_string_value(json_object_get(won, "precision")),
            json_string_value(json_object_get(won, "device")), problem ? problem : "?", wp ? wp : "?",
            median_of(won) * 1e3, won_from, lp ? lp : "?", median_of(lost) * 1e3, lost_from);
    free(wp);
    free(lp);
}

/* One input entry into the merged cache m: added, or put over a slower
 * point of its key, or left out beside a faster (or as fast) one; another
 * point for the same key is said either way. */
static fb_status merge_entry(merge_ctx *ctx, fb_tuning_cache *m, const json_t *entry, const char *name)
{
    fb_status status = FB_OK;
    const json_t *there = fb_cache_same_key(m, entry);
    json_t *copy = json_deep_copy(entry);
    if (!copy) FB_FAIL(FB_ERR_NOMEM, "out of host memory merging tuning caches");
    if (!json_object_get(copy, "from")) json_object_set_new(copy, "from", json_string(name));
    const int faster = !there || median_of(copy) < median_of(there);
    if (there && !json_equal(json_object_get(there, "params"), json_object_get(copy, "params"))) {
        const json_t *won = faster ? copy : there, *lost = faster ? there : copy;
        say_disagreement(ctx->say, won, origin_of(won, ctx->out), lost, origin_of(lost, ctx->out));
    }
    if (!faster) {
        ctx->counts.kept++;
    } else {
        ctx->counts.added += !there, ctx->counts.replaced += there != NULL;
        FB_CHECK(fb_cache_put(m, copy));
    }
fail:
    json_decref(copy);
    return status;
}

static fb_status merge_into_current(const json_t *current, void *arg, json_t **next)
{
    fb_status status = FB_OK;
    merge_ctx *ctx = arg;
    fb_tuning_cache *m = NULL;
    FB_CHECK(fb_cache_from_json(current, ctx->out, &m));
    for (int i = 0; i < ctx->n; ++i)
        for (int e = 0; e < fb_cache_size(ctx->inputs[i]); ++e)
            FB_CHECK(merge_entry(ctx, m, fb_cache_entry_at(ctx->inputs[i], e), ctx->names[i]));
    *next = fb_cache_to_json(m);
    if (!*next) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing %s", ctx->out);
fail:
    fb_cache_free(m);
    return status;
}

fb_status fb_cache_merge_files(const char *out, const char *const *inputs, int ninputs, FILE *say,
                               fb_cache_merge_counts *counts)
{
    fb_status status = FB_OK;
    merge_ctx ctx = {.out = out, .names = inputs, .n = ninputs, .say = say};
    FB_ALLOC(ctx.inputs, (size_t)ninputs + 1, "the caches to merge");
    for (int i = 0; i < ninputs; ++i) {
        FILE *probe = NULL;
        FB_CHECK(fb_file_fopen_read_if_exists(inputs[i], "a tuning cache to merge", &probe));
        if (!probe) FB_FAIL(FB_ERR_INPUT, "%s: no such tuning cache", inputs[i]);
        fclose(probe);
        FB_CHECK(fb_cache_load(inputs[i], &ctx.inputs[i]));
    }
    FB_CHECK(fb_json_file_update(out, merge_into_current, &ctx));
    *counts = ctx.counts;
fail:
    for (int i = 0; ctx.inputs && i < ninputs; ++i)
        fb_cache_free(ctx.inputs[i]);
    free(ctx.inputs);
    return status;
}

/* ---- export -------------------------------------------------------------- */

/* The one number an application knows of its problem: a matrix's rows, a
 * grid's cells, a mesh's nodes. */
static double problem_size(const fb_signature *s)
{
    switch (s->kind) {
    case FB_SIGNATURE_GRID: return (double)s->grid.nx * (double)s->grid.ny * (double)s->grid.nz;
    case FB_SIGNATURE_MESH: return (double)s->mesh.nodes;
    case FB_SIGNATURE_MATRIX: break;
    }
    return (double)s->matrix.rows;
}

/* "-DWG_SIZE=128 -DVECTOR_SIZE=4" in the entry's (sorted) parameter order. */
static void defines_of(const json_t *entry, char *buf, size_t len)
{
    const char *name;
    const json_t *v;
    size_t used = 0;
    buf[0] = '\0';
    json_object_foreach((json_t *)json_object_get(entry, "params"), name, v) if (used < len) used += (size_t)snprintf(
        buf + used, len - used, "%s-D%s=%lld", used ? " " : "", name, (long long)json_integer_value(v));
}

/* A C string literal of s: only printable ASCII, with " and \ escaped. */
static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fputc('\\', f);
        fputc(ch >= 32 && ch < 127 ? ch : '?', f);
    }
    fputc('"', f);
}

static void header_entry(FILE *f, const json_t *e)
{
    fb_cache_device d;
    fb_signature sig = fb_cache_entry_signature(e);
    char defines[1024];
    fb_cache_entry_device(e, &d);
    defines_of(e, defines, sizeof defines);
    const char *fields[] = {d.name,
                            d.arch,
                            d.vendor,
                            d.type,
                            json_string_value(json_object_get(e, "kernel")),
                            json_string_value(json_object_get(e, "precision"))};
    fputs("    {", f);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        c_string(f, fields[i]);
        fputs(", ", f);
    }
    fprintf(f, "%.17g, ", problem_size(&sig));
    c_string(f, defines);
    fputs("},\n", f);
}

/* The lookup the header carries, the fallback of cache.h over what an
 * application knows of its device: its name, architecture, vendor, type. */
static const char *const header_lookup =
    "/* 3: this device (its name and vendor), 2: its architecture, 1: its vendor\n"
    " * and type, 0: none. */\n"
    "static inline int flowbench_tuned_level(const flowbench_tuned_entry *e, const char *device, const char *arch,\n"
    "                                        const char *vendor, const char *type)\n"
    "{\n"
    "    if (!strcmp(e->device, device) && !strcmp(e->vendor, vendor)) return 3;\n"
    "    if (arch && *e->arch && !strcmp(e->arch, arch)) return 2;\n"
    "    if (type && *e->type && !strcmp(e->vendor, vendor) && !strcmp(e->type, type)) return 1;\n"
    "    return 0;\n"
    "}\n\n"
    "/* How far apart two problem sizes are, as a ratio >= 1. */\n"
    "static inline double flowbench_tuned_ratio(double a, double b)\n"
    "{\n"
    "    if (a <= 0 || b <= 0) return a == b ? 1.0 : 1e300;\n"
    "    return a > b ? a / b : b / a;\n"
    "}\n\n"
    "/* The -D defines tuned for `kernel` in `precision` (\"double\", \"single\") on\n"
    " * this device, from the entry of the nearest device level and, within it,\n"
    " * of the nearest problem size (matrix rows, grid cells, mesh nodes); NULL\n"
    " * when no entry fits: build with the kernel's defaults. arch and type may\n"
    " * be NULL (then those levels are skipped). */\n"
    "static inline const char *flowbench_tuned(const char *device, const char *arch, const char *vendor,\n"
    "                                          const char *type, const char *kernel, const char *precision,\n"
    "                                          double size)\n"
    "{\n"
    "    const flowbench_tuned_entry *best = NULL;\n"
    "    int best_level = 0;\n"
    "    double best_ratio = 0;\n"
    "    for (size_t i = 0; i < sizeof flowbench_tuned_entries / sizeof flowbench_tuned_entries[0]; ++i) {\n"
    "        const flowbench_tuned_entry *e = &flowbench_tuned_entries[i];\n"
    "        if (!e->kernel || strcmp(e->kernel, kernel) || strcmp(e->precision, precision)) continue;\n"
    "        int level = flowbench_tuned_level(e, device, arch, vendor, type);\n"
    "        double ratio = flowbench_tuned_ratio(e->size, size);\n"
    "        if (level > best_level || (level && level == best_level && ratio < best_ratio)) {\n"
    "            best = e, best_level = level, best_ratio = ratio;\n"
    "        }\n"
    "    }\n"
    "    return best ? best->defines : NULL;\n"
    "}\n";

static fb_status write_header(FILE *f, const fb_tuning_cache *c, const char *guard)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f,
            "/* Tuned kernel parameters, written by `flowbench tune export --header` from\n * %s on %s (%d entries).\n",
            fb_cache_source(c), date, fb_cache_size(c));
    fprintf(f, " * Include it in one or more files of your application (C11 or C++17); it\n"
               " * needs nothing of flowbench. docs/tuning.md, \"Shipping your settings\". */\n");
    fprintf(f, "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <string.h>\n\n", guard, guard);
    fprintf(f,
            "typedef struct flowbench_tuned_entry {\n    const char *device, *arch, *vendor, *type;\n"
            "    const char *kernel, *precision;\n    double size;         /* matrix rows, grid cells, mesh nodes */\n"
            "    const char *defines; /* \"-DWG_SIZE=128 ...\" */\n} flowbench_tuned_entry;\n\n");
    fprintf(f, "static const flowbench_tuned_entry flowbench_tuned_entries[] = {\n");
    for (int i = 0; i < fb_cache_size(c); ++i)
        header_entry(f, fb_cache_entry_at(c, i));
    fprintf(f,
            "    {NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL} /* the end (and an empty cache's only row) */\n};\n\n");
    fputs(header_lookup, f);
    fprintf(f, "\n#endif\n");
    return ferror(f) ? FB_ERR_IO : FB_OK;
}

/* FLOWBENCH_TUNED_H unless the file's name says otherwise: two exported
 * headers may be included together. */
static void guard_of(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = 0;
    for (; *base && n + 2 < len; ++base)
        buf[n++] = (*base >= 'a' && *base <= 'z')                                       ? (char)(*base - 32)
                   : ((*base >= 'A' && *base <= 'Z') || (*base >= '0' && *base <= '9')) ? *base
                                                                                        : '_';
    buf[n] = '\0';
    if (!n || (buf[0] >= '0' && buf[0] <= '9')) snprintf(buf, len, "FLOWBENCH_TUNED_H");
}

fb_status fb_cache_export_header(const fb_tuning_cache *c, const char *path)
{
    fb_status status = FB_OK;
    fb_file_replace replace;
    char guard[256];
    int fd = -1;
    FILE *f = NULL;
    guard_of(path, guard, sizeof guard);
    FB_CHECK(fb_file_replace_begin(path, &replace, &fd));
    f = fdopen(fd, "w");
    if (!f || write_header(f, c, guard) != FB_OK || fclose(f) != 0) {
        if (!f) close(fd);
        fb_file_replace_abort(&replace);
        FB_FAIL(FB_ERR_IO, "%s: cannot write the header", path);
    }
    FB_CHECK(fb_file_replace_commit(&replace));
fail:
    return status;
}

static json_t *db_entry(const json_t *e)
{
    fb_cache_device d;
    fb_signature sig = fb_cache_entry_signature(e);
    char defines[1024];
    fb_cache_entry_device(e, &d);
    defines_of(e, defines, sizeof defines);
    json_t *j = json_pack("{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s}, s:O, s:O, s:{s:s, s:f, s:o}, s:O, s:s}", "device",
                          "backend", d.backend, "name", d.name, "vendor", d.vendor, "driver", d.driver, "compute_units",
                          d.units, "arch", d.arch, "type", d.type, "kernel", json_object_get(e, "kernel"), "precision",
                          json_object_get(e, "precision"), "problem", "kind", fb_signature_kind_name(sig.kind), "size",
                          problem_size(&sig), "signature", fb_signature_json(&sig), "params",
                          json_object_get(e, "params"), "defines", defines);
    static const char *const kept[] = {"median_s", "gbs", "date", "from", "strategy", "matrix", "grid"};
    for (size_t i = 0; j && i < sizeof kept / sizeof kept[0]; ++i)
        if (json_object_get(e, kept[i])) json_object_set(j, kept[i], json_object_get(e, kept[i]));
    return j;
}

fb_status fb_cache_export_json(const fb_tuning_cache *c, const char *path)
{
    fb_status status = FB_OK;
    json_t *entries = json_array(), *root = NULL;
    for (int i = 0; entries && i < fb_cache_size(c); ++i)
        if (json_array_append_new(entries, db_entry(fb_cache_entry_at(c, i))) != 0) break;
    root = json_pack("{s:i, s:s, s:o}", "flowbench_tuning_db", 1, "source", fb_cache_source(c), "entries", entries);
    if (!root || json_array_size(entries) != (size_t)fb_cache_size(c))
        FB_FAIL(FB_ERR_NOMEM, "out of host memory exporting %s", fb_cache_source(c));
    FB_CHECK(fb_json_file_replace(root, path));
fail:
    json_decref(root);
    return status;
}
