/* confirm_fresh.h - the confirmation (confirm.h) with each measurement a
 * fresh process (core/fresh.h): what `tune` and `solve --tune` run. */
#ifndef FB_TUNE_CONFIRM_FRESH_H
#define FB_TUNE_CONFIRM_FRESH_H

#include <stdio.h>

#include "confirm.h"
#include "tune.h"

/* fb_confirm_run where each measurement runs command (the measuring
 * command again: "flowbench", its name, its options) in a fresh process
 * with the point appended: "--measure-point NAME=V,...", or with per_axis
 * "--param NAME=V" per axis of k. A process's record (JSON on its stdout)
 * is judged by objective; one that exits non-zero or prints no record is a
 * failure of its candidate, with its last line as the reason. */
fb_status fb_confirm_in_processes(const char *const *command, int per_axis, const fb_family_kernel *k,
                                  fb_objective objective, int rounds, FILE *progress, fb_confirm_outcome *out);

#endif
