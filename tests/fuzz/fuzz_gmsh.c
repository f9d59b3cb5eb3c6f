/* fuzz_gmsh.c - libFuzzer target: the Gmsh .msh (2.2 and 4.1 ASCII) reader on arbitrary bytes,
 * then the node graph and the P1 Laplacian of what it accepts. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "matrix/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fb_mesh m;
    fb_csr A;
    if (fb_mesh_read_gmsh_memory("fuzz.gmsh", data, size, &m) != FB_OK) return 0;
    if (m.nnodes <= 0 || m.ntets <= 0) abort();
    for (int64_t k = 0; k < 4 * (int64_t)m.ntets; ++k)
        if (m.tets[k] < 0 || m.tets[k] >= m.nnodes) abort();
    if (fb_mesh_graph(&m, &A) == FB_OK) {
        fuzz_exercise(&A);
        fb_csr_free(&A);
    }
    if (fb_mesh_laplacian(&m, &A) == FB_OK) fb_csr_free(&A);
    fb_mesh_free(&m);
    return 0;
}
