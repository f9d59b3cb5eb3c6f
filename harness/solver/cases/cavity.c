/* cavity.c - the lid-driven cavity (cases.h): the unit cube, the lid
 * z = 1 moving at (1, 0, 0), walls at rest. */
#include "../cases.h"

#include <stdio.h>

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

/* The cube of n nodes per side when n > 0 (weak scaling), else the level's. */
static fb_status open_cavity(int level, int cube_n, const char *mesh_path, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const double pin[3] = {0.5, 0.5, 0.0};
    (void)mesh_path; /* the case makes its mesh: fb_case_open refuses one */
    if (level < 0) level = 0;
    int n = cube_n > 0 ? cube_n : fb_mesh_cube_level(level);
    if (n == 0) FB_FAIL(FB_ERR_USAGE, "solve cavity: level %d does not exist (levels are 0, 1, 2)", level);
    c->level = cube_n > 0 ? -1 : level;
    c->cube_n = cube_n;
    snprintf(c->source, sizeof c->source, "gen:cube:%d", n);
    FB_CHECK(fb_mesh_cube(n, &c->mesh));
    FB_CHECK(fb_boundary_build(&c->mesh, cavity_tag, c, &c->bnd));
    FB_CHECK(fb_boundary_set_pressure_reference(&c->bnd, fb_case_nearest_node(&c->mesh, pin)));
    c->cfg = fb_ns_config_defaults(0.01);
    c->bc = (fb_ns_bc){.velocity = cavity_lid, .ctx = c};
    c->t_end = 0.1;
fail:
    return status;
}

const fb_case_ops fb_case_cavity = {.name = "cavity", .unit_cube = 1, .open = open_cavity};
