/* solve_peer.c - the solver's CG beside a peer's on the last step's
 * pressure system (contracts in solve_peer.h): ViennaCL's on the same
 * OpenCL device, PETSc's beside the OpenMP baseline on the same CPU. Both
 * start from x = 0 at the same tolerance; both residuals are recomputed on
 * the host from the explicit matrix, so neither solver's own estimate is
 * trusted. */
#include "solve_peer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comm.h"
#include "ns_device.h"
#include "ns_dist.h"
#include "ns_pressure.h"
#include "peers/petsc_cg.h"
#include "peers/viennacl_cg.h"
#include "spmv/petsc_api.h"

enum { SPMV_REPEATS = 20 };

/* What each solver did on the system. */
typedef struct peer_side {
    int its;
    double res;     /* true ||b - A x|| / ||b||, on the host */
    double own_res; /* the solver's own final estimate */
    double total_s, spmv_s;
} peer_side;

static double per_it(const peer_side *s) { return s->its > 0 ? s->total_s / s->its : NAN; }

/* What the peer says of itself beside its numbers. */
typedef struct peer_about {
    char version[32], device[224];
    double upload_s;       /* its copies before the solve (NaN: none) */
    const char *residuals; /* how the true residuals were computed (NULL: on the host, fb_pressure_residual) */
} peer_about;

typedef struct cg_peer {
    const char *name;    /* --peer NAME, and the record's key for its side */
    const char *backend; /* the run's backend, the one the peer shares */
    const char *label;   /* its row in the table */
    const char *stopping_test;
    int (*available)(char *why, size_t len);
    fb_status (*run)(const fb_device_info *d, const fb_ns *ns, const fb_pressure_csr *m, double *x, peer_side *s,
                     peer_about *about);
} cg_peer;

static fb_status run_viennacl(const fb_device_info *d, const fb_ns *ns, const fb_pressure_csr *m, double *x,
                              peer_side *s, peer_about *about);
static fb_status run_petsc(const fb_device_info *d, const fb_ns *ns, const fb_pressure_csr *m, double *x, peer_side *s,
                           peer_about *about);

static const cg_peer peers[] = {
    {"viennacl", "opencl", "ViennaCL CG (jacobi_precond)", "(r, D^-1 r) / (b, D^-1 b) < tol^2", fb_viennacl_available,
     run_viennacl},
    {"petsc", "openmp", "PETSc KSPCG + PCJACOBI", "||r|| / ||b|| < tol (KSP_NORM_UNPRECONDITIONED)", fb_petsc_available,
     run_petsc},
};

static const cg_peer *find_peer(const char *name)
{
    for (size_t k = 0; k < sizeof peers / sizeof *peers; ++k)
        if (!strcmp(peers[k].name, name)) return &peers[k];
    return NULL;
}

/* backend is the peer's, or that with ":..." (a device of it). */
static int on_backend(const char *given, const char *backend)
{
    const size_t n = strlen(backend);
    return !strncmp(given, backend, n) && (given[n] == '\0' || given[n] == ':');
}

fb_status fb_solve_peer_check(const char *name, const char *const *backends, int nbackends, int compare)
{
    fb_status status = FB_OK;
    char why[640];
    if (!name) return FB_OK;
    const cg_peer *p = find_peer(name);
    if (!p) FB_FAIL(FB_ERR_USAGE, "--peer: unknown peer '%s' (peers: viennacl, petsc)", name);
    if (compare) FB_FAIL(FB_ERR_USAGE, "--peer %s takes one --backend %s, not --compare", name, p->backend);
    for (int i = 0; i < nbackends; ++i)
        if (!on_backend(backends[i], p->backend))
            FB_FAIL(FB_ERR_USAGE, "--peer %s runs beside the %s backend: give --backend %s, not %s", name, p->backend,
                    !strcmp(p->backend, "opencl") ? "opencl[:P.D]" : p->backend, backends[i]);
    if (!p->available(why, sizeof why)) FB_FAIL(FB_ERR_UNAVAILABLE, "--peer %s: %s", name, why);
fail:
    return status;
}

/* OpenCL platform and device of an "opencl:P.D" device id. */
static fb_status device_indices(const fb_device_info *d, int *platform, int *device)
{
    fb_status status = FB_OK;
    if (sscanf(d->id, "opencl:%d.%d", platform, device) != 2)
        FB_FAIL(FB_ERR_USAGE, "--peer viennacl: %s is not an OpenCL device (opencl:P.D)", d->id);
fail:
    return status;
}

static fb_status run_viennacl(const fb_device_info *d, const fb_ns *ns, const fb_pressure_csr *m, double *x,
                              peer_side *s, peer_about *about)
{
    fb_status status = FB_OK;
    int platform, device;
    fb_viennacl_result v;
    const fb_viennacl_system sys = {m->n, m->nnz, m->rowptr, m->col, m->val, m->b};
    FB_CHECK(device_indices(d, &platform, &device));
    FB_CHECK(fb_viennacl_cg(platform, device, &sys, ns->cfg.cg_tol, ns->cfg.cg_max_its, SPMV_REPEATS, x, &v));
    s->its = v.its, s->own_res = v.est_res, s->total_s = v.solve_s, s->spmv_s = v.spmv_s;
    snprintf(about->version, sizeof about->version, "%s", v.version);
    snprintf(about->device, sizeof about->device, "%s", v.device);
    about->upload_s = v.upload_s;
fail:
    return status;
}

static fb_status run_petsc(const fb_device_info *d, const fb_ns *ns, const fb_pressure_csr *m, double *x, peer_side *s,
                           peer_about *about)
{
    fb_status status = FB_OK;
    fb_petsc_cg_result r;
    const fb_petsc_rows rows = {m->n, m->n, 1, m->rowptr, m->col, m->val, m->b};
    FB_CHECK(fb_petsc_cg(&rows, ns->cfg.cg_tol, ns->cfg.cg_max_its, SPMV_REPEATS, NULL, x, &r));
    s->its = r.its, s->own_res = r.est_res, s->total_s = r.solve_s, s->spmv_s = r.spmv_s;
    snprintf(about->version, sizeof about->version, "%s", r.version);
    snprintf(about->device, sizeof about->device, "%s, one core (sequential AIJ)", d->name);
    about->upload_s = NAN;
fail:
    return status;
}

static void print_row(FILE *f, const char *name, const peer_side *s, const peer_side *ref)
{
    fprintf(f, "  %-30s %6d %14.3e %10.4f %12.3e %10.3e %8.2fx\n", name, s->its, s->res, s->total_s, per_it(s),
            s->spmv_s, per_it(s) / per_it(ref));
}

/* The system's size as the table and the record give it (on ranks: the
 * whole system's). */
typedef struct sys_shape {
    int n, nnz, nfixed, singular;
} sys_shape;

static sys_shape shape_of(const fb_pressure_csr *m) { return (sys_shape){m->n, m->nnz, m->nfixed, m->singular}; }

/* What the two CGs are and compare, beside the numbers. */
typedef struct peer_match {
    const cg_peer *p;
    peer_about about;
    int cg_variant;
    double diff; /* the solutions' relative difference */
} peer_match;

struct fb_solve_peer_outcome {
    peer_match pm;
    peer_side fb, ps;
    sys_shape shape;
};

static void print_table(FILE *f, const fb_solve_peer_outcome *o, const fb_ns *ns)
{
    const sys_shape *m = &o->shape;
    const peer_match *pm = &o->pm;
    char name[64];
    fprintf(f,
            "\npeer %s %s on %s: the last step's pressure system, %d rows, %d nonzeros, %d fixed rows, "
            "from x = 0, tol %.3g\n",
            pm->p->name, pm->about.version, pm->about.device, m->n, m->nnz, m->nfixed, ns->cfg.cg_tol);
    fprintf(f, "  %-30s %6s %14s %10s %12s %10s %9s\n", "solver", "its", "rel. residual", "total s", "s/iteration",
            "SpMV s", "s/it / fb");
    snprintf(name, sizeof name, "flowbench CG (CG_VARIANT=%d)", pm->cg_variant);
    print_row(f, name, &o->fb, &o->fb);
    print_row(f, pm->p->label, &o->ps, &o->fb);
    fprintf(f, "  solutions differ by %.3e (relative L2 on the free nodes%s)\n", pm->diff,
            m->singular ? ", means removed" : "");
    fprintf(f,
            "  residuals are ||b - Ax|| / ||b|| %s; %s stops on %s (its estimate %.3e), flowbench on "
            "||r|| / ||b||; flowbench's SpMV is ns_cg1_matvec (with 3 dot products)",
            pm->about.residuals ? pm->about.residuals : "on the host", pm->p->name, pm->p->stopping_test,
            o->ps.own_res);
    if (isfinite(pm->about.upload_s)) fprintf(f, "; %s's upload %.4f s", pm->p->name, pm->about.upload_s);
    fprintf(f, "\n");
}

/* A number, or null when it is not finite (JSON has no NaN). */
static json_t *real(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *side_json(const peer_side *s)
{
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "its", s->its, "rel_residual", real(s->res), "own_residual",
                     real(s->own_res), "total_s", real(s->total_s), "s_per_iteration", real(per_it(s)), "spmv_s",
                     real(s->spmv_s));
}

static fb_status add_record(json_t *rec, const fb_solve_peer_outcome *o, const fb_ns *ns)
{
    fb_status status = FB_OK;
    const sys_shape *m = &o->shape;
    const peer_match *pm = &o->pm;
    json_t *flow = side_json(&o->fb), *peer = side_json(&o->ps), *obj = NULL;
    if (!flow || !peer) FB_FAIL(FB_ERR_NOMEM, "out of memory building the peer record");
    json_object_set_new(flow, "cg_variant", json_integer(pm->cg_variant));
    json_object_set_new(flow, "spmv_kernel", json_string("ns_cg1_matvec"));
    json_object_set_new(peer, "upload_s", real(pm->about.upload_s));
    json_object_set_new(peer, "stopping_test", json_string(pm->p->stopping_test));
    obj = json_pack("{s:s, s:s, s:s, s:{s:i, s:i, s:i, s:b}, s:f, s:i, s:o, s:o, s:o, s:o, s:o}", "name", pm->p->name,
                    "version", pm->about.version, "device", pm->about.device, "system", "rows", m->n, "nnz", m->nnz,
                    "fixed_rows", m->nfixed, "singular", m->singular, "tol", ns->cfg.cg_tol, "max_its",
                    ns->cfg.cg_max_its, "flowbench", flow, pm->p->name, peer, "ratio_total",
                    real(o->ps.total_s / o->fb.total_s), "ratio_per_iteration", real(per_it(&o->ps) / per_it(&o->fb)),
                    "solution_rel_diff", real(pm->diff));
    flow = peer = NULL; /* json_pack's "o" took them, even on failure */
    if (!obj) FB_FAIL(FB_ERR_NOMEM, "out of memory building the peer record");
    json_object_set_new(obj, "ranks", json_integer(fb_comm_size())); /* the processes both CGs ran on */
    json_object_set_new(obj, "residuals", json_string(pm->about.residuals ? pm->about.residuals : "on the host"));
    json_object_set_new(rec, "peer", obj);
fail:
    json_decref(flow);
    json_decref(peer);
    return status;
}

/* flowbench's CG on the resident system (on several ranks this rank's
 * part, every rank starting together) from x = 0 into x (the local
 * nodes). */
static fb_status run_flowbench(fb_ns *ns, double *x, peer_side *s)
{
    fb_status status = FB_OK;
    double *x0 = NULL;
    fb_ns_cg_run run;
    FB_ALLOC(x0, ns->mesh->nnodes, "the CG's start vector");
    fb_comm_barrier();
    FB_CHECK(fb_ns_device_cg_solve(ns, x0, x, &run));
    FB_CHECK(fb_ns_device_time_matvec(ns, SPMV_REPEATS, &s->spmv_s));
    s->its = run.its, s->own_res = run.res, s->total_s = run.seconds;
fail:
    free(x0);
    return status;
}

/* ---- on P ranks: PETSc's MPIAIJ CG over every rank, flowbench's CG on the parts ---- */

/* PETSc's numbering of this rank's local nodes: its owned nodes follow
 * the lower ranks' (rank r's are first_r .. first_r + nown - 1, PETSc's
 * contiguous row blocks); a halo node gets its owner's number by one
 * exchange. As doubles: the exchange moves doubles (exact below 2^53). */
static fb_status petsc_numbers(fb_ns *ns, int *nglobal, double **ids)
{
    fb_status status = FB_OK;
    fb_local_part *lp = &ns->dist->lp;
    int *owned = NULL, first = 0;
    FB_CHECK(fb_comm_allgather(&lp->nown, sizeof lp->nown, (void **)&owned));
    *nglobal = 0;
    for (int r = 0; r < fb_comm_size(); ++r)
        first += r < fb_comm_rank() ? owned[r] : 0, *nglobal += owned[r];
    FB_ALLOC(*ids, lp->nlocal, "the nodes' PETSc numbers");
    for (int i = 0; i < lp->nown; ++i)
        (*ids)[i] = first + i;
    fb_halo_exchange(&lp->halo, *ids, 1);
fail:
    free(owned);
    return status;
}

/* m's columns in PETSc's numbering, each row sorted again (col, val: new
 * arrays; m keeps its local numbering for the residuals). */
static fb_status renumber(const fb_pressure_csr *m, const double *ids, int **col, double **val)
{
    fb_status status = FB_OK;
    FB_ALLOC(*col, m->nnz, "the pressure matrix's PETSc columns");
    FB_ALLOC(*val, m->nnz, "the pressure matrix's values");
    for (int k = 0; k < m->nnz; ++k)
        (*col)[k] = (int)ids[m->col[k]], (*val)[k] = m->val[k];
    for (int i = 0; i < m->n; ++i)
        fb_pressure_sort_row(*col + m->rowptr[i], *val + m->rowptr[i], m->rowptr[i + 1] - m->rowptr[i]);
fail:
    return status;
}

/* The whole system's size: sums over ranks. */
static sys_shape global_shape(const fb_pressure_csr *m, int nglobal)
{
    int64_t v[2] = {m->nnz, m->nfixed};
    fb_comm_allreduce_i64(v, 2, FB_COMM_SUM);
    return (sys_shape){nglobal, (int)v[0], (int)v[1], v[1] == 0};
}

/* Each side's times: the slowest rank's (a solve ends when its last rank does). */
static void slowest_rank(fb_solve_peer_outcome *o)
{
    double t[4] = {o->fb.total_s, o->fb.spmv_s, o->ps.total_s, o->ps.spmv_s};
    fb_comm_allreduce(t, 4, FB_COMM_MAX);
    o->fb.total_s = t[0], o->fb.spmv_s = t[1], o->ps.total_s = t[2], o->ps.spmv_s = t[3];
}

/* Both CGs on P ranks: m (this rank's rows) in PETSc's numbering, PETSc
 * on the rows this rank owns; both true residuals by PETSc's MatMult of
 * the assembled matrix (flowbench's x is spread over the ranks too). */
static fb_status compare_on_ranks(fb_ns *ns, const fb_device_info *d, fb_pressure_csr *m, double *xf, double *xp,
                                  fb_solve_peer_outcome *o)
{
    fb_status status = FB_OK;
    double *ids = NULL, *val = NULL;
    int *col = NULL, nglobal = 0;
    fb_petsc_cg_result r;
    FB_CHECK(petsc_numbers(ns, &nglobal, &ids));
    FB_CHECK(renumber(m, ids, &col, &val));
    o->shape = global_shape(m, nglobal);
    m->singular = o->shape.singular; /* the whole system's, for the comparison's means */
    FB_CHECK(run_flowbench(ns, xf, &o->fb));
    const fb_petsc_rows rows = {m->n, nglobal, fb_comm_size(), m->rowptr, col, val, m->b};
    FB_CHECK(fb_petsc_cg(&rows, ns->cfg.cg_tol, ns->cfg.cg_max_its, SPMV_REPEATS, xf, xp, &r));
    o->ps = (peer_side){r.its, r.true_res, r.est_res, r.solve_s, r.spmv_s};
    o->fb.res = r.other_res;
    snprintf(o->pm.about.version, sizeof o->pm.about.version, "%s", r.version);
    snprintf(o->pm.about.device, sizeof o->pm.about.device, "%s, %d ranks of one core each (MPIAIJ)", d->name,
             fb_comm_size());
    o->pm.about.upload_s = NAN;
    o->pm.about.residuals = "by one MatMult of PETSc's assembled matrix over the ranks";
    slowest_rank(o);
fail:
    free(ids), free(col), free(val);
    return status;
}

/* Both CGs on the last step's system from x = 0; on one process each true
 * residual on the host. */
static fb_status compare(fb_ns *ns, fb_target *t, fb_solve_peer_outcome *o)
{
    fb_status status = FB_OK;
    fb_pressure_csr m;
    double *xf = NULL, *xp = NULL;
    memset(&m, 0, sizeof m);
    FB_CHECK(fb_ns_device_pressure_system(ns));
    FB_CHECK(fb_ns_pressure_csr(ns, &m));
    FB_ALLOC(xf, ns->mesh->nnodes, "flowbench's CG solution");
    FB_ALLOC(xp, m.n, "the peer's CG solution");
    if (ns->dist) {
        FB_CHECK(compare_on_ranks(ns, fb_target_info(t), &m, xf, xp, o));
    } else {
        o->shape = shape_of(&m);
        FB_CHECK(run_flowbench(ns, xf, &o->fb));
        FB_CHECK(o->pm.p->run(fb_target_info(t), ns, &m, xp, &o->ps, &o->pm.about));
        o->fb.res = fb_pressure_residual(&m, xf);
        o->ps.res = fb_pressure_residual(&m, xp);
    }
    o->pm.diff = fb_pressure_rel_diff(&m, ns->bnd->p_fixed, xp, xf);
fail:
    fb_pressure_csr_free(&m);
    free(xf), free(xp);
    return status;
}

fb_status fb_solve_peer_compare(const char *name, fb_ns *ns, fb_target *t, fb_solve_peer_outcome **out)
{
    fb_status status = FB_OK;
    fb_solve_peer_outcome *o = NULL;
    *out = NULL;
    if (!name) return FB_OK;
    FB_ALLOC(o, 1, "the peer's comparison");
    o->pm.p = find_peer(name);
    if (ns->dist && (!o->pm.p || strcmp(name, "petsc") != 0 || !ns->dev))
        FB_FAIL(FB_ERR_USAGE, "--peer %s: on several ranks only petsc runs, beside an openmp run", name);
    if (!o->pm.p || !ns->dev) FB_FAIL(FB_ERR_USAGE, "--peer %s: no run on its backend to compare with", name);
    o->pm.cg_variant = fb_ns_device_point(ns)->values[FB_NS_CG_VARIANT_AXIS];
    FB_CHECK(compare(ns, t, o));
    *out = o, o = NULL;
fail:
    free(o);
    return status;
}

fb_status fb_solve_peer_report(const fb_solve_peer_outcome *o, const fb_ns *ns, json_t *rec, FILE *f)
{
    if (!o) return FB_OK;
    print_table(f, o, ns);
    return add_record(rec, o, ns);
}

void fb_solve_peer_outcome_free(fb_solve_peer_outcome *o) { free(o); }
