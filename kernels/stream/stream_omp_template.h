/* stream_omp_template.h - OpenMP twins of stream.cl, one precision per
 * inclusion (REAL and SUFFIX set by stream_omp.c). Static schedules over the
 * same index ranges the arrays were first touched with, so each thread
 * streams its own pages; `simd` lets the compiler vectorise without a
 * runtime alias check (restrict is declared). */

#define FB_CAT_(a, b) a##b
#define FB_CAT(a, b) FB_CAT_(a, b)
#define FB_NAME(base) FB_CAT(base, SUFFIX)

static void FB_NAME(stream_copy_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const REAL *restrict a = args[0].ptr;
    REAL *restrict c = args[1].ptr;
    const int n = args[2].i32;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        c[i] = a[i];
}

static void FB_NAME(stream_mul_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    REAL *restrict b = args[0].ptr;
    const REAL *restrict c = args[1].ptr;
    const REAL scalar = (REAL)FB_CAT(ARG_REAL_, SUFFIX)(args[2]);
    const int n = args[3].i32;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        b[i] = scalar * c[i];
}

static void FB_NAME(stream_add_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    const REAL *restrict a = args[0].ptr;
    const REAL *restrict b = args[1].ptr;
    REAL *restrict c = args[2].ptr;
    const int n = args[3].i32;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}

static void FB_NAME(stream_triad_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    REAL *restrict a = args[0].ptr;
    const REAL *restrict b = args[1].ptr;
    const REAL *restrict c = args[2].ptr;
    const REAL scalar = (REAL)FB_CAT(ARG_REAL_, SUFFIX)(args[3]);
    const int n = args[4].i32;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        a[i] = b[i] + scalar * c[i];
}

/* The device kernel's partial sums, one per chunk of DOT_CHUNK elements
 * (fb_stream_dot_chunk); a thread takes whole chunks, so it reads
 * contiguous memory.
 * Eight running sums (four SSE registers): with one, each addition waits
 * for the one before, and dot measured the adder's latency (33.9 GB/s
 * here against a triad of 36.4), not what memory can be read at. */
#define FB_DOT_LANES 8
static void FB_NAME(stream_dot_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    const REAL *restrict a = args[0].ptr;
    const REAL *restrict b = args[1].ptr;
    REAL *restrict partial = args[2].ptr;
    const int n = args[3].i32, chunk = fb_host_define_int(defs, "DOT_CHUNK", FB_STREAM_DOT_CHUNK_CPU);
    const int chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
    for (int g = 0; g < chunks; ++g) {
        const int start = g * chunk, end = n - start < chunk ? n : start + chunk;
        REAL lanes[FB_DOT_LANES] = {0}, sum = 0;
        int i = start;
        for (; i + FB_DOT_LANES <= end; i += FB_DOT_LANES)
#pragma omp simd
            for (int k = 0; k < FB_DOT_LANES; ++k)
                lanes[k] += a[i + k] * b[i + k];
        for (; i < end; ++i)
            sum += a[i] * b[i];
        for (int k = 0; k < FB_DOT_LANES; ++k)
            sum += lanes[k];
        partial[g] = sum;
    }
}
#undef FB_DOT_LANES

static void FB_NAME(stream_fill_omp_)(const fb_host_arg *args, const fb_launch *launch, const fb_host_defines *defs)
{
    (void)launch;
    (void)defs;
    REAL *restrict x = args[0].ptr;
    const REAL value = (REAL)FB_CAT(ARG_REAL_, SUFFIX)(args[1]);
    const int n = args[2].i32;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        x[i] = value;
}

#undef FB_NAME
#undef FB_CAT
#undef FB_CAT_
