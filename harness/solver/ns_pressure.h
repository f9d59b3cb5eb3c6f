/* ns_pressure.h - the solver's pressure system of one step as an explicit
 * CSR matrix, for solvers that need one (the ViennaCL peer, docs/solver.md
 * "The ViennaCL peer").
 *
 * The solver's CG works on the edges: y_I = sum_e A_e (x_J - x_I), so
 * the matrix is M_IJ = A_e off the diagonal and M_II = -sum_e A_e. Rows of
 * fixed-pressure nodes are zero there (b = 0, x kept at its start). Solved
 * from x = 0, as here, a fixed node stays 0; so it becomes an identity row
 * with b = 0 and its column is dropped from the other rows (x_J = 0 adds
 * nothing), which keeps the matrix symmetric. A free row keeps its whole
 * diagonal, the dropped edges included, exactly as the edge CG sees it. */
#ifndef FB_SOLVER_NS_PRESSURE_H
#define FB_SOLVER_NS_PRESSURE_H

#include "core/status.h"
#include "solver/ns.h"

typedef struct fb_pressure_csr {
    int n, nnz;
    int *rowptr, *col; /* columns ascending within a row, the diagonal included */
    double *val;
    double *b;    /* the right-hand side (0 on fixed rows) */
    int nfixed;   /* identity rows (fixed pressure) */
    int singular; /* no fixed row: constants are the null space, x is defined up to one */
} fb_pressure_csr;

/* The explicit CSR of the system in ns->A, ns->b (the last step's on the
 * host; a device run downloads it first, fb_ns_device_pressure_system). */
fb_status fb_ns_pressure_csr(const fb_ns *ns, fb_pressure_csr *out);

void fb_pressure_csr_free(fb_pressure_csr *m);

/* One row's columns ascending, each value moved with its column. */
void fb_pressure_sort_row(int *col, double *val, int len);

/* The true relative residual ||b - M x|| / ||b|| (0 when b = 0). */
double fb_pressure_residual(const fb_pressure_csr *m, const double *x);

/* ||x - y|| / ||y|| over the free rows; with m->singular both lose their
 * mean first (their level is arbitrary). 0 when both are 0. On several
 * ranks, each calling with its part (m->singular the whole system's),
 * over every rank's rows (collective). */
double fb_pressure_rel_diff(const fb_pressure_csr *m, const unsigned char *p_fixed, const double *x, const double *y);

#endif
