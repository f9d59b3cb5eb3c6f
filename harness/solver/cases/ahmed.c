/* ahmed.c - the Ahmed body case (cases.h): the mesh from a gmsh file,
 * boundary kinds from ../ahmed.h's face classification, and drag and lift
 * from the forces on the body's faces. */
#include "../cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ahmed.h"
#include "../forces.h"

static fb_bc_kind ahmed_tag(void *ctx, const double c[3], const double n[3])
{
    (void)ctx;
    switch (fb_ahmed_face_tag(c, n)) {
    case FB_AHMED_INLET: return FB_BC_VELOCITY;
    case FB_AHMED_OUTLET: return FB_BC_OUTLET;
    case FB_AHMED_SLIP: return FB_BC_SLIP;
    case FB_AHMED_GROUND: return FB_BC_WALL; /* the tunnel floor, at rest */
    default: return FB_BC_WALL;              /* the body */
    }
}

static void ahmed_inlet(void *ctx, const double x[3], double t, double u[3])
{
    (void)ctx, (void)x, (void)t;
    u[0] = FB_AHMED_U_REF, u[1] = 0.0, u[2] = 0.0;
}

/* The body's faces (the ground is a wall too, so they are picked by their
 * geometric tag, not their boundary kind): their nodes into fn (3 each)
 * and tetrahedra into ft, when not NULL; returns how many. */
static int body_faces(const fb_solve_case *c, int *fn, int *ft)
{
    int nbody = 0;
    for (int k = 0; k < c->bnd.nfaces; ++k) {
        const int *nodes = c->bnd.face_nodes + 3 * (int64_t)k;
        double cen[3], s[3];
        fb_face_geometry(&c->mesh, nodes, cen, s);
        double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]), n[3] = {s[0] / len, s[1] / len, s[2] / len};
        if (fb_ahmed_face_tag(cen, n) != FB_AHMED_BODY) continue;
        if (fn) memcpy(fn + 3 * (int64_t)nbody, nodes, 3 * sizeof *fn);
        if (ft) ft[nbody] = c->bnd.face_tet[k];
        nbody++;
    }
    return nbody;
}

static fb_status open_ahmed(int level, int cube_n, const char *mesh_path, fb_solve_case *c)
{
    fb_status status = FB_OK;
    const char *path = mesh_path ? mesh_path : FB_AHMED_DEFAULT_MESH;
    if (level > 0) FB_FAIL(FB_ERR_USAGE, "solve ahmed: has no levels (give --mesh FILE for another mesh)");
    if (cube_n) FB_FAIL(FB_ERR_USAGE, "solve ahmed: --cube is for the cube cases (give --mesh FILE)");
    if (access(path, R_OK) != 0)
        FB_FAIL(FB_ERR_INPUT, "solve ahmed: %s: no such mesh (make it with scripts/mesh-ahmed.sh %s)", path, path);
    snprintf(c->source, sizeof c->source, "%s", path);
    FB_CHECK(fb_mesh_read(path, &c->mesh));
    /* here, where the file is known: the edge operators would refuse it unnamed */
    if ((status = fb_mesh_check_volumes(&c->mesh)) != FB_OK)
        FB_FAIL(status, "solve ahmed: %s: %s", path, fb_error_message());
    FB_CHECK(fb_boundary_build(&c->mesh, ahmed_tag, c, &c->bnd));
    if (c->bnd.count[FB_BC_OUTLET] == 0 || c->bnd.count[FB_BC_VELOCITY] == 0)
        FB_FAIL(FB_ERR_INPUT, "solve ahmed: %s: no inlet or no outlet faces found: is it a mesh of cases/ahmed.geo?",
                path);
    /* else the run would report drag and lift 0 as its validation */
    if (body_faces(c, NULL, NULL) == 0)
        FB_FAIL(FB_ERR_INPUT,
                "solve ahmed: %s: no body faces to integrate forces over (every boundary face lies on the tunnel's "
                "planes): is it a mesh of cases/ahmed.geo?",
                path);
    c->cfg = fb_ns_config_defaults(FB_AHMED_NU);
    c->bc = (fb_ns_bc){.velocity = ahmed_inlet, .ctx = c};
    c->t_end = 0.1;
fail:
    return status;
}

/* The free stream everywhere, walls at rest (imposed after). */
static void ahmed_initial(fb_solve_case *c, fb_ns *ns)
{
    (void)c;
    for (int i = 0; i < ns->E.n; ++i) {
        ns->u[3 * (int64_t)i] = FB_AHMED_U_REF;
        ns->u[3 * (int64_t)i + 1] = ns->u[3 * (int64_t)i + 2] = 0.0;
        ns->p[i] = 0.0;
    }
}

/* Drag and lift from the body's faces. */
static fb_status ahmed_validate(fb_solve_case *c, const fb_ns *ns, json_t *v)
{
    fb_status status = FB_OK;
    int *fn = NULL, *ft = NULL, nbody = 0;
    double fp[3], fv[3], f[3], cd, cl;
    FB_ALLOC(fn, 3 * (int64_t)c->bnd.nfaces + 1, "body faces");
    FB_ALLOC(ft, c->bnd.nfaces, "body faces");
    nbody = body_faces(c, fn, ft);
    FB_CHECK(fb_surface_force(&c->mesh, fn, ft, nbody, ns->u, ns->p, ns->cfg.nu, fp, fv));
    for (int k = 0; k < 3; ++k)
        f[k] = fp[k] + fv[k];
    fb_force_coefficients(f, 1.0, FB_AHMED_U_REF, FB_AHMED_FRONTAL_AREA, &cd, &cl);
    json_object_set_new(v, "body_faces", json_integer(nbody));
    json_object_set_new(v, "force_pressure", json_pack("[f, f, f]", fp[0], fp[1], fp[2]));
    json_object_set_new(v, "force_viscous", json_pack("[f, f, f]", fv[0], fv[1], fv[2]));
    json_object_set_new(v, "cd", json_real(cd));
    json_object_set_new(v, "cl", json_real(cl));
fail:
    free(fn);
    free(ft);
    return status;
}

const fb_case_ops fb_case_ahmed = {.name = "ahmed",
                                   .mesh_file = FB_AHMED_DEFAULT_MESH,
                                   .open = open_ahmed,
                                   .initial = ahmed_initial,
                                   .validate = ahmed_validate};
