/* choice.c - the report's choice among a configuration's records, by time
 * (choice.h). */
#include "choice.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../records/quality.h"

#define TIME_LEN 20 /* "2026-11-28T10:02:00Z", as fb_utc_now writes run ids and dates */

/* Whether text starts with a UTC time of TIME_LEN characters. */
static int is_time(const char *t)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    for (int i = 0; i < TIME_LEN; ++i)
        if (pattern[i] == 'd' ? !isdigit((unsigned char)t[i]) : t[i] != pattern[i]) return 0;
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SSZ" of the record's run (rec a measurement or a
 * header; header its run's header or NULL), "" when neither its run_id
 * nor the header's date holds one. Such times order as text. */
static void record_time(const json_t *rec, const json_t *header, char *buf, size_t len)
{
    const char *run = fb_json_str(rec, "run_id"), *date = header ? fb_json_str(header, "date") : "";
    const char *t = is_time(run) ? run : is_time(date) ? date : "";
    snprintf(buf, len, "%.*s", *t ? TIME_LEN : 0, t);
}

static void time_of(const fb_results_set *set, int i, char *buf, size_t len)
{
    record_time(set->records[i].json, set->records[i].header, buf, len);
}

/* Whether record a was measured after record b: by time, then load order
 * (records of one run, or of runs of one second, were written in it). */
static int later(const fb_results_set *set, int a, int b)
{
    char ta[32], tb[32];
    time_of(set, a, ta, sizeof ta);
    time_of(set, b, tb, sizeof tb);
    const int c = strcmp(ta, tb);
    return c ? c > 0 : a > b;
}

static int stable(const fb_record *r)
{
    return fb_record_usable(r) && !fb_quality_flagged(fb_json_quality(r->json, NULL));
}

/* choice.h's rule over one configuration's records group[0 .. n-1]. */
static int choose(const fb_results_set *set, const int *group, int n)
{
    int latest = group[0], failed = -1, best = -1;
    for (int i = 0; i < n; ++i) {
        const int g = group[i];
        if (later(set, g, latest)) latest = g;
        if (!fb_record_usable(&set->records[g]) && (failed < 0 || later(set, g, failed))) failed = g;
    }
    if (latest == failed) return latest; /* it fails now: an older pass does not hide that */
    for (int i = 0; i < n; ++i) {
        const int g = group[i];
        if (stable(&set->records[g]) && (failed < 0 || later(set, g, failed)) && (best < 0 || later(set, g, best)))
            best = g;
    }
    return best >= 0 ? best : latest;
}

void fb_results_choose_by_time(fb_results_set *set)
{
    set->nlatest = 0;
    for (int at = 0; at < set->nrecords;) {
        int first, n = fb_results_find_all(set, set->records[set->by_key[at]].key, &first);
        const int chosen = choose(set, set->by_key + first, n);
        for (int i = first; i < first + n; ++i)
            set->records[set->by_key[i]].superseded = set->by_key[i] != chosen;
        set->latest[set->nlatest++] = chosen; /* groups in key order: latest stays sorted by key */
        at = first + n;
    }
}

/* "2026-11-28T11:00:00Z, line 6", or with paren "2026-11-28T11:00:00Z
 * (line 6)" ("FILE:6" in a set of several files). */
static void when_where(const fb_results_set *set, int i, int paren, char *buf, size_t len)
{
    char t[32], where[160];
    time_of(set, i, t, sizeof t);
    fb_record_where(set, &set->records[i], where, sizeof where);
    snprintf(buf, len, "%s%s%s%s%s", *t ? t : "no time", paren ? " (" : ", ", set->nfiles > 1 ? "" : "line ", where,
             paren ? ")" : "");
}

/* A usable record's verdict, else its status. */
static const char *verdict_of(const fb_record *r)
{
    return fb_record_usable(r) ? fb_quality_name(fb_json_quality(r->json, NULL)) : fb_json_str(r->json, "status");
}

/* The reason of fb_results_choice_why once its counts are known: `newer`
 * later records by time passed over (the latest of them `newest`), and
 * `read_after`, a record read after the chosen one though older (-1:
 * none). */
static void choice_text(const fb_results_set *set, int c, int n, int newer, int newest, int read_after, char *buf,
                        size_t len)
{
    char at[256], other[256];
    when_where(set, c, 1, at, sizeof at);
    if (newer) {
        when_where(set, newest, 0, other, sizeof other);
        if (newer == 1)
            snprintf(buf, len, "%d records; took the %s one of %s over a later %s one (%s)", n,
                     verdict_of(&set->records[c]), at, verdict_of(&set->records[newest]), other);
        else
            snprintf(buf, len,
                     "%d records; took the %s one of %s over %d later ones, each unstable or contended "
                     "(the latest %s, %s)",
                     n, verdict_of(&set->records[c]), at, newer, verdict_of(&set->records[newest]), other);
    } else {
        snprintf(buf, len, "%d records; took the latest by time, %s, of %s%s", n, verdict_of(&set->records[c]), at,
                 stable(&set->records[c]) || !fb_record_usable(&set->records[c]) ? "" : " (none stable)");
    }
    if (read_after < 0) return;
    when_where(set, read_after, 0, other, sizeof other);
    snprintf(buf + strlen(buf), len - strlen(buf), "; one read after it is older (%s)", other);
}

int fb_results_choice_why(const fb_results_set *set, const fb_record *chosen, char *buf, size_t len)
{
    const int c = (int)(chosen - set->records);
    int first, n = fb_results_find_all(set, chosen->key, &first), newer = 0, newest = -1, read_after = -1;
    buf[0] = '\0';
    for (int i = first; i < first + n; ++i) {
        const int g = set->by_key[i];
        if (g == c) continue;
        if (later(set, g, c)) {
            newer++;
            if (newest < 0 || later(set, g, newest)) newest = g;
        } else if (g > c) {
            read_after = g; /* the last one read: what the loader would have taken */
        }
    }
    if (!newer && read_after < 0) return 0;
    choice_text(set, c, n, newer, newest, read_after, buf, len);
    return 1;
}

static void widen(const char *t, char *first, char *last, size_t len)
{
    if (!*t) return;
    if (!*first || strcmp(t, first) < 0) snprintf(first, len, "%s", t);
    if (!*last || strcmp(t, last) > 0) snprintf(last, len, "%s", t);
}

void fb_results_time_range(const fb_results_set *set, char *first, char *last, size_t len)
{
    char t[32];
    first[0] = last[0] = '\0';
    for (int h = 0; h < set->nheaders; ++h) {
        record_time(set->headers[h], set->headers[h], t, sizeof t);
        widen(t, first, last, len);
    }
    for (int i = 0; i < set->nrecords; ++i) {
        time_of(set, i, t, sizeof t);
        widen(t, first, last, len);
    }
}

const json_t *fb_results_latest_header(const fb_results_set *set)
{
    const json_t *latest = NULL;
    char t[32], at[32] = "";
    for (int h = 0; h < set->nheaders; ++h) {
        record_time(set->headers[h], set->headers[h], t, sizeof t);
        if (latest && strcmp(t, at) < 0) continue;
        latest = set->headers[h];
        snprintf(at, sizeof at, "%s", t);
    }
    return latest;
}
