/* fuzz_results.c - libFuzzer target: the results-file reader (JSON Lines,
 * every record checked, damaged lines skipped) on arbitrary bytes, then
 * what plot, report and compare read from each record it accepted. The
 * reader takes a path, so the bytes go into an in-memory file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "results/records/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(const fb_results_set *set)
{
    char buf[1024];
    int first;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        volatile double sink = fb_record_median(r) + fb_record_fraction(set, r);
        (void)sink;
        fb_record_label(r, buf, sizeof buf);
        fb_record_failure(r, buf, sizeof buf);
        (void)fb_record_usable(r);
        (void)fb_record_expected(r);
        (void)fb_record_host(r);
        (void)fb_record_matrix(r);
        if (fb_results_find_all(set, r->key, &first) < 1) abort(); /* a record is found by its own key */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    fb_results_set *set = NULL;
    int fd = memfd_create("fuzz.jsonl", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        if (fb_results_load(path, &set) == FB_OK) exercise(set);
        fb_results_set_free(set);
    }
    close(fd);
    return 0;
}
