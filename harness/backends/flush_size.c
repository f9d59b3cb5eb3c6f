/* flush_size.c - see flush_size.h. */
#include "flush_size.h"

#include <string.h>

#include "backend.h"

static size_t twice_at_least_min(size_t cache)
{
    return 2 * cache > FB_FLUSH_MIN_BYTES ? 2 * cache : FB_FLUSH_MIN_BYTES;
}

size_t fb_flush_bytes(const char *vendor, size_t reported_cache, size_t cuda_l2, size_t max_alloc, const char **why)
{
    const char *from = "twice the reported last-level cache, at least 64 MiB";
    size_t bytes = twice_at_least_min(reported_cache);
    if (vendor && strstr(vendor, "NVIDIA")) {
        if (cuda_l2) {
            from = "twice the L2 CUDA reports for this device, at least 64 MiB";
            bytes = twice_at_least_min(cuda_l2);
        } else {
            from = "256 MiB: the NVIDIA OpenCL driver under-reports its L2 and CUDA does not see this device";
            bytes = FB_FLUSH_NVIDIA_UNSEEN_BYTES > bytes ? FB_FLUSH_NVIDIA_UNSEEN_BYTES : bytes;
        }
    }
    if (max_alloc && bytes > max_alloc) {
        from = "the largest buffer the device allows (smaller than the cache rule asks)";
        bytes = max_alloc;
    }
    if (why) *why = from;
    return bytes & ~(size_t)63; /* a fill pattern of up to 64 bytes divides it */
}

size_t fb_cuda_l2_of(const char *name)
{
    const fb_backend_ops *cuda = &fb_backend_cuda;
    char why[256] = "";
    if (!cuda->probe || !cuda->device_info || !name || !name[0]) return 0;
    int n = cuda->probe(why, sizeof why);
    for (int i = 0; i < n; ++i) {
        fb_device_info info;
        if (cuda->device_info(i, &info) == FB_OK && strcmp(info.name, name) == 0) return info.cache_bytes;
    }
    return 0;
}
