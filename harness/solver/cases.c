/* cases.c - the solver's cases (cases.h): meshes, conditions, initial
 * states and validation numbers. */
#include "solver/cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fb_case_names[] = {"cavity", "ethier-steinman", "ahmed", NULL};

#define ES_NU 0.1

/* ---- cavity ------------------------------------------------------------ */

static fb_bc_kind cavity_tag(void *ctx, const double c[3], const double n[3])
{
    (void)ctx;
    return c[2] > 1.0 - 1e-9 && n[2] > 0.5 ? FB_BC_VELOCITY : FB_BC_WALL;
}

static void cavity_lid(void *ctx, const double x[3], double t, double u[3])
{
    (void)ctx, (void)x, (void)t;
    u[0] = 1.0, u[1] = 0.0, u[2] = 0.0;
}

/* The node nearest to point x. */
static int nearest_node(const fb_mesh *m, const double x[3])
{
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < m->nnodes; ++i) {
        const double *y = m->xyz + 3 * (int64_t)i;
        double d = (y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1]) + (y[2] - x[2]) * (y[2] - x[2]);
        if (d < bd) bd = d, best = i;
    }
    return best;
}

/* The cube of n nodes per side when n > 0 (weak scaling), else the level's. */
static fb_status open_cavity(int level, int cube_n, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const double pin[3] = {0.5, 0.5, 0.0};
    if (level < 0) level = 0;
    int n = cube_n > 0 ? cube_n : fb_mesh_cube_level(level);
    if (n == 0) FB_FAIL(FB_ERR_USAGE, "solve cavity: level %d does not exist (levels are 0, 1, 2)", level);
    c->level = cube_n > 0 ? -1 : level;
    c->cube_n = cube_n;
    snprintf(c->source, sizeof c->source, "gen:cube:%d", n);
    FB_CHECK(fb_mesh_cube(n, &c->mesh));
    FB_CHECK(fb_boundary_build(&c->mesh, cavity_tag, c, &c->bnd));
    FB_CHECK(fb_boundary_set_pressure_reference(&c->bnd, nearest_node(&c->mesh, pin)));
    c->cfg = fb_ns_config_defaults(0.01);
    c->bc = (fb_ns_bc){.velocity = cavity_lid, .ctx = c};
    c->t_end = 0.1;
fail:
    return status;
}

/* ---- Ethier-Steinman ----------------------------------------------------- */

static fb_bc_kind es_tag(void *ctx, const double c[3], const double n[3])
{
    (void)ctx, (void)c, (void)n;
    return FB_BC_VELOCITY;
}

static void es_velocity(void *ctx, const double x[3], double t, double u[3])
{
    const fb_solve_case *c = ctx;
    fb_ethier_steinman_eval(&c->es, x, t, u, NULL);
}

static double es_pressure(void *ctx, const double x[3], double t)
{
    const fb_solve_case *c = ctx;
    double p;
    fb_ethier_steinman_eval(&c->es, x, t, NULL, &p);
    return p;
}

static fb_status open_es(int level, int cube_n, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const double corner[3] = {-1.0, -1.0, -1.0};
    if (level < 0) level = 0;
    if (level > 3) FB_FAIL(FB_ERR_USAGE, "solve ethier-steinman: level %d does not exist (levels are 0..3)", level);
    int n = cube_n > 0 ? cube_n : 8 * (1 << level) + 1;
    c->level = cube_n > 0 ? -1 : level;
    c->cube_n = cube_n;
    snprintf(c->source, sizeof c->source, "gen:cube:%d on [-1,1]^3", n);
    FB_CHECK(fb_mesh_cube(n, &c->mesh));
    for (int64_t k = 0; k < 3 * (int64_t)c->mesh.nnodes; ++k)
        c->mesh.xyz[k] = 2.0 * c->mesh.xyz[k] - 1.0;
    FB_CHECK(fb_boundary_build(&c->mesh, es_tag, c, &c->bnd));
    FB_CHECK(fb_boundary_set_pressure_reference(&c->bnd, nearest_node(&c->mesh, corner)));
    c->es = fb_ethier_steinman_standard(ES_NU);
    c->cfg = fb_ns_config_defaults(ES_NU);
    c->bc = (fb_ns_bc){.velocity = es_velocity, .pressure = es_pressure, .ctx = c, .time_dependent = 1};
    c->t_end = 0.1;
fail:
    return status;
}

void fb_case_es_errors(const fb_solve_case *c, const fb_ns *ns, double *eu, double *eu_rel, double *ep, double *ep_rel)
{
    const int n = ns->E.n;
    double su = 0, su_ex = 0, pm = 0, pm_ex = 0, sp = 0, sp_ex = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < n; ++i) {
            double ue[3], pe, m = ns->mass[i];
            fb_ethier_steinman_eval(&c->es, c->mesh.xyz + 3 * (int64_t)i, ns->t, ue, &pe);
            if (pass == 0) {
                pm += m * ns->p[i], pm_ex += m * pe;
                for (int k = 0; k < 3; ++k) {
                    double d = ns->u[3 * (int64_t)i + k] - ue[k];
                    su += m * d * d, su_ex += m * ue[k] * ue[k];
                }
                continue;
            }
            double d = (ns->p[i] - pm / ns->volume) - (pe - pm_ex / ns->volume);
            sp += m * d * d, sp_ex += m * (pe - pm_ex / ns->volume) * (pe - pm_ex / ns->volume);
        }
    *eu = sqrt(su), *eu_rel = sqrt(su / su_ex), *ep = sqrt(sp), *ep_rel = sqrt(sp / sp_ex);
}

/* ---- Ahmed ---------------------------------------------------------------- */

#include "solver/cases_ahmed.inc"

/* ---- common ---------------------------------------------------------------- */

fb_status fb_case_open(const char *name, int level, const char *mesh_path, fb_solve_case *c)
{
    return fb_case_open_sized(name, level, 0, mesh_path, c);
}

fb_status fb_case_open_sized(const char *name, int level, int cube_n, const char *mesh_path, fb_solve_case *c)
{
    fb_status status = FB_OK;
    memset(c, 0, sizeof *c);
    if (cube_n && (cube_n < 3 || cube_n > FB_CASE_MAX_CUBE_N))
        FB_FAIL(FB_ERR_USAGE, "solve %s: --cube %d: give 3 .. %d nodes per side", name, cube_n, FB_CASE_MAX_CUBE_N);
    if (cube_n && level >= 0) FB_FAIL(FB_ERR_USAGE, "solve %s: give --level or --cube, not both", name);
    c->level = -1;
    if (strcmp(name, "cavity") == 0) {
        c->kind = FB_CASE_CAVITY, c->name = "cavity";
        FB_CHECK(open_cavity(level, cube_n, c));
    } else if (strcmp(name, "ethier-steinman") == 0) {
        c->kind = FB_CASE_ETHIER_STEINMAN, c->name = "ethier-steinman";
        FB_CHECK(open_es(level, cube_n, c));
    } else if (strcmp(name, "ahmed") == 0) {
        c->kind = FB_CASE_AHMED, c->name = "ahmed";
        if (level > 0) FB_FAIL(FB_ERR_USAGE, "solve ahmed: has no levels (give --mesh FILE for another mesh)");
        if (cube_n) FB_FAIL(FB_ERR_USAGE, "solve ahmed: --cube is for the cube cases (give --mesh FILE)");
        FB_CHECK(open_ahmed(mesh_path, c));
    } else {
        FB_FAIL(FB_ERR_USAGE, "solve: unknown case '%s' (cases: cavity, ethier-steinman, ahmed)", name);
    }
    if (mesh_path && c->kind != FB_CASE_AHMED)
        FB_FAIL(FB_ERR_USAGE, "solve %s: --mesh applies to ahmed only (this case makes its own mesh)", c->name);
fail:
    if (status != FB_OK) fb_case_free(c);
    return status;
}

void fb_case_initial(fb_solve_case *c, fb_ns *ns)
{
    if (c->kind == FB_CASE_ETHIER_STEINMAN)
        for (int i = 0; i < ns->E.n; ++i)
            fb_ethier_steinman_eval(&c->es, ns->mesh->xyz + 3 * (int64_t)i, 0.0, ns->u + 3 * (int64_t)i, ns->p + i);
    if (c->kind == FB_CASE_AHMED) ahmed_initial(c, ns);
    fb_ns_impose(ns);
}

fb_status fb_case_validate(fb_solve_case *c, const fb_ns *ns, json_t **out)
{
    fb_status status = FB_OK;
    double norm, net;
    json_t *v = json_object();
    fb_ns_divergence(ns, &norm, &net);
    json_object_set_new(v, "divergence_l2", json_real(norm));
    json_object_set_new(v, "net_boundary_flux", json_real(net));
    if (c->kind == FB_CASE_ETHIER_STEINMAN) {
        double eu, eur, ep, epr;
        fb_case_es_errors(c, ns, &eu, &eur, &ep, &epr);
        json_object_set_new(v, "velocity_l2_error", json_real(eu));
        json_object_set_new(v, "velocity_l2_rel_error", json_real(eur));
        json_object_set_new(v, "pressure_l2_error", json_real(ep));
        json_object_set_new(v, "pressure_l2_rel_error", json_real(epr));
    }
    if (c->kind == FB_CASE_AHMED) FB_CHECK(ahmed_validate(c, ns, v));
    *out = v;
    v = NULL;
fail:
    json_decref(v);
    return status;
}

void fb_case_free(fb_solve_case *c)
{
    fb_boundary_free(&c->bnd);
    fb_mesh_free(&c->mesh);
}
