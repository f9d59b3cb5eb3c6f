/* sweep_options.c - the options that shape a sweep's plan and records
 * (--backend, --tuned, --cache, --counters, --repeat, --shard, --filter): written in the results file's
 * header, compared on --resume, and spelt out in the resume hint, so that
 * following the hint continues the same plan instead of appending another
 * one to the file. */
#include "sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/records/results.h"

static json_t *string_or_null(const char *s) { return s ? json_string(s) : json_null(); }

json_t *fb_sweep_options_json(const fb_sweep_options *o)
{
    json_t *backends = json_array();
    char shard[48];
    snprintf(shard, sizeof shard, "%d/%d", o->shard, o->nshards);
    for (int i = 0; i < o->nbackends; ++i)
        json_array_append_new(backends, json_string(o->backends[i]));
    return json_pack("{s:o, s:b, s:o, s:o, s:i, s:o, s:o}", "backends", backends, "tuned", o->tuned != NULL, "cache",
                     string_or_null(o->tuned ? o->cache_path : NULL), "counters", string_or_null(o->counters), "repeat",
                     o->repeat > 1 ? o->repeat : 1, "shard", string_or_null(o->nshards ? shard : NULL), "filter",
                     string_or_null(o->filter));
}

/* A whole number (at most a million) spelt from text up to `end`, or -1. */
static long whole(const char *text, const char *end)
{
    char *stop = NULL;
    long v;
    if (text == end || *text < '0' || *text > '9') return -1;
    errno = 0;
    v = strtol(text, &stop, 10);
    return stop == end && errno == 0 && v <= 1000000 ? v : -1;
}

fb_status fb_sweep_parse_shard(const char *text, fb_sweep_options *o)
{
    fb_status status = FB_OK;
    const char *slash = strchr(text, '/');
    long i = slash ? whole(text, slash) : -1, n = slash ? whole(slash + 1, slash + strlen(slash)) : -1;
    if (i < 0 || n < 0)
        FB_FAIL(FB_ERR_USAGE,
                "--shard: '%s' is not I/N (share I of N, whole numbers up to 1000000: --shard 1/4 .. 4/4)", text);
    if (n == 0) FB_FAIL(FB_ERR_USAGE, "--shard: '%s': a plan is split into 1 share or more", text);
    if (i == 0) FB_FAIL(FB_ERR_USAGE, "--shard: '%s': shares are counted from 1 (the first is 1/%ld)", text, n);
    if (i > n) FB_FAIL(FB_ERR_USAGE, "--shard: '%s': share %ld of %ld does not exist (I runs from 1 to N)", text, i, n);
    o->shard = (int)i, o->nshards = (int)n;
fail:
    return status;
}

/* One option of an options object as command-line words ("" when absent):
 * the same text for the hint and for the message saying what differs. */
static void option_words(const json_t *opts, const char *name, char *buf, size_t len)
{
    const json_t *v = json_object_get(opts, name);
    buf[0] = '\0';
    if (!strcmp(name, "backend")) {
        size_t i;
        const json_t *b;
        json_array_foreach(json_object_get(opts, "backends"), i, b)
        {
            fb_shell_append(buf, len, "--backend");
            fb_shell_append(buf, len, json_string_value(b));
        }
    } else if (json_is_integer(v) && json_integer_value(v) > 1) { /* --repeat 1 is the default: no words */
        snprintf(buf, len, "--%s %lld", name, (long long)json_integer_value(v));
    } else if (json_is_true(v) || json_is_string(v)) {
        snprintf(buf, len, "--%s", name);
        if (json_is_string(v)) fb_shell_append(buf, len, json_string_value(v));
    }
}

static const char *const option_names[] = {"backend", "tuned", "cache", "counters", "repeat", "shard", "filter"};

fb_status fb_sweep_check_options(const json_t *recorded, const fb_sweep_options *o)
{
    fb_status status = FB_OK;
    json_t *mine = fb_sweep_options_json(o);
    char was[1024], now[1024], none[32];
    for (size_t i = 0; i < sizeof option_names / sizeof *option_names; ++i) {
        option_words(recorded, option_names[i], was, sizeof was);
        option_words(mine, option_names[i], now, sizeof now);
        snprintf(none, sizeof none, "no --%s", option_names[i]);
        if (strcmp(was, now) != 0)
            FB_FAIL(FB_ERR_USAGE, "--resume: --%s differs: %s was recorded with %s, this command has %s",
                    option_names[i], o->out_path, was[0] ? was : none, now[0] ? now : none);
    }
fail:
    json_decref(mine);
    return status;
}

void fb_sweep_resume_command(const fb_suite *s, const fb_sweep_options *o, char *buf, size_t len)
{
    json_t *opts = fb_sweep_options_json(o);
    char words[1024];
    snprintf(buf, len, "flowbench sweep");
    fb_shell_append(buf, len, s->path);
    fb_shell_append(buf, len, "--out");
    fb_shell_append(buf, len, o->out_path);
    fb_shell_append(buf, len, "--resume");
    for (size_t i = 0; i < sizeof option_names / sizeof *option_names; ++i) {
        size_t n = strlen(buf);
        option_words(opts, option_names[i], words, sizeof words);
        if (words[0]) snprintf(buf + n, len - n, " %s", words);
    }
    json_decref(opts);
}
