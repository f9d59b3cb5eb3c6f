/* ns_device.h - the solver's state on a backend, and its time loop there:
 * an OpenCL or CUDA device, or the openmp backend, where the kernels run as
 * their OpenMP twins (the OpenMP baseline, at fb_ns_openmp_point).
 *
 * The state (edge data, fields, the pressure system, the CG vectors) is
 * uploaded once and stays on the backend; a step is the launch sequence of
 * kernels/ns/ns.cl (ns_step.c), with the decisions (time step, watch, CG
 * stopping test) made by the host code in ns.c from scalars reduced on the
 * backend. The host reads back 3 scalars per step for the watch plus one
 * per CG iteration (the residual), and the fields only when asked
 * (fb_ns_device_download: VTK, profiles, validation, the end).
 *
 * Use: fb_ns_init on the host (it builds the operators and the initial
 * state), set u and p and impose them, then fb_ns_device_open; fb_ns_step
 * then runs on the backend (and refuses a state on none). */
#ifndef FB_SOLVER_NS_DEVICE_H
#define FB_SOLVER_NS_DEVICE_H

#include <jansson.h>

#include "backends/target.h"
#include "ns/ns_kernels.h"
#include "solver/ns.h"
#include "spmv/spmv_kernels.h"

/* Builds the kernels at point (fb_ns_axes: work-group size, reductions),
 * checked against the device first, uploads the
 * host state of ns to t's device and makes ns run there, then runs one
 * untimed step and restores the uploaded state (drivers that compile at
 * the first launch, as PoCL does, would put the compiles into step 1).
 * *upload_s = the seconds the copies took (the paper's CPU->GPU);
 * *setup_s = the whole set-up: builds, copies and the untimed step. Either
 * may be NULL. t must outlive ns. */
fb_status fb_ns_device_open(fb_ns *ns, fb_target *t, const fb_param_point *point, double *upload_s, double *setup_s);

/* The point the OpenMP baseline runs at (solve on openmp: --param, --tune
 * and --tuned are for the devices). Its values are the fastest measured
 * on the CPU (docs/solver.md, "One driver"); the record of an openmp run
 * does not list them, as before the baseline ran this driver. */
fb_param_point fb_ns_openmp_point(void);

/* FB_ERR_USAGE naming the parameter when the device cannot take point
 * (WG_SIZE not a power of two, or over its work-group limit), else FB_OK:
 * what fb_ns_device_open checks first, decided without building. */
fb_status fb_ns_device_check_point(const fb_device_info *info, const fb_param_point *point);

/* From now on each launch of ns is timed by its event (the launch then
 * waits for its kernel, so a step runs a little slower than untimed) and
 * added to its kernel's total, and each blocking read of the scalars by
 * the clock; the totals start at zero. What `solve --kernel-times`
 * reports: where a step's time goes, kernel by kernel. */
void fb_ns_device_time_kernels(fb_ns *ns);

/* The totals (new reference): {"ns_cg1_matvec": {"calls", "total_s"},
 * ..., the CG's SpMV kernel under its name ("csr-vector") with CG_SPMV,
 * "scalar_reads": {"calls", "total_s"}} for what ran; NULL when ns was
 * not timed. */
json_t *fb_ns_device_kernel_times(const fb_ns *ns);

/* ---- on several ranks (ns->dist, ns_dist.h) ----
 *
 * Each rank runs its part on its own device: node arrays hold its owned
 * and halo nodes, kernels compute the owned rows, and before each edge
 * loop the values it reads at neighbours are exchanged (packed on the
 * device, sent through the host); every scalar is reduced over ranks,
 * written back to the device where a kernel reads it. There
 * fb_ns_device_open does this rank's own work only (checks, builds,
 * uploads: no collective, so a rank whose device fails can say so and end
 * the run before the others wait for it) and leaves the untimed warm-up
 * step, which exchanges, to fb_ns_device_warm_up: every rank calls it once
 * all have opened. */

/* FB_ERR_USAGE naming the parameter when point cannot run on several
 * ranks (CG_VARIANT=2, CG_SPMV != 0), else FB_OK. */
fb_status fb_ns_device_check_ranks(const fb_param_point *point);

/* The untimed warm-up step of fb_ns_device_open (which runs it itself on
 * one process); collective on several ranks. *setup_s (may be NULL)
 * grows by its time. */
fb_status fb_ns_device_warm_up(fb_ns *ns, double *setup_s);

/* Copies u and p back into ns->u and ns->p; *seconds = the time it took
 * (the paper's GPU->CPU). A no-op (0 s) when the state is on no backend. */
fb_status fb_ns_device_download(fb_ns *ns, double *seconds);

/* Also the last step's parts into ns's host arrays, each allocated at the
 * first call: tau, the pressure-gradient projection (pip), the fractional
 * velocity u~ (u2) and p^n (p_old). For checks that recompute a step from
 * its parts; a run never needs them on the host. */
fb_status fb_ns_device_download_step(fb_ns *ns);

/* The kernels' point (fb_ns_axes) of the run, NULL before fb_ns_device_open. */
const fb_param_point *fb_ns_device_point(const fb_ns *ns);

/* Kernel launches per CG iteration (for the record): 4 for the classic CG
 * (direction with its product, its reduction, update, its reduction), 3
 * for the single-reduction one (update, product, reduction), 4 for it with
 * CG_SPMV != 0 (update, SpMV, dot products, reduction), 2 for the
 * pipelined one (the fused iteration, its reduction); 0 on no backend. */
int fb_ns_device_launches_per_cg_iteration(const fb_ns *ns);

/* ---- the CG's SpMV kernel (CG_SPMV 1..3: csr-scalar, csr-vector,
 * csr-multirow of kernels/spmv on the pressure matrix as CSR) ---- */

/* The SpMV kernel the CG multiplies with and its point (the kernel's own
 * axes, fb_spmv_kernel_def.params); NULL on no backend or with CG_SPMV=0. */
const fb_spmv_kernel_def *fb_ns_device_spmv_kernel(const fb_ns *ns);
const fb_param_point *fb_ns_device_spmv_point(const fb_ns *ns);

/* Runs the CG's SpMV kernel at p from now on (fb_ns_device_open starts it
 * at the kernel's defaults): p checked against the kernel's axes and its
 * allowed() on this device and matrix (FB_ERR_USAGE with the reason, the
 * old point kept), the kernel built, launched once untimed. FB_ERR_USAGE
 * on no backend or with CG_SPMV=0. For `solve --tuned`: the point from
 * fb_tuned_point(cache, device, kernel->name, kernel->params,
 * kernel->nparams, 1, the signature below, ...). */
fb_status fb_ns_device_set_spmv_point(fb_ns *ns, const fb_param_point *p);

/* *out (new reference): a matrix record of the pressure matrix's pattern
 * (edge rows with the diagonal: rows, cols, nnz, nnz_per_row {min, mean,
 * max, stddev}, bandwidth, symmetry, as spmv_record.h writes them), all
 * the tuning cache's signature reads. In the device's order when ns runs
 * on a device, else the mesh's (the same signature); *sig (may be NULL)
 * its signature, as fb_ns_csr_record gives it. */
fb_status fb_ns_pressure_matrix_record(const fb_ns *ns, json_t **out, fb_signature *sig);

/* ---- the last step's pressure system, for the peers (ns_pressure.h) ---- */

/* Copies the pressure system the last step left on the device (A per
 * edge, 1/diag, b) into ns->A, ns->invdiag and ns->b. */
fb_status fb_ns_device_pressure_system(fb_ns *ns);

/* One CG solve: iterations, its own final ||r|| / ||b||, wall seconds. */
typedef struct fb_ns_cg_run {
    int its;
    double res, seconds;
} fb_ns_cg_run;

/* Solves the system resident on the device again with the point's CG
 * (CG_VARIANT), from x0, at ns->cfg's tolerance and iteration limit,
 * timed from the start vector on the device to the last iteration done;
 * x (n values) gets the solution. The solver's p is left as it was. */
fb_status fb_ns_device_cg_solve(fb_ns *ns, const double *x0, double *x, fb_ns_cg_run *out);

/* Median seconds of one launch of the CG's product (ns_cg1_matvec: w = A u
 * and its three dot products per node; with CG_SPMV the SpMV kernel and
 * ns_cg1_dots, two launches) over repeats launches. */
fb_status fb_ns_device_time_matvec(fb_ns *ns, int repeats, double *median_s);

/* Releases the backend's state; ns keeps its host arrays (download first
 * to keep the last state) and steps no more until opened again. */
void fb_ns_device_close(fb_ns *ns);

#endif
