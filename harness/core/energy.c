/* energy.c - the window around a measurement, whatever the source: reads
 * at start, at polls and at stop; joules from the counter or the power
 * reads; clocks and the throttle rule; the record's "energy" object
 * (energy.h). */
#include "energy_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

fb_status fb_energy_meter_new(fb_energy_meter **out)
{
    fb_status status = FB_OK;
    fb_energy_meter *m = NULL;
    FB_ALLOC(m, 1, "an energy meter");
    snprintf(m->source, sizeof m->source, "none");
    *out = m;
fail:
    return status;
}

fb_status fb_energy_unavailable(const char *reason, fb_energy_meter **out)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_energy_meter_new(out));
    snprintf((*out)->unavailable, sizeof(*out)->unavailable, "%s", reason);
    snprintf((*out)->throttle_unavailable, sizeof(*out)->throttle_unavailable, "%s", reason);
fail:
    return status;
}

int fb_energy_available(const fb_energy_meter *m, const char **why)
{
    if (why) *why = !m ? "no energy meter" : m->unavailable;
    return m && !m->unavailable[0];
}

const char *fb_energy_meter_id(const fb_energy_meter *m) { return m ? m->id : ""; }

const char *fb_energy_throttle_unavailable(const fb_energy_meter *m)
{
    return m ? m->throttle_unavailable : "no energy meter";
}

/* $FLOWBENCH_ENERGY_WINDOW in seconds, or -1 when unset or not a number
 * (said once on stderr: the variable is a user's input). */
static double window_from_env(void)
{
    static int warned;
    const char *text = getenv(FB_ENERGY_WINDOW_ENV);
    char *end = NULL;
    if (!text || !*text) return -1;
    double s = strtod(text, &end);
    if (end != text && *end == '\0' && s >= 0 && s <= 600) return s;
    if (!warned++)
        fprintf(stderr,
                "flowbench: warning: %s: '%s' is not a number of seconds from 0 to 600; using the source's "
                "own minimum window\n",
                FB_ENERGY_WINDOW_ENV, text);
    return -1;
}

double fb_energy_min_window(const fb_energy_meter *m)
{
    if (!fb_energy_available(m, NULL)) return 0;
    double env = window_from_env();
    return env >= 0 ? env : m->min_window_s;
}

void fb_energy_describe(const fb_energy_meter *m, char *buf, size_t len)
{
    if (!fb_energy_available(m, NULL)) {
        snprintf(buf, len, "unavailable: %s", m ? m->unavailable : "no meter");
        return;
    }
    snprintf(buf, len, "%s %s, window >= %g s%s%s", m->source,
             strcmp(m->method, "counter") == 0 ? "energy counter" : "power readings integrated",
             fb_energy_min_window(m), m->throttle_unavailable[0] ? "; no throttle check: " : "",
             m->throttle_unavailable);
}

static void widen(int *has, double *lo, double *hi, double v)
{
    if (!*has) {
        *has = 1;
        *lo = *hi = v;
        return;
    }
    *lo = fmin(*lo, v);
    *hi = fmax(*hi, v);
}

/* Clocks count only while the GPU is busy: a read between two launches may
 * catch it idle, which is no slowdown of the kernel. The idle bit itself is
 * not kept among the reasons for the same reason. */
static void track(fb_energy_meter *m, const fb_energy_sample *s)
{
    fb_energy_reading *r = &m->r;
    const int busy = !(s->has_reasons && (s->reasons & FB_NVML_REASON_IDLE));
    if (s->has_reasons) {
        r->has_reasons = 1;
        r->reasons |= s->reasons & ~FB_NVML_REASON_IDLE;
    }
    if (s->has_sm && busy) widen(&r->has_sm, &r->sm_mhz_min, &r->sm_mhz_max, s->sm_mhz);
    if (s->has_mem && busy) widen(&r->has_mem, &r->mem_mhz_min, &r->mem_mhz_max, s->mem_mhz);
    if (s->has_cpu) widen(&r->has_cpu, &r->cpu_mhz_min, &r->cpu_mhz_max, s->cpu_mhz);
    if (s->has_procs) {
        r->gpu_procs_max = r->has_gpu_procs && r->gpu_procs_max > (int)s->procs ? r->gpu_procs_max : (int)s->procs;
        r->has_gpu_procs = 1;
    }
    if (s->has_temp) {
        if (!r->has_temp) r->temp_c_start = s->temp_c;
        r->temp_c_max = r->has_temp ? fmax(r->temp_c_max, s->temp_c) : s->temp_c;
        r->has_temp = 1;
    }
}

static void read_now(fb_energy_meter *m)
{
    fb_energy_sample s;
    memset(&s, 0, sizeof s);
    m->read(m->impl, &s);
    s.t = fb_now();
    if (s.joules_invalid[0] && !m->window_invalid[0])
        snprintf(m->window_invalid, sizeof m->window_invalid, "%s", s.joules_invalid);
    if (s.has_watts && m->last.has_watts) m->integral_j += 0.5 * (s.watts + m->last.watts) * (s.t - m->last.t);
    track(m, &s);
    m->last = s;
    m->last_poll = s.t;
}

void fb_energy_start(fb_energy_meter *m)
{
    if (!m) return;
    memset(&m->r, 0, sizeof m->r);
    memset(&m->first, 0, sizeof m->first);
    memset(&m->last, 0, sizeof m->last);
    m->integral_j = 0;
    m->running = 1;
    if (!m->read) return;
    read_now(m);
    m->first = m->last;
    m->window_invalid[0] = '\0'; /* what the start read found is before the window */
}

void fb_energy_poll(fb_energy_meter *m)
{
    if (!m || !m->running || !m->read || fb_now() - m->last_poll < FB_ENERGY_POLL_S) return;
    read_now(m);
}

/* Joules over the window, or the reason there are none. */
static void window_joules(fb_energy_meter *m)
{
    fb_energy_reading *r = &m->r;
    const fb_energy_sample *a = &m->first, *b = &m->last;
    r->state = FB_ENERGY_UNAVAILABLE;
    if (m->unavailable[0]) {
        snprintf(r->unavailable, sizeof r->unavailable, "%s", m->unavailable);
        return;
    }
    if (m->window_invalid[0]) {
        snprintf(r->unavailable, sizeof r->unavailable, "%s", m->window_invalid);
        return;
    }
    if (strcmp(m->method, "counter") == 0 && a->has_joules && b->has_joules) {
        r->joules = b->joules - a->joules;
        r->ndomains = m->ndomains;
        for (int d = 0; d < m->ndomains; ++d) {
            snprintf(r->domain[d], sizeof r->domain[d], "%s", m->domain[d]);
            r->domain_joules[d] = b->domain_joules[d] - a->domain_joules[d];
        }
    } else if (strcmp(m->method, "power-integral") == 0 && a->has_watts && b->has_watts) {
        r->joules = m->integral_j;
    } else {
        snprintf(r->unavailable, sizeof r->unavailable, "%s: a reading failed at the start or the end of the window",
                 m->source);
        return;
    }
    r->state = FB_ENERGY_MEASURED;
    snprintf(r->method, sizeof r->method, "%s", m->method);
}

/* The throttle rule of energy.h, first reason found. */
static void judge_throttle(fb_energy_meter *m)
{
    fb_energy_reading *r = &m->r;
    char names[160];
    r->has_app_sm = m->app_sm_mhz > 0;
    r->app_sm_mhz = m->app_sm_mhz;
    r->throttle_checked = r->has_reasons || (r->has_sm && r->has_app_sm) || r->has_cpu;
    if (r->has_reasons && (r->reasons & FB_NVML_THROTTLING_REASONS)) {
        fb_energy_reason_names(r->reasons & FB_NVML_THROTTLING_REASONS, names, sizeof names);
        r->throttled = 1;
        snprintf(r->throttle_why, sizeof r->throttle_why, "the GPU reported %s", names);
    } else if (r->has_sm && r->has_app_sm && r->sm_mhz_min < r->app_sm_mhz) {
        r->throttled = 1;
        snprintf(r->throttle_why, sizeof r->throttle_why,
                 "the SM clock read %.0f MHz, below the applications clock %.0f MHz", r->sm_mhz_min, r->app_sm_mhz);
    } else if (r->has_cpu && r->cpu_mhz_max > 0 &&
               (r->cpu_mhz_max - r->cpu_mhz_min) / r->cpu_mhz_max > FB_ENERGY_CPU_FREQ_BOUND) {
        r->throttled = 1;
        snprintf(r->throttle_why, sizeof r->throttle_why,
                 "the mean CPU frequency moved from %.0f to %.0f MHz (more than %.0f%%)", r->cpu_mhz_max,
                 r->cpu_mhz_min, 100 * FB_ENERGY_CPU_FREQ_BOUND);
    }
    if (!r->throttle_checked)
        snprintf(r->throttle_unavailable, sizeof r->throttle_unavailable, "%s",
                 m->throttle_unavailable[0] ? m->throttle_unavailable : "no clock or throttle reason was read");
}

void fb_energy_stop(fb_energy_meter *m, long runs, long extra_runs, double busy_s, fb_energy_reading *out)
{
    if (!m) return;
    if (m->running && m->read) read_now(m);
    fb_energy_reading *r = &m->r;
    snprintf(r->source, sizeof r->source, "%s", m->source);
    r->runs = runs;
    r->extra_runs = extra_runs;
    r->busy_s = busy_s;
    r->min_window_s = fb_energy_min_window(m);
    r->window_s = m->running && m->read ? m->last.t - m->first.t : 0;
    window_joules(m);
    judge_throttle(m);
    m->running = 0;
    *out = *r;
}

void fb_energy_reading_unavailable(fb_energy_reading *r, const char *source, const char *reason)
{
    memset(r, 0, sizeof *r);
    r->state = FB_ENERGY_UNAVAILABLE;
    snprintf(r->source, sizeof r->source, "%s", source);
    snprintf(r->unavailable, sizeof r->unavailable, "%s", reason);
    snprintf(r->throttle_unavailable, sizeof r->throttle_unavailable, "%s", reason);
}

/* ---- several processes' readings as one (energy.h: fb_energy_sum) ---- */

/* The lowest process on meter[i]'s meter: the one whose reading counts. */
static int first_on_meter(const char *const *meter, int i)
{
    for (int j = 0; j < i; ++j)
        if (strcmp(meter[j], meter[i]) == 0) return j;
    return i;
}

static void widen_range(int *has, double *lo, double *hi, int other_has, double other_lo, double other_hi)
{
    if (!other_has) return;
    widen(has, lo, hi, other_lo);
    widen(has, lo, hi, other_hi);
}

static void merge_state(fb_energy_reading *t, const fb_energy_reading *r, int rank)
{
    widen_range(&t->has_sm, &t->sm_mhz_min, &t->sm_mhz_max, r->has_sm, r->sm_mhz_min, r->sm_mhz_max);
    widen_range(&t->has_mem, &t->mem_mhz_min, &t->mem_mhz_max, r->has_mem, r->mem_mhz_min, r->mem_mhz_max);
    widen_range(&t->has_cpu, &t->cpu_mhz_min, &t->cpu_mhz_max, r->has_cpu, r->cpu_mhz_min, r->cpu_mhz_max);
    if (r->has_temp) {
        t->temp_c_start = t->has_temp ? fmin(t->temp_c_start, r->temp_c_start) : r->temp_c_start;
        t->temp_c_max = t->has_temp ? fmax(t->temp_c_max, r->temp_c_max) : r->temp_c_max;
        t->has_temp = 1;
    }
    if (r->has_app_sm && (!t->has_app_sm || r->app_sm_mhz < t->app_sm_mhz)) t->app_sm_mhz = r->app_sm_mhz;
    t->has_app_sm |= r->has_app_sm;
    t->has_reasons |= r->has_reasons;
    t->reasons |= r->reasons;
    if (r->throttled && !t->throttled) {
        t->throttled = 1;
        snprintf(t->throttle_why, sizeof t->throttle_why, "rank %d: %.180s", rank, r->throttle_why);
    }
    if (!r->throttle_checked && t->throttle_checked) {
        t->throttle_checked = 0;
        snprintf(t->throttle_unavailable, sizeof t->throttle_unavailable, "rank %d: %.300s", rank,
                 r->throttle_unavailable);
    }
}

static void add_meter(fb_energy_reading *t, const fb_energy_reading *r, int rank)
{
    if (strcmp(t->source, r->source) != 0) snprintf(t->source, sizeof t->source, "mixed");
    if (strcmp(t->method, r->method) != 0) snprintf(t->method, sizeof t->method, "mixed");
    t->joules += r->joules;
    t->window_s = fmax(t->window_s, r->window_s);
    t->min_window_s = fmax(t->min_window_s, r->min_window_s);
    t->busy_s = fmax(t->busy_s, r->busy_s);
    t->ndomains = 0; /* package-0 of two hosts are two packages: the parts stay per meter */
    merge_state(t, r, rank);
}

static json_t *meters_json(const fb_energy_reading *r, const char *const *meter, int n)
{
    json_t *all = json_array();
    for (int i = 0; all && i < n; ++i) {
        if (first_on_meter(meter, i) != i) continue;
        json_t *ranks = json_array();
        for (int j = i; j < n; ++j)
            if (strcmp(meter[j], meter[i]) == 0) json_array_append_new(ranks, json_integer(j));
        json_t *one = json_pack("{s:s, s:o}", "meter", meter[i], "ranks", ranks);
        if (one && r[i].state == FB_ENERGY_MEASURED) json_object_set_new(one, "joules", json_real(r[i].joules));
        json_array_append_new(all, one);
    }
    return all;
}

void fb_energy_sum(const fb_energy_reading *r, const char *const *meter, int n, fb_energy_reading *total,
                   json_t **meters)
{
    char why[320];
    if (meters) *meters = meters_json(r, meter, n);
    for (int i = 0; i < n; ++i)
        if (r[i].state != FB_ENERGY_MEASURED) {
            const int metered = r[i].state != FB_ENERGY_NONE;
            snprintf(why, sizeof why, "rank %d: %.300s", i, metered ? r[i].unavailable : "no energy meter");
            fb_energy_reading_unavailable(total, metered ? r[i].source : "none", why);
            return;
        }
    *total = r[0];
    total->throttle_checked = 1; /* until a rank says otherwise */
    total->throttled = 0;
    total->throttle_why[0] = total->throttle_unavailable[0] = 0;
    merge_state(total, &r[0], 0);
    for (int i = 1; i < n; ++i)
        if (first_on_meter(meter, i) == i) add_meter(total, &r[i], i);
}

static const char *const reason_names[] = {
    "gpu_idle",
    "applications_clocks_setting",
    "sw_power_cap",
    "hw_slowdown",
    "sync_boost",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "display_clock_setting",
};

void fb_energy_reason_names(unsigned long long reasons, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int b = 0; b < 64 && used < len; ++b) {
        if (!(reasons & (1ULL << b))) continue;
        if (b < (int)(sizeof reason_names / sizeof reason_names[0]))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", reason_names[b]);
        else
            used += (size_t)snprintf(buf + used, len - used, "%sbit_%d", used ? "," : "", b);
    }
}

static json_t *reasons_json(unsigned long long reasons)
{
    json_t *a = json_array();
    for (int b = 0; b < 64; ++b) {
        char name[32];
        if (!(reasons & (1ULL << b))) continue;
        fb_energy_reason_names(1ULL << b, name, sizeof name);
        json_array_append_new(a, json_string(name));
    }
    return a;
}

static json_t *clocks_json(const fb_energy_reading *r)
{
    json_t *c = json_object();
    if (r->has_sm) {
        json_object_set_new(c, "sm_mhz_min", json_real(r->sm_mhz_min));
        json_object_set_new(c, "sm_mhz_max", json_real(r->sm_mhz_max));
    }
    if (r->has_mem) {
        json_object_set_new(c, "mem_mhz_min", json_real(r->mem_mhz_min));
        json_object_set_new(c, "mem_mhz_max", json_real(r->mem_mhz_max));
    }
    if (r->has_app_sm) json_object_set_new(c, "applications_sm_mhz", json_real(r->app_sm_mhz));
    if (r->has_cpu) {
        json_object_set_new(c, "cpu_mhz_min", json_real(r->cpu_mhz_min));
        json_object_set_new(c, "cpu_mhz_max", json_real(r->cpu_mhz_max));
    }
    return c;
}

static void set_joules(json_t *o, const fb_energy_reading *r, double flops_per_run)
{
    json_object_set_new(o, "method", json_string(r->method));
    json_object_set_new(o, "joules", json_real(r->joules));
    json_object_set_new(o, "window_s", json_real(r->window_s));
    json_object_set_new(o, "min_window_s", json_real(r->min_window_s));
    json_object_set_new(o, "runs", json_integer(r->runs));
    json_object_set_new(o, "extra_runs", json_integer(r->extra_runs));
    json_object_set_new(o, "busy_s", json_real(r->busy_s));
    if (r->window_s > 0) json_object_set_new(o, "avg_power_w", json_real(r->joules / r->window_s));
    if (r->runs > 0) json_object_set_new(o, "joules_per_run", json_real(r->joules / (double)r->runs));
    if (flops_per_run > 0 && r->joules > 0 && r->runs > 0)
        json_object_set_new(o, "gflop_per_j", json_real(flops_per_run * (double)r->runs / r->joules * 1e-9));
    if (r->ndomains) {
        json_t *d = json_object();
        for (int i = 0; i < r->ndomains; ++i)
            json_object_set_new(d, r->domain[i], json_real(r->domain_joules[i]));
        json_object_set_new(o, "domains", d);
    }
    if (r->window_s < r->min_window_s) {
        char note[200];
        snprintf(note, sizeof note, "the window (%.3g s) is shorter than the %g s the %s counter needs: coarse",
                 r->window_s, r->min_window_s, r->source);
        json_object_set_new(o, "note", json_string(note));
    }
}

json_t *fb_energy_json(const fb_energy_reading *r, double flops_per_run)
{
    char why[600];
    if (!r || r->state == FB_ENERGY_NONE) return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "source", json_string(r->state == FB_ENERGY_MEASURED ? r->source : "none"));
    if (r->state == FB_ENERGY_MEASURED)
        set_joules(o, r, flops_per_run);
    else {
        /* one reason, also for a source that read clocks but no joules */
        snprintf(why, sizeof why, "%s", r->unavailable);
        json_object_set_new(o, "unavailable", json_string(why));
    }
    json_t *clocks = clocks_json(r);
    if (json_object_size(clocks))
        json_object_set_new(o, "clocks", clocks);
    else
        json_decref(clocks);
    if (r->has_temp)
        json_object_set_new(o, "temperature_c",
                            json_pack("{s:f, s:f}", "start", r->temp_c_start, "max", r->temp_c_max));
    if (r->has_reasons) json_object_set_new(o, "throttle_reasons", reasons_json(r->reasons));
    json_object_set_new(o, "throttled", r->throttle_checked ? json_boolean(r->throttled) : json_null());
    if (r->throttled) json_object_set_new(o, "throttle_why", json_string(r->throttle_why));
    if (!r->throttle_checked && r->throttle_unavailable[0] && strcmp(r->throttle_unavailable, r->unavailable) != 0)
        json_object_set_new(o, "throttle_unavailable", json_string(r->throttle_unavailable));
    return o;
}

void fb_energy_close(fb_energy_meter *m)
{
    if (!m) return;
    if (m->close_impl) m->close_impl(m->impl);
    free(m);
}
