/* kernel_sources.h - device kernel sources embedded in the binary.
 *
 * Every file under kernels/ with a .cl or .h suffix is compiled into the
 * binary (cmake/embed_sources.cmake). Paths are relative to kernels/, e.g.
 * "stream/stream.cl". Setting FLOWBENCH_KERNEL_DIR makes flowbench read the
 * files from that directory instead, to try kernel edits without rebuilding.
 */
#ifndef FB_KERNEL_SOURCES_H
#define FB_KERNEL_SOURCES_H

#include <stddef.h>

typedef struct fb_embedded_source {
    const char *path;
    const char *text;
    size_t length;
} fb_embedded_source;

extern const fb_embedded_source fb_embedded_sources[];
extern const int fb_embedded_source_count;

/* The text of a kernel source, or NULL if there is none by that path (or
 * the override directory lacks it). The text lives until exit. */
const char *fb_kernel_source(const char *path);

#endif
