/* ethier_steinman.c - the exact solution of Ethier and Steinman (cases.h,
 * exact.h) on [-1, 1]^3: exact velocity on the boundary, the pressure's
 * level from one corner, L2 errors as its validation. */
#include "../cases.h"
#include "../exact.h"

#include <math.h>
#include <stdio.h>

#define ES_NU 0.1

/* The paper's solution at this case's viscosity: three numbers, made where
 * they are needed rather than kept in every case's struct. */
static fb_ethier_steinman exact(void) { return fb_ethier_steinman_standard(ES_NU); }

static fb_bc_kind es_tag(void *ctx, const double c[3], const double n[3])
{
    (void)ctx, (void)c, (void)n;
    return FB_BC_VELOCITY;
}

static void es_velocity(void *ctx, const double x[3], double t, double u[3])
{
    (void)ctx;
    const fb_ethier_steinman es = exact();
    fb_ethier_steinman_eval(&es, x, t, u, NULL);
}

static double es_pressure(void *ctx, const double x[3], double t)
{
    (void)ctx;
    const fb_ethier_steinman es = exact();
    double p;
    fb_ethier_steinman_eval(&es, x, t, NULL, &p);
    return p;
}

static fb_status open_es(int level, int cube_n, const char *mesh_path, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const double corner[3] = {-1.0, -1.0, -1.0};
    (void)mesh_path; /* the case makes its mesh: fb_case_open refuses one */
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
    FB_CHECK(fb_boundary_set_pressure_reference(&c->bnd, fb_case_nearest_node(&c->mesh, corner)));
    c->cfg = fb_ns_config_defaults(ES_NU);
    c->bc = (fb_ns_bc){.velocity = es_velocity, .pressure = es_pressure, .ctx = c, .time_dependent = 1};
    c->t_end = 0.1;
fail:
    return status;
}

void fb_case_es_errors(const fb_solve_case *c, const fb_ns *ns, double *eu, double *eu_rel, double *ep, double *ep_rel)
{
    const int n = ns->E.n;
    const fb_ethier_steinman es = exact();
    double su = 0, su_ex = 0, pm = 0, pm_ex = 0, sp = 0, sp_ex = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < n; ++i) {
            double ue[3], pe, m = ns->mass[i];
            fb_ethier_steinman_eval(&es, c->mesh.xyz + 3 * (int64_t)i, ns->t, ue, &pe);
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

/* The exact solution at t = 0. */
static void es_initial(fb_solve_case *c, fb_ns *ns)
{
    const fb_ethier_steinman es = exact();
    (void)c;
    for (int i = 0; i < ns->E.n; ++i)
        fb_ethier_steinman_eval(&es, ns->mesh->xyz + 3 * (int64_t)i, 0.0, ns->u + 3 * (int64_t)i, ns->p + i);
}

static fb_status es_validate(fb_solve_case *c, const fb_ns *ns, json_t *v)
{
    double eu, eur, ep, epr;
    fb_case_es_errors(c, ns, &eu, &eur, &ep, &epr);
    json_object_set_new(v, "velocity_l2_error", json_real(eu));
    json_object_set_new(v, "velocity_l2_rel_error", json_real(eur));
    json_object_set_new(v, "pressure_l2_error", json_real(ep));
    json_object_set_new(v, "pressure_l2_rel_error", json_real(epr));
    return FB_OK;
}

const fb_case_ops fb_case_ethier_steinman = {
    .name = "ethier-steinman", .open = open_es, .initial = es_initial, .validate = es_validate};
