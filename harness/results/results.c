/* results.c - the JSON Lines writer and the header and device objects. */
#include "results.h"

#include <errno.h>
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
    json_t *sizes = json_pack("[I,I,I]", (json_int_t)d->max_work_item_sizes[0], (json_int_t)d->max_work_item_sizes[1],
                              (json_int_t)d->max_work_item_sizes[2]);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o, s:I, s:I, s:I, s:i, s:b, s:i, s:s}", "backend",
                     d->backend, "id", d->id, "name", d->name, "vendor", d->vendor, "device_version", d->device_version,
                     "driver_version", d->driver_version, "runtime_version", d->runtime_version, "compute_units",
                     d->compute_units, "max_work_group_size", (json_int_t)d->max_work_group_size, "max_work_item_sizes",
                     sizes, "local_mem_bytes", (json_int_t)d->local_mem_bytes, "global_mem_bytes",
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

/* The process's command line, shell-quoted: provenance for every header
 * this process writes (set once by main). */
static char command_line[4096];

void fb_shell_append(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);
    if (word[0] && !word[strcspn(word, " \t\n'\"\\$`*?[]{}()<>|&;!#~")]) {
        snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
        return;
    }
    snprintf(buf + n, len - n, "%s'", n ? " " : "");
    for (const char *p = word; *p; ++p) {
        n = strlen(buf);
        snprintf(buf + n, len - n, *p == '\'' ? "'\\''" : "%c", *p);
    }
    n = strlen(buf);
    snprintf(buf + n, len - n, "'");
}

void fb_results_set_command_line(int argc, char *const *argv)
{
    command_line[0] = '\0';
    for (int i = 0; i < argc; ++i)
        fb_shell_append(command_line, sizeof command_line, argv[i]);
}

json_t *fb_json_header(const char *command, const fb_device_info *devices, int ndevices)
{
    char date[32];
    fb_utc_now(date, sizeof date);
    json_t *devs = json_array();
    for (int i = 0; i < ndevices; ++i)
        json_array_append_new(devs, fb_json_device(&devices[i]));
    json_t *h = json_pack("{s:s, s:s, s:o, s:o, s:o}", "date", date, "command", command ? command : "", "host",
                          host_json(), "build", build_json(), "devices", devs);
    if (command_line[0]) json_object_set_new(h, "command_line", json_string(command_line));
    return h;
}

static fb_status write_line(fb_results *r, json_t *record)
{
    fb_status status = FB_OK;
    char *line = json_dumps(record, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!line) FB_FAIL(FB_ERR_NOMEM, "%s: could not serialise a record", r->path);
    if (fprintf(r->f, "%s\n", line) < 0 || fflush(r->f) != 0)
        FB_FAIL(FB_ERR_IO, "%s: write failed: %s", r->path, strerror(errno));
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
    return fb_results_open_with(path, command, devices, ndevices, NULL, out);
}

fb_status fb_results_open_with(const char *path, const char *command, const fb_device_info *devices, int ndevices,
                               const json_t *extra, fb_results **out)
{
    fb_status status = FB_OK;
    fb_results *r = NULL;
    json_t *header = NULL;
    char date[32];
    FB_ALLOC(r, 1, "results writer");
    snprintf(r->path, sizeof r->path, "%s", path);
    r->f = fopen(path, "a");
    if (!r->f) FB_FAIL(FB_ERR_IO, "%s: cannot open for appending: %s", path, strerror(errno));
    fb_utc_now(date, sizeof date);
    snprintf(r->run_id, sizeof r->run_id, "%s-%ld", date, (long)getpid());
    header = fb_json_header(command, devices, ndevices);
    if (extra) json_object_update(header, (json_t *)extra);
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
