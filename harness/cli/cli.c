/* cli.c - what every command shares beyond the option parser (core/cmdline.h):
 * --help from the table, the measurement and stream options, a record's
 * emission, the file checks. */
#include "cli.h"

#include "bench/family.h"
#include "core/comm.h"
#include "bench/record.h"
#include "stream/stream.h"
#include "../results/records/reader.h"
#include "../results/records/results.h"
#include "../tune/cache.h"
#include "../results/records/stream_ref.h"
#include "../results/records/stream_used.h"
#include "../results/presentation/stream_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fb_cli_print_help(const fb_command *cmd)
{
    printf("usage: flowbench %s\n\n%s\n", cmd->usage, cmd->description);
    if (cmd->options && cmd->options[0].name) printf("\noptions:\n");
    for (int i = 0; cmd->options && cmd->options[i].name; ++i) {
        const fb_option *o = &cmd->options[i];
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        printf("  %-24s %s%s\n", left, o->help, o->repeatable ? " (repeatable)" : "");
    }
    printf("  %-24s %s\n", "--help", "show this help and exit");
    printf("\nexit status: 0 success, 1 failed check, 2 usage or input error, 3 runtime failure, "
           "130 interrupted\n");
}

fb_status fb_cli_precision(const fb_parsed *p, int *is_double)
{
    const char *v = fb_cli_value(p, "precision");
    *is_double = !v || strcmp(v, "double") == 0;
    if (v && !*is_double && strcmp(v, "single") != 0)
        return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "--precision: '%s' is not double or single", v);
    return FB_OK;
}

fb_status fb_cli_measure(const fb_parsed *args, double budget_s, double spread_pct, fb_measure_config *m)
{
    fb_status status = FB_OK;
    *m = fb_measure_defaults();
    /* not every measuring command offers --cold and --warmups (grid and tune do not) */
    if (fb_cli_declares(args, "warmups")) FB_CHECK(fb_cli_int(args, "warmups", m->warmups, &m->warmups));
    FB_CHECK(fb_cli_int(args, "min-samples", m->min_samples, &m->min_samples));
    FB_CHECK(fb_cli_int(args, "max-samples", m->max_samples, &m->max_samples));
    FB_CHECK(fb_cli_double(args, "spread", spread_pct, &spread_pct));
    FB_CHECK(fb_cli_double(args, "budget", budget_s, &m->budget_s));
    m->target_spread = spread_pct / 100.0;
    m->cold = fb_cli_declares(args, "cold") && fb_cli_flag(args, "cold");
    if (m->min_samples < 1 || m->max_samples < m->min_samples)
        FB_FAIL(FB_ERR_USAGE, "--min-samples/--max-samples: need 1 <= min <= max");
    if (!(m->target_spread > 0)) FB_FAIL(FB_ERR_USAGE, "--spread: must be positive");
    if (!(m->budget_s > 0)) FB_FAIL(FB_ERR_USAGE, "--budget: must be positive");
fail:
    return status;
}

/* The reference's note on stderr when the fraction is not a roofline
 * fraction. */
static void judge_roofline(const fb_device_info *d, json_t *rec)
{
    const char *note = fb_stream_used_judge(d, rec);
    if (note)
        fprintf(stderr, "note: %.1f%% of the stream triad on %s: %s\n",
                100.0 * json_number_value(json_object_get(rec, "fraction_of_stream")), d->id, note);
}

fb_status fb_cli_emit_record(const fb_parsed *args, const char *command, const fb_device_info *d, json_t *rec)
{
    fb_status status = FB_OK;
    fb_results *out = NULL;
    judge_roofline(d, rec);
    if (fb_cli_value(args, "out")) {
        FB_CHECK(fb_results_open(fb_cli_value(args, "out"), command, d, 1, &out));
        FB_CHECK(fb_results_append(out, rec));
    }
    if (fb_cli_flag(args, "json")) {
        json_dumpf(rec, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        printf("\n");
    }
fail:
    fb_results_close(out);
    return status;
}

fb_status fb_cli_stream_size(const fb_parsed *args, const char *name, size_t *n)
{
    *n = 0; /* the device's default (stream.h), decided once the device is open */
    return fb_cli_value(args, name) ? fb_cli_count(args, name, 0, n) : FB_OK;
}

fb_status fb_cli_stream_triad(const fb_parsed *args, fb_target *t, const char *label, int is_double, double *gbs)
{
    fb_status status = FB_OK;
    size_t n = 0;
    *gbs = 0;
    double max_age = fb_stream_ref_max_age();
    char path[4096];
    fb_stream_ref ref;
    char note[512];
    FB_CHECK(fb_cli_stream_size(args, "stream-size", &n));
    if (fb_cli_flag(args, "no-stream")) return FB_OK;
    FB_CHECK(fb_cli_double(args, "stream-max-age", max_age, &max_age));
    if (!(max_age >= 0)) FB_FAIL(FB_ERR_USAGE, "--stream-max-age: must be 0 or more seconds");
    fb_stream_ref_default_path(path, sizeof path);
    fprintf(stderr,
            "the stream triad on %s: a stored one younger than %.0f s, else measured now "
            "(--no-stream skips it)...\n",
            label, max_age);
    FB_CHECK(fb_stream_ref_get(t, n, is_double, path, max_age, &ref));
    *gbs = ref.triad.gbs;
    fb_stream_ref_print(stderr, &ref, path);
    fb_stream_size_note(fb_target_info(t), &ref.size, note, sizeof note);
    if (*note) fprintf(stderr, "  note: %s\n", note);
    fb_stream_used_keep(fb_target_info(t)->id, fb_stream_ref_json(&ref, path));
fail:
    return status;
}

static fb_status gather_extra(fb_named_file **files, int *n, const fb_named_file *f)
{
    fb_named_file *grown = realloc(*files, (size_t)(*n + 1) * sizeof *grown);
    if (!grown) return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory checking the files");
    *files = grown;
    (*files)[(*n)++] = *f;
    return FB_OK;
}

/* The values of the options named (those the table declares and the line
 * gives), appended to files as "--NAME" and path. */
static fb_status gather_files(const fb_parsed *args, const char *const *options, fb_named_file **files, char **names,
                              int *n)
{
    fb_status status = FB_OK;
    for (int o = 0; options && options[o]; ++o) {
        const char *const *values = NULL;
        int nv = fb_cli_declares(args, options[o]) ? fb_cli_values(args, options[o], &values) : 0;
        for (int v = 0; v < nv; ++v) {
            fb_named_file *grown = realloc(*files, (size_t)(*n + 1) * sizeof *grown);
            if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
            *files = grown;
            names[o] = names[o] ? names[o] : malloc(strlen(options[o]) + 3);
            if (!names[o]) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
            sprintf(names[o], "--%s", options[o]);
            (*files)[(*n)++] = (fb_named_file){names[o], values[v]};
        }
    }
fail:
    return status;
}

static int count_names(const char *const *options)
{
    int n = 0;
    while (options && options[n])
        n++;
    return n;
}

/* --tuned reads the tuning cache, --cache's or the default one: an input
 * whichever way it is named, and whether it is there yet or not (--out
 * naming it would append records to it, or make it of records). path NULL
 * without --tuned. */
static fb_named_file tuned_cache(const fb_parsed *args, char *path, size_t len)
{
    const char *given = fb_cli_declares(args, "cache") ? fb_cli_value(args, "cache") : NULL;
    if (!fb_cli_declares(args, "tuned") || !fb_cli_flag(args, "tuned")) return (fb_named_file){"tuning cache", NULL};
    fb_cache_path(given, path, len);
    return (fb_named_file){given ? "--cache" : "tuning cache", path};
}

fb_status fb_cli_check_files(const fb_parsed *args, const char *command, const char *const *inputs,
                             const char *const *outputs, const fb_named_file *extra_in, int nextra_in,
                             const fb_named_file *extra_out, int nextra_out)
{
    fb_status status = FB_OK;
    fb_named_file *in = NULL, *out = NULL;
    int nin = 0, nout = 0, nnames = count_names(inputs) + count_names(outputs);
    char **names = calloc((size_t)nnames + 1, sizeof *names), cache[1024];
    const fb_named_file store = tuned_cache(args, cache, sizeof cache);
    if (!names) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
    for (int i = 0; i < nextra_in; ++i)
        FB_CHECK(gather_extra(&in, &nin, &extra_in[i]));
    for (int i = 0; i < nextra_out; ++i)
        FB_CHECK(gather_extra(&out, &nout, &extra_out[i]));
    FB_CHECK(gather_files(args, inputs, &in, names, &nin));
    FB_CHECK(gather_files(args, outputs, &out, names + count_names(inputs), &nout));
    if (nout) FB_CHECK(fb_files_check_distinct(command, in, nin, out, nout));
    if (nout && store.path) FB_CHECK(fb_files_check_stores(command, &store, 1, out, nout));
fail:
    for (int i = 0; names && i < nnames; ++i)
        free(names[i]);
    free(names);
    free(in);
    free(out);
    return status;
}
