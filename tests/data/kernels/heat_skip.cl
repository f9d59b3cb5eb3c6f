/* heat_skip.cl - heat_jacobi_cells.cl (cases/examples) with one cell no work-item
 * writes (tests/cli/cases_grid.txt): the check must say so in the words of
 * the record, not as a relative error of 1.8e+308. */
#ifndef ORDER
#define ORDER 0
#endif
#ifndef GROUP_ITEMS
#define GROUP_ITEMS 128
#endif
#ifndef CELLS_PER_ITEM
#define CELLS_PER_ITEM 1
#endif

#if ORDER == 0
#define AT(i, j) ((j) * nx + (i))
#else
#define AT(i, j) ((i) * ny + (j))
#endif
/* NaN wins, so a diverging iterate never looks converged. */
#define MAX_NAN(a, b) ((a) > (b) || (a) != (a) ? (a) : (b))

__kernel void FB_LAUNCH_BOUNDS(GROUP_ITEMS)
    heat_skip(const int nx, const int ny, const REAL inv_dt, __global const REAL *restrict dx,
                      __global const REAL *restrict dy, __global const REAL *restrict gx,
                      __global const REAL *restrict gy, __global const REAL *restrict tn,
                      __global const REAL *restrict t_in, __global REAL *restrict t_out,
                      __global REAL *restrict partial)
{
    __local REAL red[GROUP_ITEMS];
    const int j = (int)get_global_id(1), stride = (int)get_global_size(0);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    REAL change = 0;
    for (int c = 0; c < CELLS_PER_ITEM; ++c) {
        const int i = (int)get_global_id(0) + c * stride;
        if (i >= nx || j >= ny) break;
        if (i == 3 && j == 3) continue; /* the planted fault: cell (3, 3) is never written */
        const REAL dxi = dx[i], dyj = dy[j];
        const REAL gw = dyj * gx[i], ge = dyj * gx[i + 1], gs = dxi * gy[j], gn = dxi * gy[j + 1];
        const REAL vdt = dxi * dyj * inv_dt;
        const REAL tw = i > 0 ? t_in[AT(i - 1, j)] : (REAL)0;
        const REAL te = i + 1 < nx ? t_in[AT(i + 1, j)] : (REAL)0;
        const REAL ts = j > 0 ? t_in[AT(i, j - 1)] : (REAL)0;
        const REAL tnn = j + 1 < ny ? t_in[AT(i, j + 1)] : (REAL)0;
        const REAL v = (vdt * tn[AT(i, j)] + gw * tw + ge * te + gs * ts + gn * tnn) / (vdt + gw + ge + gs + gn);
        const REAL d = v - t_in[AT(i, j)];
        change = MAX_NAN(change, d < 0 ? -d : d);
        t_out[AT(i, j)] = v;
    }
    red[lid] = change;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = GROUP_ITEMS / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] = MAX_NAN(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = red[0];
}
