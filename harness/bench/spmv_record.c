/* spmv_record.c - see spmv_record.h. */
#include "spmv_record.h"

#include <string.h>

#include "../results/results.h"

/* "matrices/poisson2d.mtx:block=2" -> "poisson2d:block=2"; gen: specs as given. */
static void short_name(const char *source, char *out, size_t len)
{
    const char *base = strncmp(source, "gen:", 4) == 0 ? source : strrchr(source, '/');
    base = base && base != source ? base + 1 : source;
    snprintf(out, len, "%s", base);
    char *ext = strstr(out, ".mtx");
    if (!ext) ext = strstr(out, ".msh");
    if (!ext) ext = strstr(out, ".su2");
    if (!ext) return;
    const char *rest = strchr(ext, ':'); /* keep the options after the extension */
    memmove(ext, rest ? rest : "", rest ? strlen(rest) + 1 : 1);
}

fb_status fb_spmv_matrix_json(const fb_matrix *m, json_t **out)
{
    fb_status status = FB_OK;
    fb_csr_stats s;
    char hash[32], name[sizeof m->source];
    FB_CHECK(fb_csr_stats_compute(&m->A, &s));
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s.hash);
    short_name(m->source, name, sizeof name);
    *out = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:i, s:f}, s:I, s:s}", "name", name,
                     "source", m->source, "origin", m->origin, "hash", hash, "rows", s.nrows, "cols", s.ncols,
                     "nnz", (json_int_t)s.nnz, "nnz_per_row", "min", s.row_min, "mean", s.row_mean, "max",
                     s.row_max, "stddev", s.row_stddev, "bandwidth", (json_int_t)s.bandwidth, "symmetry",
                     fb_symmetry_name(s.symmetry));
    if (m->block)
        json_object_set_new(*out, "block",
                            json_pack("{s:i, s:I, s:f}", "size", m->block, "blocks", (json_int_t)m->B.nblocks,
                                      "fill", fb_bcsr_fill(&m->B)));
    if (m->reordered) json_object_set_new(*out, "reorder", json_string("rcm"));
fail:
    return status;
}

json_t *fb_spmv_params_json(const fb_spmv_config *cfg, const fb_spmv_matrix *A)
{
    json_t *params = json_object();
    for (int i = 0; i < cfg->kernel->nparams; ++i)
        json_object_set_new(params, cfg->kernel->params[i].name, json_integer(cfg->point.values[i]));
    if (A->format != FB_FORMAT_CSR) json_object_set_new(params, "BLOCK_SIZE", json_integer(A->shape.block));
    return params;
}

json_t *fb_kernel_resources_json(const fb_kernel_resources *k)
{
    return json_pack("{s:i, s:I, s:I, s:I, s:I, s:i, s:f}", "registers", k->registers, "private_bytes",
                     (json_int_t)k->private_bytes, "local_bytes", (json_int_t)k->local_bytes, "max_group_items",
                     (json_int_t)k->max_group_items, "group_multiple", (json_int_t)k->group_multiple,
                     "groups_per_unit", k->groups_per_unit, "occupancy", k->occupancy);
}

json_t *fb_spmv_record(const fb_device_info *d, const json_t *matrix, const fb_spmv_matrix *A,
                       const fb_spmv_config *cfg, const fb_spmv_result *r, double stream_gbs)
{
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "benchmark", "spmv", "kernel",
                            cfg->kernel->name, "format",
                            A->format == FB_FORMAT_CSR ? "csr" : A->format == FB_FORMAT_BCSR ? "bcsr" : "bcsr-soa",
                            "backend", d->backend, "device", d->id, "device_name", d->name, "precision",
                            cfg->is_double ? "double" : "single", "cold", cfg->measure.cold);
    json_object_set_new(rec, "matrix", json_deep_copy(matrix));
    json_object_set_new(rec, "params", fb_spmv_params_json(cfg, A));
    if (r->launch.dims > 0) json_object_set_new(rec, "launch", fb_json_launch(&r->launch));
    if (r->has_resources) json_object_set_new(rec, "kernel_resources", fb_kernel_resources_json(&r->resources));
    json_object_set_new(rec, "flops", json_real(r->model.flops));
    json_object_set_new(rec, "bytes", json_real(r->model.min_bytes));
    json_object_set_new(rec, "stats", fb_json_measurement(&r->m));
    json_object_set_new(rec, "gflops", json_real(r->gflops));
    json_object_set_new(rec, "gbs", json_real(r->gbs));
    fb_json_set_fraction_of_stream(rec, r->gbs, stream_gbs);
    json_object_set_new(rec, "check", json_pack("{s:f, s:f, s:b}", "rel_error", r->rel_error, "tolerance",
                                                r->tolerance, "ok", r->checked_ok));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    return rec;
}
