/* heat2d_decomp.c - which cells each rank of a decomposed heat2d run owns
 * (heat2d.h, "several ranks"): the split of one axis, the --decomp text,
 * and a rank's block with its neighbours. Pure arithmetic, no MPI, so it
 * is unit-tested in one process (tests/unit/test_heat2d_decomp.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat2d.h"

#define DECOMP_FORM "1d, 2d or PXxPY (e.g. 2x2)"

void fb_heat2d_split(int n, int parts, int c, int *lo, int *count)
{
    /* the first n % parts parts get one cell more: sizes differ by at most one */
    const int base = n / parts, extra = n % parts;
    *count = base + (c < extra ? 1 : 0);
    *lo = c * base + (c < extra ? c : extra);
}

/* Cells cut through (one ghost row or column per cut, on each side): the
 * exchange a px x py decomposition sends per iteration, halved. */
static long long cut_length(int px, int py, int nx, int ny)
{
    return (long long)(px - 1) * ny + (long long)(py - 1) * nx;
}

/* "2d": of the px x py = ranks that give every block a cell, the shortest
 * cut; px <= py on a tie (rows are contiguous: row strips copy less). */
static int best_2d(int ranks, int nx, int ny, fb_heat2d_decomp *d)
{
    long long best = LLONG_MAX;
    for (int px = 1; px <= ranks; ++px) {
        if (ranks % px || px > nx || ranks / px > ny) continue;
        long long cut = cut_length(px, ranks / px, nx, ny);
        if (cut < best) best = cut, d->px = px, d->py = ranks / px;
    }
    return best != LLONG_MAX;
}

/* "PXxPY": two whole positive numbers. */
static int read_pair(const char *text, int *px, int *py)
{
    char *end;
    if (*text < '0' || *text > '9') return 0;
    errno = 0;
    long a = strtol(text, &end, 10);
    if (errno || *end != 'x' || end[1] < '0' || end[1] > '9') return 0;
    long b = strtol(end + 1, &end, 10);
    if (errno || *end || a < 1 || b < 1 || a > INT_MAX || b > INT_MAX) return 0;
    *px = (int)a, *py = (int)b;
    return 1;
}

fb_status fb_heat2d_decomp_parse(const char *text, int ranks, int nx, int ny, fb_heat2d_decomp *d)
{
    fb_status status = FB_OK;
    memset(d, 0, sizeof *d);
    if (!strcmp(text, "1d")) {
        d->px = 1, d->py = ranks;
        snprintf(d->kind, sizeof d->kind, "1d");
    } else if (!strcmp(text, "2d")) {
        snprintf(d->kind, sizeof d->kind, "2d");
        if (!best_2d(ranks, nx, ny, d))
            FB_FAIL(FB_ERR_USAGE, "--decomp 2d: no PX x PY = %d ranks gives every rank a cell of the %dx%d grid", ranks,
                    nx, ny);
    } else if (read_pair(text, &d->px, &d->py)) {
        snprintf(d->kind, sizeof d->kind, "explicit");
        if ((long long)d->px * d->py != ranks)
            FB_FAIL(FB_ERR_USAGE, "--decomp %s: %lld blocks for %d rank%s (launch %lld ranks: mpirun -np %lld)", text,
                    (long long)d->px * d->py, ranks, ranks == 1 ? "" : "s", (long long)d->px * d->py,
                    (long long)d->px * d->py);
    } else {
        FB_FAIL(FB_ERR_USAGE, "--decomp: '%s' is not %s", text, DECOMP_FORM);
    }
    if (d->py > ny)
        FB_FAIL(FB_ERR_USAGE, "--decomp %s: %d row strips but the grid has %d rows (each rank needs at least one)",
                text, d->py, ny);
    if (d->px > nx)
        FB_FAIL(FB_ERR_USAGE,
                "--decomp %s: %d column blocks but the grid has %d columns (each rank needs at least one)", text, d->px,
                nx);
fail:
    return status;
}

fb_heat2d_block fb_heat2d_block_of(const fb_heat2d_decomp *d, int nx, int ny, int rank)
{
    fb_heat2d_block b;
    b.cx = rank % d->px, b.cy = rank / d->px;
    fb_heat2d_split(nx, d->px, b.cx, &b.i0, &b.nx);
    fb_heat2d_split(ny, d->py, b.cy, &b.j0, &b.ny);
    b.nb[FB_HEAT2D_SOUTH] = b.cy > 0 ? rank - d->px : -1;
    b.nb[FB_HEAT2D_NORTH] = b.cy + 1 < d->py ? rank + d->px : -1;
    b.nb[FB_HEAT2D_WEST] = b.cx > 0 ? rank - 1 : -1;
    b.nb[FB_HEAT2D_EAST] = b.cx + 1 < d->px ? rank + 1 : -1;
    return b;
}
