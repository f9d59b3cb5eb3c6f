/* viennacl_cg.h - ViennaCL's CG and SpMV on an OpenCL device, as the
 * solver's peer (docs/solver.md, "The ViennaCL peer"). The C face of the one
 * C++ file of flowbench (viennacl_cg.cpp, built with FLOWBENCH_VIENNACL);
 * without it, viennacl_cg_stub.c says "not built (...)". */
#ifndef FB_SOLVER_VIENNACL_CG_H
#define FB_SOLVER_VIENNACL_CG_H

#include <stddef.h>

/* status.h is C: its functions keep C linkage when the C++ adapter reads it. */
#ifdef __cplusplus
extern "C" {
#endif

#include "core/status.h"

/* A square CSR matrix (columns ascending, 32-bit) and a right-hand side. */
typedef struct fb_viennacl_system {
    int n, nnz;
    const int *rowptr, *col;
    const double *val, *b;
} fb_viennacl_system;

typedef struct fb_viennacl_result {
    int its;          /* CG iterations */
    double est_res;   /* ViennaCL's own estimate of ||r|| / ||b|| */
    double upload_s;  /* matrix and right-hand side to the device */
    double solve_s;   /* the timed solve (kernels compiled by a warm-up solve before) */
    double spmv_s;    /* median of y = A x over the repeats */
    char device[128]; /* the device's name as ViennaCL opened it */
    char version[16]; /* ViennaCL's version macros */
} fb_viennacl_result;

/* 1 when built; else 0 and why in why. */
int fb_viennacl_available(char *why, size_t len);

/* Opens OpenCL platform P, device D (CL_DEVICE_TYPE_ALL, as the opencl
 * backend numbers them) in a ViennaCL context of its own, uploads the
 * system and solves it from x = 0 by Jacobi-preconditioned CG with
 * cg_tag(tol, max_its); x (n values) gets the solution. SpMV is timed
 * spmv_repeats times. Every C++ exception becomes an fb_status with its
 * message. */
fb_status fb_viennacl_cg(int platform, int device, const fb_viennacl_system *A, double tol, int max_its,
                         int spmv_repeats, double *x, fb_viennacl_result *out);

#ifdef __cplusplus
}
#endif

#endif
