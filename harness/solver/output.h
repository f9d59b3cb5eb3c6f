/* output.h - what `flowbench solve` leaves behind: the per-step log, the
 * results record (docs/results.md, benchmark "solve"), the paper-style
 * table of the per-step time split, the fields as VTK XML for ParaView, and
 * the cavity's centreline profiles as data files for gnuplot. */
#ifndef FB_SOLVER_OUTPUT_H
#define FB_SOLVER_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "backends/backend.h"
#include "core/energy.h"
#include "core/measure.h"
#include "results/presentation/speedup.h"
#include "solver/cases.h"

/* Every step's numbers, grown as the run goes. */
typedef struct fb_solve_log {
    int n, cap;
    fb_ns_step_info *steps;
    double wall_s;            /* the time loop, from the first step to the last */
    double upload_s;          /* the state to the device before the loop (the paper's CPU->GPU; 0 on openmp) */
    double download_s;        /* the fields back after it (GPU->CPU) */
    double setup_s;           /* device builds, copies and the untimed warm-up step: in no step's time */
    fb_energy_reading energy; /* over the time loop (core/energy.h); FB_ENERGY_NONE: not metered */
    fb_contention env;        /* the machine over the time loop (core/contention.h); env.on == 0: not watched */
} fb_solve_log;

fb_status fb_solve_log_add(fb_solve_log *log, const fb_ns_step_info *info);
void fb_solve_log_free(fb_solve_log *log);

typedef struct fb_solve_summary {
    double step_median[3], step_total[3]; /* steps 1, 2, 3 */
    double step_time_median, total_s;     /* whole step */
    double dt_min, dt_median, dt_max;
    int its_min, its_max, its_total;
    double its_mean;
    double bytes_per_step, gbs;        /* model bytes of a mean step / mean step time */
    double step_bytes[3], step_gbs[3]; /* the same per step 1, 2, 3 */
    double step_flops[3];              /* model flops of a mean step's step 1, 2, 3 */
} fb_solve_summary;

/* The time steps as a measurement (m->samples malloc'd: fb_measurement_free):
 * the step times as samples with their statistics, the time loop's window
 * as m->env, and the verdict. The verdict judges each step's time scaled
 * to the mean step's model bytes (fb_ns_bytes_per_step of its CG
 * iterations): the CG needs fewer iterations as a flow settles, and a
 * spread the work explains is no noise. */
void fb_solve_measurement(const fb_solve_log *log, const fb_ns *ns, fb_measurement *m);

/* The measurement record, with the step times' verdict in stats.quality
 * and the machine over the loop in "environment". rss_setup: resident bytes after the solver was
 * set up (fb_rss_bytes). status: "ok", "failed" or "interrupted"; reason
 * may be NULL. validation is borrowed. */
json_t *fb_solve_record(const fb_solve_case *c, const fb_ns *ns, const fb_solve_log *log, const fb_device_info *d,
                        double stream_gbs, double rss_setup, json_t *validation, const char *status,
                        const char *reason);

/* A device backend, not the OpenMP baseline: both run ns_step.c's driver,
 * but only a device has copies, a set-up and a point worth recording. */
int fb_solve_on_device(const fb_device_info *d);

/* The table: per-step time split (median and total), CG iterations,
 * bytes and GB/s against the stream triad, the validation numbers. */
void fb_solve_print_table(FILE *f, const fb_solve_case *c, const fb_ns *ns, const fb_solve_log *log,
                          const fb_device_info *d, double stream_gbs, double rss_setup, json_t *validation);

/* One backend's line of the comparison tables. */
typedef struct fb_solve_row {
    char id[32];    /* "openmp:0", "opencl:0.0" */
    char name[128]; /* the device */
    int on_device, steps;
    fb_solve_summary s;
    double upload_s, download_s, stream_gbs;
    fb_energy_reading energy; /* the time loop's */
    fb_quality quality;       /* the step times' verdict (fb_solve_measurement) */
    char quality_why[320];    /* "" when stable */
} fb_solve_row;

void fb_solve_row_of(fb_solve_row *row, const fb_ns *ns, const fb_solve_log *log, const fb_device_info *d,
                     double stream_gbs);

/* The row every speedup is taken against: the first openmp row, else the
 * first; NULL when n is 0. */
const fb_solve_row *fb_solve_baseline(const fb_solve_row *rows, int n);

json_t *fb_solve_speedup_json(const fb_solve_row *base, const fb_solve_row *row);

/* The paper's tables for one case run on several backends: time and the
 * speedup over the first openmp row per backend, per step and total, both
 * defined in the header (its Tables 4 and 7), each flagged '?' with its
 * reason below the table where a side is unstable or contended, '*' where
 * one throttled; then the per-step split with shares, CPU->GPU and
 * GPU->CPU, CG iterations and each step's GB/s against that device's stream
 * triad (Tables 5 and 6). */
void fb_solve_print_comparison(FILE *f, const fb_solve_case *c, const fb_solve_row *rows, int n);

/* The problem's name in records and figures: the case and its level
 * ("cavity-l2"), or the case alone ("ahmed"), so levels never merge. */
void fb_solve_problem_name(const fb_solve_case *c, char *buf, size_t len);

/* The identity of a mesh: its coordinates and tetrahedra hashed (the
 * record's mesh.hash and matrix.hash, in hex). */
uint64_t fb_solve_mesh_hash(const fb_mesh *m);

/* Velocity, pressure, boundary kind and nodal divergence on the mesh, as a
 * VTK XML unstructured grid (.vtu, ASCII). */
fb_status fb_solve_write_vtk(const char *path, const fb_solve_case *c, const fb_ns *ns);

/* Cavity: u_x along the vertical centreline (x = y = 0.5) and u_z along
 * the horizontal one (y = z = 0.5) into PREFIX-u.dat and PREFIX-w.dat
 * (nodes on the lines; the cube meshes have odd N, so the lines are mesh
 * lines). */
fb_status fb_solve_write_profiles(const char *prefix, const fb_solve_case *c, const fb_ns *ns);

/* Resident set of this process now (VmRSS) and at its peak (VmHWM), in
 * bytes; 0 if unknown. The peak includes the stream measurement's arrays
 * (768 MiB by default) when it ran. */
double fb_rss_bytes(void);
double fb_peak_rss_bytes(void);

#endif
