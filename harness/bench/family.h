/* family.h - the one descriptor of a benchmark family (spmv, stream,
 * heat2d, fv-surface, ...): everything the commands, the sweep runner, the
 * search strategies, the figures and the NVRTC compile test need from it,
 * so none of them knows a family by name. A family defines one fb_family
 * in kernels/<folder>/<family>_family.c and is registered by one line in
 * kernels/families.c (docs/architecture.md, "Adding a family").
 *
 * A family has kernels; each kernel has a parameter space (params.h axes,
 * passed to the kernel as -D defines) and a constraint check. A "problem"
 * is what the kernels run on: a matrix SRC for spmv, a grid spec for the
 * grid families. It is opened once per case and shared by every
 * configuration run on it.
 *
 * A configuration is (problem, kernel, point, precision, target). The
 * family runs it, checks the result against its reference, and returns the
 * measurement record (docs/results.md) with "status" "ok" or
 * "wrong-result"; the sweep adds suite, case, stream fraction and run id.
 */
#ifndef FB_BENCH_FAMILY_H
#define FB_BENCH_FAMILY_H

#include <jansson.h>

#include "../backends/target.h"
#include "../core/params.h"
#include "../core/measure.h"
#include "signature.h"
#include "variants.h"

typedef struct fb_family_kernel {
    const char *name; /* "csr-vector", "heat-jacobi" */
    const char *summary;
    int nparams;
    const fb_param_axis *params;       /* nparams axes */
    const char *source;                /* the .cl it is built from ("grid/heat2d.cl"); NULL for a library peer */
    const struct fb_user_kernel *user; /* a user's kernel file (user_kernel.h), else NULL */
} fb_family_kernel;

typedef struct fb_family_run {
    int kernel;           /* index into the family's kernels */
    fb_param_point point; /* values[i] for params[i] */
    int is_double;
    fb_measure_config measure;
} fb_family_run;

typedef struct fb_family {
    const char *name;    /* the "benchmark" field of its records */
    const char *summary; /* one line for --list */
    /* Where its numbers come from, one line each, printed by --list and
     * written in full beside the code (kernels/<folder>/<family>_kernels.c,
     * <family>_ref.c): the flop and minimal-byte model, and what every
     * timed run is checked against. */
    const char *model;
    const char *reference;
    int (*kernel_count)(void);
    const fb_family_kernel *(*kernel)(int i); /* 0 <= i < kernel_count() */

    /* Every device program its space can produce (variants.h), for the
     * NVRTC compile test; returns 1 when the sink is full. */
    int (*variants)(fb_variant_sink *sink);
    /* Its OpenMP twins, terminated by a NULL name: what the openmp backend
     * "builds" for a program spec of this family (fb_program_spec.host). */
    const fb_host_kernel *host_kernels;
    /* 1: a user's kernel file may take the argument list of one of its
     * kernels (user_kernel.h); the family then lists such kernels after
     * its own and runs them as their template. */
    int user_kernels;

    /* The rest is for `sweep`, `tune` and `grid`; a family without a run
     * (stream: the roofline reference) cannot be swept. */
    const char *problem_key; /* the record field of the problem object: "matrix", "grid" */

    /* Optional: checks a spec's syntax without building the problem, so a
     * suite with a bad spec is refused at load, naming its line (NULL: the
     * spec is checked when the sweep opens it, and its configurations are
     * recorded as failed). FB_ERR_USAGE naming the spec. */
    fb_status (*problem_parse)(const char *spec);
    /* Opens a problem from its spec ("gen:cube:10:block=3", "grid:101x101").
     * FB_ERR_USAGE / FB_ERR_INPUT naming the spec on bad input. */
    fb_status (*problem_open)(const char *spec, void **problem);
    void (*problem_close)(void *problem);
    /* The record's problem object (goes in the field problem_key), owned
     * by the problem: name, spec, identity hash, size. */
    const json_t *(*problem_json)(const void *problem);
    /* What tuned parameters depend on in the problem (signature.h): the
     * key of the tuning cache and the prior's features. */
    void (*signature)(const void *problem, fb_signature *out);

    /* Why this configuration cannot run here, decided without compiling
     * (work-group over the device limit, local memory too small, a block
     * kernel on a scalar matrix): FB_ERR_USAGE with the reason, or FB_OK.
     * The sweep counts these as pruned. */
    fb_status (*check)(const void *problem, const fb_family_run *run, const fb_device_info *dev);

    /* Runs, measures and checks one configuration. On FB_OK or FB_ERR_CHECK
     * *record is the measurement record (status "ok" / "wrong-result");
     * on any other error *record is NULL and the error message says why
     * (build log's first line, launch error). FB_ERR_INTERRUPTED passes
     * through. */
    fb_status (*run)(fb_target *t, void *problem, const fb_family_run *run, json_t **record);
    /* Optional: how long one run may take before a guarded sweep or tune
     * calls it hung, when that is longer than the measurement's own rule
     * (a minute and four budgets): the solver's run is a whole time loop,
     * whatever the budget. 0: the rule alone. */
    double run_seconds;
} fb_family;

/* How long a guarded run of family f may take before it is called hung:
 * the measurement's rule (timeout_s > 0: twice it and 10 s; else a minute
 * and four budgets), or f's run_seconds when longer. */
double fb_family_hang_limit_s(const fb_family *f, double timeout_s, double budget_s);

/* "NAME=V NAME=V" of a point of kernel k ("" for a kernel without parameters). */
void fb_family_point_text(const fb_family_kernel *k, const fb_param_point *p, char *buf, size_t len);

/* A record whose measurement stopped early gets the status that says so:
 * "abandoned" (the first samples over abandon_above_s, with the threshold in
 * "reason") or "timeout" (the deadline passed; samples kept). Records
 * that are not "ok" are left alone. Shared by the sweep and the tuner. */
void fb_family_mark_stop(json_t *record, double abandon_above_s);

/* The kernel index of a name in a family, or -1. */
int fb_family_kernel_find(const fb_family *f, const char *name);

/* The axis of kernel k with this role, or NULL (none, or k < 0). */
const fb_param_axis *fb_family_axis_with_role(const fb_family *f, int k, fb_axis_role role);

/* A family runs in sweeps, tune and grid when it has a run. */
int fb_family_sweepable(const fb_family *f);

/* A structured-grid family (problem key "grid": heat2d, fv-surface), the
 * families `grid` runs; the others take a matrix or a case. */
int fb_family_is_grid(const fb_family *f);

#endif
