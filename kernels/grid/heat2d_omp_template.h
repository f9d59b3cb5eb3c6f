/* heat2d_omp_template.h - OpenMP twins of the heat2d device kernels, one
 * precision per inclusion (REAL, SUFFIX and ARG_REAL set by heat2d_omp.c).
 *
 * A CPU thread owns whole lines of cells along the contiguous direction
 * (rows for ORDER 0, columns for ORDER 1, read from the ORDER define), so
 * the inner loop is unit-stride whatever the layout and vectorises; the
 * work-group shape means nothing here and is ignored. The line code is
 * written once in "line" coordinates: along the line the widths wl and
 * factors gl (dx, gx for rows), across it the width wa and factors
 * glo/ghi (dy_j, gy[j], gy[j + 1] for row j).
 *
 * Reduction convention between the host twins: an update leaves the whole
 * maximum change in partial[0] (one OpenMP max-reduction, no per-group
 * partials), and heat_max_reduce copies partial[0] to result[0].
 */

#define FB_CAT_(a, b) a##b
#define FB_CAT(a, b) FB_CAT_(a, b)
#define FB_NAME(base) FB_CAT(base, SUFFIX)

/* One line of cells: its neighbours across (lo, hi; NULL at a wall). */
typedef struct FB_NAME(heat_line_) {
    int n;
    const REAL *restrict lo, *restrict hi, *restrict tn;
    const REAL *wl, *gl;
    REAL wa, glo, ghi, inv_dt;
} FB_NAME(heat_line_);

static inline REAL FB_NAME(heat_cell_)(const FB_NAME(heat_line_) * L, int m, REAL tw, REAL te, REAL tlo, REAL thi)
{
    const REAL gw = L->wa * L->gl[m], ge = L->wa * L->gl[m + 1];
    const REAL glo = L->wl[m] * L->glo, ghi = L->wl[m] * L->ghi, vdt = L->wl[m] * L->wa * L->inv_dt;
    return (vdt * L->tn[m] + gw * tw + ge * te + glo * tlo + ghi * thi) / (vdt + gw + ge + glo + ghi);
}

/* Jacobi on one line, tin -> tout; returns the line's max change. The
 * interior loop has no wall tests (the ends are peeled) so it vectorises;
 * a wall across the line reads the line itself times 0. */
static REAL FB_NAME(heat_jacobi_line_)(const FB_NAME(heat_line_) * L, const REAL *restrict tin, REAL *restrict tout)
{
    const int n = L->n;
    const REAL slo = L->lo ? 1 : 0, shi = L->hi ? 1 : 0;
    const REAL *restrict lo = L->lo ? L->lo : tin, *restrict hi = L->hi ? L->hi : tin;
    REAL worst = 0;
    const int ends[2] = {0, n - 1}; /* n >= 3: the grid spec guarantees it */
    for (int e = 0; e < 2; ++e) {
        const int m = ends[e];
        REAL v =
            FB_NAME(heat_cell_)(L, m, m > 0 ? tin[m - 1] : 0, m + 1 < n ? tin[m + 1] : 0, slo * lo[m], shi * hi[m]);
        REAL d = v - tin[m];
        worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d : worst);
        tout[m] = v;
    }
#pragma omp simd reduction(max : worst)
    for (int m = 1; m < n - 1; ++m) {
        REAL v = FB_NAME(heat_cell_)(L, m, tin[m - 1], tin[m + 1], slo * lo[m], shi * hi[m]);
        REAL d = v - tin[m];
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
        tout[m] = v;
    }
    return worst;
}

/* One colour of red-black Gauss-Seidel on line `line`, in place. */
static REAL FB_NAME(heat_rbgs_line_)(const FB_NAME(heat_line_) * L, int line, int colour, REAL *t)
{
    const int n = L->n;
    REAL worst = 0;
    for (int m = (colour + line) & 1; m < n; m += 2) {
        REAL v = FB_NAME(heat_cell_)(L, m, m > 0 ? t[m - 1] : 0, m + 1 < n ? t[m + 1] : 0, L->lo ? L->lo[m] : 0,
                                     L->hi ? L->hi[m] : 0);
        REAL d = v - t[m];
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
        t[m] = v;
    }
    return worst;
}

/* The line `line` of field f (and its neighbours across) for the layout. */
static FB_NAME(heat_line_)
    FB_NAME(heat_line_at_)(const fb_host_arg *a, int order, int line, const REAL *f, const REAL *tn)
{
    const int nx = a[0].i32, ny = a[1].i32;
    const REAL *dx = a[3].ptr, *dy = a[4].ptr, *gx = a[5].ptr, *gy = a[6].ptr;
    /* ORDER 0: lines are rows j (along x); ORDER 1: columns i (along y) */
    const int n = order == 0 ? nx : ny, lines = order == 0 ? ny : nx;
    const REAL *wl = order == 0 ? dx : dy, *gl = order == 0 ? gx : gy;
    const REAL *wa = order == 0 ? dy : dx, *ga = order == 0 ? gy : gx;
    const size_t at = (size_t)line * (size_t)n;
    FB_NAME(heat_line_)
    L = {.n = n,
         .lo = line > 0 ? f + at - n : NULL,
         .hi = line + 1 < lines ? f + at + n : NULL,
         .tn = tn + at,
         .wl = wl,
         .gl = gl,
         .wa = wa[line],
         .glo = ga[line],
         .ghi = ga[line + 1],
         .inv_dt = ARG_REAL(a[2])};
    return L;
}

/* heat_jacobi(nx, ny, inv_dt, dx, dy, gx, gy, tn, t_in, t_out, partial) */
static void FB_NAME(heat_jacobi_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const int order = fb_host_define_int(defs, "ORDER", 0);
    const int lines = order == 0 ? args[1].i32 : args[0].i32;
    const REAL *tn = args[7].ptr, *tin = args[8].ptr;
    REAL *tout = args[9].ptr, *partial = args[10].ptr, worst = 0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int line = 0; line < lines; ++line) {
        FB_NAME(heat_line_) L = FB_NAME(heat_line_at_)(args, order, line, tin, tn);
        const size_t at = (size_t)line * (size_t)L.n;
        REAL w = FB_NAME(heat_jacobi_line_)(&L, tin + at, tout + at);
        worst = w > worst ? w : worst;
    }
    partial[0] = worst;
}

/* heat_rbgs(nx, ny, inv_dt, colour, dx, dy, gx, gy, tn, t, partial): the
 * arguments after colour sit one slot later than heat_jacobi's, so they are
 * shifted into heat_jacobi's order for heat_line_at_. */
static void FB_NAME(heat_rbgs_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const int order = fb_host_define_int(defs, "ORDER", 0), colour = args[3].i32;
    const int lines = order == 0 ? args[1].i32 : args[0].i32;
    const fb_host_arg a[7] = {args[0], args[1], args[2], args[4], args[5], args[6], args[7]};
    const REAL *tn = args[8].ptr;
    REAL *t = args[9].ptr, *partial = args[10].ptr, worst = 0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int line = 0; line < lines; ++line) {
        FB_NAME(heat_line_) L = FB_NAME(heat_line_at_)(a, order, line, t, tn);
        REAL w = FB_NAME(heat_rbgs_line_)(&L, line, colour, t + (size_t)line * (size_t)L.n);
        worst = w > worst ? w : worst;
    }
    partial[0] = colour == 0 || worst > partial[0] ? worst : partial[0];
}

/* heat_max_reduce(n, partial, result): see the convention above. */
static void FB_NAME(heat_max_reduce_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const REAL *partial = args[1].ptr;
    REAL *result = args[2].ptr;
    result[0] = partial[0];
}

/* ---- a rank's padded block (heat2d.cl, "one rank's block"): row-major,
 * (nx + 2) x (ny + 2), ghosts around; rows are the lines. ---- */

/* heat_jacobi_halo(nx, ny, inv_dt, dx, dy, gx, gy, tn, t_in, t_out, partial).
 * Every cell's neighbours are in the padded rows (a wall's ghost is 0), so
 * the row needs no peeled ends; heat_cell_ is the whole-grid twin's own
 * arithmetic, so a decomposed run gives heat_jacobi_omp_'s bits. */
static void FB_NAME(heat_jacobi_halo_omp_)(const fb_host_arg *args, const fb_launch *launch,
                                           const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int nx = args[0].i32, ny = args[1].i32;
    const size_t pitch = (size_t)nx + 2;
    const REAL *dx = args[3].ptr, *dy = args[4].ptr, *gx = args[5].ptr, *gy = args[6].ptr;
    const REAL *tn = args[7].ptr, *tin = args[8].ptr;
    REAL *tout = args[9].ptr, *partial = args[10].ptr, worst = 0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int j = 0; j < ny; ++j) {
        const size_t at = (size_t)(j + 1) * pitch + 1; /* owned cell (0, j) */
        const REAL *restrict in = tin + at, *restrict lo = tin + at - pitch, *restrict hi = tin + at + pitch;
        REAL *restrict out = tout + at;
        FB_NAME(heat_line_)
        L = {.n = nx,
             .tn = tn + at,
             .wl = dx,
             .gl = gx,
             .wa = dy[j],
             .glo = gy[j],
             .ghi = gy[j + 1],
             .inv_dt = ARG_REAL(args[2])};
        REAL w = 0;
#pragma omp simd reduction(max : w)
        for (int m = 0; m < nx; ++m) {
            REAL v = FB_NAME(heat_cell_)(&L, m, in[m - 1], in[m + 1], lo[m], hi[m]);
            REAL d = v - in[m];
            d = d < 0 ? -d : d;
            w = d > w ? d : w;
            out[m] = v;
        }
        worst = w > worst ? w : worst;
    }
    partial[0] = worst;
}

/* heat_edge_at of heat2d.cl: item k of the edge list in the padded block. */
static inline size_t FB_NAME(heat_edge_at_)(int k, int nx, int ny, int ghost)
{
    const size_t pitch = (size_t)nx + 2;
#define HALO_AT_(i, j) ((size_t)((j) + 1) * pitch + (size_t)((i) + 1))
    if (k < nx) return HALO_AT_(k, ghost ? -1 : 0);
    if (k < 2 * nx) return HALO_AT_(k - nx, ghost ? ny : ny - 1);
    if (k < 2 * nx + ny) return HALO_AT_(ghost ? -1 : 0, k - 2 * nx);
    return HALO_AT_(ghost ? nx : nx - 1, k - 2 * nx - ny);
#undef HALO_AT_
}

/* heat_halo_pack(nx, ny, t, edge) */
static void FB_NAME(heat_halo_pack_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int nx = args[0].i32, ny = args[1].i32;
    const REAL *t = args[2].ptr;
    REAL *edge = args[3].ptr;
    for (int k = 0; k < 2 * nx + 2 * ny; ++k)
        edge[k] = t[FB_NAME(heat_edge_at_)(k, nx, ny, 0)];
}

/* heat_halo_unpack(nx, ny, ghost, t) */
static void FB_NAME(heat_halo_unpack_omp_)(const fb_host_arg *args, const fb_launch *launch,
                                           const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const int nx = args[0].i32, ny = args[1].i32;
    const REAL *ghost = args[2].ptr;
    REAL *t = args[3].ptr;
    for (int k = 0; k < 2 * nx + 2 * ny; ++k)
        t[FB_NAME(heat_edge_at_)(k, nx, ny, 1)] = ghost[k];
}

#undef FB_NAME
#undef FB_CAT
#undef FB_CAT_
