/* prior.h - the tuning prior: where the guided search should start on a
 * matrix, learned from recorded sweeps (docs/tuning.md, "The prior").
 *
 * The model is a nearest-neighbour one, small enough to read in its file.
 * Fitting summarises each recorded landscape, one per (device fingerprint,
 * kernel, precision, matrix), into the matrix's features and its
 * near-optimal set: the points within PRIOR_NEAR (25%) of its best, with
 * their cost ratio to the best. Predicting for a matrix takes the
 * PRIOR_NEIGHBOURS (3) recorded matrices of that kernel nearest in feature
 * space and starts at the point with the smallest weighted mean ratio over
 * them (a point outside a neighbour's set counts as 1 + PRIOR_NEAR there).
 *
 * Features: log rows (parallelism), log mean entries per row and their
 * coefficient of variation (vector width, rows per work-group, load
 * balance), log block size and block fill (the block kernels' team
 * shape). Distance: the sum of the absolute differences, the tuning
 * cache's matrix distance without the redundant log nnz, plus the block
 * terms. Devices: the entries of the tuned device's fingerprint when there
 * are any for the kernel and precision, else those of every device (a
 * start from another device beats the fixed default; the search is told).
 *
 * File: {"flowbench_tuning_prior": 1, "model": {...the constants...},
 *  "fit_from": [{"path", "hash" (FNV-1a 64 of the bytes), "devices": [FP],
 *                "records"}],
 *  "entries": [{"device": FP, "kernel", "precision", "matrix", "matrix_hash",
 *               "features": {"rows", "nnz_per_row_mean", "nnz_per_row_cv",
 *                            "block", "block_fill"},
 *               "points": N, "best": {"params", "median_s"},
 *               "near": [{"params", "ratio"}, ...]}]}
 */
#ifndef FB_TUNE_PRIOR_H
#define FB_TUNE_PRIOR_H

#include <stdio.h>

#include <jansson.h>

#include "../bench/signature.h"
#include "../core/params.h"
#include "../core/status.h"

#define FB_PRIOR_FILE_NAME "tuning-prior.json"
#define FB_PRIOR_MAX_FROM 8

typedef struct fb_prior fb_prior;

/* What the prior reads of a matrix. */
typedef struct fb_prior_features {
    double rows, row_mean, row_cv; /* entries per row: mean, stddev / mean */
    double block, block_fill;      /* 1 and 1 for CSR */
} fb_prior_features;

/* From a record's "matrix" object ("rows", "nnz_per_row": {"mean",
 * "stddev"}, optional "block": {"size", "fill"}). FB_ERR_INPUT when it is
 * not a matrix (a grid family's problem): such problems get no prior. */
fb_status fb_prior_features_from_json(const json_t *matrix, fb_prior_features *out);

/* From a problem's signature (bench/signature.h): FB_ERR_INPUT when it is
 * not a matrix's. What a search's start reads of its live problem. */
fb_status fb_prior_features_of(const fb_signature *sig, fb_prior_features *out);

/* 0 for equal features; see above. */
double fb_prior_distance(const fb_prior_features *a, const fb_prior_features *b);

/* Fits a prior to the sweeps (JSON Lines results files: every record with
 * a "matrix" object and usable or pruned status counts; the latest record
 * of a point wins, across files in the order given). *out is the file's
 * JSON. FB_ERR_INPUT naming the file when one cannot be read, or when
 * nothing in them is a landscape (a matrix and kernel measured at two or
 * more points). */
fb_status fb_prior_fit(const char *const *sweeps, int nsweeps, json_t **out);

/* `tune --fit-prior`: fits the sweeps and saves the prior at path, then
 * says on say how many landscapes (kernels, matrices) from how many
 * sweeps. Refused before any sweep is read when path is one of the sweeps
 * (by any name) or holds something that is not a prior. */
fb_status fb_prior_fit_into(const char *const *sweeps, int nsweeps, const char *path, FILE *say);

/* A prior is only ever written over a prior: FB_ERR_USAGE when path
 * exists and is not one (a results file, other JSON, any text), as
 * replacing it would lose it. A missing or empty file is fine. */
fb_status fb_prior_check_replaceable(const char *path);

/* Writes the prior whole (core/files.h: a temporary file renamed over
 * path), making the parent directory if needed; what path holds must be
 * replaceable (above). */
fb_status fb_prior_save(const json_t *prior, const char *path);

/* Loads and checks path; FB_ERR_INPUT naming the file (and the entry) when
 * it is not a tuning prior. With if_exists, a missing file is no error:
 * *out is NULL. */
fb_status fb_prior_load(const char *path, int if_exists, fb_prior **out);
void fb_prior_free(fb_prior *p);
int fb_prior_size(const fb_prior *p); /* entries */

/* The path beside the tuning cache: CACHE's directory + FB_PRIOR_FILE_NAME. */
void fb_prior_path_beside(const char *cache_path, char *buf, size_t len);

typedef struct fb_prior_query {
    const char *kernel, *precision, *device; /* device: the fingerprint (cache.h) */
    fb_prior_features features;
    const char *exclude_hash;  /* matrix hash left out (leave-one-out), or NULL */
    const fb_param_axis *axes; /* the kernel's axes: the prediction is a point of them */
    int naxes;
} fb_prior_query;

typedef struct fb_prior_prediction {
    int found;                           /* 0: no entry fits; the other fields are unset */
    fb_param_point point;                /* values of the query's axes (an axis the prior lacks: its default) */
    int same_device;                     /* 0: from other devices' sweeps */
    int nfrom;                           /* neighbours used, nearest first */
    const char *from[FB_PRIOR_MAX_FROM]; /* their matrix names (borrowed from the prior) */
    double distance[FB_PRIOR_MAX_FROM];
    int entry[FB_PRIOR_MAX_FROM]; /* their entries in the prior */
    double score;                 /* the start's weighted mean ratio on them */
} fb_prior_prediction;

void fb_prior_predict(const fb_prior *p, const fb_prior_query *q, fb_prior_prediction *out);

/* Any point's weighted mean ratio on the prediction's neighbours (1 +
 * PRIOR_NEAR where a neighbour did not record it near its best): how good
 * the prior expects the point to be, lower better; the search's ranking
 * (search.h). */
double fb_prior_score(const fb_prior *p, const fb_prior_query *q, const fb_prior_prediction *pr,
                      const fb_param_point *point);

#endif
