/* kernel_sources.h - device kernel sources embedded in the binary, and the
 * program text the device compilers read.
 *
 * Every file under kernels/ with a .cl or .h suffix is compiled into the
 * binary (cmake/embed_sources.cmake). Paths are relative to kernels/, e.g.
 * "stream/stream.cl". Setting FLOWBENCH_KERNEL_DIR makes flowbench read the
 * files from that directory instead (the prelude and included helpers too),
 * to try kernel edits without rebuilding.
 */
#ifndef FB_KERNEL_SOURCES_H
#define FB_KERNEL_SOURCES_H

#include <stddef.h>

#include "status.h"

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

/* The text a device compiler reads for one kernel source (malloc'd in
 * *out): backend_prelude's text when not NULL (cuda/opencl_to_cuda.h for
 * NVRTC), the common prelude common.cl, then source_text; each under a
 * #line naming its file, so compiler messages give the file the user edits
 * and its own line numbers. Every line `#include "PATH"` in them is
 * replaced by the kernel source PATH (relative to kernels/, from the same
 * set as fb_kernel_source), numbered as its own file, and the includer's
 * numbering resumes after it; textually, whatever #if the line sits in.
 * A missing file or includes nested deeper than 8 (a cycle) are
 * FB_ERR_BUILD naming the includer's file and line. */
fb_status fb_kernel_program_text(const char *backend_prelude, const char *source_name, const char *source_text,
                                 char **out);

/* A kernel file of the user's (--kernel-file, a suite's kernel_file:, an
 * override under FLOWBENCH_KERNEL_DIR),
 * whole, into *text (malloc'd), its length in *len. Regular files only
 * (core/files.h); FB_ERR_INPUT naming the path: cannot open (and why), a
 * directory, not a regular file, larger than FB_KERNEL_FILE_MAX, or a NUL
 * byte (not OpenCL C text). Its #include "PATH" lines name the embedded
 * helpers as the built-in kernels' do (fb_kernel_program_text). */
#define FB_KERNEL_FILE_MAX (4 << 20)
fb_status fb_kernel_file_read(const char *path, char **text, size_t *len);

#endif
