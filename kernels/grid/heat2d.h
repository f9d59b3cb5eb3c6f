/* heat2d.h - the heat2d benchmark family: implicit finite-volume heat
 * conduction on a non-uniform NX x NY mesh (kernels/grid/heat2d.cl), its
 * grid specs, parameter space, constraints, launch geometry, byte/flop
 * model, the serial reference and the analytic solution it is checked
 * against, and the run that measures one solver iteration.
 *
 * Grid spec: "grid:NXxNY[:stretch=R]" on the unit square, k = 1; R is the
 * ratio of the widest to the narrowest cell (geometric growth from x = 0
 * and from y = 0), 1 = uniform. Walls at T = 0. The exact solution is the
 * decaying Fourier mode T = exp(-k pi^2 (1/Lx^2 + 1/Ly^2) t) sin(pi x/Lx)
 * sin(pi y/Ly).
 */
#ifndef FB_HEAT2D_H
#define FB_HEAT2D_H

#include <jansson.h>
#include <stdint.h>

#include "backends/target.h"
#include "core/measure.h"
#include "bench/family.h"
#include "core/params.h"

#define FB_HEAT2D_SOURCE "grid/heat2d.cl"
#define FB_HEAT2D_MAX_CELLS (1 << 27)    /* one double field is 1 GiB there */
#define FB_HEAT2D_REDUCE_ITEMS 256       /* heat_max_reduce's group (REDUCE_ITEMS in heat2d.cl) */
#define FB_HEAT2D_CHECK_STEPS 4          /* backward Euler steps of the check transient */
#define FB_HEAT2D_MAX_ITERATIONS 5000    /* per step of a transient */
#define FB_HEAT2D_ITERATION_TOL_EPS 50.0 /* a transient's step stops when max change <= 50 eps */

typedef struct fb_heat2d_grid {
    char spec[256];
    int nx, ny;
    double stretch;      /* widest / narrowest cell, per direction */
    double lx, ly, k;    /* 1, 1, 1 */
    double *dx, *dy;     /* cell widths: nx, ny */
    double *xc, *yc;     /* cell centres: nx, ny */
    double *gx, *gy;     /* k / centre distance: nx + 1, ny + 1 (ends: half-cell to the wall) */
    double h_min, h_max; /* narrowest and widest cell, both directions */
    uint64_t hash;       /* of nx, ny, dx, dy */
} fb_heat2d_grid;

/* Parses a spec and builds the mesh. FB_ERR_USAGE naming the spec and
 * what is wrong with it. */
fb_status fb_heat2d_grid_open(const char *spec, fb_heat2d_grid *g);
/* The spec's syntax and ranges alone (nothing built): FB_ERR_USAGE naming it. */
fb_status fb_heat2d_grid_parse(const char *spec);
void fb_heat2d_grid_free(fb_heat2d_grid *g);

/* The exact solution at the centre of cell (i, j) at time t. */
double fb_heat2d_exact(const fb_heat2d_grid *g, int i, int j, double t);
/* The continuous decay rate k pi^2 (1/Lx^2 + 1/Ly^2). */
double fb_heat2d_decay_rate(const fb_heat2d_grid *g);
/* The step of the check transient: 0.5 h_min^2 / k (a Jacobi sweep then
 * contracts the error by about 2/3 on the narrowest cells). */
double fb_heat2d_check_dt(const fb_heat2d_grid *g);
/* max over cells of |k L_h phi + k pi^2 (..) phi| for the initial mode phi:
 * the spatial truncation error of the discrete operator, exactly. */
double fb_heat2d_truncation(const fb_heat2d_grid *g);
/* max over cells of sum G / a_P with step dt: the Jacobi iteration's
 * infinity-norm contraction (< 1), for the error bounds. */
double fb_heat2d_contraction(const fb_heat2d_grid *g, double dt);

/* The backward-Euler update of cell (i, j) from its neighbours in T (row-major;
 * 0 beyond the walls) and its previous value in tn: what every kernel
 * computes per cell, in double. */
double fb_heat2d_cell_update(const fb_heat2d_grid *g, double inv_dt, const double *tn, const double *T, int i, int j);

/* The serial reference: nsteps backward Euler steps of dt from the exact
 * mode at t = 0, each solved by lexicographic Gauss-Seidel in double until
 * the largest change is <= tol. T: nx * ny, row-major (j * nx + i), filled
 * here. *sweeps (may be NULL) gets the total sweep count. FB_ERR_CHECK if a
 * step does not converge in 100000 sweeps. */
fb_status fb_heat2d_reference(const fb_heat2d_grid *g, double dt, int nsteps, double tol, double *T, int *sweeps);

/* ---- the kernels ---- */

typedef struct fb_heat2d_kernel_def {
    const char *name; /* "heat-jacobi" */
    const char *summary;
    const char *kernel; /* "heat_jacobi" */
    int red_black;      /* two colour passes per iteration */
    int nparams;
    fb_param_axis params[FB_MAX_PARAMS]; /* BLOCK_X, BLOCK_Y, ORDER (then a user kernel's own) */
    /* Where the update kernel is built from: FB_HEAT2D_SOURCE, embedded, or
     * a user's file (source_text, user: bench/user_kernel.h) that takes
     * its template's argument list; heat_max_reduce is always the
     * family's. */
    const char *source, *source_text;
    const struct fb_user_kernel *user;
} fb_heat2d_kernel_def;

extern const fb_heat2d_kernel_def fb_heat2d_kernels[];
extern const int fb_heat2d_kernel_count;

/* Kernel i of the family: a built-in (i < fb_heat2d_kernel_count), then
 * the user kernels registered so far, as their template's row with the
 * user's file, name and axes; NULL past them. */
const fb_heat2d_kernel_def *fb_heat2d_kernel_at(int i);
int fb_heat2d_kernel_total(void);

enum { FB_HEAT2D_BLOCK_X, FB_HEAT2D_BLOCK_Y, FB_HEAT2D_ORDER }; /* axis indices */

typedef struct fb_heat2d_model {
    double flops;     /* 21 per cell per iteration */
    double min_bytes; /* Jacobi 3, red-black 4 REALs per cell, + 1D arrays + 2 partials per group */
} fb_heat2d_model;

fb_heat2d_model fb_heat2d_model_of(const fb_heat2d_kernel_def *k, int nx, int ny, int is_double, long long groups);

/* The update kernels' launch for a point; the reduce kernel is one group. */
fb_launch fb_heat2d_geometry(const fb_param_point *p, int nx, int ny);

typedef struct fb_heat2d_config {
    const fb_heat2d_kernel_def *kernel;
    fb_param_point point;
    int is_double;
    fb_measure_config measure;
} fb_heat2d_config;

/* Why the point cannot run on dev (FB_ERR_USAGE, one line naming the
 * parameter), or FB_OK. Decided without compiling. */
fb_status fb_heat2d_check_point(const fb_heat2d_config *cfg, const fb_device_info *dev);

/* A problem: the grid, its record object, and the reference solution of
 * the check transient (computed on first use, shared by every
 * configuration run on this grid). */
typedef struct fb_heat2d_problem {
    fb_heat2d_grid g;
    json_t *json;
    double dt;      /* check transient step */
    double *ref;    /* nx * ny after FB_HEAT2D_CHECK_STEPS steps, or NULL */
    double ref_tol; /* the reference's own stopping tolerance */
} fb_heat2d_problem;

fb_status fb_heat2d_problem_open(const char *spec, fb_heat2d_problem **out);
void fb_heat2d_problem_close(fb_heat2d_problem *p);

typedef struct fb_heat2d_result {
    fb_measurement m; /* one solver iteration per sample */
    fb_heat2d_model model;
    double gflops, gbs, ns_per_cell;
    double rel_error; /* max |T - T_ref| / max |T_ref| after the transient */
    double tolerance;
    double analytic_error;  /* max |T - T_exact| / max |T_exact| */
    double analytic_bound;  /* truncation bound + tolerance, same scale */
    int iterations;         /* solver iterations of the whole transient */
    double iteration_error; /* one iteration from a random field: max |T - T_serial| (values in [0, 1)) */
    double change_error;    /* and |device max change - serial max change| */
    double iteration_tolerance;
    int checked_ok;
    fb_launch launch;
    int has_resources;
    fb_kernel_resources resources;
} fb_heat2d_result;

/* Measures one iteration (update pass(es) + device max reduction), then
 * runs the check transient on the device and checks it. FB_ERR_CHECK if
 * the result is wrong (result still filled). */
fb_status fb_heat2d_run(fb_target *t, fb_heat2d_problem *p, const fb_heat2d_config *cfg, fb_heat2d_result *r);
void fb_heat2d_result_free(fb_heat2d_result *r);

/* The check transient on one device over the whole grid, as
 * fb_heat2d_run's check runs it (the family's own kernel, from the exact
 * mode, FB_HEAT2D_CHECK_STEPS steps, each iterated until the device's max
 * change is <= FB_HEAT2D_ITERATION_TOL_EPS eps), judged against the serial
 * reference and the exact mode: the single-device run a decomposed run
 * must equal. T: nx * ny row-major doubles; r: launch, iterations and the
 * check fields. FB_ERR_CHECK if the judgement fails (T and r filled). */
fb_status fb_heat2d_transient(fb_target *t, fb_heat2d_problem *p, const fb_heat2d_config *cfg, double *T,
                              fb_heat2d_result *r);

/* ---- several ranks: a px x py decomposition (heat2d_decomp.c, heat2d_dist.c) ----
 * Rank r owns block (cx, cy) = (r % px, r / px): columns split into px
 * parts, rows into py, the first n % p parts of a split one cell larger.
 * 1D (row strips) is px = 1. */

typedef struct fb_heat2d_decomp {
    int px, py;
    char kind[16]; /* "1d", "2d" or "explicit" (PXxPY given) */
} fb_heat2d_decomp;

enum { FB_HEAT2D_SOUTH, FB_HEAT2D_NORTH, FB_HEAT2D_WEST, FB_HEAT2D_EAST }; /* fb_heat2d_block.nb */

typedef struct fb_heat2d_block {
    int cx, cy;
    int i0, nx; /* owned columns i0 .. i0 + nx - 1 */
    int j0, ny; /* owned rows j0 .. j0 + ny - 1 */
    int nb[4];  /* the neighbouring rank on each side, -1 at a wall */
} fb_heat2d_block;

/* Part c of n cells split into parts: [*lo, *lo + *count). */
void fb_heat2d_split(int n, int parts, int c, int *lo, int *count);

/* --decomp TEXT for `ranks` ranks on an nx x ny grid: "1d" (1 x ranks row
 * strips), "2d" (the px x py = ranks with the shortest cut, px <= py on a
 * tie) or "PXxPY". FB_ERR_USAGE in one line: bad text, a product that is
 * not the number of ranks, a block with no row or column. */
fb_status fb_heat2d_decomp_parse(const char *text, int ranks, int nx, int ny, fb_heat2d_decomp *d);

fb_heat2d_block fb_heat2d_block_of(const fb_heat2d_decomp *d, int nx, int ny, int rank);

/* A decomposed run. */
typedef struct fb_heat2d_dist_config {
    fb_heat2d_config base; /* heat-jacobi, ORDER 0 */
    fb_heat2d_decomp decomp;
    int repeats; /* timed transients; the one of median wall time is reported */
} fb_heat2d_dist_config;

/* What a decomposed run may be asked for: FB_ERR_USAGE naming why not. */
fb_status fb_heat2d_dist_check_config(const fb_heat2d_config *cfg);

/* One rank's seconds and traffic over one timed transient. */
typedef struct fb_heat2d_rank_times {
    double wall_s;      /* the whole transient */
    double compute_s;   /* update, device reduction, reading its one value back */
    double copy_s;      /* edges packed and copied out, ghosts copied in and unpacked */
    double halo_s;      /* fb_halo: messages posted and waited for */
    double allreduce_s; /* the max-change reduction over ranks */
    double bytes, messages;
    int iterations;
    char host[64], device[32];
} fb_heat2d_rank_times;

typedef struct fb_heat2d_dist_result {
    int ranks;
    fb_device_info device;          /* this rank's */
    int iterations;                 /* of one transient (every step) */
    int repeat;                     /* the reported one, 0-based */
    double *walls;                  /* per iteration, max over ranks, of each repeat (repeats values) */
    fb_heat2d_rank_times *per_rank; /* rank 0: every rank's, for the reported repeat; else NULL */
    fb_launch launch;               /* this rank's update launch */
    /* rank 0: the check against one device */
    int checked, identical;
    int single_iterations;
    long long mismatched_cells;
    double max_abs_diff;
    uint64_t field_hash, single_hash; /* of the two fields' doubles: runs compare across processes */
    fb_heat2d_result single;          /* the single-device run and its judgement */
    int own_error;                    /* on failure: 1 when this rank's own (print it), 0 when shared */
    /* the timed transients' energy, every rank's device summed (fb_energy_sum_ranks), and what was summed */
    fb_energy_reading energy;
    json_t *energy_meters;
    fb_contention env; /* rank 0's machine over the timed transients (core/contention.h) */
} fb_heat2d_dist_result;

/* Runs on every rank together (collective): opens this rank's device
 * (`backend` with no index: device fb_comm_local_rank() modulo the
 * backend's count), solves the check transient `repeats` times on the
 * rank's block with a ghost exchange and a max reduction over ranks every
 * iteration, then gathers the field on rank 0, which runs the same
 * transient on one device and compares bit for bit. FB_ERR_CHECK when
 * they differ or the single-device run fails its check. A failure on one
 * rank is known to all ranks before they could wait for it (or ends them
 * all, fb_comm_abort, where it is met between collectives). */
fb_status fb_heat2d_dist_run(const char *backend, fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg,
                             fb_heat2d_dist_result *r);
void fb_heat2d_dist_result_free(fb_heat2d_dist_result *r);

/* Rank 0's record of a decomposed run (docs/scaling.md). */
json_t *fb_heat2d_dist_record(const fb_heat2d_problem *p, const fb_heat2d_dist_config *cfg,
                              const fb_heat2d_dist_result *r);

extern const fb_family fb_family_heat2d;
extern const fb_host_kernel fb_heat2d_host_kernels[];

#endif
