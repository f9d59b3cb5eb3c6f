/* tune_db.c - see tune_db.h. */
#include "tune_db.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../tune/cache.h"

static int is(const fb_parsed *args, const char *verb)
{
    return args->npositional > 0 && strcmp(args->positional[0], verb) == 0;
}

int fb_tune_db_wanted(const fb_parsed *args) { return is(args, "merge") || is(args, "export"); }

/* The options of a search mean nothing to merge and export: refused, not
 * ignored (fb_cli_only_options). */

static fb_status run_merge(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_cache_merge_counts n = {0};
    FB_CHECK(fb_cli_only_options(args, "tune", NULL, NULL));
    if (args->npositional < 3) FB_FAIL(FB_ERR_USAGE, "tune merge: usage: tune merge OUT IN... (at least one IN)");
    const char *out = args->positional[1];
    for (int i = 2; i < args->npositional; ++i) {
        const fb_named_file input = {"IN", args->positional[i]}, output = {"OUT", out};
        if (strcmp(args->positional[i], out) == 0 || fb_files_check_distinct("tune merge", &input, 1, &output, 1))
            FB_FAIL(FB_ERR_USAGE, "tune merge: %s is both the output and an input (the output's entries are kept)",
                    args->positional[i]);
    }
    FB_CHECK(fb_cache_merge_files(out, args->positional + 2, args->npositional - 2, stdout, &n));
    printf("merged %d cache%s into %s: %d added, %d replaced by a faster point, %d kept\n", args->npositional - 2,
           args->npositional == 3 ? "" : "s", out, n.added, n.replaced, n.kept);
fail:
    return status;
}

static fb_status run_export(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_tuning_cache *c = NULL;
    char path[1024];
    const char *header = fb_cli_value(args, "header"), *json = fb_cli_value(args, "json");
    FB_CHECK(fb_cli_only_options(args, "tune", (const char *const[]){"cache", "header", "json", NULL}, NULL));
    if (args->npositional != 1) FB_FAIL(FB_ERR_USAGE, "tune export takes no files: --cache FILE names the cache");
    if (!header == !json) FB_FAIL(FB_ERR_USAGE, "tune export: give one of --header FILE.h or --json FILE");
    fb_cache_path(fb_cli_value(args, "cache"), path, sizeof path);
    /* the same file by any spelling (./c.json, an absolute path, the
     * default cache's) is the cache itself: never overwritten */
    const fb_named_file input = {"--cache", path}, output = {header ? "--header" : "--json", header ? header : json};
    FB_CHECK(fb_files_check_distinct("tune export", &input, 1, &output, 1));
    /* a missing cache is a mistyped --cache, not an empty one to ship */
    if (access(path, F_OK) != 0)
        FB_FAIL(FB_ERR_INPUT, "tune export: %s: no tuning cache there (%s)", path,
                fb_cli_value(args, "cache") ? "check --cache" : "tune stores one; --cache FILE names another");
    FB_CHECK(fb_cache_load(path, &c));
    FB_CHECK(header ? fb_cache_export_header(c, header) : fb_cache_export_json(c, json));
    printf("exported %d entries of %s to %s\n", fb_cache_size(c), path, header ? header : json);
fail:
    fb_cache_free(c);
    return status;
}

int fb_tune_db_run(const fb_parsed *args)
{
    fb_status status = is(args, "merge") ? run_merge(args) : run_export(args);
    return status == FB_OK ? 0 : fb_comm_report(status);
}
