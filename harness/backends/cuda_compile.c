/* cuda_compile.c - NVRTC front end shared by the CUDA backend and the NVRTC
 * compile test (see cuda_compile.h). Needs NVRTC only, never the driver. */
#include "cuda_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/kernel_sources.h"

#ifdef FB_HAVE_CUDA
#include <nvrtc.h>

#include "dynlib.h"

#define CUDA_PRELUDE "cuda/opencl_to_cuda.h"
#define MAX_OPTIONS 40

/* NVRTC, opened at the first compile (dynlib.h says why). */
#define NVRTC_FUNCTIONS(X)                                                                                             \
    X(nvrtcVersion)                                                                                                    \
    X(nvrtcGetErrorString)                                                                                             \
    X(nvrtcGetNumSupportedArchs)                                                                                       \
    X(nvrtcGetSupportedArchs)                                                                                          \
    X(nvrtcCreateProgram)                                                                                              \
    X(nvrtcCompileProgram)                                                                                             \
    X(nvrtcDestroyProgram)                                                                                             \
    X(nvrtcGetProgramLogSize)                                                                                          \
    X(nvrtcGetProgramLog)                                                                                              \
    X(nvrtcGetCUBINSize)                                                                                               \
    X(nvrtcGetCUBIN)                                                                                                   \
    X(nvrtcGetPTXSize)                                                                                                 \
    X(nvrtcGetPTX)

static struct {
    int tried, usable;
    char why[1024];
#define NVRTC_FIELD(name) __typeof__(&name) p_##name;
    NVRTC_FUNCTIONS(NVRTC_FIELD)
} nvrtc;

#define NV(name) nvrtc.p_##name

static fb_status load_nvrtc(void)
{
    if (!nvrtc.tried) {
        void *lib = fb_cuda_lib_open(FB_NVRTC_SONAME, nvrtc.why, sizeof nvrtc.why);
        nvrtc.tried = 1, nvrtc.usable = lib != NULL;
#define NVRTC_LOAD(name)                                                                                               \
    if (nvrtc.usable && !(nvrtc.p_##name = (__typeof__(&name))fb_dynlib_symbol(lib, FB_NVRTC_SONAME, #name, nvrtc.why, \
                                                                               sizeof nvrtc.why)))                     \
        nvrtc.usable = 0;
        NVRTC_FUNCTIONS(NVRTC_LOAD)
    }
    if (nvrtc.usable) return FB_OK;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "cuda: NVRTC: %s", nvrtc.why);
}

#define CHECK_NVRTC(call, what)                                                                                        \
    do {                                                                                                               \
        nvrtcResult r_ = (call);                                                                                       \
        if (r_ != NVRTC_SUCCESS)                                                                                       \
            FB_FAIL(FB_ERR_BUILD, "cuda: %s: %s failed: %s", spec->source_name, (what), NV(nvrtcGetErrorString)(r_));  \
    } while (0)

fb_status fb_cuda_nvrtc_version(char *out, size_t out_len)
{
    fb_status status = FB_OK;
    int major = 0, minor = 0;
    FB_CHECK(load_nvrtc());
    nvrtcResult r = NV(nvrtcVersion)(&major, &minor);
    if (r != NVRTC_SUCCESS) FB_FAIL(FB_ERR_BACKEND, "cuda: nvrtcVersion failed: %s", NV(nvrtcGetErrorString)(r));
    snprintf(out, out_len, "NVRTC %d.%d", major, minor);
fail:
    return status;
}

/* The newest architecture NVRTC can target that the device runs: the
 * device's own if NVRTC knows it (exact = 1: a cubin), else the newest one
 * below it (exact = 0: PTX, which the driver compiles for the device). */
static fb_status pick_arch(int cc, int *arch, int *exact)
{
    fb_status status = FB_OK;
    int n = 0, *archs = NULL;
    if (NV(nvrtcGetNumSupportedArchs)(&n) != NVRTC_SUCCESS || n <= 0)
        FB_FAIL(FB_ERR_BACKEND, "cuda: NVRTC lists no supported architecture");
    FB_ALLOC(archs, n, "NVRTC architecture list");
    if (NV(nvrtcGetSupportedArchs)(archs) != NVRTC_SUCCESS)
        FB_FAIL(FB_ERR_BACKEND, "cuda: nvrtcGetSupportedArchs failed");
    *arch = 0;
    for (int i = 0; i < n; ++i)
        if (archs[i] <= cc && archs[i] > *arch) *arch = archs[i];
    if (*arch == 0)
        FB_FAIL(FB_ERR_UNAVAILABLE,
                "cuda: compute capability %d.%d is older than any this NVRTC supports (oldest sm_%d)", cc / 10, cc % 10,
                archs[0]);
    *exact = *arch == cc;
fail:
    free(archs);
    return status;
}

/* Options as NVRTC wants them, one string each, pointing into storage.
 * fb_defines_render has already refused spaces in names and values, so
 * splitting its output on spaces gives back one -D per define. */
static fb_status make_options(const fb_program_spec *spec, const char *arch_option, char *storage, size_t storage_len,
                              const char **options, int *noptions)
{
    fb_status status = FB_OK;
    int n = 0;
    FB_CHECK(fb_defines_render(spec->defines, spec->ndefines, storage, storage_len));
    options[n++] = arch_option;
    options[n++] = "--std=c++17";
    for (char *tok = strtok(storage, " "); tok; tok = strtok(NULL, " ")) {
        if (n == MAX_OPTIONS)
            FB_FAIL(FB_ERR_INPUT, "cuda: %s: more than %d defines", spec->source_name, MAX_OPTIONS - 2);
        options[n++] = tok;
    }
    *noptions = n;
fail:
    return status;
}

static char *program_log(nvrtcProgram prog)
{
    size_t size = 0;
    char *text = NULL;
    if (NV(nvrtcGetProgramLogSize)(prog, &size) != NVRTC_SUCCESS || !(text = calloc(size + 1, 1))) return NULL;
    if (NV(nvrtcGetProgramLog)(prog, text) != NVRTC_SUCCESS) text[0] = '\0';
    return text;
}

static fb_status take_image(const fb_program_spec *spec, nvrtcProgram prog, fb_cuda_image *out)
{
    fb_status status = FB_OK;
    size_t size = 0;
    if (out->is_cubin) {
        CHECK_NVRTC(NV(nvrtcGetCUBINSize)(prog, &size), "nvrtcGetCUBINSize");
        FB_ALLOC(out->data, size, "CUDA cubin");
        CHECK_NVRTC(NV(nvrtcGetCUBIN)(prog, out->data), "nvrtcGetCUBIN");
    } else {
        CHECK_NVRTC(NV(nvrtcGetPTXSize)(prog, &size), "nvrtcGetPTXSize");
        FB_ALLOC(out->data, size + 1, "CUDA PTX");
        CHECK_NVRTC(NV(nvrtcGetPTX)(prog, out->data), "nvrtcGetPTX");
    }
    out->size = size;
fail:
    return status;
}

fb_status fb_cuda_compile(const fb_program_spec *spec, int cc_major, int cc_minor, fb_cuda_image *out, char **log)
{
    fb_status status = FB_OK;
    nvrtcProgram prog = NULL;
    char *text = NULL, *messages = NULL, storage[4096], arch_option[48], first[512];
    const char *options[MAX_OPTIONS];
    int noptions = 0, arch = 0, exact = 0;
    memset(out, 0, sizeof *out);
    if (log) *log = NULL;
    if (!spec->source_text || !spec->kernel_name)
        FB_FAIL(FB_ERR_INPUT, "cuda: %s: no source text or kernel name", spec->source_name);
    FB_CHECK(load_nvrtc());
    FB_CHECK(pick_arch(cc_major * 10 + cc_minor, &arch, &exact));
    out->is_cubin = exact;
    snprintf(out->arch, sizeof out->arch, "%s_%d", exact ? "sm" : "compute", arch);
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", out->arch);
    /* opencl_to_cuda.h, then what the OpenCL driver reads too (the common
     * prelude, the kernel and its includes), each renumbered as its file */
    FB_CHECK(fb_kernel_program_text(CUDA_PRELUDE, spec->source_name, spec->source_text, &text));
    FB_CHECK(make_options(spec, arch_option, storage, sizeof storage, options, &noptions));
    CHECK_NVRTC(NV(nvrtcCreateProgram)(&prog, text, spec->source_name, 0, NULL, NULL), "nvrtcCreateProgram");
    nvrtcResult compiled = NV(nvrtcCompileProgram)(prog, noptions, options);
    messages = program_log(prog);
    if (compiled != NVRTC_SUCCESS) {
        fb_build_log_first_error(messages, first, sizeof first);
        if (!first[0]) snprintf(first, sizeof first, "%s, empty log", NV(nvrtcGetErrorString)(compiled));
        FB_FAIL(FB_ERR_BUILD, "%s: %s: build failed (NVRTC, %s): %s", spec->source_name, spec->kernel_name, out->arch,
                first);
    }
    FB_CHECK(take_image(spec, prog, out));
fail:
    if (status != FB_OK) fb_cuda_image_free(out);
    if (log)
        *log = messages;
    else
        free(messages);
    if (prog) NV(nvrtcDestroyProgram)(&prog);
    free(text);
    return status;
}

#else /* !FB_HAVE_CUDA */

fb_status fb_cuda_nvrtc_version(char *out, size_t out_len)
{
    snprintf(out, out_len, "not built");
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "cuda: not built (no CUDA toolkit at configure time)");
}

fb_status fb_cuda_compile(const fb_program_spec *spec, int cc_major, int cc_minor, fb_cuda_image *out, char **log)
{
    (void)spec, (void)cc_major, (void)cc_minor;
    memset(out, 0, sizeof *out);
    if (log) *log = NULL;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "cuda: not built (no CUDA toolkit at configure time)");
}

#endif

void fb_cuda_image_free(fb_cuda_image *image)
{
    if (!image) return;
    free(image->data);
    image->data = NULL;
    image->size = 0;
}
