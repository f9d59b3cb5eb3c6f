/* cases.c - the solver's cases (cases.h): the table of them, and what
 * every case shares (opening, the initial state, the validation's common
 * numbers). Each case is one file in cases/. */
#include "solver/cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const fb_case_ops fb_case_cavity, fb_case_ethier_steinman, fb_case_ahmed;

/* Every case, in the order --list and errors name them. */
static const fb_case_ops *const cases[] = {&fb_case_cavity, &fb_case_ethier_steinman, &fb_case_ahmed};
enum { NCASES = sizeof cases / sizeof cases[0] };

const fb_case_ops *fb_case_find(const char *name)
{
    for (int i = 0; i < NCASES; ++i)
        if (strcmp(cases[i]->name, name) == 0) return cases[i];
    return NULL;
}

/* The node nearest to point x. */
int fb_case_nearest_node(const fb_mesh *m, const double x[3])
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

/* The names of the cases (every one, or those read from a mesh file),
 * "cavity, ethier-steinman, ahmed". */
static void names_text(int mesh_files_only, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < NCASES && used < len; ++i)
        if (!mesh_files_only || cases[i]->mesh_file)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", cases[i]->name);
}

fb_status fb_case_open(const char *name, int level, const char *mesh_path, fb_solve_case *c)
{
    return fb_case_open_sized(name, level, 0, mesh_path, c);
}

fb_status fb_case_open_sized(const char *name, int level, int cube_n, const char *mesh_path, fb_solve_case *c)
{
    fb_status status = FB_OK;
    char names[256];
    memset(c, 0, sizeof *c);
    if (cube_n && (cube_n < 3 || cube_n > FB_CASE_MAX_CUBE_N))
        FB_FAIL(FB_ERR_USAGE, "solve %s: --cube %d: give 3 .. %d nodes per side", name, cube_n, FB_CASE_MAX_CUBE_N);
    if (cube_n && level >= 0) FB_FAIL(FB_ERR_USAGE, "solve %s: give --level or --cube, not both", name);
    c->level = -1;
    c->ops = fb_case_find(name);
    names_text(0, names, sizeof names);
    if (!c->ops) FB_FAIL(FB_ERR_USAGE, "solve: unknown case '%s' (cases: %s)", name, names);
    c->name = c->ops->name;
    FB_CHECK(c->ops->open(level, cube_n, mesh_path, c));
    names_text(1, names, sizeof names);
    if (mesh_path && !c->ops->mesh_file)
        FB_FAIL(FB_ERR_USAGE, "solve %s: --mesh applies to %s only (this case makes its own mesh)", c->name, names);
fail:
    if (status != FB_OK) fb_case_free(c);
    return status;
}

void fb_case_initial(fb_solve_case *c, fb_ns *ns)
{
    if (c->ops->initial) c->ops->initial(c, ns);
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
    if (c->ops->validate) FB_CHECK(c->ops->validate(c, ns, v));
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
