/* compare_files.h - `flowbench compare BASE NEW`: two results files
 * compared (compare.h) as the command does it. The machines must match
 * (or any_machine says go on, with a warning); the machine's learned A/A
 * noise floors (noise.h) widen the verdicts unless no_noise; with learn
 * the compare is an A/A run of one build, and its spread is stored as the
 * machine's floors instead of gating. */
#ifndef FB_GATE_COMPARE_FILES_H
#define FB_GATE_COMPARE_FILES_H

#include <stdio.h>

#include "compare.h"

typedef struct fb_compare_files_request {
    const char *base, *next; /* the results files */
    const char *noise_file;  /* the noise store; NULL: the default (noise.h) */
    int no_noise;            /* the stored floors ignored */
    int learn;               /* learn the floors from this A/A compare */
} fb_compare_files_request;

/* Loads both files, checks their machines, uses (or learns) the noise
 * floors and compares, printing to out; opt's junit and json streams, when
 * open, get their reports. A signal ends the comparison at once. The
 * verdicts in *summary (fb_compare_gate turns them into the exit code). */
fb_status fb_compare_files(const fb_compare_files_request *rq, fb_compare_options *opt, FILE *out,
                           fb_compare_summary *summary);

#endif
