/* spmv_record.c - see spmv_record.h. */
#include "spmv_record.h"

#include <string.h>

#include "bench/record.h"

/* Cuts ":reorder=..." out of a name's options, peeled from the right as
 * source.c reads them (a path may hold the same text): the order is said
 * once, at its end. */
static void drop_order(char *name)
{
    size_t limit = strlen(name);
    while (limit > 0) {
        size_t colon = limit;
        while (colon > 0 && name[colon - 1] != ':')
            --colon;
        const int key = colon > 0 ? fb_source_option_of(name + colon, NULL) : -1;
        if (key < 0) return;
        if (key == FB_SRC_REORDER) memmove(name + colon - 1, name + limit, strlen(name + limit) + 1);
        limit = colon - 1;
    }
}

/* "matrices/poisson2d.mtx:block=2" -> "poisson2d:block=2"; gen: specs as
 * given. A renumbered matrix ends in ":reorder=rcm" whether SRC or
 * --reorder asked for it, so its records never share a name (a figure's
 * row) with the natural order's. */
static void short_name(const fb_matrix *m, char *out, size_t len)
{
    const char *source = m->source;
    const char *base = strncmp(source, "gen:", 4) == 0 ? source : strrchr(source, '/');
    base = base && base != source ? base + 1 : source;
    snprintf(out, len, "%s", base);
    char *ext = strstr(out, ".mtx");
    if (!ext) ext = strstr(out, ".msh");
    if (!ext) ext = strstr(out, ".su2");
    if (ext) {
        const char *rest = strchr(ext, ':'); /* keep the options after the extension */
        memmove(ext, rest ? rest : "", rest ? strlen(rest) + 1 : 1);
    }
    drop_order(out);
    if (m->reordered) snprintf(out + strlen(out), len - strlen(out), ":reorder=rcm");
}

static void matrix_signature(const fb_matrix *m, const fb_csr_stats *s, fb_signature *sig)
{
    memset(sig, 0, sizeof *sig);
    sig->kind = FB_SIGNATURE_MATRIX;
    sig->matrix = (fb_matrix_signature){.rows = s->nrows,
                                        .nnz = s->nnz,
                                        .row_mean = s->row_mean,
                                        .row_stddev = s->row_stddev,
                                        .row_max = s->row_max,
                                        .block = m->block ? m->block : 1,
                                        .block_fill = m->block ? fb_bcsr_fill(&m->B) : 1};
}

fb_status fb_spmv_matrix_json(const fb_matrix *m, json_t **out) { return fb_spmv_matrix_describe(m, out, NULL); }

fb_status fb_spmv_matrix_describe(const fb_matrix *m, json_t **out, fb_signature *sig)
{
    fb_status status = FB_OK;
    fb_csr_stats s;
    char hash[32], name[sizeof m->source];
    FB_CHECK(fb_csr_stats_compute(&m->A, &s));
    if (sig) matrix_signature(m, &s, sig);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s.hash);
    short_name(m, name, sizeof name);
    *out = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:i, s:f}, s:I, s:s}", "name", name, "source",
                     m->source, "origin", m->origin, "hash", hash, "rows", s.nrows, "cols", s.ncols, "nnz",
                     (json_int_t)s.nnz, "nnz_per_row", "min", s.row_min, "mean", s.row_mean, "max", s.row_max, "stddev",
                     s.row_stddev, "bandwidth", (json_int_t)s.bandwidth, "symmetry", fb_symmetry_name(s.symmetry));
    if (m->block)
        json_object_set_new(*out, "block",
                            json_pack("{s:i, s:I, s:f}", "size", m->block, "blocks", (json_int_t)m->B.nblocks, "fill",
                                      fb_bcsr_fill(&m->B)));
    if (m->reordered) json_object_set_new(*out, "reorder", json_string("rcm"));
fail:
    return status;
}

/* What a converting run's record calls its conversion: csr16's has bases,
 * sell's slices, sell16's both, sss's chunks. */
static const char *conversion_name(const fb_spmv_conversion *c)
{
    if (c->triangle) return "sss";
    return c->base_rows > 0 ? (c->nslices > 0 ? "sell16" : "csr16") : "sell";
}

static json_t *conversion_json(const fb_spmv_conversion *c)
{
    if (c->triangle)
        return json_pack("{s:I, s:i, s:I, s:i, s:f}", "lower", (json_int_t)c->lower, "chunks", c->nchunks, "conflicts",
                         (json_int_t)c->conflicts, "fix_rows", c->nfix, "conversion_s", c->seconds);
    json_t *o = json_object();
    if (c->nslices > 0 || c->base_rows == 0)
        json_object_update_new(o, json_pack("{s:I, s:i, s:b, s:f}", "stored", (json_int_t)c->stored, "slices",
                                            c->nslices, "permuted", c->permuted, "padding", c->padding));
    if (c->base_rows > 0)
        json_object_update_new(o, json_pack("{s:i, s:i, s:i, s:I}", "base_rows", c->base_rows, "bases", c->nbases,
                                            "wide_bases", c->wide_bases, "wide_entries", (json_int_t)c->wide_entries));
    json_object_set_new(o, "conversion_s", json_real(c->seconds));
    return o;
}

/* The parameters of cfg as {"NAME": value}, BLOCK_SIZE included for BCSR. */
static json_t *spmv_params_json(const fb_spmv_config *cfg, const fb_spmv_matrix *A)
{
    json_t *params = fb_json_params(cfg->kernel->params, cfg->kernel->nparams, &cfg->point);
    if (A->format->blocked) json_object_set_new(params, "BLOCK_SIZE", json_integer(A->shape.block));
    return params;
}

json_t *fb_spmv_record(const fb_device_info *d, const json_t *matrix, const fb_spmv_matrix *A,
                       const fb_spmv_config *cfg, const fb_spmv_result *r, double stream_gbs)
{
    fb_kernel_record k = {.benchmark = "spmv",
                          .kernel = cfg->kernel->name,
                          .is_double = cfg->is_double,
                          .cold = cfg->measure.cold,
                          .params = spmv_params_json(cfg, A),
                          .launch = &r->launch,
                          .resources = r->has_resources ? &r->resources : NULL,
                          .flops = r->model.flops,
                          .bytes = r->model.min_bytes,
                          .gflops = r->gflops,
                          .gbs = r->gbs,
                          .m = &r->m,
                          .user = cfg->kernel->user};
    json_t *rec = fb_json_kernel_record(d, &k);
    json_object_set_new(rec, "format", json_string(cfg->kernel->format->name));
    if (r->conversion.done) json_object_set_new(rec, conversion_name(&r->conversion), conversion_json(&r->conversion));
    json_object_set_new(rec, "matrix", json_deep_copy(matrix));
    fb_json_set_fraction_of_stream(rec, r->gbs, stream_gbs);
    json_object_set_new(
        rec, "check",
        json_pack("{s:f, s:f, s:b}", "max_rel_error", r->rel_error, "tolerance", r->tolerance, "ok", r->checked_ok));
    if (r->error_vs_double_values >= 0) /* the declared loss, beside the check of the kernel's arithmetic */
        json_object_set_new(json_object_get(rec, "check"), "error_vs_double_values",
                            json_real(r->error_vs_double_values));
    json_object_set_new(rec, "status", json_string(r->checked_ok ? "ok" : "wrong-result"));
    return rec;
}
