/* test_ahmed.c - the Ahmed body case (cases/ahmed.geo, scripts/mesh-ahmed.sh,
 * solver/ahmed.h). The classification on hand-placed faces; then a coarse
 * mesh made by the script (size factor 4, under a second; skipped with the
 * reason when gmsh is not on PATH) read by flowbench's reader:
 *  - every boundary face gets a tag, and every tag has faces;
 *  - inlet and outlet are each the tunnel cross-section, ground the floor,
 *    slip the top and two sides (flat: to rounding, 1e-9 relative);
 *  - the body's surface is closed (its area vectors sum to zero);
 *  - the body's frontal (x-projected) area is W x H = 0.112 m^2 to rounding,
 *    because its outline is the sharp long edges, which the mesh follows
 *    exactly; it is half the sum of |n_x| A over the closed surface;
 *  - the body's area is the exact one within 1%: triangles cut the chords
 *    of the rounded front (0.167 m^2 of the 1.53 m^2), whose arcs of radius
 *    0.1 get about 3 chords per quarter at this size, each 1 - sin(pi/12) /
 *    (pi/12) = 1.1% shorter than its arc: 0.12% overall (0.15% measured);
 *  - tunnel volume minus the mesh volume is the body's exact volume within
 *    1% (the same chord loss, on a body of 0.111 m^3). */
#include "test_matrix_util.h"

#include <math.h>
#include <unistd.h>

#include "matrix/mesh.h"
#include "solver/ahmed.h"
#include "solver/cases.h"
#include "solver/forces.h"

static void test_tags_by_hand(void **state)
{
    (void)state;
    const double ex[3] = {1, 0, 0}, mex[3] = {-1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    const double in[3] = {FB_AHMED_X_IN, 0.3, 0.7}, out[3] = {FB_AHMED_X_OUT, -0.2, 1.1};
    const double floor_[3] = {2.0, 0.5, 0.0}, top[3] = {0.0, 0.0, FB_AHMED_TOP};
    const double side[3] = {4.0, -FB_AHMED_HALF_SPAN, 0.2}, nose[3] = {0.0, 0.0, 0.2};
    const double base[3] = {FB_AHMED_LENGTH, 0.0, 0.1}, under[3] = {0.5, 0.0, FB_AHMED_CLEARANCE};
    assert_int_equal(fb_ahmed_face_tag(in, mex), FB_AHMED_INLET);
    assert_int_equal(fb_ahmed_face_tag(in, ex), FB_AHMED_INLET); /* either sign */
    assert_int_equal(fb_ahmed_face_tag(out, ex), FB_AHMED_OUTLET);
    assert_int_equal(fb_ahmed_face_tag(floor_, ez), FB_AHMED_GROUND);
    assert_int_equal(fb_ahmed_face_tag(top, ez), FB_AHMED_SLIP);
    assert_int_equal(fb_ahmed_face_tag(side, ey), FB_AHMED_SLIP);
    assert_int_equal(fb_ahmed_face_tag(nose, mex), FB_AHMED_BODY);
    assert_int_equal(fb_ahmed_face_tag(base, ex), FB_AHMED_BODY);
    assert_int_equal(fb_ahmed_face_tag(under, ez), FB_AHMED_BODY);
    /* on the inlet plane but not facing along x: not an inlet face */
    assert_int_equal(fb_ahmed_face_tag(in, ez), FB_AHMED_BODY);
    assert_string_equal(fb_ahmed_tag_name(FB_AHMED_SLIP), "slip");
    assert_string_equal(fb_ahmed_tag_name(0), "?");
}

/* The exact measures against an independent midpoint-rule integration of
 * the rounded front's cross-sections (the rest is prisms). */
static void test_exact_measures(void **state)
{
    (void)state;
    const double W = FB_AHMED_WIDTH, H = FB_AHMED_HEIGHT, R = FB_AHMED_FRONT_RADIUS, L = FB_AHMED_LENGTH;
    const double th = FB_AHMED_SLANT_DEGREES * M_PI / 180.0, S = FB_AHMED_SLANT_LENGTH;
    const int n = 200000;
    double vol = 0.0, area = 0.0;
    for (int i = 0; i < n; ++i) {
        double x0 = R * i / n, x1 = R * (i + 1.0) / n, xm = 0.5 * (x0 + x1);
        double d = R - sqrt(R * R - (R - xm) * (R - xm));
        double d0 = R - sqrt(R * R - (R - x0) * (R - x0)), d1 = R - sqrt(R * R - (R - x1) * (R - x1));
        vol += (W - 2 * d) * (H - 2 * d) * (x1 - x0);
        /* lateral area: perimeter times the slant height of the shrinking band */
        area += 2 * ((W - 2 * d) + (H - 2 * d)) * hypot(x1 - x0, d1 - d0);
    }
    area += (W - 2 * R) * (H - 2 * R); /* flat nose */
    double xs = L - S * cos(th), tri = 0.5 * S * S * sin(th) * cos(th);
    vol += W * H * (L - R) - W * tri;
    area += W * (xs - R) + W * (L - R) + 2 * (H * (L - R) - tri) + W * (H - S * sin(th)) + W * S;
    if (fabs(vol - fb_ahmed_body_volume()) > 1e-8)
        fail_msg("volume %.10g, integrated %.10g", fb_ahmed_body_volume(), vol);
    if (fabs(area - fb_ahmed_body_area()) > 1e-6) fail_msg("area %.10g, integrated %.10g", fb_ahmed_body_area(), area);
}

static double tet_volume(const fb_mesh *m, int t)
{
    const int *v = m->tets + 4 * t;
    const double *o = m->xyz + 3 * v[0];
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k)
        a[k] = m->xyz[3 * v[1] + k] - o[k], b[k] = m->xyz[3 * v[2] + k] - o[k], c[k] = m->xyz[3 * v[3] + k] - o[k];
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6.0;
}

static void check_near(const char *what, double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want)) fail_msg("%s: %.10g, want %.10g (within %g)", what, got, want, rel);
}

static void test_coarse_mesh(void **state)
{
    (void)state;
    if (system("command -v gmsh > /dev/null 2>&1") != 0) {
        print_message("gmsh is not on PATH (scripts/setup.sh installs it): the Ahmed mesh checks are skipped\n");
        skip();
    }
    char path[] = "/tmp/flowbench-ahmed-XXXXXX.msh", cmd[4096];
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "'%s/scripts/mesh-ahmed.sh' '%s' 4", repo_root(), path);
    if (system(cmd) != 0) {
        unlink(path);
        fail_msg("%s failed", cmd);
    }
    fb_mesh m;
    fb_status st = fb_mesh_read(path, &m);
    unlink(path);
    if (st != FB_OK) fail_msg("reading the coarse Ahmed mesh: %s", fb_error_message());

    double mesh_volume = 0.0;
    for (int t = 0; t < m.ntets; ++t) {
        double v = tet_volume(&m, t);
        assert_true(fabs(v) > 0.0);
        mesh_volume += fabs(v);
    }

    int *fn, *ft, nf;
    assert_int_equal(fb_mesh_boundary_faces(&m, &fn, &ft, &nf), FB_OK);
    int count[6] = {0};
    double area[6] = {0}, body_vec[3] = {0}, body_absx = 0.0;
    for (int f = 0; f < nf; ++f) {
        const double *a = m.xyz + 3 * fn[3 * f], *b = m.xyz + 3 * fn[3 * f + 1], *c = m.xyz + 3 * fn[3 * f + 2];
        double e1[3], e2[3], s[3], cen[3], un[3];
        for (int k = 0; k < 3; ++k)
            e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], cen[k] = (a[k] + b[k] + c[k]) / 3.0;
        s[0] = 0.5 * (e1[1] * e2[2] - e1[2] * e2[1]);
        s[1] = 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]);
        s[2] = 0.5 * (e1[0] * e2[1] - e1[1] * e2[0]);
        double A = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        assert_true(A > 0.0);
        for (int k = 0; k < 3; ++k)
            un[k] = s[k] / A;
        int tag = fb_ahmed_face_tag(cen, un);
        assert_true(tag >= FB_AHMED_INLET && tag <= FB_AHMED_BODY);
        ++count[tag];
        area[tag] += A;
        if (tag == FB_AHMED_BODY) {
            for (int k = 0; k < 3; ++k)
                body_vec[k] += s[k];
            body_absx += fabs(s[0]);
        }
    }
    for (int tag = FB_AHMED_INLET; tag <= FB_AHMED_BODY; ++tag)
        if (count[tag] == 0) fail_msg("no %s faces", fb_ahmed_tag_name(tag));
    const double len = FB_AHMED_X_OUT - FB_AHMED_X_IN, span = 2 * FB_AHMED_HALF_SPAN;
    check_near("inlet area", area[FB_AHMED_INLET], span * FB_AHMED_TOP, 1e-9);
    check_near("outlet area", area[FB_AHMED_OUTLET], span * FB_AHMED_TOP, 1e-9);
    check_near("ground area", area[FB_AHMED_GROUND], len * span, 1e-9);
    check_near("slip area", area[FB_AHMED_SLIP], len * span + 2 * len * FB_AHMED_TOP, 1e-9);
    for (int k = 0; k < 3; ++k)
        if (fabs(body_vec[k]) > 1e-12) fail_msg("the body's area vectors sum to %g along %d", body_vec[k], k);
    check_near("body frontal area", 0.5 * body_absx, FB_AHMED_FRONTAL_AREA, 1e-9);
    check_near("body surface area", area[FB_AHMED_BODY], fb_ahmed_body_area(), 0.01);
    check_near("body volume", len * span * FB_AHMED_TOP - mesh_volume, fb_ahmed_body_volume(), 0.01);
    print_message("coarse Ahmed mesh: %d nodes, %d tetrahedra, %d boundary faces (%d on the body); body area %.5f "
                  "(exact %.5f), volume %.5f (exact %.5f)\n",
                  m.nnodes, m.ntets, nf, count[FB_AHMED_BODY], area[FB_AHMED_BODY], fb_ahmed_body_area(),
                  len * span * FB_AHMED_TOP - mesh_volume, fb_ahmed_body_volume());
    free(fn);
    free(ft);
    fb_mesh_free(&m);
}

/* The tunnel without the body (a 3 x 3 x 3 grid of nodes, 6 tetrahedra a
 * cell, gmsh 2.2) into a new file named in path; with `flat`, one more
 * tetrahedron of zero volume inside it (4 coplanar nodes). */
static void write_tunnel(char *path, int flat)
{
    static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    int fd = mkstemps(path, 4), e = 0;
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", flat ? 31 : 27);
    for (int v = 0; v < 27; ++v)
        fprintf(f, "%d %.6f %.6f %.6f\n", v + 1, FB_AHMED_X_IN + (FB_AHMED_X_OUT - FB_AHMED_X_IN) * (v % 3) / 2.0,
                FB_AHMED_HALF_SPAN * ((v / 3) % 3 - 1), FB_AHMED_TOP * (v / 9) / 2.0);
    if (flat) fprintf(f, "28 0 0 0.5\n29 0.1 0 0.5\n30 0 0.1 0.5\n31 0.1 0.1 0.5\n");
    fprintf(f, "$EndNodes\n$Elements\n%d\n", flat ? 49 : 48);
    for (int cell = 0; cell < 8; ++cell)
        for (int t = 0; t < 6; ++t) {
            fprintf(f, "%d 4 2 1 1", ++e);
            for (int q = 0; q < 4; ++q) /* corner q of the cell: +1 in x, +3 in y, +9 in z */
                fprintf(f, " %d",
                        1 + (cell & 1) + 3 * (cell >> 1 & 1) + 9 * (cell >> 2) + (kuhn[t][q] & 1) +
                            3 * (kuhn[t][q] >> 1 & 1) + 9 * (kuhn[t][q] >> 2));
            fprintf(f, "\n");
        }
    if (flat) fprintf(f, "49 4 2 1 1 28 29 30 31\n");
    fprintf(f, "$EndElements\n");
    assert_int_equal(fclose(f), 0);
}

/* A mesh the case cannot run is refused when it is opened, naming the
 * file: the empty tunnel has inlet and outlet faces but no body face (its
 * drag and lift would read 0); a zero-volume tetrahedron (the body's faces
 * now: its own) was refused later without the file's name. */
static void test_meshes_refused_naming_the_file(void **state)
{
    (void)state;
    static const char *const why[2] = {"no body faces to integrate forces over",
                                       "tetrahedron #49 (in file order) has zero volume: corners (0,0,0.5)"};
    for (int flat = 0; flat < 2; ++flat) {
        char path[] = "/tmp/flowbench-tunnel-XXXXXX.msh", want[256];
        fb_solve_case c;
        write_tunnel(path, flat);
        assert_int_equal(fb_case_open("ahmed", 0, path, &c), FB_ERR_INPUT);
        snprintf(want, sizeof want, "solve ahmed: %s: %s", path, why[flat]);
        if (!strstr(fb_error_message(), want)) fail_msg("want '%s' in: %s", want, fb_error_message());
        unlink(path); /* the case freed itself on the refusal */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_by_hand),
        cmocka_unit_test(test_exact_measures),
        cmocka_unit_test(test_coarse_mesh),
        cmocka_unit_test(test_meshes_refused_naming_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
