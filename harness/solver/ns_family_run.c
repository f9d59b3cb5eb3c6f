/* ns_family_run.c - see ns_family_run.h. */
#include "solver/ns_family_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/record.h"
#include "solver/ns_device.h"
#include "families.h"
#include "ns/ns_kernels.h"

/* The tolerances of unit.test_solver_device (tests/unit/test_solver_device.c):
 * relative L2 of u and p between two runs of the same steps. Reductions
 * summed in another order may stop the CG one iteration apart; a wrong
 * kernel is orders of magnitude further off. */
#define U_TOLERANCE 1e-6
#define P_TOLERANCE 1e-4

typedef struct ns_problem {
    fb_solve_case own; /* opened from a spec (c == &own); its bc points into it: never copied */
    fb_solve_case *c;
    int owns_case;
    fb_case_loop loop;
    json_t *json; /* the record's "matrix" object: name, source, hash, rows, nnz */
    fb_signature sig;
    double *ref_u, *ref_p; /* the OpenMP baseline's fields after the run's steps; NULL until the first run */
    size_t n;
} ns_problem;

/* ---- the spec: CASE[:level=L|:cube=N][:steps=N][:mesh=FILE] ---- */

typedef struct ns_spec {
    char name[64], mesh[1024];
    int level, cube, steps;
} ns_spec;

static fb_status spec_int(const char *spec, const char *key, const char *text, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "solver case '%s': %s=%s is not an integer in %d..%d",
                            spec, key, text, lo, hi);
    *out = (int)v;
    return FB_OK;
}

static fb_status spec_option(const char *spec, const char *opt, ns_spec *s)
{
    const char *eq = strchr(opt, '=');
    char key[16];
    if (!eq || eq - opt >= (long)sizeof key)
        return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                            "solver case '%s': '%s' is not KEY=VALUE (level, cube, steps, mesh)", spec, opt);
    snprintf(key, sizeof key, "%.*s", (int)(eq - opt), opt);
    if (!strcmp(key, "level")) return spec_int(spec, key, eq + 1, 0, 9, &s->level);
    if (!strcmp(key, "cube")) return spec_int(spec, key, eq + 1, 3, FB_CASE_MAX_CUBE_N, &s->cube);
    if (!strcmp(key, "steps")) return spec_int(spec, key, eq + 1, 1, 1000000, &s->steps);
    if (!strcmp(key, "mesh")) {
        snprintf(s->mesh, sizeof s->mesh, "%s", eq + 1);
        return FB_OK;
    }
    return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                        "solver case '%s': unknown option '%s' (level, cube, steps, mesh)", spec, key);
}

static int known_case(const char *name) { return fb_case_find(name) != NULL; }

static fb_status spec_read(const char *spec, ns_spec *s)
{
    fb_status status = FB_OK;
    char text[1200];
    *s = (ns_spec){.level = -1};
    snprintf(text, sizeof text, "%s", spec);
    char *save = NULL, *tok = strtok_r(text, ":", &save);
    if (!tok || !known_case(tok))
        FB_FAIL(FB_ERR_USAGE, "solver case '%s': '%s' is not a case (cavity, ethier-steinman, ahmed)", spec,
                tok ? tok : "");
    snprintf(s->name, sizeof s->name, "%s", tok);
    while ((tok = strtok_r(NULL, ":", &save)))
        FB_CHECK(spec_option(spec, tok, s));
    if (s->level >= 0 && s->cube) FB_FAIL(FB_ERR_USAGE, "solver case '%s': give level or cube, not both", spec);
fail:
    return status;
}

void fb_ns_problem_spec(char *buf, size_t len, const char *name, int level, int cube, int steps, const char *mesh)
{
    int n = snprintf(buf, len, "%s", name);
    if (level >= 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, ":level=%d", level);
    if (cube > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, ":cube=%d", cube);
    if (steps > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, ":steps=%d", steps);
    if (mesh && n >= 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ":mesh=%s", mesh);
}

static fb_status problem_parse(const char *spec)
{
    ns_spec s;
    return spec_read(spec, &s);
}

/* ---- the problem ---- */

void fb_ns_mesh_signature(const fb_ns *ns, fb_signature *out)
{
    const int n = ns->E.n;
    double sum = 0, sum2 = 0, max = 0;
    for (int i = 0; i < n; ++i) { /* a pressure-matrix row per node: its neighbours and the diagonal */
        double len = ns->E.rowptr[i + 1] - ns->E.rowptr[i] + 1;
        sum += len, sum2 += len * len, max = fmax(max, len);
    }
    double mean = n ? sum / n : 0, var = n ? fmax(sum2 / n - mean * mean, 0) : 0;
    out->kind = FB_SIGNATURE_MESH;
    out->mesh = fb_mesh_signature_of_rows(n, (long long)ns->E.nedges + n, mean, sqrt(var), max);
}

/* The problem object and signature: the case's state set up once (its
 * edges), then released; every run sets up its own. */
static fb_status describe(ns_problem *p)
{
    fb_status status = FB_OK;
    fb_ns ns;
    char name[64], hash[17];
    memset(&ns, 0, sizeof ns);
    FB_CHECK(fb_ns_init(&ns, &p->c->mesh, &p->c->bnd, &p->c->cfg, &p->c->bc));
    fb_ns_mesh_signature(&ns, &p->sig);
    fb_solve_problem_name(p->c, name, sizeof name);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fb_solve_mesh_hash(&p->c->mesh));
    p->json = json_pack("{s:s, s:s, s:s, s:i, s:I}", "name", name, "source", p->c->source, "hash", hash, "rows",
                        p->c->mesh.nnodes, "nnz", (json_int_t)ns.E.nedges + p->c->mesh.nnodes);
    if (!p->json) FB_FAIL(FB_ERR_NOMEM, "out of host memory describing the solver's case");
fail:
    fb_ns_free(&ns);
    return status;
}

static void problem_close(void *problem)
{
    ns_problem *p = problem;
    if (!p) return;
    if (p->owns_case) fb_case_free(&p->own);
    json_decref(p->json);
    free(p->ref_u);
    free(p->ref_p);
    free(p);
}

fb_status fb_ns_problem_of_case(fb_solve_case *c, const fb_case_loop *loop, void **problem)
{
    fb_status status = FB_OK;
    ns_problem *p = NULL;
    *problem = NULL;
    FB_ALLOC(p, 1, "the solver's problem");
    p->c = c, p->loop = *loop;
    FB_CHECK(describe(p));
    *problem = p;
    return FB_OK;
fail:
    problem_close(p);
    return status;
}

static fb_status problem_open(const char *spec, void **problem)
{
    fb_status status = FB_OK;
    ns_problem *p = NULL;
    ns_spec s;
    *problem = NULL;
    FB_CHECK(spec_read(spec, &s));
    FB_ALLOC(p, 1, "the solver's problem");
    FB_CHECK(fb_case_open_sized(s.name, s.level, s.cube, *s.mesh ? s.mesh : NULL, &p->own));
    p->c = &p->own, p->owns_case = 1;
    p->loop = (fb_case_loop){.steps = s.steps, .t_end = p->own.t_end, .quiet = 1};
    FB_CHECK(describe(p));
    *problem = p;
    return FB_OK;
fail:
    problem_close(p);
    return status;
}

static const json_t *problem_json(const void *problem) { return ((const ns_problem *)problem)->json; }

static void signature(const void *problem, fb_signature *out) { *out = ((const ns_problem *)problem)->sig; }

/* ---- a configuration ---- */

static int on_openmp(const fb_device_info *dev) { return !fb_solve_on_device(dev); }

static fb_status check(const void *problem, const fb_family_run *run, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const fb_param_point base = fb_ns_openmp_point();
    (void)problem;
    if (!run->is_double) FB_FAIL(FB_ERR_USAGE, "the solver runs in double precision only");
    if (on_openmp(dev) && memcmp(run->point.values, base.values, sizeof base.values))
        FB_FAIL(FB_ERR_USAGE, "on openmp the solver runs the OpenMP baseline's one point (its parameters are the "
                              "devices')");
    FB_CHECK(fb_ns_device_check_point(dev, &run->point));
fail:
    return status;
}

static fb_status keep_fields(ns_problem *p, const fb_ns *ns)
{
    fb_status status = FB_OK;
    p->n = (size_t)ns->E.n;
    FB_ALLOC(p->ref_u, 3 * p->n, "the OpenMP baseline's velocity");
    FB_ALLOC(p->ref_p, p->n, "the OpenMP baseline's pressure");
    memcpy(p->ref_u, ns->u, 3 * p->n * sizeof *p->ref_u);
    memcpy(p->ref_p, ns->p, p->n * sizeof *p->ref_p);
fail:
    return status;
}

/* The reference: the OpenMP baseline run for the same steps, once per
 * problem. */
static fb_status baseline_reference(ns_problem *p)
{
    fb_status status = FB_OK;
    fb_target *t = NULL;
    fb_case_run r;
    fb_case_loop quiet = p->loop;
    memset(&r, 0, sizeof r);
    quiet.quiet = 1;
    FB_CHECK(fb_target_open("openmp", &t));
    FB_CHECK(fb_case_run_init(&r, p->c));
    FB_CHECK(fb_case_run_open(&r, t, NULL));
    FB_CHECK(fb_case_run_steps(&r, &quiet, t));
    if (r.ended != FB_OK)
        FB_FAIL(r.ended, "the OpenMP baseline, the solver's reference, did not run the case: %s", r.reason);
    FB_CHECK(fb_ns_device_download(&r.ns, NULL));
    FB_CHECK(keep_fields(p, &r.ns));
fail:
    fb_case_run_free(&r);
    fb_target_close(t);
    return status;
}

/* ||a - b|| / ||b||, as unit.test_solver_device measures it. */
static double rel_l2(const double *a, const double *b, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; ++i)
        d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* The record's "check": u and p against the baseline's; a run outside
 * the tolerances is "wrong-result". */
static void check_against_reference(const ns_problem *p, const fb_ns *ns, json_t *rec)
{
    const double du = rel_l2(ns->u, p->ref_u, 3 * p->n), dp = rel_l2(ns->p, p->ref_p, p->n);
    const int ok = du <= U_TOLERANCE && dp <= P_TOLERANCE;
    json_object_set_new(rec, "check",
                        json_pack("{s:s, s:f, s:f, s:f, s:f, s:b}", "reference",
                                  "the OpenMP baseline after the same steps (relative L2)", "u_rel_l2", du, "p_rel_l2",
                                  dp, "u_tolerance", U_TOLERANCE, "p_tolerance", P_TOLERANCE, "ok", ok));
    if (ok || strcmp(json_string_value(json_object_get(rec, "status")), "ok")) return;
    json_object_set_new(rec, "status", json_string("wrong-result"));
    char why[200];
    snprintf(why, sizeof why, "u and p off the OpenMP baseline's by %.2g and %.2g (tolerances %.0e, %.0e)", du, dp,
             U_TOLERANCE, P_TOLERANCE);
    json_object_set_new(rec, "reason", json_string(why));
}

/* The record's "params" are the point's, as every family's are (what a
 * sweep and compare key a configuration by); the case's own settings
 * (level, cfl, ...) move to "case_params". */
static void name_params(json_t *rec, const fb_param_point *point)
{
    json_t *settings = json_deep_copy(json_object_get(rec, "params"));
    for (int a = 0; a < FB_NS_NAXES; ++a)
        json_object_del(settings, fb_ns_axes[a].name);
    json_object_set_new(rec, "case_params", settings);
    json_object_set_new(rec, "params", fb_json_params(fb_ns_axes, FB_NS_NAXES, point));
}

/* The record of a point: solve's, named as the family's, checked. */
static fb_status point_record(ns_problem *p, fb_case_run *r, fb_target *t, json_t **record)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_case_run_finish(r, p->c, t, -1.0));
    if (r->ended == FB_OK && !p->ref_u && on_openmp(fb_target_info(t))) FB_CHECK(keep_fields(p, &r->ns));
    if (r->ended == FB_OK && !p->ref_u) FB_CHECK(baseline_reference(p));
    json_object_set_new(r->rec, "benchmark", json_string(fb_family_ns.name));
    json_object_set_new(r->rec, "kernel", json_string("ns"));
    name_params(r->rec, &r->point);
    if (r->ended == FB_OK) check_against_reference(p, &r->ns, r->rec);
    *record = json_incref(r->rec);
    status = !strcmp(json_string_value(json_object_get(r->rec, "status")), "ok") ? FB_OK : FB_ERR_CHECK;
fail:
    return status;
}

static fb_status run(fb_target *t, void *problem, const fb_family_run *cfg, json_t **record)
{
    fb_status status = FB_OK;
    ns_problem *p = problem;
    fb_case_run r;
    memset(&r, 0, sizeof r);
    *record = NULL;
    FB_CHECK(fb_case_run_init(&r, p->c));
    FB_CHECK(fb_case_run_open(&r, t, &cfg->point));
    FB_CHECK(fb_case_run_steps(&r, &p->loop, t));
    if (r.ended == FB_ERR_INTERRUPTED) FB_FAIL(FB_ERR_INTERRUPTED, "%s", r.reason);
    status = point_record(p, &r, t, record);
fail:
    fb_case_run_free(&r);
    return status;
}

void fb_ns_family_attach(void)
{
    static fb_family ns;
    ns = fb_family_ns;
    ns.problem_parse = problem_parse;
    ns.problem_open = problem_open;
    ns.problem_close = problem_close;
    ns.problem_json = problem_json;
    ns.signature = signature;
    ns.check = check;
    ns.run = run;
    ns.run_seconds = 3600.0; /* a whole run of a case: an hour before a guard calls it hung */
    fb_family_replace(&ns);
}
