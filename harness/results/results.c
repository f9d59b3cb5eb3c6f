/* results.c - the JSON Lines writer and the header/device/statistics objects. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/sysinfo.h"

struct fb_results {
    FILE *f;
    char path[1024];
    char run_id[64];
};

json_t *fb_json_device(const fb_device_info *d)
{
    char cc[16] = "";
    if (d->cc_major) snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_t *sizes = json_pack("[I,I,I]", (json_int_t)d->max_work_item_sizes[0],
                              (json_int_t)d->max_work_item_sizes[1], (json_int_t)d->max_work_item_sizes[2]);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o, s:I, s:I, s:I, s:i, s:b, s:i, s:s}",
                     "backend", d->backend, "id", d->id, "name", d->name, "vendor", d->vendor,
                     "device_version", d->device_version, "driver_version", d->driver_version,
                     "runtime_version", d->runtime_version, "compute_units", d->compute_units,
                     "max_work_group_size", (json_int_t)d->max_work_group_size, "max_work_item_sizes", sizes,
                     "local_mem_bytes", (json_int_t)d->local_mem_bytes, "global_mem_bytes",
                     (json_int_t)d->global_mem_bytes, "cache_bytes", (json_int_t)d->cache_bytes, "clock_mhz",
                     d->clock_mhz, "double_support", d->double_support, "subgroup_size", d->subgroup_size,
                     "compute_capability", cc);
}

static json_t *host_json(void)
{
    fb_host_info h;
    fb_host_info_get(&h);
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:I, s:I, s:s}", "hostname", h.hostname, "cpu", h.cpu_model,
                     "cpu_vendor", h.cpu_vendor, "logical_cpus", h.logical_cpus, "omp_threads", h.omp_threads,
                     "cpu_mhz", h.cpu_mhz, "llc_bytes", (json_int_t)h.llc_bytes, "memory_bytes",
                     (json_int_t)h.memory_bytes, "os", h.os);
}

static json_t *build_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b}", "flowbench_version", FB_VERSION, "git_revision",
                     FB_GIT_REVISION, "compiler", FB_C_COMPILER, "flags", FB_C_FLAGS, "build_type", FB_BUILD_TYPE,
#ifdef FB_HAVE_OPENCL
                     "opencl", 1,
#else
                     "opencl", 0,
#endif
#ifdef FB_HAVE_CUDA
                     "cuda", 1,
#else
                     "cuda", 0,
#endif
#ifdef FB_HAVE_PAPI
                     "papi", 1
#else
                     "papi", 0
#endif
    );
}

json_t *fb_json_header(const char *command, const fb_device_info *devices, int ndevices)
{
    char date[32];
    fb_utc_now(date, sizeof date);
    json_t *devs = json_array();
    for (int i = 0; i < ndevices; ++i) json_array_append_new(devs, fb_json_device(&devices[i]));
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "date", date, "command", command ? command : "", "host",
                     host_json(), "build", build_json(), "devices", devs);
}

json_t *fb_json_params(const fb_param_axis *axes, int naxes, const fb_param_point *p)
{
    json_t *params = json_object();
    for (int i = 0; i < naxes; ++i) json_object_set_new(params, axes[i].name, json_integer(p->values[i]));
    return params;
}

json_t *fb_kernel_resources_json(const fb_kernel_resources *k)
{
    return json_pack("{s:i, s:I, s:I, s:I, s:I, s:i, s:f}", "registers", k->registers, "private_bytes",
                     (json_int_t)k->private_bytes, "local_bytes", (json_int_t)k->local_bytes, "max_group_items",
                     (json_int_t)k->max_group_items, "group_multiple", (json_int_t)k->group_multiple,
                     "groups_per_unit", k->groups_per_unit, "occupancy", k->occupancy);
}

json_t *fb_json_kernel_record(const fb_device_info *d, const fb_kernel_record *k)
{
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "benchmark", k->benchmark, "kernel", k->kernel,
                            "backend", d->backend, "device", d->id, "device_name", d->name, "precision",
                            k->is_double ? "double" : "single", "cold", k->cold);
    json_object_set_new(rec, "params", k->params);
    if (k->launch && k->launch->dims > 0) json_object_set_new(rec, "launch", fb_json_launch(k->launch));
    if (k->resources) json_object_set_new(rec, "kernel_resources", fb_kernel_resources_json(k->resources));
    json_object_set_new(rec, "flops", json_real(k->flops));
    json_object_set_new(rec, "bytes", json_real(k->bytes));
    json_object_set_new(rec, "stats", fb_json_measurement(k->m));
    json_object_set_new(rec, "gflops", json_real(k->gflops));
    json_object_set_new(rec, "gbs", json_real(k->gbs));
    return rec;
}

json_t *fb_json_launch(const fb_launch *l)
{
    json_t *g = json_array(), *w = json_array();
    for (int d = 0; d < l->dims; ++d) {
        json_array_append_new(g, json_integer((json_int_t)l->global[d]));
        json_array_append_new(w, json_integer((json_int_t)l->local[d]));
    }
    return json_pack("{s:o, s:o}", "global", g, "local", w);
}

json_t *fb_json_measurement(const fb_measurement *m)
{
    json_t *samples = json_array();
    for (int i = 0; i < m->nsamples; ++i) json_array_append_new(samples, json_real(m->samples[i]));
    return json_pack("{s:o, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:f}", "samples_s", samples, "n",
                     m->nsamples, "median_s", m->stats.median, "min_s", m->stats.min, "max_s", m->stats.max,
                     "mean_s", m->stats.mean, "stddev_s", m->stats.stddev, "median_spread",
                     m->stats.median_spread, "stop", fb_stop_reason_name(m->stop), "wall_s", m->wall_s);
}

void fb_json_set_fraction_of_stream(json_t *record, double gbs, double stream_gbs)
{
    int known = stream_gbs > 0;
    json_object_set_new(record, "stream_gbs", known ? json_real(stream_gbs) : json_null());
    json_object_set_new(record, "fraction_of_stream", known ? json_real(gbs / stream_gbs) : json_null());
}

static fb_status write_line(fb_results *r, json_t *record)
{
    fb_status status = FB_OK;
    char *line = json_dumps(record, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!line) FB_FAIL(FB_ERR_NOMEM, "%s: could not serialise a record", r->path);
    if (fprintf(r->f, "%s\n", line) < 0 || fflush(r->f) != 0)
        FB_FAIL(FB_ERR_IO, "%s: write failed", r->path);
    fsync(fileno(r->f)); /* best effort: survive a crash, not only Ctrl-C */
fail:
    free(line);
    return status;
}

fb_status fb_results_append(fb_results *r, json_t *record)
{
    json_object_set_new(record, "schema", json_integer(FB_RESULTS_SCHEMA));
    json_object_set_new(record, "run_id", json_string(r->run_id));
    if (!json_object_get(record, "type")) json_object_set_new(record, "type", json_string("measurement"));
    return write_line(r, record);
}

fb_status fb_results_open(const char *path, const char *command, const fb_device_info *devices, int ndevices,
                          fb_results **out)
{
    fb_status status = FB_OK;
    fb_results *r = NULL;
    json_t *header = NULL;
    char date[32];
    FB_ALLOC(r, 1, "results writer");
    snprintf(r->path, sizeof r->path, "%s", path);
    r->f = fopen(path, "a");
    if (!r->f) FB_FAIL(FB_ERR_IO, "%s: cannot open for appending", path);
    fb_utc_now(date, sizeof date);
    snprintf(r->run_id, sizeof r->run_id, "%s-%ld", date, (long)getpid());
    header = fb_json_header(command, devices, ndevices);
    json_object_set_new(header, "type", json_string("header"));
    FB_CHECK(fb_results_append(r, header));
    json_decref(header);
    *out = r;
    return FB_OK;
fail:
    json_decref(header);
    fb_results_close(r);
    return status;
}

void fb_results_close(fb_results *r)
{
    if (!r) return;
    if (r->f) fclose(r->f);
    free(r);
}
