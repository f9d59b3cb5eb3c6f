/* fuzz_mtx.c - libFuzzer target: flowbench's Matrix Market reader (plain and
 * gzip input) on arbitrary bytes, then everything downstream of it. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "matrix/mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fb_mtx m;
    if (fb_mtx_read_memory("fuzz.mtx", data, size, &m) != FB_OK) return 0;
    if (m.info.array) {
        fb_csr A;
        if ((int64_t)m.dense.nrows * m.dense.ncols <= 100000 && fb_csr_from_dense(&m.dense, &A) == FB_OK) {
            fuzz_exercise(&A);
            fb_csr_free(&A);
        }
    } else {
        fuzz_exercise(&m.csr);
    }
    fb_mtx_free(&m);
    return 0;
}
