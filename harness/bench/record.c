/* record.c - the fields every measurement record shares (docs/results.md),
 * built once for every family. */
#include "record.h"
#include "user_kernel.h"

json_t *fb_json_params(const fb_param_axis *axes, int naxes, const fb_param_point *p)
{
    json_t *params = json_object();
    for (int i = 0; i < naxes; ++i)
        json_object_set_new(params, axes[i].name, json_integer(p->values[i]));
    return params;
}

/* A kernel launch's geometry: {"global": [...], "local": [...]}, work-items
 * per dimension (OpenCL convention). */
static json_t *json_launch(const fb_launch *l)
{
    json_t *g = json_array(), *w = json_array();
    for (int d = 0; d < l->dims; ++d) {
        json_array_append_new(g, json_integer((json_int_t)l->global[d]));
        json_array_append_new(w, json_integer((json_int_t)l->local[d]));
    }
    return json_pack("{s:o, s:o}", "global", g, "local", w);
}

/* {"registers", "private_bytes", "local_bytes", "max_group_items",
 * "group_multiple", "groups_per_unit", "occupancy"} (docs/results.md). */
static json_t *kernel_resources_json(const fb_kernel_resources *k)
{
    return json_pack("{s:i, s:I, s:I, s:I, s:I, s:i, s:f}", "registers", k->registers, "private_bytes",
                     (json_int_t)k->private_bytes, "local_bytes", (json_int_t)k->local_bytes, "max_group_items",
                     (json_int_t)k->max_group_items, "group_multiple", (json_int_t)k->group_multiple, "groups_per_unit",
                     k->groups_per_unit, "occupancy", k->occupancy);
}

json_t *fb_json_kernel_record(const fb_device_info *d, const fb_kernel_record *k)
{
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "benchmark", k->benchmark, "kernel", k->kernel,
                            "backend", d->backend, "device", d->id, "device_name", d->name, "precision",
                            k->is_double ? "double" : "single", "cold", k->cold);
    json_object_set_new(rec, "params", k->params);
    if (k->user) json_object_set_new(rec, "kernel_file", fb_user_kernel_json(k->user));
    if (k->launch && k->launch->dims > 0) json_object_set_new(rec, "launch", json_launch(k->launch));
    if (k->resources) json_object_set_new(rec, "kernel_resources", kernel_resources_json(k->resources));
    json_object_set_new(rec, "flops", json_real(k->flops));
    json_object_set_new(rec, "bytes", json_real(k->bytes));
    json_object_set_new(rec, "stats", fb_json_measurement(k->m));
    json_object_set_new(rec, "gflops", json_real(k->gflops));
    json_object_set_new(rec, "gbs", json_real(k->gbs));
    fb_json_set_energy(rec, k->m, k->flops);
    fb_json_set_environment(rec, k->m);
    return rec;
}

void fb_json_set_energy(json_t *record, const fb_measurement *m, double flops_per_run)
{
    json_t *energy = fb_energy_json(&m->energy, flops_per_run);
    if (energy) json_object_set_new(record, "energy", energy);
}

json_t *fb_json_measurement(const fb_measurement *m)
{
    json_t *samples = json_array();
    for (int i = 0; i < m->nsamples; ++i)
        json_array_append_new(samples, json_real(m->samples[i]));
    json_t *stats = json_pack("{s:o, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:f}", "samples_s", samples, "n",
                              m->nsamples, "median_s", m->stats.median, "min_s", m->stats.min, "max_s", m->stats.max,
                              "mean_s", m->stats.mean, "stddev_s", m->stats.stddev, "median_spread",
                              m->stats.median_spread, "stop", fb_stop_reason_name(m->stop), "wall_s", m->wall_s);
    fb_spread sp;
    char why[8];
    fb_samples_judge(m->samples, m->nsamples, &sp, why, sizeof why);
    json_object_set_new(stats, "cv", json_real(sp.cv));
    json_object_set_new(stats, "q1_s", json_real(sp.q1));
    json_object_set_new(stats, "q3_s", json_real(sp.q3));
    json_object_set_new(stats, "quality", json_string(fb_quality_name(m->quality)));
    json_object_set_new(stats, "quality_why",
                        m->quality == FB_QUALITY_STABLE ? json_null() : json_string(m->quality_why));
    return stats;
}

void fb_json_set_environment(json_t *record, const fb_measurement *m)
{
    json_t *env = fb_environment_json(&m->env);
    if (env) json_object_set_new(record, "environment", env);
}

void fb_json_set_fraction_of_stream(json_t *record, double gbs, double stream_gbs)
{
    int known = stream_gbs > 0;
    json_object_set_new(record, "stream_gbs", known ? json_real(stream_gbs) : json_null());
    json_object_set_new(record, "fraction_of_stream", known ? json_real(gbs / stream_gbs) : json_null());
}

/* A dot within noise of the triad still measures memory (on the 2-core VM
 * the two are within a few percent); one far below it measures the dot
 * kernel. */
int fb_read_is_ceiling(double read_gbs, double triad_gbs)
{
    return read_gbs > 0 && read_gbs >= FB_READ_CEILING_MIN_OF_TRIAD * triad_gbs;
}

void fb_json_set_fraction_of_read(json_t *record, double gbs, double read_gbs)
{
    const double triad = json_number_value(json_object_get(record, "stream_gbs"));
    const int known = read_gbs > 0, ceiling = fb_read_is_ceiling(read_gbs, triad);
    char note[300];
    json_object_set_new(record, "read_gbs", known ? json_real(read_gbs) : json_null());
    json_object_set_new(record, "fraction_of_read", ceiling ? json_real(gbs / read_gbs) : json_null());
    if (known && !ceiling) {
        snprintf(note, sizeof note,
                 "stream dot (%.2f GB/s) runs under %.1f of the triad (%.2f GB/s) on this device: the dot kernel, "
                 "not memory, bounds it, so it is no read ceiling",
                 read_gbs, FB_READ_CEILING_MIN_OF_TRIAD, triad);
        json_object_set_new(record, "read_note", json_string(note));
    }
}

/* The roofline note of a record, from its own working set against the
 * cache (resident) and whether its stream reference was a DRAM triad; NULL
 * when the fraction is a roofline fraction. */
static const char *roofline_note(int resident, int triad_reuse, double fraction)
{
    if (resident && triad_reuse)
        return "the working set fits in the last-level cache and the stream triad includes cache reuse (its 3 "
               "arrays are under 4x that cache): neither is a DRAM figure, so the fraction is not a roofline fraction "
               "(--cold measures from DRAM)";
    if (resident)
        return "the working set fits in the last-level cache: the fraction of the DRAM triad is not a roofline "
               "fraction (--cold measures from DRAM)";
    if (triad_reuse)
        return "the stream triad includes cache reuse (its 3 arrays are under 4x the last-level cache): the "
               "fraction divides by a cache figure, so it is not a roofline fraction (the stream run's note says why)";
    if (fraction > 1)
        return "above the stream triad: caches or a noisy reference (--cold measures from DRAM; the record's "
               "stream_reference gives the triad's spread)";
    return NULL;
}

void fb_json_judge_roofline(json_t *record, size_t cache_bytes)
{
    const json_t *ws = json_object_get(record, "working_set_bytes");
    const double bytes = json_number_value(ws ? ws : json_object_get(record, "bytes"));
    const double fraction = json_number_value(json_object_get(record, "fraction_of_stream"));
    const json_t *reuse = json_object_get(json_object_get(record, "stream_reference"), "cache_reuse");
    const int known = cache_bytes > 0 && bytes > 0;
    const char *note = roofline_note(known && bytes <= (double)cache_bytes, json_is_true(reuse), fraction);
    json_object_set_new(record, "cache_resident", known ? json_boolean(bytes <= (double)cache_bytes) : json_null());
    if (note) json_object_set_new(record, "roofline_note", json_string(note));
}
