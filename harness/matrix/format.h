/* format.h - which reader a matrix or mesh file goes to, by its extension
 * (case-insensitive). The one format dispatch: fb_mesh_read (mesh.c) and
 * SRC resolution (source.c) both ask it, so a new extension is added here
 * once. */
#ifndef FB_MATRIX_FORMAT_H
#define FB_MATRIX_FORMAT_H

typedef enum fb_file_format {
    FB_FILE_UNKNOWN,
    FB_FILE_MTX,  /* Matrix Market: .mtx, .mtx.gz, .mm, .mm.gz (mtx.h) */
    FB_FILE_GMSH, /* Gmsh: .msh (mesh.h) */
    FB_FILE_SU2   /* SU2 native: .su2 (mesh.h) */
} fb_file_format;

fb_file_format fb_file_format_of(const char *path);

#endif
