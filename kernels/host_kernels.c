/* host_kernels.c - lookup over every family's OpenMP kernel table. */
#include "host_kernels.h"

#include <string.h>

static const fb_host_kernel *const tables[] = {
    fb_stream_host_kernels,
    fb_spmv_host_kernels,
    fb_fv_surface_host_kernels,
    fb_heat2d_host_kernels,
};

const fb_host_kernel *fb_host_kernel_find(const char *name, const char *real)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; ++t)
        for (const fb_host_kernel *k = tables[t]; k->name; ++k)
            if (strcmp(k->name, name) == 0 && strcmp(k->real, real) == 0) return k;
    return NULL;
}
