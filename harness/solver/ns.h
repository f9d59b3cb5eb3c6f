/* ns.h - the edge-based fractional-step incompressible Navier-Stokes
 * solver (density 1, kinematic viscosity nu): the state, one time step,
 * the time-step choice and the watch that stops a run that blows up.
 * docs/solver.md states the discretisation.
 *
 * One driver runs the step on every backend: fb_ns_init builds the
 * operators and the state on the host, fb_ns_device_open (ns_device.h)
 * puts it on a backend (a device, or the OpenMP twins of the kernels on
 * openmp: the baseline), and fb_ns_step runs the launch sequence of
 * ns_step.c there. This file keeps the policy the step calls: the time
 * step choice, the watches, the extrapolation of the CG's start, the
 * boundary values, the reductions over ranks; and the byte model.
 *
 * One time step from (u^n, p^n) at t^n, dt from the CFL number:
 *   step 1  tau, the projections of convection and pressure gradient
 *           (split OSS), then the fractional velocity u~ by explicit RK4 on
 *           M du/dt = -C(u) u - nu K u - G p^n - S(u), boundary values
 *           imposed after every stage;
 *   step 2  (dt + tau) K p^{n+1} = dt K p^n + tau P(pi_p) - D u~, by
 *           Jacobi-preconditioned CG from p^n, fixed-pressure rows removed;
 *   step 3  u^{n+1} = u~ - dt M^-1 G (p^{n+1} - p^n), boundary values imposed.
 */
#ifndef FB_SOLVER_NS_H
#define FB_SOLVER_NS_H

#include "core/status.h"
#include "matrix/mesh.h"
#include "ns/ns_omp.h"
#include "solver/boundary.h"
#include "solver/edge_ops.h"

typedef struct fb_ns_config {
    double nu;        /* kinematic viscosity */
    double cfl;       /* dt = cfl / max_I (|u_I|/h_I + 2 nu/h_I^2) (ns_omp.h); default 0.5 */
    double dt_fixed;  /* > 0: this dt instead (the CFL watch still applies) */
    double cfl_limit; /* watch: stop when dt max(|u|/h) exceeds it (default 5) */
    double div_limit; /* watch: stop when dt ||div u|| / sqrt(volume) exceeds it (default 1) */
    double cg_tol;    /* ||r|| <= cg_tol ||b|| (default 1e-6) */
    int cg_max_its;   /* default 2000 */
} fb_ns_config;

fb_ns_config fb_ns_config_defaults(double nu);

/* Prescribed values at time t: the velocity of a VELOCITY node, the
 * pressure of a fixed-pressure node. NULL velocity: 0; NULL pressure: 0. */
typedef void (*fb_ns_velocity_fn)(void *ctx, const double x[3], double t, double u[3]);
typedef double (*fb_ns_pressure_fn)(void *ctx, const double x[3], double t);

typedef struct fb_ns_bc {
    fb_ns_velocity_fn velocity;
    fb_ns_pressure_fn pressure;
    void *ctx;
    int time_dependent; /* re-evaluate at every stage time (else once) */
} fb_ns_bc;

/* What one step did. */
typedef struct fb_ns_step_info {
    int step;        /* 1-based number of the step just done */
    double t, dt;    /* time reached, step size used */
    double cfl;      /* dt max(|u|/h) at the start of the step */
    double div_norm; /* ||div u^n||_L2 at the start of the step */
    int cg_its;
    double cg_res;                    /* final ||r|| / ||b|| (0 when b = 0) */
    double t_step1, t_step2, t_step3; /* seconds (on several ranks: the slowest rank's) */
    /* on several ranks (ns_dist.h); ranks = 0 on one */
    int ranks;
    double imbalance[3];               /* max / min over ranks of each step's time */
    double halo_s, allreduce_s;        /* exchanges and reductions, the slowest rank's */
    int64_t halo_bytes, halo_messages; /* sent, summed over ranks */
} fb_ns_step_info;

typedef struct fb_ns {
    const fb_mesh *mesh;
    const fb_boundary *bnd;
    fb_ns_config cfg;
    fb_ns_bc bc;
    /* on the host, in the mesh's order: what the backend's state is
     * uploaded from and downloaded into (ns_device.h), and what output
     * and the checks read */
    fb_ns_edges E;                  /* views of the owned arrays below */
    int *rowptr, *col;              /* edge structure */
    double *nd, *dn, *ls;           /* edge data the kernels read */
    double *mass, *h, *bnorm;       /* lumped mass, h = cbrt(M), int_Gamma N n */
    double *u, *p;                  /* the state u^n (3 per node), p^n */
    double *p_nm1;                  /* p^{n-1}, for the CG start */
    double *A, *invdiag, *b;        /* the last pressure system (fb_ns_device_pressure_system) */
    double *q;                      /* the nodal divergence (fb_ns_divergence) */
    double *tau, *pip, *u2, *p_old; /* the last step's parts, NULL until fb_ns_device_download_step */
    double dt_prev;                 /* the previous step's dt */
    double *ubc;                    /* 3 per fixed node at the time last evaluated */
    unsigned char *vfixed;          /* 1 where the velocity is prescribed */
    double ubc_time;
    double volume;
    double t;
    int step;
    struct fb_ns_device *dev; /* NULL: the OpenMP loops; else the state lives on a device (ns_device.h) */
    struct fb_ns_dist *dist;  /* NULL: the whole mesh; else this rank's part of it (ns_dist.h) */
} fb_ns;

/* Sets up the solver on mesh m with boundary bnd (both must outlive it):
 * builds the edge operators and packs what the kernels read. u and p
 * start at zero; set them (ns->u, ns->p), call fb_ns_impose(ns), then
 * fb_ns_device_open puts the state on a backend. */
fb_status fb_ns_init(fb_ns *ns, const fb_mesh *m, const fb_boundary *bnd, const fb_ns_config *cfg, const fb_ns_bc *bc);

/* fb_ns_init on this rank's part d (fb_ns_dist_split, ns_dist.h): the
 * steps compute the owned rows, the volume is the whole mesh's; ns->dist
 * points at d, which must outlive ns. Collective. */
struct fb_ns_dist;
fb_status fb_ns_init_part(fb_ns *ns, struct fb_ns_dist *d, const fb_ns_config *cfg, const fb_ns_bc *bc);

/* Imposes the boundary values at the current time on ns->u and ns->p. */
void fb_ns_impose(fb_ns *ns);

/* One time step on the backend (ns_step.c; FB_ERR_USAGE before
 * fb_ns_device_open), dt from the CFL number (not past t_end when t_end > 0).
 * The watch: a non-finite velocity or pressure, the CFL limit, the
 * divergence limit or a CG that does not converge gives FB_ERR_CHECK with
 * "step K: WHAT" (K the step that failed). */
fb_status fb_ns_step(fb_ns *ns, double t_end, fb_ns_step_info *info);

/* ||div u||_L2 (sqrt of sum D_I^2 / M_I) and the net sum_I D_I (the mass
 * flux through the boundary) of the current velocity. */
void fb_ns_divergence(const fb_ns *ns, double *norm, double *net);

/* Bytes the model says one step moves with cg_its CG iterations (8-byte
 * reals, 4-byte indices; docs/solver.md). */
double fb_ns_bytes_per_step(const fb_ns *ns, double cg_its);

/* The same, split into step 1 (time step, projections, RK4), step 2
 * (pressure setup and CG) and step 3 (correction). */
void fb_ns_bytes_split(const fb_ns *ns, double cg_its, double bytes[3]);

/* Floating-point operations the model counts in steps 1, 2 and 3 with
 * cg_its CG iterations (docs/solver.md, "What a time step moves"): the
 * roofline's arithmetic intensity of each step, flops over model bytes. */
void fb_ns_flops_split(const fb_ns *ns, double cg_its, double flops[3]);

/* Resident bytes of the solver's arrays. */
double fb_ns_bytes_resident(const fb_ns *ns);

void fb_ns_free(fb_ns *ns);

/* Frees the host's copies of the edge coefficients only the upload reads
 * (dn and ls: 72 of the 96 bytes per directed edge; nd, which the nodal
 * divergence reads, stays): for a run whose state is on its backend for
 * good, as `flowbench solve`'s are. The host then cannot open a backend
 * again. */
void fb_ns_drop_upload_copies(fb_ns *ns);

/* ---- the policy the driver (ns_step.c) calls: one step's decisions,
 * the same on every backend ---- */

/* dt from the largest rate (cfl / rate, or the fixed dt; the steps left
 * share what is left equally when t_end > 0) and the watch for a
 * non-finite velocity (bad >= 0) and the CFL limit; sets info->dt, cfl.
 * On several ranks rate, conv and bad are this rank's (bad a local node):
 * the maxima and the lowest bad node over all ranks decide (collective). */
fb_status fb_ns_pick_dt(fb_ns *ns, double t_end, int k, double rate, double conv, int bad, fb_ns_step_info *info);
/* The divergence watch on sum D_I^2 / M_I; sets info->div_norm. */
fb_status fb_ns_watch_divergence(const fb_ns *ns, int k, double div2, fb_ns_step_info *info);
/* The CG watch: broke down or did not converge (info->cg_its set); sets info->cg_res. */
fb_status fb_ns_watch_cg(const fb_ns *ns, int k, double b2, double res2, fb_ns_step_info *info);
/* x summed over all ranks (collective; x itself on one process). */
double fb_ns_sum_ranks(fb_ns *ns, double x);
/* Nodes of the whole mesh (every rank's owned nodes), for the mean of b. */
int64_t fb_ns_global_nodes(const fb_ns *ns);
/* Whether the whole mesh (not only this rank's part) has fixed-pressure
 * nodes, or a pressure reference node. */
int fb_ns_has_fixed_pressure(const fb_ns *ns);
int fb_ns_has_reference(const fb_ns *ns);
/* dt / dt_prev for the CG's starting guess (0 on the first step); keeps dt. */
double fb_ns_extrapolation_ratio(fb_ns *ns, double dt);
/* ns->ubc at time t; 1 if it was recomputed, 0 if it already held t's values. */
int fb_ns_update_ubc(fb_ns *ns, double t);
/* The prescribed pressure of a node at time t (0 without a pressure function). */
double fb_ns_pressure_at(const fb_ns *ns, int node, double t);
/* Advances t and the step count; info's times from times[0..3] (start,
 * end of step 1, 2, 3). */
void fb_ns_step_done(fb_ns *ns, fb_ns_step_info *info, const double times[4]);

/* One step on the backend the state lives on (ns_step.c; fb_ns_step checks there is one). */
fb_status fb_ns_device_step(fb_ns *ns, double t_end, fb_ns_step_info *info);
/* The host arrays of fb_ns_init (fb_ns_free, in ns_device.c, releases the device state first). */
void fb_ns_free_host(fb_ns *ns);

#endif
