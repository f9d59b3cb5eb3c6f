/* ahmed.h - the Ahmed body case: the geometry of cases/ahmed.geo (keep the
 * two in step), the reference values that turn forces into drag and lift
 * coefficients, and the classification of boundary faces, which the solver
 * needs because flowbench's mesh reader drops gmsh's physical groups.
 *
 * Geometry from S. R. Ahmed, G. Ramm and G. Faltin, SAE Technical Paper
 * 840300 (1984), 25 degree rear slant, in metres: x downstream, y spanwise
 * (the body symmetric about y = 0), z up from the ground z = 0. The nose is
 * at x = 0. The front is the intersection of a side view and a top view
 * with R = 0.100 corners; the four stilts are omitted (see cases/ahmed.geo).
 *
 * Units and reference values: SI. The free stream is U = 40 m/s along +x
 * and the kinematic viscosity is chosen so that the Reynolds number on the
 * body length is the experiment's order, Re = U L / nu = 4e6 (so nu =
 * 1.044e-5 m^2/s, not air's 1.5e-5: the Reynolds number is what matters).
 * Density 1: the solver's pressures are kinematic. Coefficients use the
 * frontal area W x H = 0.112 m^2: cd = F_x / (U^2 A / 2). */
#ifndef FB_SOLVER_AHMED_H
#define FB_SOLVER_AHMED_H

/* The body. */
#define FB_AHMED_LENGTH 1.044
#define FB_AHMED_WIDTH 0.389
#define FB_AHMED_HEIGHT 0.288
#define FB_AHMED_FRONT_RADIUS 0.100
#define FB_AHMED_SLANT_LENGTH 0.222 /* along the slant */
#define FB_AHMED_SLANT_DEGREES 25.0
#define FB_AHMED_CLEARANCE 0.050 /* body bottom above the ground */

/* The tunnel: x in [X_IN, X_OUT] (3 body lengths upstream of the nose,
 * 5 downstream of the base), y in [-HALF_SPAN, HALF_SPAN], z in [0, TOP]. */
#define FB_AHMED_X_IN (-3.0 * FB_AHMED_LENGTH)
#define FB_AHMED_X_OUT (6.0 * FB_AHMED_LENGTH)
#define FB_AHMED_HALF_SPAN 1.0
#define FB_AHMED_TOP 1.5

/* Reference values (see the header comment). */
#define FB_AHMED_FRONTAL_AREA (FB_AHMED_WIDTH * FB_AHMED_HEIGHT)
#define FB_AHMED_U_REF 40.0
#define FB_AHMED_REYNOLDS 4.0e6
#define FB_AHMED_NU (FB_AHMED_U_REF * FB_AHMED_LENGTH / FB_AHMED_REYNOLDS)

/* Boundary kinds; 0 is left free for "not a boundary". */
enum fb_ahmed_tag {
    FB_AHMED_INLET = 1, /* x = X_IN: u = (U, 0, 0) */
    FB_AHMED_OUTLET,    /* x = X_OUT: p = 0 */
    FB_AHMED_GROUND,    /* z = 0 */
    FB_AHMED_SLIP,      /* z = TOP and y = +-HALF_SPAN: no normal velocity */
    FB_AHMED_BODY       /* everything else: no slip */
};

/* The kind of a boundary face, from its centroid and unit normal (either
 * sign): a tunnel plane's kind if the centroid lies on that plane within
 * 1e-6 of the tunnel length and the normal is within about 2.5 degrees of
 * the plane's normal (|n . e| > 0.999), else FB_AHMED_BODY. */
int fb_ahmed_face_tag(const double centroid[3], const double unit_normal[3]);

/* "inlet", "outlet", "ground", "slip", "body"; "?" for anything else. */
const char *fb_ahmed_tag_name(int tag);

/* The exact surface area and volume of the body described above, for
 * checking meshes (the mesh's triangles cut the rounded front's chords,
 * so a mesh's area is a little smaller). */
double fb_ahmed_body_area(void);
double fb_ahmed_body_volume(void);

#endif
