/* measure.c - adaptive sampling with warm-ups, a spread target, a sample
 * cap and a time budget; the cold mode flushes caches between samples. */
#include "measure.h"

#include "counters.h"

#include <stdlib.h>
#include <string.h>

fb_measure_config fb_measure_defaults(void)
{
    return (fb_measure_config){
        .warmups = 2, .min_samples = 5, .max_samples = 200, .target_spread = 0.01, .budget_s = 2.0, .cold = 0};
}

const char *fb_stop_reason_name(fb_stop_reason r)
{
    switch (r) {
    case FB_STOP_CONVERGED: return "converged";
    case FB_STOP_MAX_SAMPLES: return "max-samples";
    case FB_STOP_BUDGET: return "budget";
    case FB_STOP_ABANDONED: return "abandoned";
    case FB_STOP_TIMEOUT: return "timeout";
    case FB_STOP_CONTENDED: return "contended";
    }
    return "unknown";
}

static fb_status validate(const fb_measure_config *cfg, fb_flush_fn flush)
{
    fb_status status = FB_OK;
    if (cfg->min_samples < 1 || cfg->max_samples < cfg->min_samples)
        FB_FAIL(FB_ERR_USAGE, "need 1 <= min samples (%d) <= max samples (%d)", cfg->min_samples, cfg->max_samples);
    if (cfg->warmups < 0) FB_FAIL(FB_ERR_USAGE, "warm-up count %d is negative", cfg->warmups);
    if (!(cfg->target_spread > 0)) FB_FAIL(FB_ERR_USAGE, "target spread must be positive");
    if (!(cfg->budget_s > 0)) FB_FAIL(FB_ERR_USAGE, "time budget must be positive");
    if (cfg->cold && !flush) FB_FAIL(FB_ERR_USAGE, "cold mode needs a cache flush");
fail:
    return status;
}

/* One run; `counters` (NULL for warm-ups) count the run alone, not the flush. */
static fb_status one_sample(const fb_measure_config *cfg, fb_sample_fn sample, void *ctx, fb_flush_fn flush,
                            void *flush_ctx, fb_counters *counters, double *seconds)
{
    fb_status status = FB_OK;
    if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
    if (cfg->cold) FB_CHECK(flush(flush_ctx));
    fb_counters_start(counters);
    status = sample(ctx, seconds);
    fb_counters_stop(counters);
fail:
    return status;
}

/* Abandon only on evidence: the fastest of the first FB_ABANDON_SAMPLES
 * samples (fewer when max_samples is smaller) over the threshold. One
 * slow first sample (a page-in, a context switch, a late JIT) once cost a
 * sweep points 20-100x off, a default point among them; the fastest of
 * three is what the point can do. */
static int looks_abandoned(const fb_measure_config *cfg, const fb_measurement *m)
{
    const int want = cfg->max_samples < FB_ABANDON_SAMPLES ? cfg->max_samples : FB_ABANDON_SAMPLES;
    if (!(cfg->abandon_above_s > 0) || m->nsamples != want) return 0;
    double fastest = m->samples[0];
    for (int i = 1; i < m->nsamples; ++i)
        fastest = m->samples[i] < fastest ? m->samples[i] : fastest;
    return fastest > cfg->abandon_above_s;
}

/* The time the samples say they took (a synthetic sample function takes
 * none: what it says is what the windows are judged by). */
static double samples_span(const fb_measurement *m)
{
    double s = 0;
    for (int i = 0; i < m->nsamples; ++i)
        s += m->samples[i];
    return s;
}

/* The median's interval met its target: converged only when the samples
 * are of one mode and tight and the machine left this run its CPUs. Other
 * runnable work ends the measurement as contended (more samples would not
 * tell the machine's speed); unstable samples go on to the budget, so the
 * record shows both modes. */
static int settled(fb_measurement *m, fb_stop_reason *stop)
{
    char why[8];
    fb_spread sp;
    if (m->env.polls < 2 || !fb_contention_judgeable(&m->env) || fb_now() - m->env.last_poll >= FB_CONTENTION_POLL_S)
        fb_contention_poll_now(&m->env);
    /* a few ms more, so the machine can be judged (samples that say they
     * took that long are enough: a synthetic sample function takes none) */
    if (!fb_contention_judgeable(&m->env) && samples_span(m) < FB_CONTENTION_MIN_WINDOW_S) return 0;
    if (fb_contention_judge(&m->env, why, sizeof why)) {
        *stop = FB_STOP_CONTENDED;
        return 1;
    }
    if (fb_samples_judge(m->samples, m->nsamples, &sp, why, sizeof why)) return 0;
    if (fb_contention_self_wait(&m->env, why, sizeof why)) return 0;
    *stop = FB_STOP_CONVERGED;
    return 1;
}

/* The energy window so far: the timed runs in it, those repeated only to
 * fill it, and their summed times. */
typedef struct energy_window {
    int on;
    double start;
    long extra;
    double busy_s;
} energy_window;

/* A window still too short to be read:
 *  - the energy window below the meter's minimum: short sample sets are too
 *    short for an energy counter's resolution (fb_energy_min_window is 0
 *    where the meter reads no joules: nothing is repeated for it);
 *  - the contention window below FB_CONTENTION_MIN_WINDOW_S, when the
 *    samples (the cap, the budget) ended before it could be judged: a
 *    short measurement is judged by its threads' wait as a long one is
 *    (20 samples of 25 us on a busy machine would otherwise pass unseen). */
static int windows_short(const fb_measure_config *cfg, const energy_window *e, const fb_measurement *m, double span)
{
    const double now = fb_now();
    const int energy = e->on && now - e->start < fb_energy_min_window(cfg->energy);
    const int contention =
        m->env.wait_known && span < FB_CONTENTION_MIN_WINDOW_S && now - m->env.start < FB_CONTENTION_MIN_WINDOW_S;
    return energy || contention;
}

/* The launch repeated (untimed as a sample, but inside both windows) until
 * neither window is too short; the repeats are the energy window's extra
 * runs. */
static fb_status fill_windows(const fb_measure_config *cfg, fb_sample_fn sample, void *ctx, energy_window *e,
                              fb_measurement *m)
{
    fb_status status = FB_OK;
    const double span = samples_span(m);
    double seconds;
    while (windows_short(cfg, e, m, span) && !(cfg->deadline > 0 && fb_now() > cfg->deadline)) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        FB_CHECK(sample(ctx, &seconds));
        if (e->on) e->extra++, e->busy_s += seconds, fb_energy_poll(cfg->energy);
        fb_contention_poll(&m->env);
    }
fail:
    return status;
}

static void energy_start(const fb_measure_config *cfg, energy_window *e)
{
    memset(e, 0, sizeof *e);
    if (!cfg->energy || cfg->cold) return;
    e->on = 1;
    fb_energy_start(cfg->energy);
    e->start = fb_now();
}

static void energy_stop(const fb_measure_config *cfg, const energy_window *e, fb_measurement *out)
{
    if (e->on)
        fb_energy_stop(cfg->energy, out->nsamples + e->extra, e->extra, e->busy_s, &out->energy);
    else if (cfg->energy && cfg->cold)
        fb_energy_reading_unavailable(&out->energy, "none",
                                      "--cold: the cache flush before every sample would be counted with it");
}

fb_status fb_measure(const fb_measure_config *cfg, fb_sample_fn sample, void *ctx, fb_flush_fn flush, void *flush_ctx,
                     fb_measurement *out)
{
    fb_status status = FB_OK;
    double t0 = fb_now(), dummy;
    energy_window e = {0};
    memset(out, 0, sizeof *out);
    FB_CHECK(validate(cfg, flush));
    FB_ALLOC(out->samples, cfg->max_samples, "timing samples");

    for (int i = 0; i < cfg->warmups; ++i)
        FB_CHECK(one_sample(cfg, sample, ctx, flush, flush_ctx, NULL, &dummy));
    fb_counters_reset(cfg->counters);
    fb_wait_policy_say_once(stderr);
    fb_contention_begin(&out->env, cfg->cpu_threads); /* first: its calibration must not fill the energy window */
    energy_start(cfg, &e);

    out->stop = FB_STOP_MAX_SAMPLES;
    while (out->nsamples < cfg->max_samples) {
        FB_CHECK(one_sample(cfg, sample, ctx, flush, flush_ctx, cfg->counters, &out->samples[out->nsamples]));
        e.busy_s += out->samples[out->nsamples];
        out->nsamples++;
        if (e.on) fb_energy_poll(cfg->energy);
        fb_contention_poll(&out->env);
        if (cfg->deadline > 0 && fb_now() > cfg->deadline) {
            out->stop = FB_STOP_TIMEOUT;
            break;
        }
        if (looks_abandoned(cfg, out)) {
            out->stop = FB_STOP_ABANDONED;
            break;
        }
        if (out->nsamples < cfg->min_samples) continue;
        fb_stats_compute(out->samples, (size_t)out->nsamples, &out->stats);
        if (out->stats.median_spread <= cfg->target_spread && settled(out, &out->stop)) break;
        if (fb_now() - t0 > cfg->budget_s) {
            out->stop = FB_STOP_BUDGET;
            break;
        }
    }
    /* an abandoned or timed-out point is not worth the wait */
    if (out->stop != FB_STOP_ABANDONED && out->stop != FB_STOP_TIMEOUT)
        FB_CHECK(fill_windows(cfg, sample, ctx, &e, out));
fail:
    energy_stop(cfg, &e, out);
    fb_contention_end(&out->env);
    /* this process holds one of the GPU's contexts: the others competed */
    if (out->energy.has_gpu_procs)
        out->env.gpu_others = out->energy.gpu_procs_max > 0 ? out->energy.gpu_procs_max - 1 : 0;
    if (out->nsamples > 0) fb_stats_compute(out->samples, (size_t)out->nsamples, &out->stats);
    fb_measurement_judge(out);
    out->wall_s = fb_now() - t0;
    return status;
}

void fb_measurement_judge(fb_measurement *m)
{
    m->quality = fb_quality_judge(m->samples, m->nsamples, &m->env, m->quality_why, sizeof m->quality_why);
}

const char *fb_measurement_verdict(const fb_measurement *m, char *buf, size_t len)
{
    if (m->quality == FB_QUALITY_STABLE)
        snprintf(buf, len, "%s", fb_stop_reason_name(m->stop));
    else
        snprintf(buf, len, "%s: %s", fb_quality_name(m->quality), m->quality_why);
    return buf;
}

void fb_measurement_free(fb_measurement *m)
{
    if (!m) return;
    free(m->samples);
    m->samples = NULL;
    m->nsamples = 0;
}
