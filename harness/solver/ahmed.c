/* ahmed.c - the Ahmed body case's face classification and exact measures
 * (geometry and conventions in ahmed.h and cases/ahmed.geo). */
#include "solver/ahmed.h"

#include <math.h>

/* Tunnel faces are on exact planes (gmsh writes 16 significant digits), so
 * the tolerance only has to absorb rounding; the body never comes within
 * FB_AHMED_CLEARANCE of a tunnel plane. */
#define PLANE_TOL (1e-6 * (FB_AHMED_X_OUT - FB_AHMED_X_IN))
#define NORMAL_MIN 0.999

static int on_plane(const double *c, const double *n, int axis, double value)
{
    return fabs(c[axis] - value) <= PLANE_TOL && fabs(n[axis]) > NORMAL_MIN;
}

int fb_ahmed_face_tag(const double centroid[3], const double unit_normal[3])
{
    if (on_plane(centroid, unit_normal, 0, FB_AHMED_X_IN)) return FB_AHMED_INLET;
    if (on_plane(centroid, unit_normal, 0, FB_AHMED_X_OUT)) return FB_AHMED_OUTLET;
    if (on_plane(centroid, unit_normal, 2, 0.0)) return FB_AHMED_GROUND;
    if (on_plane(centroid, unit_normal, 2, FB_AHMED_TOP) || on_plane(centroid, unit_normal, 1, FB_AHMED_HALF_SPAN) ||
        on_plane(centroid, unit_normal, 1, -FB_AHMED_HALF_SPAN))
        return FB_AHMED_SLIP;
    return FB_AHMED_BODY;
}

const char *fb_ahmed_tag_name(int tag)
{
    switch (tag) {
    case FB_AHMED_INLET: return "inlet";
    case FB_AHMED_OUTLET: return "outlet";
    case FB_AHMED_GROUND: return "ground";
    case FB_AHMED_SLIP: return "slip";
    case FB_AHMED_BODY: return "body";
    default: return "?";
    }
}

/* For 0 <= x <= R behind the nose the cross-section is the W x H rectangle
 * shrunk on every side by delta = R - sqrt(R^2 - (R - x)^2) (the rounded
 * corners of the side and top views); the roof ends in the slant, a
 * triangle of legs S cos(theta), S sin(theta) cut from each side. The
 * rounded part's areas follow from the arc parametrisation x = R (1 - cos
 * phi), delta = R (1 - sin phi), ds = R dphi. */
double fb_ahmed_body_area(void)
{
    const double L = FB_AHMED_LENGTH, W = FB_AHMED_WIDTH, H = FB_AHMED_HEIGHT, R = FB_AHMED_FRONT_RADIUS;
    const double S = FB_AHMED_SLANT_LENGTH, th = FB_AHMED_SLANT_DEGREES * M_PI / 180.0;
    const double xs = L - S * cos(th);                       /* where the slant leaves the roof */
    double front = (W - 2 * R) * (H - 2 * R);                /* the flat nose */
    double rounded = M_PI * R * (W + H - 4 * R) + 8 * R * R; /* the four quarter-cylinder strips */
    double roof = (xs - R) * W, floor_ = (L - R) * W;        /* flat top and bottom */
    double sides = 2 * (H * (L - R) - 0.5 * S * S * sin(th) * cos(th));
    double base = W * (H - S * sin(th)), slant = W * S;
    return front + rounded + roof + floor_ + sides + base + slant;
}

double fb_ahmed_body_volume(void)
{
    const double L = FB_AHMED_LENGTH, W = FB_AHMED_WIDTH, H = FB_AHMED_HEIGHT, R = FB_AHMED_FRONT_RADIUS;
    const double S = FB_AHMED_SLANT_LENGTH, th = FB_AHMED_SLANT_DEGREES * M_PI / 180.0;
    /* integral over the rounded front of (W - 2 delta)(H - 2 delta), using
     * int delta = R^2 (1 - pi/4) and int delta^2 = R^3 (5/3 - pi/2) */
    double front = W * H * R - 2 * (W + H) * R * R * (1 - M_PI / 4) + 4 * R * R * R * (5.0 / 3.0 - M_PI / 2);
    return front + W * H * (L - R) - W * 0.5 * S * S * sin(th) * cos(th);
}
