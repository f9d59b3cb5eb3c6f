/* cuda.c - PLACEHOLDER until the CUDA backend lands: reports itself as not
 * built so the rest of the tree links. Replaced wholesale by the real file. */
#include <stdio.h>

#include "backend.h"

static int probe_cuda(char *why, size_t len)
{
    snprintf(why, len, "not built (CUDA backend in progress)");
    return 0;
}

static fb_status unavailable(void) { return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "cuda: not built"); }
static fb_status info_cuda(int i, fb_device_info *d) { (void)i, (void)d; return unavailable(); }
static fb_status open_cuda(int i, fb_device **d) { (void)i, (void)d; return unavailable(); }
static void close_cuda(fb_device *d) { (void)d; }
static fb_status alloc_cuda(fb_device *d, size_t b, fb_buffer **o) { (void)d, (void)b, (void)o; return unavailable(); }
static void release_cuda(fb_device *d, fb_buffer *b) { (void)d, (void)b; }
static fb_status copy_in_cuda(fb_device *d, fb_buffer *b, const void *s, size_t n) { (void)d, (void)b, (void)s, (void)n; return unavailable(); }
static fb_status copy_out_cuda(fb_device *d, void *o, fb_buffer *b, size_t n) { (void)d, (void)b, (void)o, (void)n; return unavailable(); }
static fb_status build_cuda(fb_device *d, const fb_program_spec *s, fb_kernel **k, char **l) { (void)d, (void)s, (void)k, (void)l; return unavailable(); }
static void release_kernel_cuda(fb_device *d, fb_kernel *k) { (void)d, (void)k; }
static fb_status launch_cuda(fb_device *d, fb_kernel *k, const fb_launch *l, const fb_arg *a, int n, double *s) { (void)d, (void)k, (void)l, (void)a, (void)n, (void)s; return unavailable(); }
static fb_status finish_cuda(fb_device *d) { (void)d; return unavailable(); }

const fb_backend_ops fb_backend_cuda = {
    .name = "cuda", .probe = probe_cuda, .device_info = info_cuda, .open = open_cuda, .close = close_cuda,
    .alloc = alloc_cuda, .release = release_cuda, .copy_in = copy_in_cuda, .copy_out = copy_out_cuda,
    .build = build_cuda, .release_kernel = release_kernel_cuda, .launch = launch_cuda, .finish = finish_cuda,
    .flush_cache = finish_cuda,
};
