/* cases.h - the flows `flowbench solve` runs: their mesh, viscosity,
 * boundary conditions, initial state, default end time, and what each
 * reports when it ends (docs/solver.md):
 *
 *   cavity           lid-driven cavity, unit cube, lid z = 1 moving at
 *                    (1, 0, 0), Re = 100 (nu = 0.01), levels 0, 1, 2 =
 *                    the cube meshes N = 15, 29, 57; pressure 0 at the
 *                    centre of the bottom wall (its reference point); t
 *                    from 0 to 0.1.
 *   ethier-steinman  the exact 3D Navier-Stokes solution of Ethier and
 *                    Steinman (exact.h) on [-1, 1]^3, a = pi/4, d = pi/2,
 *                    nu = 0.1, exact velocity on the whole boundary and
 *                    pressure level from the exact value at one corner;
 *                    levels 0..3 = N = 9, 17, 33, 65; t from 0 to 0.1;
 *                    reports L2 errors of velocity and pressure.
 *   ahmed            the Ahmed body (solver/ahmed.h) from a gmsh mesh
 *                    (--mesh, default results/ahmed.msh): inlet velocity,
 *                    outlet pressure 0, slip tunnel walls, no-slip ground
 *                    and body; reports drag and lift coefficients; t from 0 to 0.1 s.
 */
#ifndef FB_SOLVER_CASES_H
#define FB_SOLVER_CASES_H

#include <jansson.h>

#include "solver/ns.h"

/* The Ahmed case's mesh when --mesh is not given. */
#define FB_AHMED_DEFAULT_MESH "results/ahmed.msh"

typedef struct fb_solve_case fb_solve_case;

/* One case: a row of the table in cases.c, its operations in one file of
 * cases/ (cavity.c, ethier_steinman.c, ahmed.c). Adding a case is a file
 * and a row; nothing else names a case. */
typedef struct fb_case_ops {
    const char *name;
    const char *mesh_file; /* the mesh file read when --mesh names none; NULL: the case makes a cube */
    int unit_cube;         /* 1: the unit cube with lid speed 1: --re sets nu = 1 / Re, --profiles writes centrelines */
    /* mesh, boundary kinds and values, nu, the end time into c (name and
     * ops set); level -1: the default; cube_n > 0: that cube instead */
    fb_status (*open)(int level, int cube_n, const char *mesh_path, fb_solve_case *c);
    void (*initial)(fb_solve_case *c, fb_ns *ns);                        /* the state at t = 0; NULL: at rest */
    fb_status (*validate)(fb_solve_case *c, const fb_ns *ns, json_t *v); /* its numbers into v; NULL: none */
} fb_case_ops;

struct fb_solve_case {
    const fb_case_ops *ops;
    const char *name;
    int level;        /* -1 when the case has no levels, or runs on a cube of cube_n nodes per side */
    int cube_n;       /* > 0: cavity or ethier-steinman on the cube of this many nodes per side (not a level) */
    char source[512]; /* the mesh: "gen:cube:15" or a file */
    fb_mesh mesh;
    fb_boundary bnd;
    fb_ns_config cfg; /* defaults of this case (nu set) */
    fb_ns_bc bc;      /* ctx points at this struct: keep it in place */
    double t_end;     /* default end time */
};

/* The case of that name, or NULL. */
const fb_case_ops *fb_case_find(const char *name);

/* For the cases' files: the node nearest to point x. */
int fb_case_nearest_node(const fb_mesh *m, const double x[3]);

/* Opens case `name` at `level` (-1: the case's default); mesh_path
 * overrides the case's mesh file (ahmed). Unknown names and levels are
 * FB_ERR_USAGE naming the choices. */
fb_status fb_case_open(const char *name, int level, const char *mesh_path, fb_solve_case *c);

/* The same with cube_n > 0: cavity or ethier-steinman on the cube of
 * cube_n (3 .. FB_CASE_MAX_CUBE_N) nodes per side instead of a level (a
 * level given too is FB_ERR_USAGE): weak scaling grows the mesh with the
 * ranks. cube_n = 0: fb_case_open. */
#define FB_CASE_MAX_CUBE_N 400
fb_status fb_case_open_sized(const char *name, int level, int cube_n, const char *mesh_path, fb_solve_case *c);

/* Sets the initial velocity and pressure (t = 0) and imposes the
 * boundary values. */
void fb_case_initial(fb_solve_case *c, fb_ns *ns);

/* The case's validation numbers for the current state, as a JSON object:
 * always the divergence norm and net boundary flux; ethier-steinman the
 * L2 errors; ahmed the forces and Cd, Cl. */
fb_status fb_case_validate(fb_solve_case *c, const fb_ns *ns, json_t **out);

/* L2 errors against the Ethier-Steinman solution at ns->t (lumped-mass
 * quadrature): velocity absolute and relative, pressure (means removed)
 * absolute and relative. */
void fb_case_es_errors(const fb_solve_case *c, const fb_ns *ns, double *eu, double *eu_rel, double *ep, double *ep_rel);

void fb_case_free(fb_solve_case *c);

#endif
