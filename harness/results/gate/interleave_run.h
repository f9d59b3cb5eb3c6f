/* interleave_run.h - `flowbench compare --interleave BASE_BIN NEW_BIN
 * SUITE`: runs two builds' sweeps of SUITE alternately, round after round,
 * and judges each configuration on the rounds' ratios
 * (results/gate/interleave.h). The processes are run here; the verdict is
 * interleave.c's; the command line is cli/cmd_compare.c's.
 *
 * Round r runs `BIN sweep SUITE --out DIR/SIDE-rR.jsonl` for BASE then NEW
 * (odd r) or NEW then BASE (even r). One results file per round and side,
 * because `sweep --resume` refuses a --repeat other than the recorded one
 * (sweep_options.c): a file per round is what sweep resumes. DIR/
 * interleave.json records the binaries, the suite and each finished side
 * of a round, so that the same command after a Ctrl-C (or with more
 * --rounds) continues: a side that was cut short runs again with
 * --resume, finished ones are not run again.
 */
#ifndef FB_GATE_INTERLEAVE_RUN_H
#define FB_GATE_INTERLEAVE_RUN_H

#include "compare.h"

/* --rounds' default: the fewest rounds at which one wild round (a ratio
 * on the wrong side of 1) still lets a real change through the sign test
 * (7 of 8: p = 9/256 <= 0.05). */
#define FB_INTERLEAVE_DEFAULT_ROUNDS 8

typedef struct fb_interleave_request {
    const char *base_bin, *new_bin; /* the two builds' flowbench binaries */
    const char *suite;              /* the suite file (a name was looked up by the caller) */
    int rounds;                     /* how many rounds are judged (and run, where DIR lacks them) */
    const char *dir;                /* DIR, the rounds' folder (NULL: results/interleave-SUITE) */
    const char *junit;              /* the JUnit file's path, refused inside DIR (NULL: none) */
} fb_interleave_request;

/* Runs the rounds DIR lacks, then judges the first rq->rounds of them:
 * prints the table to stdout, the JUnit XML to opt->junit, fills the
 * summary. FB_ERR_USAGE for a binary or suite that is not there,
 * FB_ERR_INPUT when a sweep refused its input (exit 2),
 * FB_ERR_INTERRUPTED after Ctrl-C (the finished rounds are kept). */
fb_status fb_interleave_run(const fb_interleave_request *rq, const fb_compare_options *opt,
                            fb_compare_summary *summary);

#endif
