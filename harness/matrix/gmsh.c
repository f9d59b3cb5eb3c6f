/* gmsh.c - Gmsh .msh reader, ASCII formats 2.2 and 4.1 (what `gmsh -3
 * -format msh22` and `-format msh41` write). Binary files and format 4.0
 * are refused by name. Sections other than $MeshFormat, $Nodes and
 * $Elements ($PhysicalNames, $Entities, $Periodic, data sections ...) are
 * skipped to their $End line.
 *
 * Every count is checked against the bytes left before it sizes anything;
 * node tags may be sparse and are looked up in a sorted table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_internal.h"
#include "text.h"

typedef struct gmsh {
    fb_cursor c;
    int major; /* 2 or 4 */
    int have_nodes;
    fb_node_table nodes;
    fb_tet_list tets;
} gmsh;

/* Nodes per element and dimension of Gmsh element types 1..31. */
static const struct {
    int nodes, dim;
    const char *name;
} element_types[32] = {
    {0, 0, NULL},
    {2, 1, "line"},
    {3, 2, "triangle"},
    {4, 2, "quadrangle"},
    {4, 3, "tetrahedron"},
    {8, 3, "hexahedron"},
    {6, 3, "prism"},
    {5, 3, "pyramid"},
    {3, 1, "line"},
    {6, 2, "triangle"},
    {9, 2, "quadrangle"},
    {10, 3, "second-order tetrahedron"},
    {27, 3, "second-order hexahedron"},
    {18, 3, "second-order prism"},
    {14, 3, "second-order pyramid"},
    {1, 0, "point"},
    {8, 2, "quadrangle"},
    {20, 3, "second-order hexahedron"},
    {15, 3, "second-order prism"},
    {13, 3, "second-order pyramid"},
    {9, 2, "triangle"},
    {10, 2, "triangle"},
    {12, 2, "triangle"},
    {15, 2, "triangle"},
    {15, 2, "triangle"},
    {21, 2, "triangle"},
    {4, 1, "line"},
    {5, 1, "line"},
    {6, 1, "line"},
    {20, 3, "third-order tetrahedron"},
    {35, 3, "fourth-order tetrahedron"},
    {56, 3, "fifth-order tetrahedron"},
};

#define LINE_OF(g) ((long long)(g)->c.line)

static fb_status element_type(gmsh *g, int64_t type, int64_t line)
{
    fb_status status = FB_OK;
    if (type < 1 || type > 31)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: unknown element type %lld", g->c.name, (long long)line, (long long)type);
    if (element_types[type].dim == 3 && type != 4)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: only linear tetrahedral meshes are supported, found a %s (type %lld)",
                g->c.name, (long long)line, element_types[type].name, (long long)type);
fail:
    return status;
}

/* Reads nn node tags; a tetrahedron (type 4) is kept. */
static fb_status element_nodes(gmsh *g, int64_t type, int64_t line)
{
    fb_status status = FB_OK;
    int nn = element_types[type].nodes, v[4] = {0, 0, 0, 0};
    for (int k = 0; k < nn; ++k) {
        int64_t tag = 0;
        FB_CHECK(fb_cursor_int(&g->c, "a node tag", 1, INT64_MAX, &tag));
        if (type != 4) continue;
        v[k] = fb_node_table_find(&g->nodes, tag);
        if (v[k] < 0)
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: node %lld is not defined in $Nodes", g->c.name, (long long)line,
                    (long long)tag);
        for (int m = 0; m < k; ++m)
            if (v[m] == v[k])
                FB_FAIL(FB_ERR_INPUT, "%s: line %lld: tetrahedron with a repeated node %lld", g->c.name,
                        (long long)line, (long long)tag);
    }
    if (type == 4) FB_CHECK(fb_tet_list_push(&g->tets, v, g->c.name, line));
    FB_CHECK(fb_cursor_end_line(&g->c, "the element"));
fail:
    return status;
}

static fb_status section_word(gmsh *g, char *buf, size_t len)
{
    fb_status status = FB_OK;
    fb_cursor_skip_empty(&g->c, 0);
    FB_CHECK(fb_cursor_word(&g->c, "a section such as $Nodes", buf, len));
    if (buf[0] != '$')
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: expected a section such as $Nodes, found '%s'", g->c.name, LINE_OF(g),
                buf);
    FB_CHECK(fb_cursor_end_line(&g->c, buf));
fail:
    return status;
}

static fb_status section_end(gmsh *g, const char *name)
{
    fb_status status = FB_OK;
    char word[64], want[64];
    snprintf(want, sizeof want, "$End%s", name);
    fb_cursor_skip_empty(&g->c, 0);
    FB_CHECK(fb_cursor_word(&g->c, want, word, sizeof word));
    if (strcmp(word, want) != 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: expected %s, found '%s'", g->c.name, LINE_OF(g), want, word);
    FB_CHECK(fb_cursor_end_line(&g->c, want));
fail:
    return status;
}

/* Skips an unneeded section line by line to its $End line. */
static fb_status skip_section(gmsh *g, const char *name)
{
    fb_status status = FB_OK;
    char want[80];
    int64_t start = g->c.line - 1;
    size_t wlen = (size_t)snprintf(want, sizeof want, "$End%s", name);
    while (!fb_cursor_eof(&g->c)) {
        fb_cursor_blanks(&g->c);
        int hit = (size_t)(g->c.end - g->c.p) >= wlen && memcmp(g->c.p, want, wlen) == 0 &&
                  (g->c.p + wlen == g->c.end || fb_is_delim(g->c.p[wlen]));
        fb_cursor_next_line(&g->c);
        if (hit) return FB_OK;
    }
    FB_FAIL(FB_ERR_INPUT, "%s: line %lld: section $%s (line %lld) is not closed by %s", g->c.name, LINE_OF(g), name,
            (long long)start, want);
fail:
    return status;
}

static fb_status mesh_format(gmsh *g)
{
    fb_status status = FB_OK;
    double version = 0;
    int64_t file_type = 0, data_size = 0, line = g->c.line;
    FB_CHECK(fb_cursor_real(&g->c, "the format version", &version));
    FB_CHECK(fb_cursor_int(&g->c, "the file type (0 ASCII, 1 binary)", 0, 1, &file_type));
    FB_CHECK(fb_cursor_int(&g->c, "the data size", 1, 64, &data_size));
    FB_CHECK(fb_cursor_end_line(&g->c, "the format line"));
    if (file_type == 1)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: binary .msh files are not supported (save as ASCII: gmsh -bin 0)",
                g->c.name, (long long)line);
    if (version >= 2.0 && version < 3.0)
        g->major = 2;
    else if (version == 4.1)
        g->major = 4;
    else
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: .msh format %g is not supported (save as 4.1 or 2.2)", g->c.name,
                (long long)line, version);
    FB_CHECK(section_end(g, "MeshFormat"));
fail:
    return status;
}

static fb_status alloc_nodes(gmsh *g, int64_t n)
{
    fb_status status = FB_OK;
    /* a node needs at least "1\n0 0 0\n" (4.1) or "1 0 0 0\n" (2.2) */
    FB_CHECK(fb_cursor_check_room(&g->c, n, 8, "nodes"));
    g->nodes.n = 0;
    FB_ALLOC(g->nodes.tags, n, "node tags");
    int64_t ncoords = 3 * n;
    FB_ALLOC(g->nodes.xyz, ncoords, "node coordinates");
fail:
    return status;
}

static fb_status coordinates(gmsh *g, int k, int extra)
{
    fb_status status = FB_OK;
    static const char *const axis[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d)
        FB_CHECK(fb_mesh_read_coordinate(&g->c, axis[d], "node", g->nodes.tags[k], &g->nodes.xyz[3 * (int64_t)k + d]));
    for (int e = 0; e < extra; ++e) {
        double uvw = 0;
        FB_CHECK(fb_cursor_real(&g->c, "a parametric coordinate", &uvw));
    }
    FB_CHECK(fb_cursor_end_line(&g->c, "the coordinates"));
fail:
    return status;
}

static fb_status nodes_v2(gmsh *g)
{
    fb_status status = FB_OK;
    int64_t n = 0;
    FB_CHECK(fb_cursor_int(&g->c, "the number of nodes", 0, FB_CSR_MAX_DIM, &n));
    FB_CHECK(fb_cursor_end_line(&g->c, "the number of nodes"));
    FB_CHECK(alloc_nodes(g, n));
    for (int k = 0; k < n; ++k) {
        fb_cursor_skip_empty(&g->c, 0);
        FB_CHECK(fb_cursor_int(&g->c, "a node tag", 1, INT64_MAX, &g->nodes.tags[k]));
        FB_CHECK(coordinates(g, k, 0));
        g->nodes.n = k + 1;
    }
fail:
    return status;
}

/* One 4.1 entity block: its tags, then its coordinates. */
static fb_status node_block_v4(gmsh *g, int64_t total)
{
    fb_status status = FB_OK;
    int64_t dim = 0, entity = 0, parametric = 0, count = 0;
    fb_cursor_skip_empty(&g->c, 0);
    FB_CHECK(fb_cursor_int(&g->c, "the entity dimension", 0, 3, &dim));
    FB_CHECK(fb_cursor_int(&g->c, "the entity tag", INT64_MIN, INT64_MAX, &entity));
    FB_CHECK(fb_cursor_int(&g->c, "the parametric flag", 0, 1, &parametric));
    FB_CHECK(fb_cursor_int(&g->c, "the number of nodes in the block", 0, total - g->nodes.n, &count));
    FB_CHECK(fb_cursor_end_line(&g->c, "the node block header"));
    int first = g->nodes.n;
    for (int k = first; k < first + count; ++k) {
        fb_cursor_skip_empty(&g->c, 0);
        FB_CHECK(fb_cursor_int(&g->c, "a node tag", 1, INT64_MAX, &g->nodes.tags[k]));
        FB_CHECK(fb_cursor_end_line(&g->c, "the node tag"));
    }
    for (int k = first; k < first + count; ++k) {
        fb_cursor_skip_empty(&g->c, 0);
        FB_CHECK(coordinates(g, k, parametric ? (int)dim : 0));
    }
    g->nodes.n = first + (int)count;
fail:
    return status;
}

static fb_status nodes_v4(gmsh *g)
{
    fb_status status = FB_OK;
    int64_t blocks = 0, n = 0, lo = 0, hi = 0, line = g->c.line;
    FB_CHECK(fb_cursor_int(&g->c, "the number of entity blocks", 0, INT32_MAX, &blocks));
    FB_CHECK(fb_cursor_int(&g->c, "the number of nodes", 0, FB_CSR_MAX_DIM, &n));
    FB_CHECK(fb_cursor_int(&g->c, "the smallest node tag", 0, INT64_MAX, &lo));
    FB_CHECK(fb_cursor_int(&g->c, "the largest node tag", 0, INT64_MAX, &hi));
    FB_CHECK(fb_cursor_end_line(&g->c, "the $Nodes header"));
    FB_CHECK(fb_cursor_check_room(&g->c, blocks, 8, "node blocks"));
    FB_CHECK(alloc_nodes(g, n));
    for (int64_t b = 0; b < blocks; ++b)
        FB_CHECK(node_block_v4(g, n));
    if (g->nodes.n != n)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %lld nodes declared on line %lld, %d given", g->c.name, LINE_OF(g),
                (long long)n, (long long)line, g->nodes.n);
fail:
    return status;
}

static fb_status nodes_section(gmsh *g)
{
    fb_status status = FB_OK;
    if (g->have_nodes) FB_FAIL(FB_ERR_INPUT, "%s: line %lld: a second $Nodes section", g->c.name, LINE_OF(g) - 1);
    g->have_nodes = 1;
    FB_CHECK(g->major == 2 ? nodes_v2(g) : nodes_v4(g));
    FB_CHECK(fb_node_table_index(&g->nodes, g->c.name));
    FB_CHECK(section_end(g, "Nodes"));
fail:
    return status;
}

static fb_status elements_v2(gmsh *g)
{
    fb_status status = FB_OK;
    int64_t n = 0;
    FB_CHECK(fb_cursor_int(&g->c, "the number of elements", 0, INT64_MAX, &n));
    FB_CHECK(fb_cursor_end_line(&g->c, "the number of elements"));
    FB_CHECK(fb_cursor_check_room(&g->c, n, 8, "elements"));
    for (int64_t k = 0; k < n; ++k) {
        int64_t tag = 0, type = 0, ntags = 0, t = 0;
        fb_cursor_skip_empty(&g->c, 0);
        int64_t line = g->c.line;
        FB_CHECK(fb_cursor_int(&g->c, "an element tag", 1, INT64_MAX, &tag));
        FB_CHECK(fb_cursor_int(&g->c, "an element type", INT64_MIN, INT64_MAX, &type));
        FB_CHECK(element_type(g, type, line));
        FB_CHECK(fb_cursor_int(&g->c, "the number of tags", 0, 64, &ntags));
        for (int64_t m = 0; m < ntags; ++m)
            FB_CHECK(fb_cursor_int(&g->c, "a tag", INT64_MIN, INT64_MAX, &t));
        FB_CHECK(element_nodes(g, type, line));
    }
fail:
    return status;
}

static fb_status element_block_v4(gmsh *g)
{
    fb_status status = FB_OK;
    int64_t dim = 0, entity = 0, type = 0, count = 0, tag = 0;
    fb_cursor_skip_empty(&g->c, 0);
    int64_t line = g->c.line;
    FB_CHECK(fb_cursor_int(&g->c, "the entity dimension", 0, 3, &dim));
    FB_CHECK(fb_cursor_int(&g->c, "the entity tag", INT64_MIN, INT64_MAX, &entity));
    FB_CHECK(fb_cursor_int(&g->c, "the element type", INT64_MIN, INT64_MAX, &type));
    FB_CHECK(element_type(g, type, line));
    FB_CHECK(fb_cursor_int(&g->c, "the number of elements in the block", 0, INT64_MAX, &count));
    FB_CHECK(fb_cursor_end_line(&g->c, "the element block header"));
    FB_CHECK(fb_cursor_check_room(&g->c, count, 2 * (1 + element_types[type].nodes), "elements"));
    for (int64_t k = 0; k < count; ++k) {
        fb_cursor_skip_empty(&g->c, 0);
        line = g->c.line;
        FB_CHECK(fb_cursor_int(&g->c, "an element tag", 1, INT64_MAX, &tag));
        FB_CHECK(element_nodes(g, type, line));
    }
fail:
    return status;
}

static fb_status elements_v4(gmsh *g)
{
    fb_status status = FB_OK;
    int64_t blocks = 0, n = 0, lo = 0, hi = 0;
    FB_CHECK(fb_cursor_int(&g->c, "the number of entity blocks", 0, INT64_MAX, &blocks));
    FB_CHECK(fb_cursor_int(&g->c, "the number of elements", 0, INT64_MAX, &n));
    FB_CHECK(fb_cursor_int(&g->c, "the smallest element tag", 0, INT64_MAX, &lo));
    FB_CHECK(fb_cursor_int(&g->c, "the largest element tag", 0, INT64_MAX, &hi));
    FB_CHECK(fb_cursor_end_line(&g->c, "the $Elements header"));
    FB_CHECK(fb_cursor_check_room(&g->c, blocks, 8, "element blocks"));
    for (int64_t b = 0; b < blocks; ++b)
        FB_CHECK(element_block_v4(g));
fail:
    return status;
}

static fb_status elements_section(gmsh *g)
{
    fb_status status = FB_OK;
    if (!g->have_nodes) FB_FAIL(FB_ERR_INPUT, "%s: line %lld: $Elements before $Nodes", g->c.name, LINE_OF(g) - 1);
    FB_CHECK(g->major == 2 ? elements_v2(g) : elements_v4(g));
    FB_CHECK(section_end(g, "Elements"));
fail:
    return status;
}

static fb_status sections(gmsh *g)
{
    fb_status status = FB_OK;
    char word[64];
    if (g->c.p >= g->c.end) FB_FAIL(FB_ERR_INPUT, "%s: empty file", g->c.name);
    fb_cursor_skip_empty(&g->c, 0);
    if (fb_cursor_word(&g->c, "$MeshFormat", word, sizeof word) != FB_OK || strcmp(word, "$MeshFormat") != 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: not a Gmsh file (it must start with $MeshFormat)", g->c.name, LINE_OF(g));
    FB_CHECK(fb_cursor_end_line(&g->c, word));
    FB_CHECK(mesh_format(g));
    for (;;) {
        fb_cursor_skip_empty(&g->c, 0);
        if (fb_cursor_eof(&g->c)) break;
        FB_CHECK(section_word(g, word, sizeof word));
        if (strcmp(word, "$Nodes") == 0)
            FB_CHECK(nodes_section(g));
        else if (strcmp(word, "$Elements") == 0)
            FB_CHECK(elements_section(g));
        else if (strncmp(word, "$End", 4) == 0)
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: %s without its section", g->c.name, LINE_OF(g) - 1, word);
        else
            FB_CHECK(skip_section(g, word + 1));
    }
fail:
    return status;
}

/* ---- the bound on gzip input -------------------------------------------- */

/* How many leading integers of the line after a section word are record
 * counts: $Nodes and $Elements (2.2: the count; 4.1: entity blocks and
 * records), $PhysicalNames, $Entities (points, curves, surfaces, volumes). */
static int counted_section(const char *p, const char *le)
{
    static const struct {
        const char *word;
        int counts;
    } sections[] = {{"$Nodes", 2}, {"$Elements", 2}, {"$PhysicalNames", 1}, {"$Entities", 4}};
    while (le > p && fb_is_delim(le[-1]))
        --le;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; ++i)
        if ((size_t)(le - p) == strlen(sections[i].word) && !memcmp(p, sections[i].word, (size_t)(le - p)))
            return sections[i].counts;
    return 0;
}

/* Section words start lines with '$', which no number holds: memchr finds
 * them at memory speed through the node and element lines. */
static void gmsh_text_limit(const char *d, size_t n, fb_text_limit *limit)
{
    const char *end = d + n;
    int64_t v[4];
    for (const char *p = d + limit->scanned; (p = memchr(p, '$', (size_t)(end - p))) != NULL; ++p) {
        if (p > d && p[-1] != '\n') continue;
        const char *nl = memchr(p, '\n', (size_t)(end - p)),
                   *next = nl ? memchr(nl + 1, '\n', (size_t)(end - nl - 1)) : NULL;
        int k = nl ? counted_section(p, nl) : 0;
        if (!nl || (k && !next)) { /* the section word or its count line is not all here yet */
            limit->scanned = (size_t)(p - d);
            return;
        }
        int got = k ? fb_text_line_ints(nl + 1, next, v, k) : 0;
        for (int i = 0; i < got; ++i)
            fb_mesh_limit_add(limit, next + 1 - d, v[i], "nodes, elements and entities");
        p = k ? next : nl;
    }
    limit->scanned = n;
}

static fb_status parse(const char *name, fb_text_bytes *buf, void *result)
{
    fb_mesh *out = result;
    fb_status status = FB_OK;
    gmsh g;
    memset(&g, 0, sizeof g);
    fb_cursor_init(&g.c, name, buf->data, buf->size);
    FB_CHECK(sections(&g));
    if (!g.have_nodes) FB_FAIL(FB_ERR_INPUT, "%s: no $Nodes section", name);
    FB_CHECK(fb_mesh_assemble(name, &g.nodes, &g.tets, out));
fail:
    fb_node_table_free(&g.nodes);
    free(g.tets.v);
    return status;
}

fb_status fb_mesh_read_gmsh_memory(const char *name, const void *data, size_t n, fb_mesh *out)
{
    return fb_text_read(name, data, n, gmsh_text_limit, parse, out, sizeof *out);
}

fb_status fb_mesh_read_gmsh(const char *path, fb_mesh *out)
{
    return fb_text_read(path, NULL, 0, gmsh_text_limit, parse, out, sizeof *out);
}
