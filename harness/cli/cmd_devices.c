/* cmd_devices.c - `flowbench devices`: every backend, its devices and the
 * properties that matter for tuning, or why it has none. */
#include <stdio.h>

#include "cli.h"
#include "../results/presentation/catalogue.h"

static const fb_option options[] = {
    {"json", NULL, "print one JSON document instead of text", 0},
    {NULL, NULL, NULL, 0},
};

static int run_devices(const fb_parsed *args)
{
    const int as_json = fb_cli_flag(args, "json");
    json_t *doc = fb_catalogue_devices(as_json ? NULL : stdout);
    if (as_json) {
        json_dumpf(doc, stdout, JSON_INDENT(2));
        printf("\n");
    }
    json_decref(doc);
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
