/* plan.h - a one-case suite (suite.h) run as a plan: what `spmv` and `grid`
 * with their axes on the command line run (cli/plan.h builds the suite).
 * The plan is printed before anything is measured, then run by the sweep
 * (sweep.h), so its configurations are planned, pruned, measured, checked
 * and recorded by the same code as a suite file's. */
#ifndef FB_TUNE_PLAN_H
#define FB_TUNE_PLAN_H

#include "suite.h"
#include "sweep.h"

/* Prints the plan of s's one case ("plan: N configurations = P problems x
 * K kernel points ...", then per kernel its axes), refused above the
 * sweep's size limit in the command line's terms. With dry_run lists each
 * configuration as the sweep's dry run does and stops. Otherwise runs the
 * sweep into out (NULL: a temporary file, removed afterwards; o->out_path
 * is set for the run), prints one row per recorded configuration
 * (problem_key names the problem column) and the counts. FB_ERR_CHECK
 * when a configuration failed to run or gave a wrong result, FB_ERR_USAGE
 * when none could run here. */
fb_status fb_plan_run(const fb_suite *s, fb_sweep_options *o, const char *out, int dry_run, const char *problem_key);

#endif
