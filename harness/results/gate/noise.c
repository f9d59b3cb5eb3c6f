/* noise.c - see noise.h. */
#include "noise.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/target.h"
#include "../../core/files.h"
#include "../../core/json_file.h"
#include "../../core/sysinfo.h"
#include "../records/reader.h"

#define FB_NOISE_VERSION 1

void fb_noise_path(const char *given, char *buf, size_t len)
{
    fb_cache_file_path(given, "FLOWBENCH_NOISE_FILE", "noise.json", buf, len);
}

static void append(char *buf, size_t len, const char *sep, const char *text)
{
    size_t n = strlen(buf);
    if (n < len) snprintf(buf + n, len - n, "%s%s", n ? sep : "", text);
}

/* The first header's CPU and devices: what decides how noisy the machine is. */
void fb_noise_machine(const fb_results_set *set, char *buf, size_t len)
{
    size_t i;
    const json_t *d;
    buf[0] = '\0';
    if (!set->nheaders) return;
    append(buf, len, "|", fb_json_str(set->headers[0], "host.cpu"));
    json_array_foreach(json_object_get(set->headers[0], "devices"), i, d)
    {
        char dev[300];
        snprintf(dev, sizeof dev, "%s:%s", fb_json_str(d, "backend"), fb_json_str(d, "name"));
        append(buf, len, "|", dev);
    }
}

static fb_status check_store(const json_t *root, const char *path)
{
    fb_status status = FB_OK;
    if (!json_is_object(root) || json_integer_value(json_object_get(root, "flowbench_noise")) != FB_NOISE_VERSION ||
        !json_is_object(json_object_get(root, "machines")))
        FB_FAIL(FB_ERR_INPUT, "%s: not a flowbench noise store (version %d)", path, FB_NOISE_VERSION);
fail:
    return status;
}

/* One stored configuration: NULL when usable, else what is wrong. */
static const char *config_problem(const json_t *c)
{
    json_int_t n = json_integer_value(json_object_get(c, "n"));
    if (!json_is_object(c)) return "is not an object";
    if (!json_is_integer(json_object_get(c, "n")) || n < 1) return "has no count \"n\" of at least 1";
    if (!(fb_json_num(c, "max") >= 0) || !isfinite(fb_json_num(c, "max")) || !(fb_json_num(c, "rms") >= 0) ||
        !isfinite(fb_json_num(c, "rms")))
        return "has no finite \"max\" and \"rms\" of at least 0";
    return NULL;
}

/* A machine's entry as merge_comparison writes it: an object whose
 * "configs" is a non-empty object of configurations. Anything else (an
 * empty list where the object belongs) is refused, or learning would add
 * to nothing and report what it did not store. */
static fb_status check_entry(const json_t *entry, const char *path, const char *machine)
{
    fb_status status = FB_OK;
    const json_t *configs = json_object_get(entry, "configs"), *c;
    const json_t *k = json_object_get(entry, "comparisons");
    const char *key, *problem;
    if (!json_is_object(entry) || !json_is_object(configs) || !json_object_size(configs))
        FB_FAIL(FB_ERR_INPUT, "%s: machine \"%s\": \"configs\" is not a non-empty object of configurations", path,
                machine);
    if (!json_is_integer(k) || json_integer_value(k) < 1 || json_integer_value(k) > INT_MAX)
        FB_FAIL(FB_ERR_INPUT, "%s: machine \"%s\": \"comparisons\" is not a count of at least 1", path, machine);
    json_object_foreach((json_t *)configs, key, c) if ((problem = config_problem(c)))
        FB_FAIL(FB_ERR_INPUT, "%s: machine \"%s\": configuration \"%s\" %s", path, machine, key, problem);
fail:
    return status;
}

fb_status fb_noise_load(const char *path, const char *machine, json_t **configs, int *comparisons)
{
    fb_status status = FB_OK;
    json_error_t err;
    json_t *root = NULL;
    const json_t *entry;
    *configs = NULL;
    *comparisons = 0;
    FILE *f = NULL;
    FB_CHECK(fb_file_fopen_read_if_exists(path, "the noise store", &f));
    if (!f) {
        *configs = json_object();
        return FB_OK; /* nothing learned yet */
    }
    root = json_loadf(f, 0, &err);
    fclose(f);
    if (!root) FB_FAIL(FB_ERR_INPUT, "%s:%d: not JSON (%s)", path, err.line, err.text);
    FB_CHECK(check_store(root, path));
    entry = json_object_get(json_object_get(root, "machines"), machine);
    if (entry) FB_CHECK(check_entry(entry, path, machine));
    *comparisons = (int)json_integer_value(json_object_get(entry, "comparisons"));
    *configs = json_is_object(json_object_get(entry, "configs")) ? json_copy(json_object_get(entry, "configs"))
                                                                 : json_object();
fail:
    json_decref(root);
    return status;
}

/* "benchmark|backend|device" of a configuration key
 * ("benchmark|kernel|backend|device|..."): the configurations that share a
 * device's noise. */
static void device_group(const char *key, char *buf, size_t len)
{
    char copy[1024], *save = NULL, *field[4];
    snprintf(copy, sizeof copy, "%s", key); /* the first four fields are short: a cut params field does not matter */
    field[0] = strtok_r(copy, "|", &save);
    for (int i = 1; i < 4; ++i)
        field[i] = strtok_r(NULL, "|", &save);
    snprintf(buf, len, "%s|%s|%s", field[0] ? field[0] : "", field[2] ? field[2] : "", field[3] ? field[3] : "");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The upper decile of n sorted values by nearest rank: the largest of up
 * to 10, so one odd configuration in a large group does not set the
 * floor of every other. */
static double upper_decile(const double *sorted, size_t n)
{
    size_t rank = (size_t)ceil(FB_NOISE_GROUP_QUANTILE * (double)n);
    return sorted[rank ? rank - 1 : 0];
}

/* group -> the upper decile of its configurations' largest A/A changes. */
static json_t *group_tails(const json_t *configs)
{
    json_t *lists = json_object(), *tails = json_object();
    const char *key;
    json_t *c;
    char group[1024];
    json_object_foreach((json_t *)configs, key, c)
    {
        device_group(key, group, sizeof group);
        if (!json_object_get(lists, group)) json_object_set_new(lists, group, json_array());
        json_array_append_new(json_object_get(lists, group), json_real(fb_json_num(c, "max")));
    }
    json_object_foreach(lists, key, c)
    {
        size_t n = json_array_size(c);
        double *v = malloc((n + 1) * sizeof *v);
        if (!v) continue;
        for (size_t i = 0; i < n; ++i)
            v[i] = json_real_value(json_array_get(c, i));
        qsort(v, n, sizeof *v, cmp_double);
        json_object_set_new(tails, key, json_real(upper_decile(v, n)));
        free(v);
    }
    json_decref(lists);
    return tails;
}

json_t *fb_noise_floors(const json_t *configs)
{
    json_t *floors = json_object(), *tails = group_tails(configs);
    const char *key;
    const json_t *c;
    char group[1024];
    json_object_foreach((json_t *)configs, key, c)
    {
        json_int_t n = json_integer_value(json_object_get(c, "n"));
        device_group(key, group, sizeof group);
        double typical = json_real_value(json_object_get(tails, group));
        if (n > 0)
            json_object_set_new(
                floors, key,
                json_pack("{s:f, s:I}", "floor", FB_NOISE_MARGIN * fmax(fb_json_num(c, "max"), typical), "n", n));
    }
    json_decref(tails);
    return floors;
}

/* One more A/A change of a configuration: count, largest, root mean
 * square. 1 when stored. */
static int add_change(json_t *configs, const char *key, double change)
{
    json_t *c = json_object_get(configs, key);
    double n = (double)json_integer_value(json_object_get(c, "n"));
    double max = c ? fb_json_num(c, "max") : 0, rms = c ? fb_json_num(c, "rms") : 0;
    rms = sqrt((n * rms * rms + change * change) / (n + 1));
    json_t *next = json_pack("{s:I, s:f, s:f}", "n", (json_int_t)n + 1, "max", fmax(max, change), "rms", rms);
    return json_object_set_new(configs, key, next) == 0;
}

typedef struct learn_ctx {
    const char *path, *machine;
    const json_t *changes;
    size_t stored;
} learn_ctx;

static fb_status merge_comparison(const json_t *current, void *arg, json_t **next)
{
    fb_status status = FB_OK;
    learn_ctx *ctx = arg;
    json_t *machines, *entry, *configs;
    const char *key;
    const json_t *v;
    char now[32];
    if (current) FB_CHECK(check_store(current, ctx->path));
    *next =
        current ? json_deep_copy(current) : json_pack("{s:i, s:{}}", "flowbench_noise", FB_NOISE_VERSION, "machines");
    machines = json_object_get(*next, "machines");
    entry = json_object_get(machines, ctx->machine);
    if (entry) FB_CHECK(check_entry(entry, ctx->path, ctx->machine));
    if (!entry)
        json_object_set_new(machines, ctx->machine, entry = json_pack("{s:i, s:{}}", "comparisons", 0, "configs"));
    configs = json_object_get(entry, "configs");
    ctx->stored = 0;
    json_object_foreach((json_t *)ctx->changes, key, v) ctx->stored += add_change(configs, key, json_number_value(v));
    fb_utc_now(now, sizeof now);
    json_object_set_new(entry, "comparisons",
                        json_integer(json_integer_value(json_object_get(entry, "comparisons")) + 1));
    json_object_set_new(entry, "updated", json_string(now));
fail:
    return status;
}

fb_status fb_noise_learn(const char *path, const char *machine, const json_t *changes, size_t *stored)
{
    learn_ctx ctx = {path, machine, changes, 0};
    fb_status status = fb_json_file_update(path, merge_comparison, &ctx);
    if (stored) *stored = status == FB_OK ? ctx.stored : 0;
    return status;
}

/* ", 3 above the 25% cap: this machine cannot gate them" ("" for none). */
static void above_cap_text(const fb_compare_options *opt, char *text, size_t len)
{
    const char *key;
    const json_t *v;
    int n = 0;
    json_object_foreach((json_t *)opt->noise, key, v) n +=
        opt->floor_cap > 0 && fb_json_num(v, "floor") > opt->floor_cap;
    text[0] = '\0';
    if (n)
        snprintf(text, len, ", %d above the %.3g%% cap: this machine cannot gate %s", n, 100 * opt->floor_cap,
                 n == 1 ? "it" : "them");
}

fb_status fb_noise_use(const char *path, const char *machine, fb_compare_options *opt, FILE *say)
{
    fb_status status = FB_OK;
    json_t *configs = NULL;
    int comparisons = 0;
    char cap[128];
    FB_CHECK(fb_noise_load(path, machine, &configs, &comparisons));
    opt->noise = fb_noise_floors(configs);
    above_cap_text(opt, cap, sizeof cap);
    if (comparisons)
        fprintf(say, "noise: A/A floor of this machine from %s (%d comparison(s), %zu configurations%s)\n", path,
                comparisons, json_object_size(configs), cap);
    else
        fprintf(say,
                "noise: no A/A floor learned for this machine in %s (learn it: compare two runs of the same code"
                " with --learn-noise)\n",
                path);
fail:
    json_decref(configs);
    return status;
}

fb_status fb_noise_learn_compared(const char *path, const char *machine, const fb_compare_options *opt,
                                  const fb_compare_summary *s, FILE *say)
{
    fb_status status = FB_OK;
    char left_out[200] = "";
    size_t stored = 0;
    if (!machine[0]) FB_FAIL(FB_ERR_INPUT, "--learn-noise: NEW has no header record naming its machine");
    if (s->not_learned)
        snprintf(left_out, sizeof left_out,
                 "; %d left out because a run of theirs was contended or unstable (the floor learns from quiet runs "
                 "only)",
                 s->not_learned);
    if (!json_object_size(opt->learned)) {
        fprintf(say, "noise: nothing learned, %s not changed%s\n", path, left_out);
        return FB_OK;
    }
    FB_CHECK(fb_noise_learn(path, machine, opt->learned, &stored));
    fprintf(say, "noise: learned the A/A changes of %zu configurations into %s%s\n", stored, path, left_out);
fail:
    return status;
}
