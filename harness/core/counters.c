/* counters.c - PAPI event sets, one per OpenMP thread; see counters.h. */
#include "counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FB_HAVE_PAPI
#include <omp.h>
#include <papi.h>
#include <pthread.h>
#endif

struct fb_counters {
    int available;
    char reason[256];
    int nevents;
    char names[FB_COUNTERS_MAX][64];
    int codes[FB_COUNTERS_MAX];
    int nthreads;
    int *sets; /* one PAPI event set per OpenMP thread */
    long long totals[FB_COUNTERS_MAX];
    long long samples;
};

static void set_unavailable(fb_counters *c, const char *reason)
{
    if (!c->available) return;
    c->available = 0;
    snprintf(c->reason, sizeof c->reason, "%s", reason);
}

fb_status fb_counters_unavailable(const char *reason, fb_counters **out)
{
    fb_status status = FB_OK;
    fb_counters *c = NULL;
    FB_ALLOC(c, 1, "a counter set");
    snprintf(c->reason, sizeof c->reason, "%s", reason);
    *out = c;
fail:
    return status;
}

/* Splits the list into names; "default" is FB_COUNTERS_DEFAULT. */
static fb_status parse_list(fb_counters *c, const char *list, int *is_default)
{
    fb_status status = FB_OK;
    char buf[1024], *save = NULL;
    *is_default = !list || !strcmp(list, "default");
    snprintf(buf, sizeof buf, "%s", *is_default ? FB_COUNTERS_DEFAULT : list);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (c->nevents == FB_COUNTERS_MAX) FB_FAIL(FB_ERR_USAGE, "--counters: at most %d events", FB_COUNTERS_MAX);
        snprintf(c->names[c->nevents++], sizeof c->names[0], "%s", tok);
    }
    if (!c->nevents) FB_FAIL(FB_ERR_USAGE, "--counters: no event named");
fail:
    return status;
}

#ifdef FB_HAVE_PAPI

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

/* PAPI is initialised once per process; the result is kept. */
static int papi_ready(char *why, size_t len)
{
    static int state = 0; /* 0 not tried, 1 ready, -1 failed */
    static char reason[200];
    if (state == 0) {
        int r = PAPI_library_init(PAPI_VER_CURRENT);
        if (r != PAPI_VER_CURRENT)
            snprintf(reason, sizeof reason, "PAPI_library_init: %s", PAPI_strerror(r));
        else if ((r = PAPI_thread_init(thread_id)) != PAPI_OK)
            snprintf(reason, sizeof reason, "PAPI_thread_init: %s", PAPI_strerror(r));
        state = reason[0] ? -1 : 1;
    }
    snprintf(why, len, "%s", reason);
    return state == 1;
}

/* Keeps the events this thread can count together. A default event this
 * CPU lacks is dropped; a named one that cannot be counted makes the set
 * unavailable, saying which and why. */
static void probe_events(fb_counters *c, int is_default)
{
    int set = PAPI_NULL, kept = 0, r;
    char dropped[256] = "";
    if ((r = PAPI_create_eventset(&set)) != PAPI_OK) {
        snprintf(c->reason, sizeof c->reason, "PAPI_create_eventset: %s", PAPI_strerror(r));
        c->available = 0;
        return;
    }
    for (int i = 0; i < c->nevents; ++i) {
        if ((r = PAPI_add_event(set, c->codes[i])) == PAPI_OK) {
            memmove(c->names[kept], c->names[i], sizeof c->names[0]);
            c->codes[kept++] = c->codes[i];
            continue;
        }
        if (!dropped[0]) snprintf(dropped, sizeof dropped, "%s: %s", c->names[i], PAPI_strerror(r));
        if (!is_default) break;
    }
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    if (dropped[0] && (!is_default || kept == 0)) {
        /* the event's name and PAPI's message are cut to leave room for the advice */
        snprintf(c->reason, sizeof c->reason, "%s%.150s (virtual machines often expose no hardware counters)",
                 is_default ? "none of the default events can be counted here; " : "", dropped);
        c->available = 0;
    }
    c->nevents = kept;
}

static void create_thread_sets(fb_counters *c)
{
    int failed = 0;
#pragma omp parallel num_threads(c->nthreads) reduction(+ : failed)
    {
        int t = omp_get_thread_num();
        c->sets[t] = PAPI_NULL;
        failed += PAPI_create_eventset(&c->sets[t]) != PAPI_OK ||
                  PAPI_add_events(c->sets[t], c->codes, c->nevents) != PAPI_OK;
    }
    if (failed) set_unavailable(c, "cannot add the events on every OpenMP thread");
}

fb_status fb_counters_open(const char *list, fb_counters **out)
{
    fb_status status = FB_OK;
    fb_counters *c = NULL;
    int is_default;
    char why[200];
    FB_ALLOC(c, 1, "a counter set");
    FB_CHECK(parse_list(c, list, &is_default));
    c->available = papi_ready(why, sizeof why);
    if (!c->available) snprintf(c->reason, sizeof c->reason, "%s", why);
    for (int i = 0; i < c->nevents && c->available; ++i)
        if (PAPI_event_name_to_code(c->names[i], &c->codes[i]) != PAPI_OK)
            FB_FAIL(FB_ERR_USAGE, "--counters: '%s' is not an event PAPI knows here (papi_avail lists them)",
                    c->names[i]);
    if (c->available) probe_events(c, is_default);
    c->nthreads = omp_get_max_threads();
    FB_ALLOC(c->sets, c->nthreads, "PAPI event sets");
    if (c->available) create_thread_sets(c);
    *out = c;
    return FB_OK;
fail:
    fb_counters_close(c);
    return status;
}

void fb_counters_start(fb_counters *c)
{
    int failed = 0;
    if (!c || !c->available) return;
#pragma omp parallel num_threads(c->nthreads) reduction(+ : failed)
    failed += PAPI_start(c->sets[omp_get_thread_num()]) != PAPI_OK;
    if (failed) set_unavailable(c, "PAPI_start failed on an OpenMP thread");
}

void fb_counters_stop(fb_counters *c)
{
    int failed = 0;
    if (!c || !c->available) return;
#pragma omp parallel num_threads(c->nthreads) reduction(+ : failed)
    {
        long long v[FB_COUNTERS_MAX] = {0};
        failed += PAPI_stop(c->sets[omp_get_thread_num()], v) != PAPI_OK;
#pragma omp critical(fb_counters)
        for (int i = 0; i < c->nevents; ++i)
            c->totals[i] += v[i];
    }
    if (failed) set_unavailable(c, "PAPI_stop failed on an OpenMP thread");
    c->samples++;
}

static void destroy_sets(fb_counters *c)
{
    if (!c->sets || !c->available) return;
#pragma omp parallel num_threads(c->nthreads)
    {
        int t = omp_get_thread_num();
        PAPI_cleanup_eventset(c->sets[t]);
        PAPI_destroy_eventset(&c->sets[t]);
    }
}

#else /* no PAPI in this build */

fb_status fb_counters_open(const char *list, fb_counters **out)
{
    fb_status status = FB_OK;
    fb_counters *c = NULL;
    int is_default;
    FB_ALLOC(c, 1, "a counter set");
    FB_CHECK(parse_list(c, list, &is_default));
    snprintf(c->reason, sizeof c->reason, "this flowbench was built without PAPI (Debian: libpapi-dev)");
    *out = c;
    return FB_OK;
fail:
    fb_counters_close(c);
    return status;
}

void fb_counters_start(fb_counters *c) { (void)c; }
void fb_counters_stop(fb_counters *c) { (void)c; }
static void destroy_sets(fb_counters *c) { (void)c; }

#endif

int fb_counters_available(const fb_counters *c, const char **reason)
{
    if (reason) *reason = c ? c->reason : "no counter set";
    return c && c->available;
}

void fb_counters_reset(fb_counters *c)
{
    if (!c) return;
    memset(c->totals, 0, sizeof c->totals);
    c->samples = 0;
}

static double per_sample(const fb_counters *c, const char *name)
{
    for (int i = 0; i < c->nevents; ++i)
        if (!strcmp(c->names[i], name)) return (double)c->totals[i] / (double)c->samples;
    return -1;
}

static json_t *derived_json(const fb_counters *c, double model_bytes)
{
    json_t *d = json_object();
    double cyc = per_sample(c, "PAPI_TOT_CYC"), ins = per_sample(c, "PAPI_TOT_INS");
    double miss = per_sample(c, "PAPI_L3_TCM"), ops = per_sample(c, "PAPI_DP_OPS");
    if (cyc > 0 && ins >= 0) json_object_set_new(d, "ipc", json_real(ins / cyc));
    if (miss > 0 && model_bytes > 0) json_object_set_new(d, "bytes_per_llc_miss", json_real(model_bytes / miss));
    if (cyc > 0 && ops >= 0) json_object_set_new(d, "flops_per_cycle", json_real(ops / cyc));
    return d;
}

json_t *fb_counters_json(const fb_counters *c, double model_bytes)
{
    json_t *events;
    if (!c) return NULL;
    if (!c->available || c->samples == 0)
        return json_pack("{s:s}", "unavailable", c->available ? "no sample was counted" : c->reason);
    events = json_object();
    for (int i = 0; i < c->nevents; ++i)
        json_object_set_new(events, c->names[i], json_real(per_sample(c, c->names[i])));
    return json_pack("{s:o, s:I, s:o}", "events", events, "samples", (json_int_t)c->samples, "derived",
                     derived_json(c, model_bytes));
}

void fb_counters_close(fb_counters *c)
{
    if (!c) return;
    destroy_sets(c);
    free(c->sets);
    free(c);
}
