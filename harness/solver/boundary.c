/* boundary.c - boundary faces, their conditions, and the per-node
 * classification the solver's time loop reads (priorities in boundary.h). */
#include "solver/boundary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/forces.h"

const char *fb_bc_kind_name(fb_bc_kind k)
{
    static const char *names[FB_BC_NKINDS] = {"free", "outlet", "slip", "velocity", "wall"};
    return (int)k >= 0 && k < FB_BC_NKINDS ? names[k] : "?";
}

void fb_face_geometry(const fb_mesh *m, const int *f, double centroid[3], double area[3])
{
    const double *x0 = m->xyz + 3 * (int64_t)f[0], *x1 = m->xyz + 3 * (int64_t)f[1], *x2 = m->xyz + 3 * (int64_t)f[2];
    double a[3], b[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = x1[k] - x0[k];
        b[k] = x2[k] - x0[k];
        centroid[k] = (x0[k] + x1[k] + x2[k]) / 3.0;
    }
    area[0] = 0.5 * (a[1] * b[2] - a[2] * b[1]);
    area[1] = 0.5 * (a[2] * b[0] - a[0] * b[2]);
    area[2] = 0.5 * (a[0] * b[1] - a[1] * b[0]);
}

/* Face kinds, nodal kinds by priority, normals. */
static fb_status classify(const fb_mesh *m, fb_face_tag_fn tag, void *ctx, fb_boundary *b)
{
    fb_status status = FB_OK;
    for (int f = 0; f < b->nfaces; ++f) {
        const int *fn = b->face_nodes + 3 * (int64_t)f;
        double c[3], s[3], n[3];
        fb_face_geometry(m, fn, c, s);
        double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        for (int k = 0; k < 3; ++k)
            n[k] = s[k] / len;
        fb_bc_kind kind = tag(ctx, c, n);
        if (kind < FB_BC_OUTLET || kind > FB_BC_WALL)
            FB_FAIL(FB_ERR_INPUT, "boundary face at (%g, %g, %g), normal (%g, %g, %g): no boundary condition given",
                    c[0], c[1], c[2], n[0], n[1], n[2]);
        b->face_kind[f] = (unsigned char)kind;
        for (int a = 0; a < 3; ++a) {
            int i = fn[a];
            if (kind > b->kind[i]) b->kind[i] = (unsigned char)kind;
            if (kind == FB_BC_OUTLET) b->p_fixed[i] = 1;
            for (int k = 0; k < 3; ++k) {
                b->normal[3 * (int64_t)i + k] += s[k] / 3.0;
                if (kind == FB_BC_SLIP) b->slip_normal[3 * (int64_t)i + k] += s[k] / 3.0;
            }
        }
    }
fail:
    return status;
}

static fb_status make_lists(fb_boundary *b)
{
    fb_status status = FB_OK;
    int nf = 0, ns = 0, np = 0;
    for (int i = 0; i < b->nnodes; ++i) {
        b->count[b->kind[i]]++;
        nf += b->kind[i] == FB_BC_WALL || b->kind[i] == FB_BC_VELOCITY;
        ns += b->kind[i] == FB_BC_SLIP;
        np += b->p_fixed[i];
    }
    FB_ALLOC(b->fixed, nf, "fixed-velocity nodes");
    FB_ALLOC(b->slip, ns, "slip nodes");
    FB_ALLOC(b->pfixed_list, np, "fixed-pressure nodes");
    for (int i = 0; i < b->nnodes; ++i) {
        if (b->kind[i] == FB_BC_WALL || b->kind[i] == FB_BC_VELOCITY) b->fixed[b->nfixed++] = i;
        if (b->kind[i] == FB_BC_SLIP) {
            double *n = b->slip_normal + 3 * (int64_t)i, len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int k = 0; k < 3; ++k)
                n[k] /= len;
            b->slip[b->nslip++] = i;
        } else {
            memset(b->slip_normal + 3 * (int64_t)i, 0, 3 * sizeof(double));
        }
        if (b->p_fixed[i]) b->pfixed_list[b->npfixed++] = i;
    }
fail:
    return status;
}

fb_status fb_boundary_build(const fb_mesh *m, fb_face_tag_fn tag, void *ctx, fb_boundary *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    out->nnodes = m->nnodes;
    out->p_ref = -1;
    FB_CHECK(fb_mesh_boundary_faces(m, &out->face_nodes, &out->face_tet, &out->nfaces));
    FB_ALLOC(out->face_kind, out->nfaces, "boundary face kinds");
    const int64_t n3 = 3 * (int64_t)m->nnodes;
    FB_ALLOC(out->normal, n3, "nodal normals");
    FB_ALLOC(out->slip_normal, n3, "slip normals");
    FB_ALLOC(out->kind, m->nnodes, "node kinds");
    FB_ALLOC(out->p_fixed, m->nnodes, "fixed-pressure flags");
    FB_CHECK(classify(m, tag, ctx, out));
    FB_CHECK(make_lists(out));
fail:
    if (status != FB_OK) fb_boundary_free(out);
    return status;
}

fb_status fb_boundary_set_pressure_reference(fb_boundary *b, int node)
{
    fb_status status = FB_OK;
    if (node < 0 || node >= b->nnodes) FB_FAIL(FB_ERR_INPUT, "pressure reference: node %d is not in the mesh", node);
    if (b->npfixed > 0) FB_FAIL(FB_ERR_INPUT, "pressure reference: the pressure is already fixed on the boundary");
    b->p_ref = node;
fail:
    return status;
}

void fb_boundary_free(fb_boundary *b)
{
    void *arrays[] = {b->face_nodes, b->face_tet,    b->face_kind, b->normal, b->kind,
                      b->p_fixed,    b->slip_normal, b->fixed,     b->slip,   b->pfixed_list};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; ++k)
        free(arrays[k]);
    memset(b, 0, sizeof *b);
}
