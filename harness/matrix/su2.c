/* su2.c - SU2 native mesh reader (.su2), single zone, 3-D, tetrahedra.
 *
 * Keyword lines "NDIME= 3", "NELEM= n" (n lines "10 i0 i1 i2 i3 [index]",
 * VTK type 10 = tetrahedron, 0-based points), "NPOIN= n [ndomain]" (n lines
 * "x y z [index]"), "NMARK= m" (m markers, each "MARKER_TAG= name",
 * "MARKER_ELEMS= k" and k boundary elements, checked and skipped). '%'
 * starts a comment line. Other keywords are skipped; once the element,
 * point and marker sections are read the rest (FFD boxes) is ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_internal.h"
#include "text.h"

typedef struct su2 {
    fb_cursor c;
    int have_dim, have_elem, have_poin, have_mark;
    fb_node_table nodes;
    fb_tet_list tets;
    int64_t max_ref, max_ref_line; /* largest point index used, and where */
} su2;

/* VTK cell types SU2 writes: nodes per element, 0 if unknown. */
static int vtk_nodes(int64_t type)
{
    switch (type) {
    case 3: return 2;  /* line */
    case 5: return 3;  /* triangle */
    case 9: return 4;  /* quadrilateral */
    case 10: return 4; /* tetrahedron */
    case 12: return 8; /* hexahedron */
    case 13: return 6; /* prism */
    case 14: return 5; /* pyramid */
    default: return 0;
    }
}

static const char *vtk_name(int64_t type)
{
    return type == 12   ? "hexahedron"
           : type == 13 ? "prism"
           : type == 14 ? "pyramid"
           : type == 5  ? "triangle"
           : type == 9  ? "quadrilateral"
                        : "line";
}

/* "KEY= value": copies KEY, leaves the cursor after '='. 0 if the line
 * holds no '=' (then the cursor is unchanged). */
static int keyword(su2 *s, char *key, size_t len)
{
    fb_cursor_blanks(&s->c);
    const char *p = s->c.p;
    while (p < s->c.end && *p != '=' && *p != '\n')
        ++p;
    if (p >= s->c.end || *p != '=') return 0;
    const char *k = s->c.p, *e = p;
    while (e > k && (e[-1] == ' ' || e[-1] == '\t'))
        --e;
    size_t n = (size_t)(e - k) < len - 1 ? (size_t)(e - k) : len - 1;
    memcpy(key, k, n);
    key[n] = '\0';
    s->c.p = p + 1;
    return 1;
}

static fb_status expect_keyword(su2 *s, const char *want)
{
    fb_status status = FB_OK;
    char key[64];
    fb_cursor_skip_empty(&s->c, '%');
    if (!keyword(s, key, sizeof key) || strcmp(key, want) != 0)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: expected %s=", s->c.name, (long long)s->c.line, want);
fail:
    return status;
}

/* "[index]" at the end of an element or point line: optional. */
static fb_status optional_index(su2 *s, const char *after)
{
    fb_status status = FB_OK;
    int64_t index = 0;
    if (!fb_cursor_at_eol(&s->c)) FB_CHECK(fb_cursor_int(&s->c, "an index", 0, INT64_MAX, &index));
    FB_CHECK(fb_cursor_end_line(&s->c, after));
fail:
    return status;
}

static fb_status element(su2 *s)
{
    fb_status status = FB_OK;
    int64_t type = 0, node = 0, line = 0;
    int v[4];
    fb_cursor_skip_empty(&s->c, '%');
    line = s->c.line;
    FB_CHECK(fb_cursor_int(&s->c, "an element type", INT64_MIN, INT64_MAX, &type));
    if (type != 10 && vtk_nodes(type))
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: only tetrahedral meshes are supported, found a %s (VTK type %lld)",
                s->c.name, (long long)line, vtk_name(type), (long long)type);
    if (type != 10)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: unknown element type %lld", s->c.name, (long long)line, (long long)type);
    for (int k = 0; k < 4; ++k) {
        FB_CHECK(fb_cursor_int(&s->c, "a point index", 0, FB_CSR_MAX_DIM - 1, &node));
        v[k] = (int)node;
        for (int m = 0; m < k; ++m)
            if (v[m] == v[k])
                FB_FAIL(FB_ERR_INPUT, "%s: line %lld: tetrahedron with a repeated point %d", s->c.name, (long long)line,
                        v[k]);
        if (node > s->max_ref) s->max_ref = node, s->max_ref_line = line;
    }
    FB_CHECK(optional_index(s, "the element"));
    FB_CHECK(fb_tet_list_push(&s->tets, v, s->c.name, line));
fail:
    return status;
}

static fb_status elements(su2 *s)
{
    fb_status status = FB_OK;
    int64_t n = 0;
    if (s->have_elem) FB_FAIL(FB_ERR_INPUT, "%s: line %lld: a second NELEM", s->c.name, (long long)s->c.line);
    s->have_elem = 1;
    FB_CHECK(fb_cursor_int(&s->c, "the number of elements", 0, INT64_MAX, &n));
    FB_CHECK(fb_cursor_end_line(&s->c, "NELEM"));
    FB_CHECK(fb_cursor_check_room(&s->c, n, 10, "elements"));
    for (int64_t k = 0; k < n; ++k)
        FB_CHECK(element(s));
fail:
    return status;
}

static fb_status points(su2 *s)
{
    fb_status status = FB_OK;
    int64_t n = 0, domain = 0;
    if (s->have_poin) FB_FAIL(FB_ERR_INPUT, "%s: line %lld: a second NPOIN", s->c.name, (long long)s->c.line);
    s->have_poin = 1;
    FB_CHECK(fb_cursor_int(&s->c, "the number of points", 0, FB_CSR_MAX_DIM, &n));
    if (!fb_cursor_at_eol(&s->c)) FB_CHECK(fb_cursor_int(&s->c, "the number of domain points", 0, n, &domain));
    FB_CHECK(fb_cursor_end_line(&s->c, "NPOIN"));
    FB_CHECK(fb_cursor_check_room(&s->c, n, 6, "points"));
    FB_ALLOC(s->nodes.tags, n, "point numbers");
    int64_t ncoords = 3 * n;
    FB_ALLOC(s->nodes.xyz, ncoords, "point coordinates");
    for (int k = 0; k < n; ++k) {
        fb_cursor_skip_empty(&s->c, '%');
        static const char *const axis[3] = {"x", "y", "z"};
        for (int d = 0; d < 3; ++d)
            FB_CHECK(fb_mesh_read_coordinate(&s->c, axis[d], "point", k, &s->nodes.xyz[3 * (int64_t)k + d]));
        FB_CHECK(optional_index(s, "the point"));
        s->nodes.tags[k] = k;
        s->nodes.n = k + 1;
    }
fail:
    return status;
}

/* A boundary element: checked for shape and range, not kept. */
static fb_status boundary_element(su2 *s)
{
    fb_status status = FB_OK;
    int64_t type = 0, node = 0, line = 0;
    fb_cursor_skip_empty(&s->c, '%');
    line = s->c.line;
    FB_CHECK(fb_cursor_int(&s->c, "a boundary element type", INT64_MIN, INT64_MAX, &type));
    if (type != 3 && type != 5 && type != 9)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: boundary element type %lld is not a line, triangle or quadrilateral",
                s->c.name, (long long)line, (long long)type);
    for (int k = 0; k < vtk_nodes(type); ++k) {
        FB_CHECK(fb_cursor_int(&s->c, "a point index", 0, FB_CSR_MAX_DIM - 1, &node));
        if (node > s->max_ref) s->max_ref = node, s->max_ref_line = line;
    }
    FB_CHECK(optional_index(s, "the boundary element"));
fail:
    return status;
}

static fb_status markers(su2 *s)
{
    fb_status status = FB_OK;
    int64_t n = 0, count = 0;
    char name[128];
    if (s->have_mark) FB_FAIL(FB_ERR_INPUT, "%s: line %lld: a second NMARK", s->c.name, (long long)s->c.line);
    s->have_mark = 1;
    FB_CHECK(fb_cursor_int(&s->c, "the number of markers", 0, INT64_MAX, &n));
    FB_CHECK(fb_cursor_end_line(&s->c, "NMARK"));
    FB_CHECK(fb_cursor_check_room(&s->c, n, 28, "markers"));
    for (int64_t m = 0; m < n; ++m) {
        FB_CHECK(expect_keyword(s, "MARKER_TAG"));
        FB_CHECK(fb_cursor_word(&s->c, "a marker name", name, sizeof name));
        FB_CHECK(fb_cursor_end_line(&s->c, "the marker name"));
        FB_CHECK(expect_keyword(s, "MARKER_ELEMS"));
        FB_CHECK(fb_cursor_int(&s->c, "the number of boundary elements", 0, INT64_MAX, &count));
        FB_CHECK(fb_cursor_end_line(&s->c, "MARKER_ELEMS"));
        FB_CHECK(fb_cursor_check_room(&s->c, count, 6, "boundary elements"));
        for (int64_t k = 0; k < count; ++k)
            FB_CHECK(boundary_element(s));
    }
fail:
    return status;
}

static fb_status dimension(su2 *s)
{
    fb_status status = FB_OK;
    int64_t d = 0;
    FB_CHECK(fb_cursor_int(&s->c, "the dimension", INT64_MIN, INT64_MAX, &d));
    if (d != 3)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: only 3-D meshes are supported (NDIME= %lld)", s->c.name,
                (long long)s->c.line, (long long)d);
    FB_CHECK(fb_cursor_end_line(&s->c, "NDIME"));
    s->have_dim = 1;
fail:
    return status;
}

static fb_status one_keyword(su2 *s, const char *key)
{
    fb_status status = FB_OK;
    int64_t zones = 0;
    if (strcmp(key, "NDIME") == 0)
        FB_CHECK(dimension(s));
    else if (strcmp(key, "NELEM") == 0)
        FB_CHECK(elements(s));
    else if (strcmp(key, "NPOIN") == 0)
        FB_CHECK(points(s));
    else if (strcmp(key, "NMARK") == 0)
        FB_CHECK(markers(s));
    else if (strcmp(key, "NZONE") == 0) {
        FB_CHECK(fb_cursor_int(&s->c, "the number of zones", 0, INT64_MAX, &zones));
        if (zones > 1)
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: multi-zone meshes are not supported (NZONE= %lld)", s->c.name,
                    (long long)s->c.line, (long long)zones);
        fb_cursor_next_line(&s->c);
    } else {
        fb_cursor_next_line(&s->c); /* IZONE=, FFD_NBOX= ...: not needed */
    }
fail:
    return status;
}

static fb_status sections(su2 *s)
{
    fb_status status = FB_OK;
    char key[64], tok[64];
    if (s->c.p >= s->c.end) FB_FAIL(FB_ERR_INPUT, "%s: empty file", s->c.name);
    for (;;) {
        fb_cursor_skip_empty(&s->c, '%');
        if (fb_cursor_eof(&s->c) || (s->have_elem && s->have_poin && s->have_mark)) break;
        if (!keyword(s, key, sizeof key)) {
            fb_token_show(s->c.p, s->c.end, tok, sizeof tok);
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: expected a keyword such as NELEM=, found '%s'", s->c.name,
                    (long long)s->c.line, tok);
        }
        FB_CHECK(one_keyword(s, key));
    }
    if (!s->have_dim || !s->have_elem || !s->have_poin)
        FB_FAIL(FB_ERR_INPUT, "%s: not an SU2 mesh: %s missing", s->c.name,
                !s->have_dim    ? "NDIME="
                : !s->have_elem ? "NELEM="
                                : "NPOIN=");
    if (s->max_ref >= s->nodes.n)
        FB_FAIL(FB_ERR_INPUT, "%s: line %lld: point %lld does not exist (NPOIN= %d)", s->c.name,
                (long long)s->max_ref_line, (long long)s->max_ref, s->nodes.n);
fail:
    return status;
}

static fb_status parse(const char *name, fb_text_bytes *buf, void *result)
{
    fb_mesh *out = result;
    fb_status status = FB_OK;
    su2 s;
    memset(&s, 0, sizeof s);
    s.max_ref = -1;
    fb_cursor_init(&s.c, name, buf->data, buf->size);
    FB_CHECK(sections(&s));
    FB_CHECK(fb_mesh_assemble(name, &s.nodes, &s.tets, out));
fail:
    fb_node_table_free(&s.nodes);
    free(s.tets.v);
    return status;
}

/* ---- the bound on gzip input -------------------------------------------- */

/* Whether [k, eq) is, blanks aside, a keyword whose value counts records. */
static int counted_keyword(const char *k, const char *eq)
{
    static const char *const words[] = {"NELEM", "NPOIN", "NMARK", "MARKER_ELEMS"};
    while (k < eq && fb_is_delim(*k))
        ++k;
    while (eq > k && fb_is_delim(eq[-1]))
        --eq;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
        if ((size_t)(eq - k) == strlen(words[i]) && !memcmp(k, words[i], (size_t)(eq - k))) return 1;
    return 0;
}

#define KEYWORD_REACH 32 /* a keyword's '=' is this close to the start of its line */

/* Keyword lines hold '=', which no number does: memchr finds them at
 * memory speed through the element and point lines. */
static void su2_text_limit(const char *d, size_t n, fb_text_limit *limit)
{
    const char *end = d + n;
    int64_t v;
    for (const char *p = d + limit->scanned; (p = memchr(p, '=', (size_t)(end - p))) != NULL; ++p) {
        const char *start = p;
        while (start > d && p - start < KEYWORD_REACH && start[-1] != '\n')
            --start;
        if (start > d && start[-1] != '\n') continue; /* too far from its line's start to be a keyword */
        if (!counted_keyword(start, p)) continue;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) { /* the count is not all here yet */
            limit->scanned = (size_t)(start - d);
            return;
        }
        if (fb_text_line_ints(p + 1, nl, &v, 1) == 1)
            fb_mesh_limit_add(limit, nl + 1 - d, v, "elements, points and markers");
        p = nl;
    }
    limit->scanned = n;
}

fb_status fb_mesh_read_su2_memory(const char *name, const void *data, size_t n, fb_mesh *out)
{
    return fb_text_read(name, data, n, su2_text_limit, parse, out, sizeof *out);
}

fb_status fb_mesh_read_su2(const char *path, fb_mesh *out)
{
    return fb_text_read(path, NULL, 0, su2_text_limit, parse, out, sizeof *out);
}
