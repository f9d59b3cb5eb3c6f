/* mesh.c - the generated unit cube, and fb_mesh_read: a mesh file to its
 * reader (gmsh.c, su2.c) by the one format dispatch (format.h). What the
 * readers share is below them, in mesh_build.c. */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"

int fb_mesh_cube_level(int level) { return level >= 0 && level <= 2 ? 14 * (1 << level) + 1 : 0; }

/* Diagonal plus both directions of the 7 edge directions of a Kuhn cell,
 * (1,0,0) ... (1,1,1): a direction d has prod_a (N - d_a) node pairs. */
int64_t fb_mesh_cube_nnz(int64_t n)
{
    int64_t m = n - 1;
    return n * n * n + 2 * (3 * n * n * m + 3 * n * m * m + m * m * m);
}

static int cube_node(int n, int i, int j, int k) { return i + n * (j + n * k); }

/* The 6 tetrahedra of cell (i, j, k): walk from corner 000 to 111 adding
 * the unit steps in each of the 6 axis orders. Odd orders are mirrored
 * images, so two vertices are swapped to keep every volume positive. */
static void cube_cell(int n, int i, int j, int k, int *tet)
{
    static const int order[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int t = 0; t < 6; ++t) {
        int c[3] = {i, j, k};
        tet[4 * t] = cube_node(n, c[0], c[1], c[2]);
        for (int s = 0; s < 3; ++s) {
            c[order[t][s]]++;
            tet[4 * t + 1 + s] = cube_node(n, c[0], c[1], c[2]);
        }
        if (t >= 3) {
            int tmp = tet[4 * t + 1];
            tet[4 * t + 1] = tet[4 * t + 2];
            tet[4 * t + 2] = tmp;
        }
    }
}

fb_status fb_mesh_cube(int n, fb_mesh *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    int64_t nodes = (int64_t)n * n * n, tets = 6 * (int64_t)(n - 1) * (n - 1) * (n - 1);
    if (n < 2) FB_FAIL(FB_ERR_USAGE, "gen:cube:%d: N must be at least 2", n);
    if (nodes > FB_CSR_MAX_DIM || 4 * tets > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_USAGE, "gen:cube:%d: %lld nodes and %lld tetrahedra is too large (32-bit indices)", n,
                (long long)nodes, (long long)tets);
    out->nnodes = (int)nodes;
    out->ntets = (int)tets;
    int64_t ncoords = 3 * nodes, nvertices = 4 * tets;
    FB_ALLOC(out->xyz, ncoords, "cube coordinates");
    FB_ALLOC(out->tets, nvertices, "cube tetrahedra");
    double h = 1.0 / (n - 1);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                int64_t v = cube_node(n, i, j, k);
                out->xyz[3 * v] = i * h;
                out->xyz[3 * v + 1] = j * h;
                out->xyz[3 * v + 2] = k * h;
            }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n - 1; ++k)
        for (int j = 0; j < n - 1; ++j)
            for (int i = 0; i < n - 1; ++i)
                cube_cell(n, i, j, k, out->tets + 24 * (i + (int64_t)(n - 1) * (j + (int64_t)(n - 1) * k)));
    return FB_OK;
fail:
    fb_mesh_free(out);
    return status;
}

fb_status fb_mesh_read(const char *path, fb_mesh *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    switch (fb_file_format_of(path)) {
    case FB_FILE_GMSH: return fb_mesh_read_gmsh(path, out);
    case FB_FILE_SU2: return fb_mesh_read_su2(path, out);
    default: break;
    }
    FB_FAIL(FB_ERR_INPUT, "%s: unknown mesh type (expected .msh or .su2)", path);
fail:
    return status;
}
