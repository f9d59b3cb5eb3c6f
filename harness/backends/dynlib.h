/* dynlib.h - a CUDA toolkit library opened at its first use (dlopen), not
 * linked. Linked, NVRTC, cuSPARSE and the CUDA runtime cost every
 * flowbench process about 40 ms at start (measured here: an empty program
 * linked to the three starts in 42 ms, unlinked in 1 ms), which a command
 * that never touches CUDA pays, and the guard process twice; libcuda is
 * opened the same way (cuda.c), so a binary built with CUDA starts where
 * none of it is installed. The build records where it found each library
 * (FB_CUDA_LIBDIR) and its soname. */
#ifndef FB_BACKENDS_DYNLIB_H
#define FB_BACKENDS_DYNLIB_H

#include <stddef.h>

/* dir/soname, else soname on the loader's path (LD_LIBRARY_PATH: a device
 * node's own toolkit); NULL with why (dlerror's words) when neither loads. */
void *fb_dynlib_open(const char *dir, const char *soname, char *why, size_t len);

/* The symbol, or NULL with why naming it and the library. */
void *fb_dynlib_symbol(void *lib, const char *soname, const char *name, char *why, size_t len);

#endif
