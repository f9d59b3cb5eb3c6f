/* test_family_backend.h - the backend a family test program (test_spmv,
 * test_heat2d, test_fv_surface) runs its device cases on, taken from its
 * command line: tests/CMakeLists.txt registers each program once per backend
 * built (unit.test_spmv.openmp, .opencl, .cuda).
 *
 * A device backend with no device (cuda without a driver, opencl without an
 * ICD) makes the whole program print one line saying why and exit 77, which
 * ctest reports as skipped (SKIP_RETURN_CODE), so a GPU check that did not
 * run never reads as passed. openmp never skips. A device that is there but
 * fails to open is a failure, not a skip. Host-only cases (references,
 * models, parsers) run in the openmp instance alone, so they run once. */
#ifndef TEST_FAMILY_BACKEND_H
#define TEST_FAMILY_BACKEND_H

#include <stdio.h>
#include <string.h>

#include "backends/target.h"

#define TEST_SKIP_EXIT 77 /* SKIP_RETURN_CODE in tests/CMakeLists.txt */
#define TEST_GO_ON -1

static const char *test_backend; /* "openmp", "opencl" or "cuda", from argv[1] */
static fb_target *test_target;   /* device 0 of test_backend, open for the whole program */

/* The instance that also runs the host-only cases. */
static inline int test_on_host(void) { return strcmp(test_backend, "openmp") == 0; }

/* Reads argv[1] and opens its device 0 into test_target. TEST_GO_ON, or the
 * exit code: 2 for a bad command line, TEST_SKIP_EXIT when a device backend
 * has no device, 1 when the backend cannot be opened although it should. */
static inline int test_backend_open(int argc, char **argv)
{
    static const char *const known[] = {"openmp", "opencl", "cuda"};
    for (size_t i = 0; argc == 2 && i < sizeof known / sizeof known[0]; ++i)
        if (strcmp(argv[1], known[i]) == 0) test_backend = known[i];
    if (!test_backend) {
        fprintf(stderr, "usage: %s openmp|opencl|cuda\n", argv[0]);
        return 2;
    }
    char why[256] = "";
    const fb_backend_ops *ops = fb_backend_find(test_backend);
    if (ops && ops->probe(why, sizeof why) <= 0 && !test_on_host()) {
        printf("skipped: %s: %s\n", test_backend, why[0] ? why : "no device");
        return TEST_SKIP_EXIT;
    }
    if (fb_target_open(test_backend, &test_target) != FB_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], fb_error_message());
        return 1;
    }
    printf("backend under test: %s (%s)\n", fb_target_info(test_target)->id, fb_target_info(test_target)->name);
    return TEST_GO_ON;
}

/* Closes test_target; the exit code for cmocka's count of failed tests
 * (clamped to 1: 77 failures must not read as a skip). */
static inline int test_backend_close(int failed)
{
    fb_target_close(test_target);
    return failed ? 1 : 0;
}

#endif
