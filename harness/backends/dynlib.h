/* dynlib.h - the CUDA libraries opened at their first use (dlopen), not
 * linked. Linked, NVRTC, cuSPARSE and the CUDA runtime cost every
 * flowbench process about 40 ms at start (measured here: an empty program
 * linked to the three starts in 42 ms, unlinked in 1 ms), which a command
 * that never touches CUDA pays, and the guard process twice; libcuda is
 * opened the same way (cuda.c), so a binary built with CUDA starts where
 * none of it is installed.
 *
 * A toolkit library is looked for, in this order, by its soname
 * (libnvrtc.so.13: what a runtime-only install ships, without the
 * unversioned .so of the -dev packages):
 *   $FLOWBENCH_CUDA_LIBDIR                  the user's override
 *   $CUDA_HOME, then $CUDA_PATH: lib64, targets/<arch>-linux/lib, lib
 *   the folder the build found it in         (FB_CUDA_LIBDIR)
 *   /usr/local/cuda: lib64, targets/<arch>-linux/lib
 *   the loader's own path                    (LD_LIBRARY_PATH, ld.so.cache)
 * The driver, libcuda.so.1, is the node's, not the toolkit's: it is
 * $FLOWBENCH_CUDA_DRIVER alone where that is set (a file: the test suite's
 * fake driver, or one driver of several), else the loader's path, then
 * /usr/local/nvidia/lib64 and /usr/lib64 (where containers mount it).
 * A library found nowhere is said with every place tried. */
#ifndef FB_BACKENDS_DYNLIB_H
#define FB_BACKENDS_DYNLIB_H

#include <stddef.h>

/* The candidates for a toolkit library, in search order: each a path
 * ("DIR/soname"), the last the bare soname (the loader's path). Returns
 * how many were written (at most max); paths are cap bytes each. */
int fb_cuda_lib_candidates(const char *soname, char (*paths)[1024], int max);

/* The toolkit library soname from the first candidate that loads; NULL
 * with why naming every place tried and the last loader error. */
void *fb_cuda_lib_open(const char *soname, char *why, size_t len);

/* libcuda.so.1 as the header above says; NULL with why. */
void *fb_cuda_driver_open(char *why, size_t len);

/* One library by its path or soname (PETSc's, which the build found);
 * NULL with why. */
void *fb_dynlib_open(const char *path, char *why, size_t len);

/* The symbol, or NULL with why naming it and the library. */
void *fb_dynlib_symbol(void *lib, const char *soname, const char *name, char *why, size_t len);

#endif
