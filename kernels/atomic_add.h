/* atomic_add.h - fb_atomic_add(p, x): *p += x as one atomic update, for a
 * REAL of either precision, in any device program that includes it
 * (fv_surface.cl's fv-atomic, sss.cl's sss-atomic).
 *
 * CUDA: atomicAdd, native for double on sm_60 and later. OpenCL 1.2 has no
 * floating-point atomics: a compare-and-swap on the value's bits, retried
 * until no other item wrote between the read and the swap, on 32-bit ints
 * for float and on 64-bit ints for double (cl_khr_int64_base_atomics: a
 * double program on a device without it fails to build, saying so). */
#ifndef FB_ATOMIC_ADD_H
#define FB_ATOMIC_ADD_H

/* REAL's size in the preprocessor: FB_REAL_BYTES(float) -> FB_REAL_BYTES_float -> 4 */
#define FB_REAL_BYTES_double 8
#define FB_REAL_BYTES_float 4
#define FB_REAL_BYTES_(r) FB_REAL_BYTES_##r
#define FB_REAL_BYTES(r) FB_REAL_BYTES_(r)

#ifdef __CUDACC__
FB_INLINE void fb_atomic_add(__global REAL *p, const REAL x) { atomicAdd(p, x); }
#else
#if FB_REAL_BYTES(REAL) == 8 && defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
FB_INLINE void fb_atomic_add(__global REAL *p, const REAL x)
{
#if FB_REAL_BYTES(REAL) == 4
    volatile __global uint *bits = (volatile __global uint *)p;
    uint old = *bits, seen;
    while ((seen = atomic_cmpxchg(bits, old, as_uint(as_float(old) + x))) != old)
        old = seen;
#elif defined(cl_khr_int64_base_atomics)
    volatile __global ulong *bits = (volatile __global ulong *)p;
    ulong old = *bits, seen;
    while ((seen = atom_cmpxchg(bits, old, as_ulong(as_double(old) + x))) != old)
        old = seen;
#else
#error atomic adds in double precision need cl_khr_int64_base_atomics (64-bit compare-and-swap)
#endif
}
#endif

#endif
