/* fuzz_mtx_cholmod.c - libFuzzer target: Matrix Market through CHOLMOD's
 * reader behind flowbench's header checks (CHOLMOD itself is not
 * instrumented; the checks and the conversion around it are). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "matrix/mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fb_mtx m;
    if (fb_mtx_read_cholmod_memory("fuzz.mtx", data, size, &m) != FB_OK) return 0;
    if (!m.info.array) fuzz_exercise(&m.csr);
    fb_mtx_free(&m);
    return 0;
}
