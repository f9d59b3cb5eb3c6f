/* fv_surface.h - the fv-surface benchmark family: one residual evaluation
 * R(U) of the 3D Euler equations (Rusanov flux, periodic Cartesian grid,
 * 5 conservative variables per cell) by the surface kernels of
 * kernels/grid/fv_surface.cl, in three flux distributions (per-side passes,
 * atomics, per-cell gather) x three cell layouts (AoS, SoA, AoSoA) x an
 * occupancy cap (work-group size, reserved local memory).
 *
 * Problems are grid specs "grid:NXxNYxNZ". Every run is checked against
 * the serial double-precision reference computed in the same face order:
 * bit for bit for passes and gather in double on openmp and opencl, within
 * a tolerance elsewhere (docs/grid-studies.md).
 */
#ifndef FB_FV_SURFACE_H
#define FB_FV_SURFACE_H

#include <jansson.h>

#include "backends/target.h"
#include "core/measure.h"
#include "bench/family.h"
#include "core/params.h"

#define FB_FV_SOURCE "grid/fv_surface.cl"
#define FV_NVAR 5
#define FV_MAX_CELLS (1 << 25) /* 3 N faces x 5 values stay within 32-bit indices */

typedef enum fb_fv_kernel_id { FB_FV_PASSES, FB_FV_ATOMIC, FB_FV_GATHER, FB_FV_KERNEL_COUNT } fb_fv_kernel_id;

/* The axes of every kernel, in this order (fb_param_point.values[i]). */
enum { FB_FV_LAYOUT, FB_FV_AOSOA_BLOCK, FB_FV_WG_SIZE, FB_FV_LOCAL_RESERVE, FB_FV_NPARAMS };

typedef struct fb_fv_kernel {
    const char *name; /* "fv-passes" */
    const char *summary;
    int deterministic;                   /* the additions into a cell happen in the reference's order */
    fb_param_axis params[FB_MAX_PARAMS]; /* the FB_FV_NPARAMS axes (then a user kernel's own) */
    int nparams;
    fb_fv_kernel_id strategy; /* the flux distribution: its launches and its model */
    /* A user's kernel file (bench/user_kernel.h) in its template's row: it
     * replaces the strategy's flux kernel (fv_pass, fv_face_atomic,
     * fv_surface); fv_zero and fv_gather stay the family's. NULL for a
     * built-in. */
    const char *source, *source_text;
    const struct fb_user_kernel *user;
} fb_fv_kernel;

extern const fb_fv_kernel fb_fv_kernels[FB_FV_KERNEL_COUNT];

/* Kernel i of the family: a built-in (i < FB_FV_KERNEL_COUNT), then the
 * user kernels registered so far; NULL past them. */
const fb_fv_kernel *fb_fv_kernel_at(int i);
int fb_fv_kernel_total(void);

/* A grid and its initial field: a smooth periodic flow with positive
 * density and pressure, AoS doubles U[c * 5 + v]. */
typedef struct fb_fv_grid {
    char spec[64];
    int nx, ny, nz;
    int cells;
    double area[3]; /* face areas: dy dz, dx dz, dx dy on the unit cube */
    double *U;      /* cells x 5 */
    unsigned long long hash;
    json_t *json; /* {name, spec, nx, ny, nz, cells, hash} */
} fb_fv_grid;

/* Parses "grid:NXxNYxNZ" strictly (each 1..4096, at most FV_MAX_CELLS
 * cells) and builds the field. FB_ERR_USAGE naming the spec and the fault. */
fb_status fb_fv_grid_open(const char *spec, fb_fv_grid **out);
/* The spec's syntax and ranges alone (nothing built): FB_ERR_USAGE naming it. */
fb_status fb_fv_grid_parse(const char *spec);
void fb_fv_grid_close(fb_fv_grid *g);

typedef struct fb_fv_config {
    int kernel; /* fb_fv_kernel_id */
    fb_param_point point;
    int is_double;
    fb_measure_config measure;
} fb_fv_config;

fb_param_point fb_fv_default_point(void);

/* Per-cell model of one residual evaluation (see fv_surface.cl's header). */
typedef struct fb_fv_model {
    double flops;       /* one flux per face + the accumulation */
    double min_bytes;   /* U read once, R written once */
    double moved_bytes; /* what this variant moves with perfect reuse within a launch */
} fb_fv_model;

/* kernel: the strategy (fb_fv_kernel_id), whose launches decide the bytes moved. */
fb_fv_model fb_fv_model_of(int kernel, int cells, int real_bytes);

typedef struct fb_fv_result {
    fb_measurement m;
    fb_fv_model model;
    double gflops, gbs, ns_per_cell;
    double rel_error; /* max |R - ref| / max over cells of sum |face terms| */
    double tolerance; /* 0 where bitwise equality is claimed */
    int bitwise;      /* R equals the reference bit for bit */
    int checked_ok;
    fb_launch launch; /* geometry of the main (flux) kernel */
    int has_resources;
    fb_kernel_resources resources; /* of the main kernel: local_bytes shows the reservation */
    double *R;                     /* the result, AoS doubles (malloc'd) */
} fb_fv_result;

/* "aos", "soa", "aosoa8". */
void fb_fv_layout_name(const fb_param_point *p, char *out, size_t len);

/* Why this configuration cannot run here (FB_ERR_USAGE naming the
 * parameter; FB_ERR_UNAVAILABLE for a missing capability), or FB_OK. */
fb_status fb_fv_check_point(const fb_fv_grid *g, const fb_fv_config *cfg, const fb_device_info *dev);

/* Uploads, builds, measures, checks. FB_ERR_CHECK if R is wrong (result filled). */
fb_status fb_fv_run(fb_target *t, const fb_fv_grid *g, const fb_fv_config *cfg, fb_fv_result *out);
void fb_fv_result_free(fb_fv_result *r);

/* The serial reference: R and S = sum over faces of |flux x area| per
 * cell and variable, AoS doubles, from the AoS field U (in double). */
void fb_fv_reference(const fb_fv_grid *g, const double *U, double *R, double *S);

extern const fb_family fb_family_fv_surface;
extern const fb_host_kernel fb_fv_surface_host_kernels[];

#endif
