/* noise.c - see noise.h. */
#include "noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/files.h"
#include "../core/sysinfo.h"
#include "cache.h"

#define FB_NOISE_VERSION 1

static int is_set(const char *s) { return s && *s; }

void fb_noise_path(const char *given, char *buf, size_t len)
{
    const char *env = getenv("FLOWBENCH_NOISE_FILE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (given)
        snprintf(buf, len, "%s", given);
    else if (is_set(env))
        snprintf(buf, len, "%s", env);
    else if (is_set(xdg) && xdg[0] == '/')
        snprintf(buf, len, "%s/flowbench/noise.json", xdg);
    else if (is_set(home))
        snprintf(buf, len, "%s/.cache/flowbench/noise.json", home);
    else
        snprintf(buf, len, "flowbench-noise.json");
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
    *comparisons = (int)json_integer_value(json_object_get(entry, "comparisons"));
    *configs = json_is_object(json_object_get(entry, "configs")) ? json_copy(json_object_get(entry, "configs"))
                                                                 : json_object();
fail:
    json_decref(root);
    return status;
}

json_t *fb_noise_floors(const json_t *configs)
{
    json_t *floors = json_object();
    const char *key;
    const json_t *c;
    json_object_foreach((json_t *)configs, key, c)
    {
        json_int_t n = json_integer_value(json_object_get(c, "n"));
        if (n > 0)
            json_object_set_new(floors, key,
                                json_pack("{s:f, s:I}", "floor", FB_NOISE_MARGIN * fb_json_num(c, "max"), "n", n));
    }
    return floors;
}

/* One more A/A change of a configuration: count, largest, root mean square. */
static void add_change(json_t *configs, const char *key, double change)
{
    json_t *c = json_object_get(configs, key);
    double n = (double)json_integer_value(json_object_get(c, "n"));
    double max = c ? fb_json_num(c, "max") : 0, rms = c ? fb_json_num(c, "rms") : 0;
    rms = sqrt((n * rms * rms + change * change) / (n + 1));
    json_object_set_new(configs, key,
                        json_pack("{s:I, s:f, s:f}", "n", (json_int_t)n + 1, "max", fmax(max, change), "rms", rms));
}

typedef struct learn_ctx {
    const char *path, *machine;
    const json_t *changes;
} learn_ctx;

static fb_status merge_comparison(const json_t *current, void *arg, json_t **next)
{
    fb_status status = FB_OK;
    const learn_ctx *ctx = arg;
    json_t *machines, *entry, *configs;
    const char *key;
    const json_t *v;
    char now[32];
    if (current) FB_CHECK(check_store(current, ctx->path));
    *next =
        current ? json_deep_copy(current) : json_pack("{s:i, s:{}}", "flowbench_noise", FB_NOISE_VERSION, "machines");
    machines = json_object_get(*next, "machines");
    entry = json_object_get(machines, ctx->machine);
    if (!entry)
        json_object_set_new(machines, ctx->machine, entry = json_pack("{s:i, s:{}}", "comparisons", 0, "configs"));
    configs = json_object_get(entry, "configs");
    json_object_foreach((json_t *)ctx->changes, key, v) add_change(configs, key, json_number_value(v));
    fb_utc_now(now, sizeof now);
    json_object_set_new(entry, "comparisons",
                        json_integer(json_integer_value(json_object_get(entry, "comparisons")) + 1));
    json_object_set_new(entry, "updated", json_string(now));
fail:
    return status;
}

fb_status fb_noise_learn(const char *path, const char *machine, const json_t *changes)
{
    learn_ctx ctx = {path, machine, changes};
    return fb_json_file_update(path, merge_comparison, &ctx);
}
