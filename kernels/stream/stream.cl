/* stream.cl - BabelStream's copy, mul, add, triad and dot: the bandwidth
 * reference every flowbench result is divided by, and the read ceiling.
 *
 * Definitions (BabelStream, scalar = 0.4):
 *   copy   c[i] = a[i]                 2 words moved per element, 0 flops
 *   mul    b[i] = scalar * c[i]        2 words, 1 flop
 *   add    c[i] = a[i] + b[i]          3 words, 1 flop
 *   triad  a[i] = b[i] + scalar * c[i] 3 words, 2 flops
 *   dot    sum of a[i] * b[i]          2 words read, 2 flops (+ one partial
 *                                      sum written per work-group)
 * Dot is the read ceiling: it writes almost nothing, so it measures what a
 * read-dominated kernel (SpMV) can reach, which on many CPUs is above the
 * triad (no write-allocate traffic).
 * The byte model and reference live in stream_run.c; the OpenMP
 * twins in kernels/stream/stream_omp.c.
 *
 * Parameters (-D defines): REAL (double|float); DOT_WG, the work-group size
 * (dot sizes its local array with it); DOT_CHUNK, the elements one
 * work-group of dot sums; DOT_CONTIGUOUS (CPU devices), each item of dot
 * sums a contiguous run of its group's chunk. For the others the work-group size is a launch
 * parameter only; the global size is padded to a multiple of it and each
 * kernel guards the tail.
 */
#ifndef DOT_WG
#define DOT_WG 256
#endif
#ifndef DOT_CHUNK
#define DOT_CHUNK 4096
#endif

__kernel void stream_copy(__global const REAL *restrict a, __global REAL *restrict c, const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) c[i] = a[i];
}

__kernel void stream_mul(__global REAL *restrict b, __global const REAL *restrict c, const REAL scalar,
                         const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) b[i] = scalar * c[i];
}

__kernel void stream_add(__global const REAL *restrict a, __global const REAL *restrict b,
                         __global REAL *restrict c, const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

__kernel void stream_triad(__global REAL *restrict a, __global const REAL *restrict b,
                           __global const REAL *restrict c, const REAL scalar, const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) a[i] = b[i] + scalar * c[i];
}

/* Work-group g sums its own contiguous chunk of DOT_CHUNK elements. On a
 * GPU its items interleave (item l reads l, l + DOT_WG, ...): the group
 * reads one contiguous run per step. On a CPU (DOT_CONTIGUOUS) a runtime
 * such as PoCL runs each item's loop on its own, so interleaved items
 * stride through memory: there item l sums its own contiguous run, four
 * running sums so the adds do not wait on each other: PoCL's dot went from
 * a third of the triad to 0.8-0.9 of it, with chunks of 32768 doing better
 * than 4096 or 131072 (results/reference/stream-dot-vm-2026-11-29). The
 * group's sums are added pairwise in local memory
 * (any DOT_WG, not only powers of two) and written to partial[g]; the host
 * adds the ceil(n / DOT_CHUNK) partial sums. */
__kernel void stream_dot(__global const REAL *restrict a, __global const REAL *restrict b,
                         __global REAL *restrict partial, const int n)
{
    __local REAL sums[DOT_WG];
    const int lid = (int)get_local_id(0), group = (int)get_group_id(0);
    const int start = group * DOT_CHUNK, end = min(start + DOT_CHUNK, n);
    REAL sum = 0;
#ifdef DOT_CONTIGUOUS
    const int per = (DOT_CHUNK + DOT_WG - 1) / DOT_WG, to = min(start + (lid + 1) * per, end);
    REAL s1 = 0, s2 = 0, s3 = 0;
    int i = start + lid * per;
    for (; i + 4 <= to; i += 4) {
        sum += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < to; ++i) sum += a[i] * b[i];
    sum += (s1 + s2) + s3;
#else
    for (int i = start + lid; i < end; i += DOT_WG) sum += a[i] * b[i];
#endif
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 1; step < DOT_WG; step *= 2) {
        if (lid % (2 * step) == 0 && lid + step < DOT_WG) sums[lid] += sums[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[group] = sums[0];
}

/* Writes every element: used to initialise arrays on the device (first touch
 * where it matters) and to evict caches between cold samples. */
__kernel void stream_fill(__global REAL *restrict x, const REAL value, const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) x[i] = value;
}
