/* output.c - the solve command's log, record, table, VTK file and
 * centreline profiles (output.h). */
#include "solver/output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/files.h"
#include "core/grow.h"
#include "core/hash.h"
#include "core/stats.h"
#include "bench/record.h"
#include "results/records/results.h"
#include "solver/ns_device.h"

fb_status fb_solve_log_add(fb_solve_log *log, const fb_ns_step_info *info)
{
    fb_status status = FB_OK;
    fb_ns_step_info *grown = fb_grow(log->steps, &log->cap, log->n + 1, sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory growing the step log");
    log->steps = grown;
    log->steps[log->n++] = *info;
fail:
    return status;
}

void fb_solve_log_free(fb_solve_log *log)
{
    free(log->steps);
    memset(log, 0, sizeof *log);
}

int fb_solve_on_device(const fb_device_info *d) { return !d->in_process; }

static double median_of(const fb_solve_log *log, double (*get)(const fb_ns_step_info *))
{
    if (log->n == 0) return 0.0;
    double *v = malloc((size_t)log->n * sizeof *v), m = 0.0;
    if (!v) return NAN;
    for (int k = 0; k < log->n; ++k)
        v[k] = get(&log->steps[k]);
    m = fb_median(v, (size_t)log->n);
    free(v);
    return m;
}

static double get_s1(const fb_ns_step_info *s) { return s->t_step1; }
static double get_s2(const fb_ns_step_info *s) { return s->t_step2; }
static double get_s3(const fb_ns_step_info *s) { return s->t_step3; }
static double get_step(const fb_ns_step_info *s) { return s->t_step1 + s->t_step2 + s->t_step3; }
static double get_dt(const fb_ns_step_info *s) { return s->dt; }

static void solve_summarize(const fb_solve_log *log, const fb_ns *ns, fb_solve_summary *s)
{
    memset(s, 0, sizeof *s);
    s->step_median[0] = median_of(log, get_s1);
    s->step_median[1] = median_of(log, get_s2);
    s->step_median[2] = median_of(log, get_s3);
    s->step_time_median = median_of(log, get_step);
    s->dt_median = median_of(log, get_dt);
    s->dt_min = INFINITY, s->its_min = INT32_MAX;
    for (int k = 0; k < log->n; ++k) {
        const fb_ns_step_info *st = &log->steps[k];
        s->step_total[0] += st->t_step1, s->step_total[1] += st->t_step2, s->step_total[2] += st->t_step3;
        s->dt_min = fmin(s->dt_min, st->dt), s->dt_max = fmax(s->dt_max, st->dt);
        s->its_min = st->cg_its < s->its_min ? st->cg_its : s->its_min;
        s->its_max = st->cg_its > s->its_max ? st->cg_its : s->its_max;
        s->its_total += st->cg_its;
    }
    if (log->n == 0) s->dt_min = 0, s->its_min = 0;
    s->its_mean = log->n ? (double)s->its_total / log->n : 0.0;
    s->total_s = s->step_total[0] + s->step_total[1] + s->step_total[2];
    s->bytes_per_step = fb_ns_bytes_per_step(ns, s->its_mean);
    s->gbs = log->n && s->total_s > 0 ? s->bytes_per_step * log->n / s->total_s / 1e9 : 0.0;
    fb_ns_bytes_split(ns, s->its_mean, s->step_bytes);
    fb_ns_flops_split(ns, s->its_mean, s->step_flops);
    for (int k = 0; k < 3; ++k)
        s->step_gbs[k] = log->n && s->step_total[k] > 0 ? s->step_bytes[k] * log->n / s->step_total[k] / 1e9 : 0.0;
}

uint64_t fb_solve_mesh_hash(const fb_mesh *m)
{
    uint64_t h = fb_hash_bytes(FB_HASH_SEED, m->xyz, 3 * (size_t)m->nnodes * sizeof *m->xyz);
    return fb_hash_bytes(h, m->tets, 4 * (size_t)m->ntets * sizeof *m->tets);
}

static json_t *mesh_json(const fb_solve_case *c, const fb_ns *ns)
{
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, fb_solve_mesh_hash(&c->mesh));
    return json_pack("{s:s, s:i, s:i, s:i, s:i, s:s}", "source", c->source, "nodes", c->mesh.nnodes, "tets",
                     c->mesh.ntets, "edges", ns->E.nedges, "boundary_faces", c->bnd.nfaces, "hash", hash);
}

static json_t *step_json(const fb_solve_summary *s, int k)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "median_s", s->step_median[k], "total_s", s->step_total[k], "bytes",
                     s->step_bytes[k], "flops", s->step_flops[k], "gbs", s->step_gbs[k]);
}

void fb_solve_measurement(const fb_solve_log *log, const fb_ns *ns, fb_measurement *m)
{
    fb_measurement scaled = {0};
    memset(m, 0, sizeof *m);
    m->env = log->env;
    m->stop = FB_STOP_MAX_SAMPLES;
    m->samples = malloc((size_t)(log->n ? log->n : 1) * sizeof *m->samples);
    scaled.samples = malloc((size_t)(log->n ? log->n : 1) * sizeof *scaled.samples);
    if (!m->samples || !scaled.samples) { /* no samples: no statistics, and nothing to call unstable */
        free(scaled.samples);
        free(m->samples), m->samples = NULL;
        return;
    }
    m->nsamples = scaled.nsamples = log->n;
    double its_mean = 0, mean_bytes;
    for (int k = 0; k < log->n; ++k)
        its_mean += (double)log->steps[k].cg_its / log->n;
    mean_bytes = fb_ns_bytes_per_step(ns, its_mean);
    for (int k = 0; k < log->n; ++k) {
        const double bytes = fb_ns_bytes_per_step(ns, log->steps[k].cg_its);
        m->samples[k] = get_step(&log->steps[k]);
        scaled.samples[k] = bytes > 0 && mean_bytes > 0 ? m->samples[k] * mean_bytes / bytes : m->samples[k];
        m->wall_s += m->samples[k];
    }
    if (log->n) fb_stats_compute(m->samples, (size_t)log->n, &m->stats);
    scaled.env = log->env;
    fb_measurement_judge(&scaled);
    m->quality = scaled.quality;
    snprintf(m->quality_why, sizeof m->quality_why, "%s", scaled.quality_why);
    free(scaled.samples);
}

/* The record's "energy": the generic object (core/energy.h) over the time
 * loop, plus the solver's own figures: joules per step and to solution
 * (the whole loop, from t = 0 to the end). */
static json_t *energy_json(const fb_solve_log *log)
{
    json_t *e = fb_energy_json(&log->energy, 0);
    if (e && log->energy.state == FB_ENERGY_MEASURED) {
        json_object_set_new(e, "joules_to_solution", json_real(log->energy.joules));
        if (log->n > 0) json_object_set_new(e, "joules_per_step", json_real(log->energy.joules / log->n));
    }
    return e;
}

json_t *fb_solve_record(const fb_solve_case *c, const fb_ns *ns, const fb_solve_log *log, const fb_device_info *d,
                        double stream_gbs, double rss_setup, json_t *validation, const char *status, const char *reason)
{
    fb_solve_summary s;
    solve_summarize(log, ns, &s);
    json_t *rec = json_object(), *mesh = mesh_json(c, ns);
    json_object_set_new(rec, "benchmark", json_string("solve"));
    json_object_set_new(rec, "kernel", json_string("fractional-step"));
    json_object_set_new(rec, "case", json_string(c->name));
    json_object_set_new(rec, "level", c->level >= 0 ? json_integer(c->level) : json_null());
    json_object_set_new(rec, "backend", json_string(d->backend));
    json_object_set_new(rec, "device", json_string(d->id));
    json_object_set_new(rec, "device_name", json_string(d->name));
    json_object_set_new(rec, "precision", json_string("double"));
    json_t *params = json_pack("{s:o, s:f, s:f, s:f}", "level", c->level >= 0 ? json_integer(c->level) : json_null(),
                               "cfl", ns->cfg.cfl, "dt_fixed", ns->cfg.dt_fixed, "cg_tol", ns->cfg.cg_tol);
    if (c->cube_n) json_object_set_new(params, "cube", json_integer(c->cube_n));
    if (fb_solve_on_device(d))
        json_object_update_new(params, fb_json_params(fb_ns_axes, FB_NS_NAXES, fb_ns_device_point(ns)));
    json_object_set_new(rec, "params", params);
    json_object_set(rec, "mesh", mesh);
    char problem[64];
    fb_solve_problem_name(c, problem, sizeof problem);
    json_object_set_new(rec, "matrix",
                        json_pack("{s:s, s:s, s:O, s:i, s:i}", "name", problem, "source", c->source, "hash",
                                  json_object_get(mesh, "hash"), "rows", c->mesh.nnodes, "nnz",
                                  ns->E.nedges + c->mesh.nnodes));
    json_decref(mesh);
    json_object_set_new(rec, "threads", json_integer(omp_get_max_threads()));
    if (fb_solve_on_device(d))
        json_object_set_new(rec, "launches_per_cg_iteration", json_integer(fb_ns_device_launches_per_cg_iteration(ns)));
    const fb_spmv_kernel_def *spmv = fb_ns_device_spmv_kernel(ns);
    if (spmv) /* CG_SPMV: the SpMV family's kernel and its own point */
        json_object_set_new(rec, "cg_spmv",
                            json_pack("{s:s, s:o}", "kernel", spmv->name, "params",
                                      fb_json_params(spmv->params, spmv->nparams, fb_ns_device_spmv_point(ns))));
    json_object_set_new(rec, "nu", json_real(ns->cfg.nu));
    json_object_set_new(rec, "steps", json_integer(log->n));
    json_object_set_new(rec, "t_end", json_real(ns->t));
    json_object_set_new(rec, "dt",
                        json_pack("{s:f, s:f, s:f}", "min", s.dt_min, "median", s.dt_median, "max", s.dt_max));
    json_object_set_new(rec, "timings",
                        json_pack("{s:o, s:o, s:o, s:f, s:f}", "step1", step_json(&s, 0), "step2", step_json(&s, 1),
                                  "step3", step_json(&s, 2), "cpu_to_gpu_s", log->upload_s, "gpu_to_cpu_s",
                                  log->download_s));
    if (fb_solve_on_device(d))
        json_object_set_new(json_object_get(rec, "timings"), "device_setup_s", json_real(log->setup_s));
    json_object_set_new(rec, "cg",
                        json_pack("{s:i, s:f, s:i, s:i, s:f}", "its_min", s.its_min, "its_mean", s.its_mean, "its_max",
                                  s.its_max, "its_total", s.its_total, "tol", ns->cfg.cg_tol));
    json_t *its = json_array(); /* per step: what a run on several ranks is checked against */
    for (int k = 0; k < log->n; ++k)
        json_array_append_new(its, json_integer(log->steps[k].cg_its));
    json_object_set_new(json_object_get(rec, "cg"), "its_per_step", its);
    fb_measurement m;
    fb_solve_measurement(log, ns, &m);
    json_object_set_new(rec, "stats", fb_json_measurement(&m));
    fb_json_set_environment(rec, &m);
    fb_measurement_free(&m);
    json_t *energy = energy_json(log);
    if (energy) json_object_set_new(rec, "energy", energy);
    json_object_set_new(rec, "total_s", json_real(s.total_s));
    json_object_set_new(rec, "bytes_per_step", json_real(s.bytes_per_step));
    json_object_set_new(rec, "bytes", json_real(s.bytes_per_step));
    json_object_set_new(rec, "gbs", json_real(s.gbs));
    fb_json_set_fraction_of_stream(rec, s.gbs, stream_gbs);
    json_object_set_new(rec, "memory",
                        json_pack("{s:f, s:f, s:f}", "solver_bytes", fb_ns_bytes_resident(ns), "rss_after_setup_bytes",
                                  rss_setup, "peak_rss_bytes", fb_peak_rss_bytes()));
    json_object_set(rec, "validation", validation ? validation : json_null());
    json_object_set_new(rec, "status", json_string(status));
    if (reason) json_object_set_new(rec, "reason", json_string(reason));
    return rec;
}

void fb_solve_problem_name(const fb_solve_case *c, char *buf, size_t len)
{
    if (c->cube_n > 0)
        snprintf(buf, len, "%s-n%d", c->name, c->cube_n);
    else if (c->level >= 0)
        snprintf(buf, len, "%s-l%d", c->name, c->level);
    else
        snprintf(buf, len, "%s", c->name);
}

/* The table's energy line, and THROTTLED when the run was; nothing when
 * energy was unavailable (the target said why once). */
static void print_energy(FILE *f, const fb_solve_log *log)
{
    const fb_energy_reading *e = &log->energy;
    if (e->state == FB_ENERGY_MEASURED)
        fprintf(f, "  energy (%s %s): %.4g J to solution, %.4g J per step, %.4g W over %.3g s%s\n", e->source,
                e->method, e->joules, log->n ? e->joules / log->n : 0.0,
                e->window_s > 0 ? e->joules / e->window_s : 0.0, e->window_s,
                e->window_s < e->min_window_s ? " (shorter than the counter's minimum window: coarse)" : "");
    if (e->throttled) fprintf(f, "  THROTTLED: %s\n", e->throttle_why);
}

/* A line when the step times are not to be trusted: which verdict, and
 * the figures behind it (nothing when stable). */
static void print_quality(FILE *f, const fb_solve_log *log, const fb_ns *ns)
{
    fb_measurement m;
    fb_solve_measurement(log, ns, &m);
    if (fb_quality_flagged(m.quality))
        fprintf(f, "  %s step times (no figure to trust): %s\n",
                m.quality == FB_QUALITY_CONTENDED ? "CONTENDED" : "UNSTABLE", m.quality_why);
    fb_measurement_free(&m);
}

void fb_solve_print_table(FILE *f, const fb_solve_case *c, const fb_ns *ns, const fb_solve_log *log,
                          const fb_device_info *d, double stream_gbs, double rss_setup, json_t *validation)
{
    fb_solve_summary s;
    const char *key;
    json_t *v;
    solve_summarize(log, ns, &s);
    fprintf(f, "solve %s", c->name);
    if (c->level >= 0) fprintf(f, " level %d", c->level);
    fprintf(f, ": %s, %d nodes, %d tets, %d edges; ", c->source, c->mesh.nnodes, c->mesh.ntets, ns->E.nedges);
    if (fb_solve_on_device(d))
        fprintf(f, "%s (%s)\n", d->id, d->name);
    else
        fprintf(f, "openmp, %d threads\n", omp_get_max_threads());
    fprintf(f, "  %d steps to t = %.6g, dt %.3g .. %.3g (median %.3g)\n", log->n, ns->t, s.dt_min, s.dt_max,
            s.dt_median);
    fprintf(f, "  %-24s %12s %12s %7s %10s\n", "per step", "median ms", "total s", "share", "model GB/s");
    const char *names[3] = {"step 1 (momentum, RK4)", "step 2 (pressure, CG)", "step 3 (correction)"};
    for (int k = 0; k < 3; ++k)
        fprintf(f, "  %-24s %12.3f %12.4f %6.1f%% %10.2f\n", names[k], 1e3 * s.step_median[k], s.step_total[k],
                s.total_s > 0 ? 100.0 * s.step_total[k] / s.total_s : 0.0, s.step_gbs[k]);
    if (fb_solve_on_device(d)) {
        fprintf(f, "  %-24s %12s %12.4f\n", "CPU->GPU (before)", "", log->upload_s);
        fprintf(f, "  %-24s %12s %12.4f\n", "GPU->CPU (after)", "", log->download_s);
        fprintf(f, "  (set-up, in no step: kernel builds, copies and one untimed warm-up step, %.3f s)\n",
                log->setup_s);
    } else {
        fprintf(f, "  %-24s %12s %12s\n", "CPU->GPU, GPU->CPU", "-", "-");
    }
    fprintf(f, "  %-24s %12.3f %12.4f\n", "total", 1e3 * s.step_time_median, s.total_s);
    fprintf(f, "  CG iterations per step: min %d, mean %.1f, max %d (total %d, tolerance %.1g)\n", s.its_min,
            s.its_mean, s.its_max, s.its_total, ns->cfg.cg_tol);
    fprintf(f, "  model bytes per step %.4g (%.1f MB): %.2f GB/s", s.bytes_per_step, s.bytes_per_step / 1e6, s.gbs);
    if (stream_gbs > 0) fprintf(f, " = %.1f%% of stream triad %.2f GB/s", 100.0 * s.gbs / stream_gbs, stream_gbs);
    fprintf(f, "\n  memory: solver arrays %.1f MB, resident after setup %.1f MB, peak resident %.1f MB\n",
            fb_ns_bytes_resident(ns) / 1e6, rss_setup / 1e6, fb_peak_rss_bytes() / 1e6);
    print_energy(f, log);
    print_quality(f, log, ns);
    if (!validation) return;
    fprintf(f, "  validation:");
    json_object_foreach(validation, key, v) if (json_is_number(v)) fprintf(f, " %s %.4g", key, json_number_value(v));
    fprintf(f, "\n");
}

/* Ends a file written whole: replaces its destination after a run that
 * went well and wrote everything, else leaves the destination alone. */
static fb_status close_written(fb_file_writer *w, fb_status status)
{
    fb_status closed = fb_file_writer_close(w, status == FB_OK);
    return status != FB_OK ? status : closed;
}

fb_status fb_solve_write_vtk(const char *path, const fb_solve_case *c, const fb_ns *ns)
{
    fb_status status = FB_OK;
    const fb_mesh *m = &c->mesh;
    fb_file_writer w = {0};
    FB_CHECK(fb_file_writer_open(path, &w));
    FILE *f = w.f;
    fb_ns_omp_divergence(&ns->E, ns->u, ns->q);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            "<UnstructuredGrid>\n<Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n",
            m->nnodes, m->ntets);
    fprintf(f, "<PointData Vectors=\"velocity\" Scalars=\"pressure\">\n"
               "<DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for (int i = 0; i < m->nnodes; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", ns->u[3 * (int64_t)i], ns->u[3 * (int64_t)i + 1], ns->u[3 * (int64_t)i + 2]);
    fprintf(f, "</DataArray>\n<DataArray type=\"Float64\" Name=\"pressure\" format=\"ascii\">\n");
    for (int i = 0; i < m->nnodes; ++i)
        fprintf(f, "%.9g\n", ns->p[i]);
    fprintf(f, "</DataArray>\n<DataArray type=\"Float64\" Name=\"divergence\" format=\"ascii\">\n");
    for (int i = 0; i < m->nnodes; ++i)
        fprintf(f, "%.6g\n", ns->q[i] / ns->mass[i]);
    fprintf(f, "</DataArray>\n<DataArray type=\"UInt8\" Name=\"bc_kind\" format=\"ascii\">\n");
    for (int i = 0; i < m->nnodes; ++i)
        fprintf(f, "%d\n", c->bnd.kind[i]);
    fprintf(f, "</DataArray>\n</PointData>\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
               "format=\"ascii\">\n");
    for (int i = 0; i < m->nnodes; ++i)
        fprintf(f, "%.12g %.12g %.12g\n", m->xyz[3 * (int64_t)i], m->xyz[3 * (int64_t)i + 1],
                m->xyz[3 * (int64_t)i + 2]);
    fprintf(f, "</DataArray>\n</Points>\n<Cells>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for (int t = 0; t < m->ntets; ++t) {
        const int *v = m->tets + 4 * (int64_t)t;
        fprintf(f, "%d %d %d %d\n", v[0], v[1], v[2], v[3]);
    }
    fprintf(f, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    for (int t = 0; t < m->ntets; ++t)
        fprintf(f, "%lld\n", 4LL * (t + 1));
    fprintf(f, "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
    for (int t = 0; t < m->ntets; ++t)
        fprintf(f, "10\n");
    fprintf(f, "</DataArray>\n</Cells>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
fail:
    return close_written(&w, status);
}

/* Nodes with coordinates a == b == 0.5 (within the mesh's rounding),
 * written as (coordinate c, velocity component k), sorted along c. */
static fb_status write_line(const char *path, const fb_solve_case *c, const fb_ns *ns, int a, int b, int along,
                            int comp, const char *what)
{
    fb_status status = FB_OK;
    const fb_mesh *m = &c->mesh;
    fb_file_writer w = {0};
    FB_CHECK(fb_file_writer_open(path, &w));
    FILE *f = w.f;
    fprintf(f, "# flowbench solve %s level %d, t = %.6g: %s\n# %c  u_%c\n", c->name, c->level, ns->t, what,
            "xyz"[along], "xyz"[comp]);
    /* the cube numbers nodes lexicographically, so nodes on a line come sorted along it */
    for (int i = 0; i < m->nnodes; ++i) {
        const double *x = m->xyz + 3 * (int64_t)i;
        if (fabs(x[a] - 0.5) < 1e-9 && fabs(x[b] - 0.5) < 1e-9)
            fprintf(f, "%.9g %.9g\n", x[along], ns->u[3 * (int64_t)i + comp]);
    }
fail:
    return close_written(&w, status);
}

fb_status fb_solve_write_profiles(const char *prefix, const fb_solve_case *c, const fb_ns *ns)
{
    fb_status status = FB_OK;
    char path[1100];
    if (!c->ops->unit_cube)
        FB_FAIL(FB_ERR_USAGE, "solve %s: --profiles is for the cavity (centrelines of the unit cube)", c->name);
    snprintf(path, sizeof path, "%s-u.dat", prefix);
    FB_CHECK(write_line(path, c, ns, 0, 1, 2, 0, "u along the vertical centreline x = y = 0.5"));
    snprintf(path, sizeof path, "%s-w.dat", prefix);
    FB_CHECK(write_line(path, c, ns, 1, 2, 0, 2, "w along the horizontal centreline y = z = 0.5"));
fail:
    return status;
}

static double proc_status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    size_t n = strlen(field);
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && sscanf(line + n, " %lf", &kb) == 1) break;
    fclose(f);
    return kb * 1024.0;
}

double fb_rss_bytes(void) { return proc_status_kb("VmRSS:"); }
double fb_peak_rss_bytes(void) { return proc_status_kb("VmHWM:"); }

void fb_solve_row_of(fb_solve_row *row, const fb_ns *ns, const fb_solve_log *log, const fb_device_info *d,
                     double stream_gbs)
{
    fb_measurement m;
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", d->id);
    snprintf(row->name, sizeof row->name, "%s", d->name);
    row->on_device = fb_solve_on_device(d);
    solve_summarize(log, ns, &row->s);
    row->upload_s = log->upload_s, row->download_s = log->download_s, row->stream_gbs = stream_gbs;
    row->steps = log->n;
    row->energy = log->energy;
    fb_solve_measurement(log, ns, &m);
    row->quality = m.quality;
    snprintf(row->quality_why, sizeof row->quality_why, "%s", m.quality_why);
    fb_measurement_free(&m);
}

const fb_solve_row *fb_solve_baseline(const fb_solve_row *rows, int n)
{
    for (int k = 0; k < n; ++k)
        if (!rows[k].on_device) return &rows[k];
    return n > 0 ? &rows[0] : NULL;
}

static fb_speedup_side row_side(const fb_solve_row *r)
{
    return (fb_speedup_side){.id = r->id,
                             .step_s = r->s.step_time_median,
                             .total_s = r->s.total_s + r->upload_s + r->download_s,
                             .quality = r->quality,
                             .why = r->quality_why,
                             .throttled = r->energy.throttled};
}

/* The speedup of row over base (results/presentation/speedup.h: per step and total,
 * trusted when both are stable and uncontended), and as the record's
 * "speedup" object. */
static void solve_speedup(const fb_solve_row *base, const fb_solve_row *row, fb_speedup *out)
{
    const fb_speedup_side b = row_side(base), r = row_side(row);
    fb_speedup_of(&b, row == base ? &b : &r, out); /* the baseline's reason once */
}

json_t *fb_solve_speedup_json(const fb_solve_row *base, const fb_solve_row *row)
{
    fb_speedup sp;
    solve_speedup(base, row, &sp);
    return fb_speedup_json(&sp, base->id);
}

/* Energy to solution and per step (the time loop's: CPU->GPU and GPU->CPU
 * are outside the meter's window), "-" where it could not be read. */
static void energy_cells(const fb_solve_row *r, char *total, char *per_step, size_t len)
{
    snprintf(total, len, "-");
    snprintf(per_step, len, "-");
    if (r->energy.state != FB_ENERGY_MEASURED) return;
    snprintf(total, len, "%.4g", r->energy.joules);
    if (r->steps > 0) snprintf(per_step, len, "%.4g", r->energy.joules / r->steps);
}

/* The speedups of every row over the baseline, per step and total
 * (results/presentation/speedup.h), each flagged '?' where a side is unstable or
 * contended, with the reason below the table, and '*' where one throttled. */
static void print_totals(FILE *f, const fb_solve_row *rows, int n)
{
    const fb_solve_row *base = fb_solve_baseline(rows, n);
    char joules[32], per_step[32], step_x[32], total_x[32];
    int throttled = 0, untrusted = 0;
    fb_speedup sp;
    fprintf(f, "  %-14s %-40.40s %10s %10s %10s %10s %12s %10s\n", "backend", "device", "total s", "step ms",
            "per step", "total", "energy J", "J/step");
    for (int k = 0; k < n; ++k) {
        const fb_solve_summary *s = &rows[k].s;
        solve_speedup(base, &rows[k], &sp);
        energy_cells(&rows[k], joules, per_step, sizeof joules);
        throttled += sp.throttled, untrusted += !sp.trusted;
        fb_speedup_text(sp.per_step, sp.trusted, sp.throttled, step_x, sizeof step_x);
        fb_speedup_text(sp.total, sp.trusted, sp.throttled, total_x, sizeof total_x);
        fprintf(f, "  %-14s %-40.40s %10.4f %10.3f %10s %10s %12s %10s\n", rows[k].id, rows[k].name,
                s->total_s + rows[k].upload_s + rows[k].download_s, 1e3 * s->step_time_median, step_x, total_x, joules,
                per_step);
    }
    for (int k = 0; k < n && untrusted; ++k) {
        solve_speedup(base, &rows[k], &sp);
        if (sp.trusted) continue;
        if (&rows[k] == base)
            fprintf(f, "  %s %s (the baseline): %s\n", FB_SPEEDUP_FLAG, rows[k].id, sp.why);
        else
            fprintf(f, "  %s %s: no speedup to trust: %s\n", FB_SPEEDUP_FLAG, rows[k].id, sp.why);
    }
    if (throttled)
        fprintf(f, "  %s throttled during the run (the record's energy.throttle_why says how)\n", FB_THROTTLED_FLAG);
}

static void print_split(FILE *f, const fb_solve_row *r)
{
    const fb_solve_summary *s = &r->s;
    const double total = s->total_s + r->upload_s + r->download_s;
    const double parts[5] = {r->upload_s, s->step_total[0], s->step_total[1], s->step_total[2], r->download_s};
    fprintf(f, "  %-14s %10.4f", r->id, total);
    for (int k = 0; k < 5; ++k)
        fprintf(f, " %9.4f %5.1f%%", parts[k], total > 0 ? 100.0 * parts[k] / total : 0.0);
    fprintf(f, " %7.1f", s->its_mean);
    for (int k = 0; k < 3; ++k)
        if (r->stream_gbs > 0)
            fprintf(f, " %6.1f (%4.2f)", s->step_gbs[k], s->step_gbs[k] / r->stream_gbs);
        else
            fprintf(f, " %6.1f (   -)", s->step_gbs[k]);
    fprintf(f, "\n");
}

void fb_solve_print_comparison(FILE *f, const fb_solve_case *c, const fb_solve_row *rows, int n)
{
    char problem[64];
    fb_solve_problem_name(c, problem, sizeof problem);
    const fb_solve_row *baseline = fb_solve_baseline(rows, n);
    if (!baseline) return;
    const char *base = baseline->id;
    fprintf(f, "\n%s, %d steps: time and speedup over %s, two ways\n", problem, rows[0].steps, base);
    fprintf(f, "  per step: %s's median time step / the backend's (set-up, CPU->GPU and GPU->CPU are in no step)\n",
            base);
    fprintf(f, "  total:    %s's whole run / the backend's (all steps + CPU->GPU + GPU->CPU; set-up in neither)\n",
            base);
    print_totals(f, rows, n);
    fprintf(f,
            "\n%s: per-step split, seconds and share of the total; mean CG iterations; GB/s of steps 1-3 by the "
            "byte model (fraction of the device's stream triad)\n",
            problem);
    fprintf(f, "  %-14s %10s %16s %16s %16s %16s %16s %7s %13s %13s %13s\n", "backend", "total s", "CPU->GPU", "step 1",
            "step 2", "step 3", "GPU->CPU", "CG its", "step 1 GB/s", "step 2 GB/s", "step 3 GB/s");
    for (int k = 0; k < n; ++k)
        print_split(f, &rows[k]);
}
