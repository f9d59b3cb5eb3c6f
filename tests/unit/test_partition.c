/* test_partition.c - a mesh's node graph split among ranks
 * (matrix/partition.c), all parts built in one process: every node owned
 * once, METIS parts non-empty and balanced, the halo the neighbours of
 * owned nodes, each side's exchange lists the same nodes in the same
 * order, the local mesh complete around owned nodes; and an exchange
 * played by copying between the parts gives every halo its owner's value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "matrix/partition.h"

#define NPARTS 3

typedef struct parts {
    fb_mesh mesh;
    fb_csr graph;
    int *part;
    fb_local_part lp[NPARTS];
} parts;

static void parts_build(parts *p, int n, int nparts)
{
    memset(p, 0, sizeof *p);
    assert_int_equal(fb_mesh_cube(n, &p->mesh), FB_OK);
    assert_int_equal(fb_mesh_graph(&p->mesh, &p->graph), FB_OK);
    p->part = calloc((size_t)p->mesh.nnodes, sizeof *p->part);
    assert_int_equal(fb_partition_graph(&p->graph, nparts, p->part, NULL), FB_OK);
    for (int r = 0; r < nparts; ++r)
        assert_int_equal(fb_local_part_build(&p->graph, p->part, nparts, r, &p->lp[r]), FB_OK);
}

static void parts_free(parts *p, int nparts)
{
    for (int r = 0; r < nparts; ++r)
        fb_local_part_free(&p->lp[r]);
    free(p->part);
    free(p->graph.rowptr), free(p->graph.colidx), free(p->graph.values);
    fb_mesh_free(&p->mesh);
}

static void test_every_node_owned_once(void **state)
{
    (void)state;
    parts p;
    parts_build(&p, 9, NPARTS);
    int total = 0;
    for (int r = 0; r < NPARTS; ++r) {
        const fb_local_part *lp = &p.lp[r];
        assert_true(lp->nown > 0);
        /* METIS balances to a few percent: no part above twice the mean */
        assert_true(lp->nown < 2 * p.mesh.nnodes / NPARTS);
        for (int l = 0; l < lp->nown; ++l)
            assert_int_equal(p.part[lp->l2g[l]], r);
        for (int l = lp->nown; l < lp->nlocal; ++l)
            assert_int_not_equal(p.part[lp->l2g[l]], r);
        total += lp->nown;
    }
    assert_int_equal(total, p.mesh.nnodes);
    parts_free(&p, NPARTS);
}

/* The halo is exactly the foreign neighbours of owned nodes. */
static void test_halo_is_one_layer(void **state)
{
    (void)state;
    parts p;
    parts_build(&p, 9, NPARTS);
    for (int r = 0; r < NPARTS; ++r) {
        const fb_local_part *lp = &p.lp[r];
        char *want = calloc((size_t)p.mesh.nnodes, 1);
        for (int l = 0; l < lp->nown; ++l) {
            const int i = lp->l2g[l];
            for (int e = p.graph.rowptr[i]; e < p.graph.rowptr[i + 1]; ++e)
                if (p.part[p.graph.colidx[e]] != r) want[p.graph.colidx[e]] = 1;
        }
        int nwant = 0;
        for (int i = 0; i < p.mesh.nnodes; ++i)
            nwant += want[i];
        assert_int_equal(lp->nlocal - lp->nown, nwant);
        for (int l = lp->nown; l < lp->nlocal; ++l)
            assert_true(want[lp->l2g[l]]);
        free(want);
    }
    parts_free(&p, NPARTS);
}

/* What a sends to b is, node for node, what b receives from a. */
static void test_exchange_lists_match(void **state)
{
    (void)state;
    parts p;
    parts_build(&p, 9, NPARTS);
    for (int a = 0; a < NPARTS; ++a)
        for (int k = 0; k < p.lp[a].halo.nneighbours; ++k) {
            const fb_halo *ha = &p.lp[a].halo;
            const int b = ha->rank[k];
            const fb_halo *hb = &p.lp[b].halo;
            int kb = -1;
            for (int j = 0; j < hb->nneighbours; ++j)
                if (hb->rank[j] == a) kb = j;
            assert_true(kb >= 0);
            const int n = ha->send_start[k + 1] - ha->send_start[k];
            assert_int_equal(n, hb->recv_start[kb + 1] - hb->recv_start[kb]);
            for (int s = 0; s < n; ++s)
                assert_int_equal(p.lp[a].l2g[ha->send_idx[ha->send_start[k] + s]],
                                 p.lp[b].l2g[hb->recv_idx[hb->recv_start[kb] + s]]);
        }
    parts_free(&p, NPARTS);
}

/* Every tetrahedron of an owned node is in the local mesh. */
static void test_local_mesh_complete_around_owned(void **state)
{
    (void)state;
    parts p;
    parts_build(&p, 7, NPARTS);
    for (int r = 0; r < NPARTS; ++r) {
        fb_mesh local;
        assert_int_equal(fb_mesh_restrict(&p.mesh, &p.lp[r], &local), FB_OK);
        assert_int_equal(local.nnodes, p.lp[r].nlocal);
        int *count_global = calloc((size_t)p.mesh.nnodes, sizeof(int)),
            *count_local = calloc((size_t)local.nnodes, sizeof(int));
        for (int t = 0; t < p.mesh.ntets; ++t)
            for (int a = 0; a < 4; ++a)
                count_global[p.mesh.tets[4 * t + a]]++;
        for (int t = 0; t < local.ntets; ++t)
            for (int a = 0; a < 4; ++a)
                count_local[local.tets[4 * t + a]]++;
        for (int l = 0; l < p.lp[r].nown; ++l) {
            assert_int_equal(count_local[l], count_global[p.lp[r].l2g[l]]);
            assert_memory_equal(local.xyz + 3 * l, p.mesh.xyz + 3 * p.lp[r].l2g[l], 3 * sizeof(double));
        }
        free(count_global), free(count_local);
        fb_mesh_free(&local);
    }
    parts_free(&p, NPARTS);
}

/* The exchange played in one process: each owner's values packed by its
 * send lists, unpacked by the receiver's lists: every halo node ends with
 * its owner's value (the global number, 3 components). */
static void test_played_exchange_fills_halo(void **state)
{
    (void)state;
    parts p;
    parts_build(&p, 9, NPARTS);
    double *v[NPARTS];
    for (int r = 0; r < NPARTS; ++r) {
        v[r] = calloc(3 * (size_t)p.lp[r].nlocal, sizeof(double));
        for (int l = 0; l < p.lp[r].nown; ++l)
            for (int c = 0; c < 3; ++c)
                v[r][3 * l + c] = 10.0 * p.lp[r].l2g[l] + c;
    }
    for (int a = 0; a < NPARTS; ++a)
        for (int k = 0; k < p.lp[a].halo.nneighbours; ++k) {
            const fb_halo *ha = &p.lp[a].halo, *hb = &p.lp[ha->rank[k]].halo;
            int kb = 0;
            while (hb->rank[kb] != a)
                ++kb;
            for (int s = 0; s < ha->send_start[k + 1] - ha->send_start[k]; ++s)
                for (int c = 0; c < 3; ++c)
                    v[ha->rank[k]][3 * hb->recv_idx[hb->recv_start[kb] + s] + c] =
                        v[a][3 * ha->send_idx[ha->send_start[k] + s] + c];
        }
    for (int r = 0; r < NPARTS; ++r) {
        for (int l = 0; l < p.lp[r].nlocal; ++l)
            for (int c = 0; c < 3; ++c)
                assert_true(v[r][3 * l + c] == 10.0 * p.lp[r].l2g[l] + c);
        free(v[r]);
    }
    parts_free(&p, NPARTS);
}

static void test_too_many_parts_refused(void **state)
{
    (void)state;
    fb_mesh m;
    fb_csr g;
    assert_int_equal(fb_mesh_cube(2, &m), FB_OK);
    assert_int_equal(fb_mesh_graph(&m, &g), FB_OK);
    int part[8];
    assert_int_equal(fb_partition_graph(&g, 9, part, NULL), FB_ERR_USAGE);
    assert_non_null(strstr(fb_error_message(), "8 nodes cannot be split among 9 ranks"));
    assert_int_equal(fb_partition_graph(&g, 1, part, NULL), FB_OK);
    for (int i = 0; i < 8; ++i)
        assert_int_equal(part[i], 0);
    free(g.rowptr), free(g.colidx), free(g.values);
    fb_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_node_owned_once),      cmocka_unit_test(test_halo_is_one_layer),
        cmocka_unit_test(test_exchange_lists_match),       cmocka_unit_test(test_local_mesh_complete_around_owned),
        cmocka_unit_test(test_played_exchange_fills_halo), cmocka_unit_test(test_too_many_parts_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
