/* heat2d.cl - transient heat conduction, finite volume, implicit in time
 * (backward Euler), on a non-uniform NX x NY tensor-product mesh, solved on
 * the device by Jacobi or red-black Gauss-Seidel: one work-item per cell,
 * a 2D NDRange of BLOCK_X x BLOCK_Y work-groups, and the maximum change of
 * the iterate reduced on the device (per-group tree in local memory, then
 * heat_max_reduce), so only one scalar is copied back when a caller asks.
 *
 * Equations, cell P = (i, j) of widths dx_i, dy_j, volume V = dx_i dy_j:
 *   a_P T_P - sum_nb G_nb T_nb = (V / dt) T^n_P,   a_P = V / dt + sum_nb G_nb
 *   G_w = dy_j gx[i], G_e = dy_j gx[i + 1], G_s = dx_i gy[j], G_n = dx_i gy[j + 1]
 * gx[i] = k / (distance between the centres of cells i - 1 and i); gx[0] and
 * gx[NX] use the half-cell distance to the wall, where T = 0 (Dirichlet).
 * Conductances are products of 1D arrays, so a cell reads 2 field values
 * (T, T^n) and writes 1; no per-cell coefficient arrays.
 * A sweep updates T_P = (V/dt T^n_P + sum G_nb T_nb) / a_P; the value
 * reduced is max |T_new - T_old| (the residual scaled by a_P).
 *
 * Layout (ORDER): 0 row-major, cell (i, j) at j * NX + i (x fastest);
 * 1 column-major, at i * NY + j (y fastest). Dimension 0 of the NDRange is
 * always x, so with ORDER 0 the items of a row of a work-group read
 * consecutive addresses, and with ORDER 1 consecutive items are NY apart.
 *
 * Parameters (-D, #ifndef defaults below): REAL (double|float); ORDER (0, 1);
 * GROUP_ITEMS = BLOCK_X * BLOCK_Y, a power of two (sizes the reduction's
 * local array). BLOCK_X and BLOCK_Y themselves only shape the launch.
 * Geometry: heat_jacobi, heat_rbgs: 2D, local = {BLOCK_X, BLOCK_Y},
 * global = {NX rounded up to BLOCK_X, NY rounded up to BLOCK_Y}; the tail
 * items skip the update but join every barrier. heat_max_reduce: one group
 * of REDUCE_ITEMS (256) items over the per-group maxima.
 * Model per cell and iteration (heat2d_kernels.c, fb_heat2d_model_of):
 * 21 flops (4 conductances, V/dt, 5 products and 4 sums above, 4 sums
 * below, one divide, the change). Minimal bytes: Jacobi 3 REALs (read T,
 * read T^n, write T_new); red-black 4 (each colour pass reads T; T^n read
 * and T written once over the two passes); plus the 1D arrays, and one
 * partial maximum per group written and read again.
 */
#ifndef ORDER
#define ORDER 0
#endif
#ifndef GROUP_ITEMS
#define GROUP_ITEMS 128
#endif
#define REDUCE_ITEMS 256

#if ORDER == 0
#define HEAT_AT(i, j) ((j) * nx + (i))
#else
#define HEAT_AT(i, j) ((i) * ny + (j))
#endif

/* NaN wins, so a diverging iterate never looks converged. */
#define HEAT_MAX(a, b) ((a) > (b) || (a) != (a) ? (a) : (b))

/* CUDA: promise the group size, so a 1024-item group is never refused for
 * registers at launch. */
#define HEAT_BOUNDS FB_LAUNCH_BOUNDS(GROUP_ITEMS)

/* Tree reduction of red[0 .. GROUP_ITEMS) to red[0] by item lid. A macro,
 * not a function: __local arrays live at kernel scope (opencl_to_cuda.h).
 * Barriers, not warp-synchronous steps: PoCL has no sub-groups and Volta
 * and later do not run a warp in lockstep. */
#define HEAT_GROUP_MAX(red, lid, items)                                                                               \
    do {                                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                 \
        for (int s_ = (items) / 2; s_ > 0; s_ >>= 1) {                                                                \
            if ((lid) < s_) red[lid] = HEAT_MAX(red[lid], red[(lid) + s_]);                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                             \
        }                                                                                                             \
    } while (0)

/* The new value of cell (i, j) from the current iterate t. */
FB_INLINE REAL heat_update(const int i, const int j, const int nx, const int ny, const REAL inv_dt,
                           __global const REAL *restrict dx, __global const REAL *restrict dy,
                           __global const REAL *restrict gx, __global const REAL *restrict gy,
                           __global const REAL *restrict tn, __global const REAL *t)
{
    const REAL dxi = dx[i], dyj = dy[j];
    const REAL gw = dyj * gx[i], ge = dyj * gx[i + 1], gs = dxi * gy[j], gn = dxi * gy[j + 1];
    const REAL vdt = dxi * dyj * inv_dt;
    const REAL tw = i > 0 ? t[HEAT_AT(i - 1, j)] : (REAL)0;
    const REAL te = i + 1 < nx ? t[HEAT_AT(i + 1, j)] : (REAL)0;
    const REAL ts = j > 0 ? t[HEAT_AT(i, j - 1)] : (REAL)0;
    const REAL tnn = j + 1 < ny ? t[HEAT_AT(i, j + 1)] : (REAL)0;
    return (vdt * tn[HEAT_AT(i, j)] + gw * tw + ge * te + gs * ts + gn * tnn) / (vdt + gw + ge + gs + gn);
}

/* One Jacobi sweep t_in -> t_out; partial[group] = the group's max change. */
__kernel void HEAT_BOUNDS heat_jacobi(const int nx, const int ny, const REAL inv_dt, __global const REAL *restrict dx,
                          __global const REAL *restrict dy, __global const REAL *restrict gx,
                          __global const REAL *restrict gy, __global const REAL *restrict tn,
                          __global const REAL *restrict t_in, __global REAL *restrict t_out,
                          __global REAL *restrict partial)
{
    __local REAL red[GROUP_ITEMS];
    const int i = (int)get_global_id(0), j = (int)get_global_id(1);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    REAL change = 0;
    if (i < nx && j < ny) {
        const REAL v = heat_update(i, j, nx, ny, inv_dt, dx, dy, gx, gy, tn, t_in);
        const REAL d = v - t_in[HEAT_AT(i, j)];
        change = d < 0 ? -d : d;
        t_out[HEAT_AT(i, j)] = v;
    }
    red[lid] = change;
    HEAT_GROUP_MAX(red, lid, GROUP_ITEMS);
    if (lid == 0) partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = red[0];
}

/* One colour pass of red-black Gauss-Seidel, in place: cells with
 * (i + j) % 2 == colour. Their neighbours all have the other colour, so no
 * item reads a value another item of the pass writes. The black pass
 * (colour 1) folds the red pass's group maximum into its own. */
__kernel void HEAT_BOUNDS heat_rbgs(const int nx, const int ny, const REAL inv_dt, const int colour,
                        __global const REAL *restrict dx, __global const REAL *restrict dy,
                        __global const REAL *restrict gx, __global const REAL *restrict gy,
                        __global const REAL *restrict tn, __global REAL *t, __global REAL *restrict partial)
{
    __local REAL red[GROUP_ITEMS];
    const int i = (int)get_global_id(0), j = (int)get_global_id(1);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const size_t group = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    REAL change = 0;
    if (i < nx && j < ny && ((i + j) & 1) == colour) {
        const REAL v = heat_update(i, j, nx, ny, inv_dt, dx, dy, gx, gy, tn, t);
        const REAL d = v - t[HEAT_AT(i, j)];
        change = d < 0 ? -d : d;
        t[HEAT_AT(i, j)] = v;
    }
    red[lid] = change;
    HEAT_GROUP_MAX(red, lid, GROUP_ITEMS);
    if (lid == 0) partial[group] = colour == 0 ? red[0] : HEAT_MAX(red[0], partial[group]);
}

/* result[0] = max of partial[0 .. n), by one work-group of REDUCE_ITEMS. */
__kernel void heat_max_reduce(const int n, __global const REAL *restrict partial, __global REAL *restrict result)
{
    __local REAL red[REDUCE_ITEMS];
    const int lid = (int)get_local_id(0);
    REAL m = 0;
    for (int k = lid; k < n; k += REDUCE_ITEMS) m = HEAT_MAX(m, partial[k]);
    red[lid] = m;
    HEAT_GROUP_MAX(red, lid, REDUCE_ITEMS);
    if (lid == 0) result[0] = red[0];
}

/* ---- one rank's block of a decomposed grid (kernels/grid/heat2d_dist.c) ----
 * The block's NX x NY owned cells are stored with one ghost layer,
 * (NX + 2) x (NY + 2), row-major only: owned cell (i, j), i in 0..NX-1,
 * at HALO_AT(i, j); i = -1, i = NX, j = -1, j = NY are the ghosts. A
 * ghost holds the neighbouring rank's cell, or 0 where the block touches a
 * wall, so the update needs no wall test. dx, dy are the block's widths
 * (NX, NY values) and gx, gy its NX + 1, NY + 1 conductance factors, cut
 * from the global arrays at the block's offset: the wall's half-cell
 * factor is there exactly where the block touches the wall. */
#define HALO_AT(i, j) (((j) + 1) * (nx + 2) + (i) + 1)

/* heat_update on the padded block. The expression is heat_update's, term
 * for term and in the same order, so a decomposed run rounds (and, where
 * the compiler contracts into FMAs, contracts) exactly as the whole grid
 * does: the decomposed check asks for the same bits. A wall's ghost 0
 * enters as heat_update's (REAL)0 does. */
FB_INLINE REAL heat_update_halo(const int i, const int j, const int nx, const REAL inv_dt,
                                __global const REAL *restrict dx, __global const REAL *restrict dy,
                                __global const REAL *restrict gx, __global const REAL *restrict gy,
                                __global const REAL *restrict tn, __global const REAL *t)
{
    const REAL dxi = dx[i], dyj = dy[j];
    const REAL gw = dyj * gx[i], ge = dyj * gx[i + 1], gs = dxi * gy[j], gn = dxi * gy[j + 1];
    const REAL vdt = dxi * dyj * inv_dt;
    const REAL tw = t[HALO_AT(i - 1, j)];
    const REAL te = t[HALO_AT(i + 1, j)];
    const REAL ts = t[HALO_AT(i, j - 1)];
    const REAL tnn = t[HALO_AT(i, j + 1)];
    return (vdt * tn[HALO_AT(i, j)] + gw * tw + ge * te + gs * ts + gn * tnn) / (vdt + gw + ge + gs + gn);
}

/* heat_jacobi on a padded block: same arguments, launch and reduction. */
__kernel void HEAT_BOUNDS heat_jacobi_halo(const int nx, const int ny, const REAL inv_dt,
                                           __global const REAL *restrict dx, __global const REAL *restrict dy,
                                           __global const REAL *restrict gx, __global const REAL *restrict gy,
                                           __global const REAL *restrict tn, __global const REAL *restrict t_in,
                                           __global REAL *restrict t_out, __global REAL *restrict partial)
{
    __local REAL red[GROUP_ITEMS];
    const int i = (int)get_global_id(0), j = (int)get_global_id(1);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    REAL change = 0;
    if (i < nx && j < ny) {
        const REAL v = heat_update_halo(i, j, nx, inv_dt, dx, dy, gx, gy, tn, t_in);
        const REAL d = v - t_in[HALO_AT(i, j)];
        change = d < 0 ? -d : d;
        t_out[HALO_AT(i, j)] = v;
    }
    red[lid] = change;
    HEAT_GROUP_MAX(red, lid, GROUP_ITEMS);
    if (lid == 0) partial[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = red[0];
}

/* Where item k of a block's edge list lives in the padded block: the list
 * is the south row (NX), the north row (NX), the west column (NY), the
 * east column (NY). ghost 0: the owned cells along that side (what the
 * neighbour there needs); ghost 1: the ghost cells beyond it. */
FB_INLINE int heat_edge_at(const int k, const int nx, const int ny, const int ghost)
{
    if (k < nx) return HALO_AT(k, ghost ? -1 : 0);
    if (k < 2 * nx) return HALO_AT(k - nx, ghost ? ny : ny - 1);
    if (k < 2 * nx + ny) return HALO_AT(ghost ? -1 : 0, k - 2 * nx);
    return HALO_AT(ghost ? nx : nx - 1, k - 2 * nx - ny);
}

/* edge[k] = the owned boundary cells, 2 NX + 2 NY items (1D launch, tail
 * guarded): one small buffer the host copies out for the exchange. */
__kernel void heat_halo_pack(const int nx, const int ny, __global const REAL *restrict t, __global REAL *restrict edge)
{
    const int k = (int)get_global_id(0);
    if (k < 2 * nx + 2 * ny) edge[k] = t[heat_edge_at(k, nx, ny, 0)];
}

/* The ghost cells = ghost[k], in the same order (the host writes 0 for a
 * side at a wall). */
__kernel void heat_halo_unpack(const int nx, const int ny, __global const REAL *restrict ghost,
                               __global REAL *restrict t)
{
    const int k = (int)get_global_id(0);
    if (k < 2 * nx + 2 * ny) t[heat_edge_at(k, nx, ny, 1)] = ghost[k];
}
