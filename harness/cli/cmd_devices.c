/* cmd_devices.c - `flowbench devices`: every backend, its devices and the
 * properties that matter for tuning, or why it has none. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../backends/target.h"
#include "../results/records/results.h"

static const fb_option options[] = {
    {"json", NULL, "print one JSON document instead of text", 0},
    {NULL, NULL, NULL, 0},
};

static void print_bytes(const char *label, size_t bytes)
{
    if (!bytes)
        printf("%s -", label);
    else if (bytes >= (1u << 30))
        printf("%s %.1f GiB", label, (double)bytes / (1u << 30));
    else if (bytes >= (1u << 20))
        printf("%s %.1f MiB", label, (double)bytes / (1u << 20));
    else
        printf("%s %.0f KiB", label, (double)bytes / 1024.0);
}

static void print_device_text(const fb_device_info *d)
{
    printf("%-12s %s (%s)\n", d->id, d->name, d->vendor);
    printf("    compute units %d | max work-group ", d->compute_units);
    if (d->max_work_group_size)
        printf("%zu", d->max_work_group_size);
    else
        printf("-");
    print_bytes(" | local mem", d->local_mem_bytes);
    print_bytes(" | global mem", d->global_mem_bytes);
    print_bytes(" | last-level cache", d->cache_bytes);
    printf(" | clock %d MHz | double %s", d->clock_mhz, d->double_support ? "yes" : "no");
    if (d->subgroup_size) printf(" | sub-group %d", d->subgroup_size);
    if (d->simd[0]) printf(" | vectors %s, %d-bit", d->simd, d->simd_bits);
    printf("\n    version %s | driver %s | runtime %s\n", d->device_version, d->driver_version, d->runtime_version);
}

/* Visits every backend; devices fills info for each device it finds. */
static json_t *backend_json(const fb_backend_ops *ops, int text)
{
    char why[256] = "";
    int n = ops->probe(why, sizeof why);
    json_t *devs = json_array();
    if (n <= 0 && text) printf("%s: %s\n", ops->name, why[0] ? why : "no device");
    for (int i = 0; i < n; ++i) {
        fb_device_info info;
        memset(&info, 0, sizeof info);
        if (ops->device_info(i, &info) != FB_OK) {
            if (text) printf("%s:%d: %s\n", ops->name, i, fb_error_message());
            continue;
        }
        if (text) print_device_text(&info);
        json_array_append_new(devs, fb_json_device(&info));
    }
    json_t *b = json_pack("{s:s, s:b, s:o}", "name", ops->name, "available", n > 0, "devices", devs);
    if (n <= 0) json_object_set_new(b, "reason", json_string(why[0] ? why : "no device"));
    return b;
}

static int run_devices(const fb_parsed *args)
{
    int as_json = fb_cli_flag(args, "json");
    json_t *all = json_array();
    for (int i = 0; i < fb_backend_count(); ++i)
        json_array_append_new(all, backend_json(fb_backend_at(i), !as_json));
    if (as_json) {
        json_t *doc = json_pack("{s:o}", "backends", all);
        json_dumpf(doc, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(doc);
    } else {
        json_decref(all);
    }
    return 0;
}

const fb_command fb_cmd_devices = {
    .name = "devices",
    .summary = "list backends, their devices and the properties that matter for tuning",
    .usage = "devices [--json]",
    .description = "Probes every backend (openmp, opencl, cuda). For each device prints the id that\n"
                   "--backend accepts, compute units, max work-group size, local, global and\n"
                   "last-level cache memory, clock, double support, and driver/runtime versions.\n"
                   "A backend without devices is listed with the reason (not built, no driver,\n"
                   "no platform). Always exits 0: having no GPU is not an error here.",
    .options = options,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_devices,
};
