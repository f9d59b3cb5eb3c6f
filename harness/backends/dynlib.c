/* dynlib.c - a library opened at first use (dynlib.h). */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

void *fb_dynlib_open(const char *dir, const char *soname, char *why, size_t len)
{
    char path[1024];
    void *lib = NULL;
    if (dir && *dir) {
        snprintf(path, sizeof path, "%s/%s", dir, soname);
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!lib) lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *error = dlerror();
        snprintf(why, len, "%s not loadable (%s)", soname, error ? error : "not found");
    }
    return lib; /* open for the life of the process */
}

void *fb_dynlib_symbol(void *lib, const char *soname, const char *name, char *why, size_t len)
{
    void *symbol = dlsym(lib, name);
    if (!symbol) snprintf(why, len, "%s lacks %s (another version than the build's?)", soname, name);
    return symbol;
}
