/* format.c - a file's format from its extension (format.h). */
#include "format.h"

#include <string.h>
#include <strings.h>

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

fb_file_format fb_file_format_of(const char *path)
{
    static const struct {
        const char *suffix;
        fb_file_format format;
    } table[] = {
        {".mtx", FB_FILE_MTX},   {".mtx.gz", FB_FILE_MTX}, {".mm", FB_FILE_MTX},
        {".mm.gz", FB_FILE_MTX}, {".msh", FB_FILE_GMSH},   {".su2", FB_FILE_SU2},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
        if (ends_with_ci(path, table[k].suffix)) return table[k].format;
    return FB_FILE_UNKNOWN;
}
