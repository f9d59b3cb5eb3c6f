/* stream.cl - BabelStream's copy, mul, add and triad, the bandwidth
 * reference every flowbench result is divided by.
 *
 * Definitions (BabelStream, scalar = 0.4):
 *   copy   c[i] = a[i]                 2 words moved per element, 0 flops
 *   mul    b[i] = scalar * c[i]        2 words, 1 flop
 *   add    c[i] = a[i] + b[i]          3 words, 1 flop
 *   triad  a[i] = b[i] + scalar * c[i] 3 words, 2 flops
 * The byte model and reference live in stream_run.c; the OpenMP
 * twins in kernels/stream/stream_omp.c.
 *
 * Parameters (-D defines): REAL (double|float). The work-group size is a
 * launch parameter only; the global size is padded to a multiple of it and
 * each kernel guards the tail.
 */

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

/* Writes every element: used to initialise arrays on the device (first touch
 * where it matters) and to evict caches between cold samples. */
__kernel void stream_fill(__global REAL *restrict x, const REAL value, const int n)
{
    const int i = (int)get_global_id(0);
    if (i < n) x[i] = value;
}
