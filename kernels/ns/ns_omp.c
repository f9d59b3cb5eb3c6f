/* ns_omp.c - the two passes the solver makes on the host's own arrays
 * (contracts in ns_omp.h); every step runs on a backend, on openmp through
 * the twins of ns_omp_twins.c. */
#include "ns/ns_omp.h"

#include "ns/ns_omp_node.h"

void fb_ns_omp_apply_bc(int nfixed, const int *fixed, const double *ubc, int nslip, const int *slip,
                        const double *slip_normal, double *u)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int k = 0; k < nfixed; ++k)
            ns_fix_node(k, fixed, ubc, u);
#pragma omp for schedule(static)
        for (int k = 0; k < nslip; ++k)
            ns_slip_node(k, slip, slip_normal, u);
    }
}

void fb_ns_omp_divergence(const fb_ns_edges *E, const double *u, double *div)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < E->n; ++i) {
        const long i3 = 3 * (long)i;
        double d = 0;
        for (int e = E->rowptr[i]; e < E->rowptr[i + 1]; ++e) {
            const long j = E->col[e], e3 = 3 * (long)e;
            d += E->nd[e3] * (u[3 * j] - u[i3]) + E->nd[e3 + 1] * (u[3 * j + 1] - u[i3 + 1]) +
                 E->nd[e3 + 2] * (u[3 * j + 2] - u[i3 + 2]);
        }
        div[i] = d;
    }
}
