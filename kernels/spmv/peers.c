/* peers.c - the peer registry and the common run path. */
#include "peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fb_peer *const peers[] = {&fb_peer_graphblas, &fb_peer_petsc, &fb_peer_cusparse, &fb_peer_cusparse_bsr};

int fb_peer_count(void) { return (int)(sizeof peers / sizeof peers[0]); }

const fb_peer *fb_peer_at(int i) { return i >= 0 && i < fb_peer_count() ? peers[i] : NULL; }

const fb_peer *fb_peer_find(const char *name)
{
    for (int i = 0; i < fb_peer_count(); ++i)
        if (strcmp(peers[i]->def.name, name) == 0) return peers[i];
    return NULL;
}

fb_status fb_peer_run(const fb_peer *p, fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg,
                      fb_spmv_result *out)
{
    fb_status status = FB_OK;
    char why[256] = "";
    double *owned_x = NULL;
    const double *x = NULL;
    const fb_device_info *dev = fb_target_info(t);
    memset(out, 0, sizeof *out);
    /* A usage error first: asking for a peer on the wrong backend is wrong
     * whether or not this build has the peer. */
    if (strcmp(dev->backend, p->backend) != 0)
        FB_FAIL(FB_ERR_USAGE, "%s runs on the %s backend, not %s", p->def.name, p->backend, dev->id);
    if (!p->available(why, sizeof why)) FB_FAIL(FB_ERR_UNAVAILABLE, "%s: %s", p->def.name, why);
    if (p->double_only && !cfg->is_double)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: double precision only (the library computes in double)", p->def.name);
    if (A->format != p->def.format)
        FB_FAIL(FB_ERR_USAGE, "%s needs a %s matrix", p->def.name, p->def.format->input_name);
    FB_CHECK(fb_spmv_make_x(A, cfg->x, &owned_x, &x));
    FB_CHECK(p->run(t, A, cfg, x, out));
    FB_CHECK(fb_spmv_finish(A, cfg, x, dev->id, out));
fail:
    free(owned_x);
    return status;
}
