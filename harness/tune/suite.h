/* suite.h - sweep suites: YAML files (cases/NAME.suite) naming what a sweep
 * runs. Parsed with libyaml; every error names the file, the line and the
 * reason ("cases/x.suite: line 12: WG_SIZE: 'abc' is not an integer").
 *
 *   suite: quick                    # name (default: the file's base name)
 *   backends: [openmp, opencl]      # --backend specs (default [openmp])
 *   precisions: [double, single]    # default [double]
 *   stream: true                    # triad per device first (roofline fraction)
 *   stream_n: 4194304               # its array length (default 2^25)
 *   measure: {min_samples: 3, max_samples: 50, spread_pct: 2, budget_s: 0.5,
 *             timeout_s: 20, abandon_factor: 4, cold: false}
 *   matrices: [gen:cube:12, "../matrices/g*.mtx"]  # globs relative to the suite file
 *   grids: ["grid:heat:101x101"]    # or: the problems of a grid family (specs as given)
 *   cases:
 *     - name: vector                # default: case1, case2, ...
 *       family: spmv                # default spmv
 *       kernels: [csr-vector]       # or "all"
 *       space: full                 # unnamed axes: all declared values (full) or the default
 *       params:                     # axis values override the kernel's declared list
 *         WG_SIZE: [64, 128, 256]
 *         VECTOR_SIZE: {pow2: [2, 32]}        # 2, 4, ..., 32
 *         ROWS_PER_WORKGROUP_BITS: {range: [0, 8, 2]}  # from, to (inclusive), step
 *       zip: [[WG_SIZE, VECTOR_SIZE]]          # advance together, no cross product
 *       matrices / backends / precisions / measure: override the top level
 */
#ifndef FB_TUNE_SUITE_H
#define FB_TUNE_SUITE_H

#include <stdint.h>

#include "../core/measure.h"
#include "families.h"

#define FB_SUITE_MAX_AXIS_VALUES FB_PARAM_MAX_LIST
/* A sweep plans at most this many configurations unless --max-points
 * raises it: each costs about 2 KB before anything runs. */
#define FB_SUITE_MAX_POINTS_DEFAULT 1000000
/* What --max-points may raise it to (and the most points of one kernel). */
#define FB_SUITE_MAX_POINTS_HARD 1000000000

typedef struct fb_suite_axis {
    char name[64];
    int *values; /* nvalues (malloc'd) */
    int nvalues;
    int zip_group; /* axes with the same group >= 0 advance together; -1 alone */
    int line;
} fb_suite_axis;

typedef struct fb_suite_measure {
    fb_measure_config measure;
    double timeout_s;      /* per configuration, 0 = none */
    double abandon_factor; /* abandon at k x the best of the same kernel, 0 = never */
} fb_suite_measure;

typedef struct fb_suite_case {
    char name[64];
    int line;
    const fb_family *family;
    char **matrices;
    int nmatrices; /* globs expanded, gen: specs as given */
    char **backends;
    int nbackends;
    int is_double[2];
    int nprecisions;
    int *kernels;
    int nkernels;   /* indices into the family */
    int full_space; /* unnamed axes take every declared value */
    fb_suite_axis *axes;
    int naxes;
    fb_suite_measure measure;
} fb_suite_case;

typedef struct fb_suite {
    char path[1024];
    char name[64];
    int stream;
    size_t stream_n; /* elements per stream array (0: the stream default) */
    fb_suite_case *cases;
    int ncases;
} fb_suite;

/* The suite file a command line's SUITE names, into path: SUITE itself
 * when it exists or holds a slash; else, a name ("quick", "quick.suite"),
 * cases/NAME.suite in the current folder or flowbench's data folder (an
 * installed binary's share/flowbench, a build's source tree:
 * core/datadir.h). An unknown name: FB_ERR_INPUT naming it and every
 * folder searched. */
fb_status fb_suite_find(const char *suite, char *path, size_t len);

/* Parses and validates path (kernels, axis names against the family,
 * zipped lengths, globs that match nothing). FB_ERR_INPUT naming file and
 * line, or naming the file when it cannot be opened. Free with fb_suite_free. */
fb_status fb_suite_load(const char *path, fb_suite *out);

/* Whether any of the case's kernels has a parameter of this name (a
 * suite's params: and a command line's --param must name one). */
int fb_suite_case_has_axis(const fb_suite_case *c, const char *name);
/* The case's axis of this name (suite params:, --param lists), or NULL. */
fb_suite_axis *fb_suite_case_axis(fb_suite_case *c, const char *name);
void fb_suite_free(fb_suite *s);

/* Opens every problem of every case once (and closes it), so a matrix
 * file that does not parse stops the sweep before anything is measured:
 * FB_ERR_INPUT naming the suite file, the case, the matrix and why.
 */
fb_status fb_suite_check_problems(const fb_suite *s);

/* The parameter points case c runs for its kernel k (a family kernel
 * index): its axes crossed (zipped groups advancing together), unnamed
 * axes at every declared value or the default. *points is malloc'd.
 * FB_ERR_INPUT when there are more than FB_SUITE_MAX_POINTS_HARD. */
fb_status fb_suite_points(const fb_suite_case *c, int k, fb_param_point **points, int *npoints);

/* How many points fb_suite_points would give, in 64 bits: a product of
 * axis lengths overflows an int long before it is refused. */
int64_t fb_suite_point_count(const fb_suite_case *c, int k);

#endif
