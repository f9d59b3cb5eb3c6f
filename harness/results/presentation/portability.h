/* portability.h - Pennycook's performance-portability metric over the
 * platforms a report's records ran on (docs/plots-and-compare.md,
 * "Performance portability"):
 *
 *   PP(kernel, problem, H) = |H| / sum over platforms i in H of 1 / e_i
 *
 * the harmonic mean of the kernel's efficiency e_i on every platform of H,
 * 0 when a platform of H did not run it. H is every platform with a
 * stable record of the problem (the same matrix or grid, by its hash, in
 * the same precision and benchmark). A platform is a piece of hardware: a
 * GPU by its name (CUDA and OpenCL on one GPU are one platform), a CPU by
 * its host's model (OpenMP and an OpenCL CPU device such as PoCL's are one).
 * Two efficiencies:
 *   architectural: the kernel's best GB/s there over that platform's stream
 *                  triad (the fraction every report divides by);
 *   application:   the best time of any kernel or peer there over the
 *                  kernel's best time there.
 * "flowbench" is the best of flowbench's own kernels on each platform (no
 * peer library): the score of picking the right kernel per machine. */
#ifndef FB_RESULTS_PORTABILITY_H
#define FB_RESULTS_PORTABILITY_H

#include <stdio.h>

#include "../records/reader.h"

#define FB_PP_MAX_PLATFORMS 8
#define FB_PP_MAX_KERNELS 48

typedef struct fb_pp_kernel {
    char name[64];
    double arch[FB_PP_MAX_PLATFORMS]; /* NAN: not run there (or no triad, for arch) */
    double app[FB_PP_MAX_PLATFORMS];
    double pp_arch, pp_app; /* 0 when a platform did not run it; NAN: an efficiency unknown */
} fb_pp_kernel;

typedef struct fb_pp_problem {
    char benchmark[32], problem[128], precision[8];
    int nplatforms;
    char platforms[FB_PP_MAX_PLATFORMS][128];
    int nkernels;
    fb_pp_kernel kernels[FB_PP_MAX_KERNELS]; /* sorted by pp_app, best first */
} fb_pp_problem;

/* The problems run on two platforms or more, each with its kernels' scores;
 * *n of them in a new array (free()). */
fb_status fb_portability(const fb_results_set *set, fb_pp_problem **out, int *n);

/* The harmonic mean of n efficiencies: 0 if one is 0 or NAN-as-absent is
 * passed as 0; NAN when one is NAN (unknown). */
double fb_pp_score(const double *e, int n);

/* The report's section (nothing when no problem ran on two platforms). */
fb_status fb_report_portability(const fb_results_set *set, FILE *out);

#endif
