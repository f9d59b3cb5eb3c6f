/* kernel_sources.c - lookup of embedded kernel sources, with an on-disk
 * override for kernel development (FLOWBENCH_KERNEL_DIR). */
#include "kernel_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES 64

static struct {
    char *path;
    char *text;
} overrides[MAX_OVERRIDES];
static int noverrides;

static char *read_whole_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = grown;
        }
        memcpy(text + len, chunk, got);
        len += got;
    }
    fclose(f);
    if (!text) text = calloc(1, 1);
    else text[len] = '\0';
    return text;
}

static const char *from_override_dir(const char *dir, const char *path)
{
    for (int i = 0; i < noverrides; ++i)
        if (strcmp(overrides[i].path, path) == 0) return overrides[i].text;
    if (noverrides == MAX_OVERRIDES) return NULL;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", dir, path);
    char *text = read_whole_file(full);
    if (!text) return NULL;
    overrides[noverrides].path = strdup(path);
    overrides[noverrides].text = text;
    return overrides[noverrides++].text;
}

const char *fb_kernel_source(const char *path)
{
    const char *dir = getenv("FLOWBENCH_KERNEL_DIR");
    if (dir && *dir) return from_override_dir(dir, path);
    for (int i = 0; i < fb_embedded_source_count; ++i)
        if (strcmp(fb_embedded_sources[i].path, path) == 0) return fb_embedded_sources[i].text;
    return NULL;
}
