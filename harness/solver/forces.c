/* forces.c - surface forces of a P1 flow on boundary faces, and the search
 * for boundary faces (conventions in forces.h). */
#include "solver/forces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void sub3(const double *a, const double *b, double *r)
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The constant velocity gradient of P1 tetrahedron `t`, g[3 i + j] =
 * du_i/dx_j, from the shape-function gradients of fb_tet_gradients (valid
 * for either orientation); 0 if the tetrahedron has zero volume. */
static int tet_gradient(const fb_mesh *m, int t, const double *u, double g[9])
{
    const int *v = m->tets + 4 * (size_t)t;
    double gphi[4][3], vol = fb_tet_gradients(m, t, gphi);
    if (vol == 0.0 || !isfinite(vol)) return 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k)
                s += u[3 * (size_t)v[k] + i] * gphi[k][j];
            g[3 * i + j] = s;
        }
    return 1;
}

fb_status fb_surface_force(const fb_mesh *m, const int *face_nodes, const int *face_tet, int nfaces, const double *u,
                           const double *p, double nu, double f_pressure[3], double f_viscous[3])
{
    fb_status status = FB_OK;
    double fp[3] = {0, 0, 0}, fv[3] = {0, 0, 0};
    for (int f = 0; f < nfaces; ++f) {
        const int *fn = face_nodes + 3 * (size_t)f, t = face_tet[f];
        if (t < 0 || t >= m->ntets)
            FB_FAIL(FB_ERR_INPUT, "surface force: face %d: owner tetrahedron %d out of range [0, %d)", f, t, m->ntets);
        for (int k = 0; k < 3; ++k)
            if (fn[k] < 0 || fn[k] >= m->nnodes)
                FB_FAIL(FB_ERR_INPUT, "surface force: face %d: node %d out of range [0, %d)", f, fn[k], m->nnodes);
        if (fn[0] == fn[1] || fn[1] == fn[2] || fn[0] == fn[2])
            FB_FAIL(FB_ERR_INPUT, "surface force: face %d: repeated node (%d %d %d)", f, fn[0], fn[1], fn[2]);
        /* the owner's fourth node, the one not on the face, tells which
         * side is the fluid */
        const int *v = m->tets + 4 * (size_t)t;
        int on_face = 0, opposite = -1;
        for (int k = 0; k < 4; ++k) {
            if (v[k] == fn[0] || v[k] == fn[1] || v[k] == fn[2])
                ++on_face;
            else
                opposite = v[k];
        }
        if (on_face != 3 || opposite < 0)
            FB_FAIL(FB_ERR_INPUT, "surface force: face %d: nodes (%d %d %d) are not a face of its tetrahedron %d", f,
                    fn[0], fn[1], fn[2], t);
        const double *x0 = m->xyz + 3 * (size_t)fn[0];
        double e1[3], e2[3], eo[3], s[3], g[9];
        sub3(m->xyz + 3 * (size_t)fn[1], x0, e1);
        sub3(m->xyz + 3 * (size_t)fn[2], x0, e2);
        sub3(m->xyz + 3 * (size_t)opposite, x0, eo);
        cross3(e1, e2, s);
        double side = dot3(s, eo), sign = side > 0.0 ? -0.5 : 0.5; /* S = A n, n away from the opposite node */
        if (side == 0.0 || !tet_gradient(m, t, u, g))
            FB_FAIL(FB_ERR_INPUT, "surface force: face %d: its tetrahedron %d has zero volume", f, t);
        for (int k = 0; k < 3; ++k)
            s[k] *= sign;
        double pm = (p[fn[0]] + p[fn[1]] + p[fn[2]]) / 3.0;
        for (int i = 0; i < 3; ++i) {
            double tn = 0.0; /* (tau n A)_i */
            for (int j = 0; j < 3; ++j)
                tn += nu * (g[3 * i + j] + g[3 * j + i]) * s[j];
            fp[i] += pm * s[i];
            fv[i] -= tn;
        }
    }
    for (int i = 0; i < 3; ++i)
        f_pressure[i] = fp[i], f_viscous[i] = fv[i];
fail:
    return status;
}

void fb_force_coefficients(const double f[3], double rho, double U, double area, double *cd, double *cl)
{
    double q = 0.5 * rho * U * U * area;
    if (cd) *cd = f[0] / q;
    if (cl) *cl = f[2] / q;
}

/* ---- boundary faces ---------------------------------------------------- */

typedef struct face_key {
    int n[3]; /* sorted node numbers */
    int tet, local;
} face_key;

static int face_key_cmp(const void *pa, const void *pb)
{
    const face_key *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->n[k] != b->n[k]) return a->n[k] < b->n[k] ? -1 : 1;
    return 0;
}

fb_status fb_mesh_boundary_faces(const fb_mesh *m, int **face_nodes, int **face_tet, int *nfaces)
{
    fb_status status = FB_OK;
    face_key *keys = NULL;
    int *fnodes = NULL, *ftet = NULL;
    const size_t nk = 4 * (size_t)m->ntets;
    FB_ALLOC(keys, nk, "the face keys");
    for (int t = 0; t < m->ntets; ++t)
        for (int l = 0; l < 4; ++l) {
            face_key *k = keys + 4 * (size_t)t + l;
            int a = m->tets[4 * (size_t)t + (l + 1) % 4], b = m->tets[4 * (size_t)t + (l + 2) % 4],
                c = m->tets[4 * (size_t)t + (l + 3) % 4], x;
            if (a > b) x = a, a = b, b = x;
            if (b > c) x = b, b = c, c = x;
            if (a > b) x = a, a = b, b = x;
            k->n[0] = a, k->n[1] = b, k->n[2] = c, k->tet = t, k->local = l;
        }
    qsort(keys, nk, sizeof *keys, face_key_cmp);
    size_t count = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i + 1;
        while (j < nk && face_key_cmp(keys + i, keys + j) == 0)
            ++j;
        if (j - i > 2)
            FB_FAIL(FB_ERR_INPUT, "boundary faces: face (%d %d %d) belongs to %zu tetrahedra (non-manifold mesh)",
                    keys[i].n[0], keys[i].n[1], keys[i].n[2], j - i);
        if (j - i == 1) keys[count++] = keys[i]; /* compact in place: count <= i */
        i = j;
    }
    const size_t nnodes_out = 3 * count; /* a product inside FB_ALLOC's test trips -Wint-in-bool-context */
    FB_ALLOC(fnodes, nnodes_out, "the boundary face nodes");
    FB_ALLOC(ftet, count, "the boundary face owners");
    for (size_t f = 0; f < count; ++f) {
        const int *v = m->tets + 4 * (size_t)keys[f].tet;
        int a = keys[f].n[0], b = keys[f].n[1], c = keys[f].n[2], o = v[keys[f].local];
        double e1[3], e2[3], eo[3], s[3];
        sub3(m->xyz + 3 * (size_t)b, m->xyz + 3 * (size_t)a, e1);
        sub3(m->xyz + 3 * (size_t)c, m->xyz + 3 * (size_t)a, e2);
        sub3(m->xyz + 3 * (size_t)o, m->xyz + 3 * (size_t)a, eo);
        cross3(e1, e2, s);
        if (dot3(s, eo) > 0.0) b = keys[f].n[2], c = keys[f].n[1]; /* the normal must point away from the owner */
        fnodes[3 * f] = a, fnodes[3 * f + 1] = b, fnodes[3 * f + 2] = c;
        ftet[f] = keys[f].tet;
    }
    *face_nodes = fnodes, *face_tet = ftet, *nfaces = (int)count;
    fnodes = NULL, ftet = NULL;
fail:
    free(keys);
    free(fnodes);
    free(ftet);
    return status;
}
