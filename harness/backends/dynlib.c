/* dynlib.c - the CUDA libraries found and opened at first use (dynlib.h). */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 16

#if defined(__x86_64__)
#define TARGET_DIR "targets/x86_64-linux/lib"
#elif defined(__aarch64__)
#define TARGET_DIR "targets/sbsa-linux/lib"
#else
#define TARGET_DIR "targets/unknown/lib"
#endif

#ifndef FB_CUDA_LIBDIR
#define FB_CUDA_LIBDIR ""
#endif

typedef struct candidates {
    char (*paths)[1024];
    int n, max;
} candidates;

static void add(candidates *c, const char *dir, const char *sub, const char *soname)
{
    if (!dir || !*dir || c->n >= c->max) return;
    snprintf(c->paths[c->n++], sizeof c->paths[0], "%s%s%s/%s", dir, *sub ? "/" : "", sub, soname);
}

/* A toolkit root's three layouts: the installer's, the per-target one
 * NVIDIA's packages link into, and the pip wheels' plain lib. */
static void add_root(candidates *c, const char *root, const char *soname)
{
    add(c, root, "lib64", soname);
    add(c, root, TARGET_DIR, soname);
    add(c, root, "lib", soname);
}

int fb_cuda_lib_candidates(const char *soname, char (*paths)[1024], int max)
{
    candidates c = {paths, 0, max};
    add(&c, getenv("FLOWBENCH_CUDA_LIBDIR"), "", soname);
    add_root(&c, getenv("CUDA_HOME"), soname);
    add_root(&c, getenv("CUDA_PATH"), soname);
    add(&c, FB_CUDA_LIBDIR, "", soname);
    add(&c, "/usr/local/cuda", "lib64", soname);
    add(&c, "/usr/local/cuda", TARGET_DIR, soname);
    if (c.n < max) snprintf(paths[c.n++], sizeof paths[0], "%s", soname);
    return c.n;
}

/* The first of paths that loads; else why lists each place tried with
 * the loader's words: a file that is there but does not load (a wrong
 * architecture, a missing dependency) rather than one that is not there. */
static void *open_first(char (*paths)[1024], int n, const char *what, char *why, size_t len)
{
    char missing[512] = "", broken[512] = "";
    size_t at;
    for (int i = 0; i < n; ++i) {
        void *lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) return lib; /* open for the life of the process */
        const char *error = dlerror();
        if (!error) continue;
        char *keep = strstr(error, "No such file") ? missing : broken;
        if (!keep[0]) snprintf(keep, sizeof missing, "%s", error);
    }
    at = (size_t)snprintf(why, len, "%s not loadable (%s); tried", what, broken[0] ? broken : missing);
    for (int i = 0; i < n && at < len; ++i)
        at += (size_t)snprintf(why + at, len - at, "%s %s", i ? "," : "",
                               strchr(paths[i], '/') ? paths[i] : "the loader's path");
    return NULL;
}

void *fb_cuda_lib_open(const char *soname, char *why, size_t len)
{
    char paths[MAX_CANDIDATES][1024];
    int n = fb_cuda_lib_candidates(soname, paths, MAX_CANDIDATES);
    return open_first(paths, n, soname, why, len);
}

void *fb_cuda_driver_open(char *why, size_t len)
{
    static const char soname[] = "libcuda.so.1";
    char paths[4][1024];
    int n = 0;
    const char *given = getenv("FLOWBENCH_CUDA_DRIVER");
    if (given && *given) {
        snprintf(paths[n++], sizeof paths[0], "%s", given);
    } else {
        snprintf(paths[n++], sizeof paths[0], "%s", soname);
        snprintf(paths[n++], sizeof paths[0], "/usr/local/nvidia/lib64/%s", soname);
        snprintf(paths[n++], sizeof paths[0], "/usr/lib64/%s", soname);
    }
    return open_first(paths, n, given && *given ? "$FLOWBENCH_CUDA_DRIVER" : soname, why, len);
}

void *fb_dynlib_open(const char *path, char *why, size_t len)
{
    char paths[1][1024];
    snprintf(paths[0], sizeof paths[0], "%s", path);
    return open_first(paths, 1, path, why, len);
}

void *fb_dynlib_symbol(void *lib, const char *soname, const char *name, char *why, size_t len)
{
    void *symbol = dlsym(lib, name);
    if (!symbol) snprintf(why, len, "%s lacks %s (another version than the build's?)", soname, name);
    return symbol;
}
