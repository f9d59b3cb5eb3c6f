/* test_suite_mutations.c - the suite reader on thousands of damaged
 * suites: every shipped suite with a byte changed, a line dropped or
 * doubled, or cut short, from a fixed seed. Each must load, or be refused
 * with a message naming the file; a suite that loads must expand. Under
 * the sanitizer build (./run.sh sanitize) this is the suite reader's fuzz
 * test: a memory error or undefined behaviour fails it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/suite.h"

#define MUTATIONS 150 /* per suite file */
#define MAX_POINTS 100000

static int loaded, refused; /* over all mutants: both must occur */

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    text = malloc(*len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, *len, f), *len);
    fclose(f);
    return text;
}

/* The start of the line holding byte at, and the start of the next. */
static void line_around(const char *t, size_t len, size_t at, size_t *start, size_t *end)
{
    *start = at;
    while (*start > 0 && t[*start - 1] != '\n')
        --*start;
    *end = at;
    while (*end < len && t[*end] != '\n')
        ++*end;
    if (*end < len) ++*end;
}

/* One damaged copy of text in out (room for 2 x len + 2 bytes). */
static size_t mutate(const char *t, size_t len, unsigned *rnd, char *out)
{
    static const char alphabet[] = "-:[]{},#'\"&*!|>%@` \t\n0123456789eE.xX";
    size_t at = len ? next_random(rnd) % len : 0, start, end, n = 0;
    line_around(t, len, at, &start, &end);
    switch (next_random(rnd) % 4) {
    case 0: /* one byte changed */
        memcpy(out, t, len);
        if (len) out[at] = alphabet[next_random(rnd) % (sizeof alphabet - 1)];
        return len;
    case 1: /* cut short */ memcpy(out, t, at); return at;
    case 2: /* a line dropped */
        memcpy(out, t, start);
        memcpy(out + start, t + end, len - end);
        return len - (end - start);
    default: /* a line doubled */
        memcpy(out, t, end);
        n = end;
        memcpy(out + n, t + start, end - start);
        n += end - start;
        memcpy(out + n, t + end, len - end);
        return n + len - end;
    }
}

static void expand(const fb_suite *s)
{
    for (int c = 0; c < s->ncases; ++c)
        for (int k = 0; k < s->cases[c].nkernels; ++k) {
            fb_param_point *points = NULL;
            int n = 0;
            int64_t count = fb_suite_point_count(&s->cases[c], k);
            assert_true(count >= 0);
            if (count > MAX_POINTS) continue;
            assert_int_equal(fb_suite_points(&s->cases[c], k, &points, &n), FB_OK);
            assert_true(n <= count);
            free(points);
        }
}

/* The mutants are written to the temporary directory (a source tree may
 * be read-only): a relative matrix path then names nothing, which is one
 * more refusal to check. */
static void load_mutants(const char *path, unsigned seed)
{
    size_t len, n;
    char *text = read_all(path, &len), *buf = malloc(2 * len + 2), copy[1200];
    assert_non_null(buf);
    snprintf(copy, sizeof copy, "%s/fb-test-mutant-%ld.suite", P_tmpdir, (long)getpid());
    for (int i = 0; i < MUTATIONS; ++i) {
        fb_suite s;
        FILE *f = fopen(copy, "wb");
        assert_non_null(f);
        n = mutate(text, len, &seed, buf);
        assert_int_equal(fwrite(buf, 1, n, f), n);
        fclose(f);
        memset(&s, 0, sizeof s);
        fb_status st = fb_suite_load(copy, &s);
        if (st == FB_OK) {
            expand(&s);
            loaded++;
        } else if (!strstr(fb_error_message(), copy)) {
            fail_msg("a refusal that does not name the file: %s", fb_error_message());
        } else {
            refused++;
        }
        fb_suite_free(&s);
    }
    unlink(copy);
    free(buf);
    free(text);
}

static void test_damaged_suites(void **state)
{
    (void)state;
    glob_t g;
    unsigned seed = 20261124;
    assert_int_equal(glob(FB_SOURCE_DIR "/cases/*.suite", 0, NULL, &g), 0);
    assert_int_equal(glob(FB_SOURCE_DIR "/tests/data/suites/*.suite", GLOB_APPEND, NULL, &g), 0);
    assert_true(g.gl_pathc >= 10);
    for (size_t i = 0; i < g.gl_pathc; ++i)
        load_mutants(g.gl_pathv[i], seed + (unsigned)i);
    globfree(&g);
    print_message("%d mutants loaded and expanded, %d refused naming the file\n", loaded, refused);
    assert_true(loaded > 100 && refused > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged_suites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
