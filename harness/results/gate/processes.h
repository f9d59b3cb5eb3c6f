/* processes.h - one configuration measured in N fresh processes, one after
 * the other (core/fresh.h), each its own record, and the processes'
 * medians judged together (fb_json_judge_processes,
 * results/records/quality.h): where they fall in two modes every record is
 * unstable with that reason. What `spmv --processes N` and `grid
 * --processes N` run; the command builds the child's arguments. */
#ifndef FB_GATE_PROCESSES_H
#define FB_GATE_PROCESSES_H

#include <stdio.h>

#include <jansson.h>

#include "../../core/status.h"

#define FB_PROCESSES_MAX 100

typedef struct fb_processes {
    json_t *records[FB_PROCESSES_MAX]; /* each process's record, judged */
    double medians[FB_PROCESSES_MAX];
    int n;
    int failed_check;  /* a process's result was wrong (its exit 1) */
    char verdict[400]; /* "two modes ..." or one mode with the medians' span */
} fb_processes;

/* Runs argv (a measuring command with --json, whose stdout is its record)
 * n times, a line per process on progress, then judges the records. A
 * process that prints no record ends the run: FB_ERR_USAGE when it exited
 * 2, else FB_ERR_BACKEND, naming its exit and its last line. Free with
 * fb_processes_free, also after a failure. */
fb_status fb_processes_run(char **argv, int n, FILE *progress, fb_processes *out);

/* 1 when the verdict found two modes. */
int fb_processes_two_modes(const fb_processes *p);

void fb_processes_free(fb_processes *p);

#endif
