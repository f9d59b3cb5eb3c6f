/* ns_pressure.c - the pressure system as an explicit CSR matrix (contracts
 * in ns_pressure.h). */
#include "solver/ns_pressure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"

/* Rows hold 10-30 entries, so insertion sort. ViennaCL takes any order,
 * but a sorted row is what every CSR reader expects (PETSc's among them). */
void fb_pressure_sort_row(int *col, double *val, int len)
{
    for (int i = 1; i < len; ++i) {
        const int c = col[i];
        const double v = val[i];
        int j = i - 1;
        for (; j >= 0 && col[j] > c; --j)
            col[j + 1] = col[j], val[j + 1] = val[j];
        col[j + 1] = c, val[j + 1] = v;
    }
}

/* Entries of row i: the diagonal plus its edges to free nodes. */
static int row_length(const fb_ns *ns, int i)
{
    const unsigned char *fixed = ns->bnd->p_fixed;
    if (fixed[i]) return 1;
    int len = 1;
    for (int e = ns->rowptr[i]; e < ns->rowptr[i + 1]; ++e)
        len += !fixed[ns->col[e]];
    return len;
}

static void fill_row(const fb_ns *ns, int i, int *col, double *val)
{
    const unsigned char *fixed = ns->bnd->p_fixed;
    double diag = 0.0;
    int k = 1;
    if (!fixed[i])
        for (int e = ns->rowptr[i]; e < ns->rowptr[i + 1]; ++e) {
            diag -= ns->A[e];
            if (fixed[ns->col[e]]) continue;
            col[k] = ns->col[e], val[k++] = ns->A[e];
        }
    col[0] = i, val[0] = fixed[i] ? 1.0 : diag;
    fb_pressure_sort_row(col, val, k);
}

fb_status fb_ns_pressure_csr(const fb_ns *ns, fb_pressure_csr *out)
{
    fb_status status = FB_OK;
    const int n = ns->E.n;
    memset(out, 0, sizeof *out);
    out->n = n;
    FB_ALLOC(out->rowptr, n + 1, "the pressure matrix's row pointers");
    for (int i = 0; i < n; ++i) {
        out->rowptr[i + 1] = out->rowptr[i] + row_length(ns, i);
        out->nfixed += ns->bnd->p_fixed[i] != 0;
    }
    out->nnz = out->rowptr[n];
    out->singular = out->nfixed == 0;
    FB_ALLOC(out->col, out->nnz, "the pressure matrix's columns");
    FB_ALLOC(out->val, out->nnz, "the pressure matrix's values");
    FB_ALLOC(out->b, n, "the pressure right-hand side");
    for (int i = 0; i < n; ++i) {
        fill_row(ns, i, out->col + out->rowptr[i], out->val + out->rowptr[i]);
        out->b[i] = ns->bnd->p_fixed[i] ? 0.0 : ns->b[i];
    }
    return FB_OK;
fail:
    fb_pressure_csr_free(out);
    return status;
}

void fb_pressure_csr_free(fb_pressure_csr *m)
{
    free(m->rowptr);
    free(m->col);
    free(m->val);
    free(m->b);
    memset(m, 0, sizeof *m);
}

double fb_pressure_residual(const fb_pressure_csr *m, const double *x)
{
    double r2 = 0.0, b2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : r2, b2)
    for (int i = 0; i < m->n; ++i) {
        double ax = 0.0;
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; ++k)
            ax += m->val[k] * x[m->col[k]];
        const double r = m->b[i] - ax;
        r2 += r * r, b2 += m->b[i] * m->b[i];
    }
    return b2 > 0 ? sqrt(r2 / b2) : 0.0;
}

/* Means of x and y over every rank's free rows (0 unless the system is
 * singular). */
static void free_means(const fb_pressure_csr *m, const unsigned char *p_fixed, const double *x, const double *y,
                       double *mx, double *my)
{
    double sums[3] = {0.0, 0.0, 0.0}; /* x, y, rows */
    *mx = *my = 0.0;
    if (!m->singular) return;
    for (int i = 0; i < m->n; ++i)
        if (!p_fixed[i]) sums[0] += x[i], sums[1] += y[i], sums[2] += 1.0;
    fb_comm_allreduce(sums, 3, FB_COMM_SUM);
    if (sums[2] > 0) *mx = sums[0] / sums[2], *my = sums[1] / sums[2];
}

double fb_pressure_rel_diff(const fb_pressure_csr *m, const unsigned char *p_fixed, const double *x, const double *y)
{
    double mx, my, sums[2] = {0.0, 0.0}; /* |x - y|^2, |y|^2 */
    free_means(m, p_fixed, x, y, &mx, &my);
    for (int i = 0; i < m->n; ++i) {
        if (p_fixed[i]) continue;
        const double d = (x[i] - mx) - (y[i] - my);
        sums[0] += d * d, sums[1] += (y[i] - my) * (y[i] - my);
    }
    fb_comm_allreduce(sums, 2, FB_COMM_SUM);
    return sums[1] > 0 ? sqrt(sums[0] / sums[1]) : sqrt(sums[0]);
}
