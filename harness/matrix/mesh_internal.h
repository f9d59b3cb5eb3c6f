/* mesh_internal.h - bookkeeping the Gmsh and SU2 readers share: nodes as
 * (tag, x, y, z) in file order, tetrahedra as node positions, and the step
 * that turns them into an fb_mesh (mesh_build.c). Not part of the public
 * API. */
#ifndef FB_MATRIX_MESH_INTERNAL_H
#define FB_MATRIX_MESH_INTERNAL_H

#include "mesh.h"
#include "text.h"

typedef struct fb_tag_pos {
    int64_t tag;
    int pos;
} fb_tag_pos;

typedef struct fb_node_table {
    int n;
    int64_t *tags;      /* n, as written in the file */
    double *xyz;        /* 3 n */
    fb_tag_pos *sorted; /* n, by tag (after _index) */
} fb_node_table;

typedef struct fb_tet_list {
    int64_t n, cap;
    int *v; /* 4 n node positions in the table */
} fb_tet_list;

void fb_node_table_free(fb_node_table *t);
fb_status fb_node_table_index(fb_node_table *t, const char *name);
/* Position of the node with this tag, or -1. */
int fb_node_table_find(const fb_node_table *t, int64_t tag);

/* Appends one tetrahedron; `name` and `line` name the file position in errors. */
fb_status fb_tet_list_push(fb_tet_list *l, const int *v, const char *name, int64_t line);

/* The bound on gzip mesh input (text.h): `more` records declared on the
 * count line ending at offset line_end; every record declared so far may
 * take FB_MESH_RECORD_MAX bytes after it (data sections included). */
#define FB_MESH_RECORD_MAX 1024
void fb_mesh_limit_add(fb_text_limit *limit, int64_t line_end, int64_t more, const char *what);

/* The largest |coordinate| a mesh may hold. A tetrahedron's volume is a
 * cube of coordinate differences: with |x| <= 1e100 it is a finite double,
 * while corners at 1e308 overflow (and were once called "zero volume"). */
#define FB_MESH_MAX_COORDINATE 1e100

/* One coordinate (`what`: "x", ...) of the node the file numbers `node`
 * (`kind`: "node" or "point"): FB_ERR_INPUT naming the file, line and node
 * when it is not a finite double or too large. */
fb_status fb_mesh_read_coordinate(fb_cursor *c, const char *what, const char *kind, int64_t node, double *out);

/* Drops unused nodes, renumbers, moves the tetrahedra into `out`. */
fb_status fb_mesh_assemble(const char *name, fb_node_table *nodes, fb_tet_list *tets, fb_mesh *out);

#endif
