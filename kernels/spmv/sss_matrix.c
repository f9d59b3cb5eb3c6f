/* sss_matrix.c - the conversion to symmetric sparse skyline (sss_matrix.h). */
#include "sss_matrix.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

/* Checks that every entry's mirror holds the same value, in one pass: rows
 * are walked in order, so the mirror of upper entry (r, c) is the next
 * unmatched lower entry of row c (columns ascend); mirror[c] is that place.
 * The lower entries of row c left unmatched at the end have no mirror. */
static fb_status check_symmetric(const fb_spmv_matrix *A, int *mirror)
{
    fb_status status = FB_OK;
    const int n = A->shape.nrows;
    memcpy(mirror, A->ptr, (size_t)n * sizeof(int));
    for (int r = 0; r < n; ++r)
        for (int j = A->ptr[r]; j < A->ptr[r + 1]; ++j) {
            const int c = A->idx[j], m = mirror[c];
            if (c <= r) continue;
            if (m >= A->ptr[c + 1] || A->idx[m] != r || A->values[m] != A->values[j])
                FB_FAIL(FB_ERR_INPUT, "sss: the matrix is not symmetric: entry (%d, %d) = %.17g has no equal mirror",
                        r + 1, c + 1, A->values[j]);
            mirror[c] = m + 1;
        }
    for (int r = 0; r < n; ++r)
        if (mirror[r] < A->ptr[r + 1] && A->idx[mirror[r]] < r)
            FB_FAIL(FB_ERR_INPUT, "sss: the matrix is not symmetric: entry (%d, %d) has no mirror", r + 1,
                    A->idx[mirror[r]] + 1);
fail:
    return status;
}

static fb_status split_triangle(const fb_spmv_matrix *A, fb_sss *S)
{
    fb_status status = FB_OK;
    const int n = A->shape.nrows;
    FB_ALLOC(S->lptr, (size_t)n + 1, "sss row pointers");
    FB_ALLOC(S->diag, n > 0 ? (size_t)n : 1, "sss diagonal");
    S->lptr[0] = 0;
    for (int r = 0; r < n; ++r) {
        int below = 0;
        S->diag[r] = 0.0;
        for (int j = A->ptr[r]; j < A->ptr[r + 1]; ++j) {
            below += A->idx[j] < r;
            if (A->idx[j] == r) S->diag[r] = A->values[j];
        }
        S->lptr[r + 1] = S->lptr[r] + below;
    }
    S->lower = S->lptr[n];
    FB_ALLOC(S->lcol, S->lower > 0 ? (size_t)S->lower : 1, "sss columns");
    FB_ALLOC(S->lval, S->lower > 0 ? (size_t)S->lower : 1, "sss values");
    for (int r = 0; r < n; ++r)
        for (int j = A->ptr[r], k = S->lptr[r]; j < A->ptr[r + 1] && A->idx[j] < r; ++j, ++k)
            S->lcol[k] = A->idx[j], S->lval[k] = A->values[j];
fail:
    return status;
}

/* First row whose rows-plus-entries weight before it reaches target. */
static int row_at_weight(const fb_sss *S, int64_t target)
{
    int lo = 0, hi = S->nrows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((int64_t)S->lptr[mid] + mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Chunks of about equal rows plus lower entries, and each one's first slot. */
static fb_status cut_chunks(fb_sss *S)
{
    fb_status status = FB_OK;
    const int64_t weight = S->lower + S->nrows;
    FB_ALLOC(S->chunk_start, (size_t)S->nchunks + 1, "sss chunks");
    FB_ALLOC(S->chunk_slot, (size_t)S->nchunks + 1, "sss chunk slots");
    for (int k = 0; k < S->nchunks; ++k)
        S->chunk_start[k] = row_at_weight(S, weight * k / S->nchunks);
    S->chunk_start[S->nchunks] = S->nrows;
    S->chunk_slot[0] = 0;
    for (int k = 0; k < S->nchunks; ++k) {
        int64_t in_chunk = 0;
        for (int j = S->lptr[S->chunk_start[k]]; j < S->lptr[S->chunk_start[k + 1]]; ++j)
            in_chunk += S->lcol[j] < S->chunk_start[k];
        if ((int64_t)S->chunk_slot[k] + in_chunk > INT32_MAX)
            FB_FAIL(FB_ERR_INPUT, "sss: over 2^31 conflict slots at %d chunks", S->nchunks);
        S->chunk_slot[k + 1] = S->chunk_slot[k] + (int)in_chunk;
    }
    S->conflicts = S->chunk_slot[S->nchunks];
fail:
    return status;
}

/* Calls each conflict's (slot, row) in slot order. */
#define FOR_EACH_SLOT(S, slot, row, body)                                                                              \
    for (int k_ = 0, slot = 0; k_ < (S)->nchunks; ++k_)                                                                \
        for (int j_ = (S)->lptr[(S)->chunk_start[k_]]; j_ < (S)->lptr[(S)->chunk_start[k_ + 1]]; ++j_)                 \
            if ((S)->lcol[j_] < (S)->chunk_start[k_]) {                                                                \
                const int row = (S)->lcol[j_];                                                                         \
                body;                                                                                                  \
                ++slot;                                                                                                \
            }

/* Each slot's place, grouped by the row it adds to (a counting sort: a
 * row's slots stay in walk order). */
static fb_status group_slots(fb_sss *S)
{
    fb_status status = FB_OK;
    int *count = NULL;
    FB_ALLOC(count, (size_t)S->nrows + 1, "sss slot counts");
    memset(count, 0, ((size_t)S->nrows + 1) * sizeof(int));
    FOR_EACH_SLOT(S, slot, row, (void)slot; ++count[row]);
    for (int r = 0; r < S->nrows; ++r)
        S->nfix += count[r] > 0;
    FB_ALLOC(S->fix_rows, S->nfix > 0 ? (size_t)S->nfix : 1, "sss fix-up rows");
    FB_ALLOC(S->fix_ptr, (size_t)S->nfix + 1, "sss fix-up pointers");
    FB_ALLOC(S->slot_place, S->conflicts > 0 ? (size_t)S->conflicts : 1, "sss slot places");
    S->fix_ptr[0] = 0;
    for (int r = 0, m = 0; r < S->nrows; ++r)
        if (count[r] > 0) {
            S->fix_rows[m] = r;
            S->fix_ptr[m + 1] = S->fix_ptr[m] + count[r];
            count[r] = S->fix_ptr[m++]; /* now the row's next place */
        }
    FOR_EACH_SLOT(S, slot, row, S->slot_place[slot] = count[row]++);
fail:
    free(count);
    return status;
}

fb_status fb_sss_from_csr(const fb_spmv_matrix *A, int nchunks, fb_sss *out)
{
    fb_status status = FB_OK;
    const double t0 = fb_now();
    int *mirror = NULL;
    memset(out, 0, sizeof *out);
    if (A->shape.nrows != A->shape.ncols)
        FB_FAIL(FB_ERR_INPUT, "sss: the matrix is %d x %d, not square", A->shape.nrows, A->shape.ncols);
    if (nchunks < 1) FB_FAIL(FB_ERR_USAGE, "sss: CHUNKS %d must be at least 1", nchunks);
    out->nrows = A->shape.nrows, out->nchunks = nchunks;
    FB_ALLOC(mirror, A->shape.nrows > 0 ? (size_t)A->shape.nrows : 1, "sss mirror places");
    FB_CHECK(check_symmetric(A, mirror));
    FB_CHECK(split_triangle(A, out));
    FB_CHECK(cut_chunks(out));
    FB_CHECK(group_slots(out));
    out->seconds = fb_now() - t0;
fail:
    free(mirror);
    if (status != FB_OK) fb_sss_free(out);
    return status;
}

int fb_sss_chunks(int point_chunks, const fb_device_info *dev)
{
    if (point_chunks > 0) return point_chunks;
    return dev && dev->compute_units > 0 ? dev->compute_units : 1;
}

void fb_sss_free(fb_sss *S)
{
    void *all[] = {S->lptr,       S->lcol,     S->lval,    S->diag,      S->chunk_start,
                   S->chunk_slot, S->fix_rows, S->fix_ptr, S->slot_place};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        free(all[i]);
    memset(S, 0, sizeof *S);
}
