/* test_files.c - the user's files: only regular files are opened for
 * reading (a FIFO is refused without blocking), a file written whole
 * replaces its destination only when complete, and a command's output is
 * none of its inputs nor another output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fb-test-files-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_in_dir(const char *name, char *buf, size_t len) { snprintf(buf, len, "%s/%s", dir, name); }

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void expect_message(const char *path, const char *tail)
{
    char want[512];
    snprintf(want, sizeof want, "%s: %s", path, tail);
    assert_string_equal(fb_error_message(), want);
}

static void test_regular_file_opens(void **state)
{
    (void)state;
    char path[128];
    FILE *f = NULL;
    char line[16] = "";
    path_in_dir("plain.txt", path, sizeof path);
    write_text(path, "hello\n");
    assert_int_equal(fb_file_fopen_read(path, NULL, &f), FB_OK);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "hello\n");
    fclose(f);
}

/* Without the check, open() would wait for a writer forever. */
static void test_fifo_refused_without_blocking(void **state)
{
    (void)state;
    char path[128];
    int fd = 7;
    path_in_dir("fifo", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10); /* a blocked open ends the test instead of hanging it */
    assert_int_equal(fb_file_open_read(path, NULL, &fd), FB_ERR_INPUT);
    alarm(0);
    assert_int_equal(fd, -1);
    expect_message(path, "not a regular file");
}

static void test_directory_refused(void **state)
{
    (void)state;
    FILE *f = NULL;
    assert_int_equal(fb_file_fopen_read(dir, "the tuning cache", &f), FB_ERR_INPUT);
    assert_null(f);
    expect_message(dir, "is a directory");
}

static void test_device_refused(void **state)
{
    (void)state;
    FILE *f = NULL;
    assert_int_equal(fb_file_fopen_read("/dev/null", NULL, &f), FB_ERR_INPUT);
    expect_message("/dev/null", "not a regular file");
}

static void test_missing_file_named_with_reason(void **state)
{
    (void)state;
    char path[128];
    FILE *f = NULL;
    path_in_dir("missing.json", path, sizeof path);
    assert_int_equal(fb_file_fopen_read(path, "suite", &f), FB_ERR_INPUT);
    expect_message(path, "cannot open suite: No such file or directory");
    assert_int_equal(fb_file_fopen_read_if_exists(path, "suite", &f), FB_OK);
    assert_null(f);
}

static void test_if_exists_still_refuses_a_fifo(void **state)
{
    (void)state;
    char path[128];
    FILE *f = NULL;
    path_in_dir("fifo2", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    assert_int_equal(fb_file_fopen_read_if_exists(path, NULL, &f), FB_ERR_INPUT);
    alarm(0);
    expect_message(path, "not a regular file");
}

static void read_back(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* No temporary file left beside the destination. */
static void expect_no_tmp(const char *path)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "! ls '%s'.tmp.* > /dev/null 2>&1", path);
    assert_int_equal(system(cmd), 0);
}

static void test_replace_commit_replaces(void **state)
{
    (void)state;
    char path[128], text[64];
    fb_file_replace r;
    int fd = -1;
    path_in_dir("out.txt", path, sizeof path);
    write_text(path, "old\n");
    assert_int_equal(fb_file_replace_begin(path, &r, &fd), FB_OK);
    read_back(path, text, sizeof text);
    assert_string_equal(text, "old\n"); /* untouched while the new text is written */
    assert_int_equal(write(fd, "new\n", 4), 4);
    assert_int_equal(close(fd), 0);
    assert_int_equal(fb_file_replace_commit(&r), FB_OK);
    read_back(path, text, sizeof text);
    assert_string_equal(text, "new\n");
    expect_no_tmp(path);
    unlink(path);
}

static void test_replace_abort_keeps_the_old_file(void **state)
{
    (void)state;
    char path[128], text[64];
    fb_file_replace r;
    int fd = -1;
    path_in_dir("keep.txt", path, sizeof path);
    write_text(path, "what the user had\n");
    assert_int_equal(fb_file_replace_begin(path, &r, &fd), FB_OK);
    assert_int_equal(write(fd, "half", 4), 4);
    close(fd);
    fb_file_replace_abort(&r);
    read_back(path, text, sizeof text);
    assert_string_equal(text, "what the user had\n");
    expect_no_tmp(path);
    unlink(path);
}

static int is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static void write_whole(const char *path, const char *text)
{
    fb_file_writer w;
    assert_int_equal(fb_file_writer_open(path, &w), FB_OK);
    fputs(text, w.f);
    assert_int_equal(fb_file_writer_close(&w, 1), FB_OK);
}

/* A shared store reached through symbolic links (relative ones, a chain of
 * two, one whose target is not there yet): the target gets the text and
 * keeps its mode, every link stays a link, no temporary file is left. */
static void test_writer_through_links_keeps_them(void **state)
{
    (void)state;
    char target[128], first[128], second[128], dangling[128], fresh[128], text[64], cmd[256];
    struct stat st;
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/shared' '%s/users/a'", dir, dir);
    assert_int_equal(system(cmd), 0);
    path_in_dir("shared/store.txt", target, sizeof target);
    path_in_dir("users/a/store-link", first, sizeof first);
    path_in_dir("store-link2", second, sizeof second);
    path_in_dir("dangling", dangling, sizeof dangling);
    path_in_dir("shared/new.txt", fresh, sizeof fresh);
    write_text(target, "old\n");
    assert_int_equal(chmod(target, 0640), 0);
    assert_int_equal(symlink("../../shared/store.txt", first), 0); /* relative to its own folder */
    assert_int_equal(symlink("users/a/store-link", second), 0);
    assert_int_equal(symlink("shared/new.txt", dangling), 0);
    write_whole(second, "new\n");
    assert_true(is_link(first) && is_link(second));
    read_back(target, text, sizeof text);
    assert_string_equal(text, "new\n");
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    expect_no_tmp(target);
    expect_no_tmp(second);
    write_whole(dangling, "made\n");
    assert_true(is_link(dangling));
    read_back(fresh, text, sizeof text);
    assert_string_equal(text, "made\n");
    expect_no_tmp(fresh);
}

static void test_replace_refuses_what_is_not_a_file(void **state)
{
    (void)state;
    char sub[128], fifo[128];
    fb_file_replace r;
    int fd = 7;
    path_in_dir("sub", sub, sizeof sub);
    path_in_dir("pipe", fifo, sizeof fifo);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(fb_file_replace_begin(sub, &r, &fd), FB_ERR_INPUT);
    expect_message(sub, "is a directory");
    assert_int_equal(fd, -1);
    assert_int_equal(fb_file_replace_begin(fifo, &r, &fd), FB_ERR_INPUT);
    expect_message(fifo, "not a regular file");
    assert_int_equal(fb_file_replace_begin("/dev/null", &r, &fd), FB_ERR_INPUT);
    fb_file_replace_abort(&r); /* nothing was created: nothing removed */
    struct stat st;
    assert_int_equal(stat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(stat("/dev/null", &st), 0);
    rmdir(sub);
    unlink(fifo);
}

static void test_replace_in_a_missing_directory_names_the_reason(void **state)
{
    (void)state;
    char path[128];
    fb_file_replace r;
    int fd = -1;
    path_in_dir("no/such/out.txt", path, sizeof path);
    assert_int_equal(fb_file_replace_begin(path, &r, &fd), FB_ERR_IO);
    expect_message(path, "cannot write: No such file or directory");
}

/* ---- fb_files_check_distinct ---- */

static fb_status distinct(const char *in, const char *out1, const char *out2)
{
    const fb_named_file inputs[] = {{"IN", in}}, outputs[] = {{"--a", out1}, {"--b", out2}};
    return fb_files_check_distinct("cmd", inputs, 1, outputs, 2);
}

static void test_distinct_files_pass(void **state)
{
    (void)state;
    char in[128], a[128], b[128];
    path_in_dir("in.jsonl", in, sizeof in);
    path_in_dir("a.csv", a, sizeof a);
    path_in_dir("b.csv", b, sizeof b);
    write_text(in, "x\n");
    write_text(a, "a\n"); /* an output that exists, but is no input, is replaced as ever */
    assert_int_equal(distinct(in, a, b), FB_OK);
    assert_int_equal(distinct(in, NULL, NULL), FB_OK);      /* options not given */
    assert_int_equal(distinct("/no/such/in", a, b), FB_OK); /* its reader says why */
}

/* A store not made yet is still the store: an output spelt like it
 * (another spelling of its folder too) is refused, another name is not;
 * where the store is there, it is known by its inode. */
static void test_output_that_is_a_store_refused(void **state)
{
    (void)state;
    char store[128], other[256], elsewhere[128], want[512];
    path_in_dir("store.json", store, sizeof store);
    snprintf(other, sizeof other, "%s/./store.json", dir);
    path_in_dir("report.xml", elsewhere, sizeof elsewhere);
    unlink(store);
    const fb_named_file stores[] = {{"noise store", store}}, outputs[] = {{"--junit", other}};
    const fb_named_file apart[] = {{"--junit", elsewhere}};
    assert_int_equal(fb_files_check_distinct("cmd", stores, 1, outputs, 1), FB_OK); /* an input must be there */
    assert_int_equal(fb_files_check_stores("cmd", stores, 1, outputs, 1), FB_ERR_USAGE);
    snprintf(want, sizeof want, "cmd: --junit %s is the input noise store (%s): refusing to overwrite it", other,
             store);
    assert_string_equal(fb_error_message(), want);
    assert_int_equal(fb_files_check_stores("cmd", stores, 1, apart, 1), FB_OK);
    write_text(store, "{}\n");
    assert_int_equal(fb_files_check_stores("cmd", stores, 1, outputs, 1), FB_ERR_USAGE);
    assert_int_equal(fb_files_check_stores("cmd", stores, 1, apart, 1), FB_OK);
    unlink(store);
}

/* The same file by another name: a link, a hard link, another spelling. */
static void test_output_that_is_the_input_refused(void **state)
{
    (void)state;
    char in[128], sym[128], hard[128], other[256], want[512];
    path_in_dir("in.jsonl", in, sizeof in);
    path_in_dir("sym.jsonl", sym, sizeof sym);
    path_in_dir("hard.jsonl", hard, sizeof hard);
    snprintf(other, sizeof other, "%s/./in.jsonl", dir);
    write_text(in, "x\n");
    assert_int_equal(symlink(in, sym), 0);
    assert_int_equal(link(in, hard), 0);
    assert_int_equal(distinct(in, NULL, in), FB_ERR_USAGE);
    snprintf(want, sizeof want, "cmd: --b %s is the input IN: refusing to overwrite it", in);
    assert_string_equal(fb_error_message(), want);
    const char *names[] = {sym, hard, other};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(distinct(in, names[i], NULL), FB_ERR_USAGE);
        snprintf(want, sizeof want, "cmd: --a %s is the input IN (%s): refusing to overwrite it", names[i], in);
        assert_string_equal(fb_error_message(), want);
    }
}

/* Two outputs that are one file, there or not yet. */
static void test_two_outputs_that_are_one_file_refused(void **state)
{
    (void)state;
    char in[128], out[128], other[256], want[512];
    path_in_dir("in.jsonl", in, sizeof in);
    path_in_dir("new.vtu", out, sizeof out);
    snprintf(other, sizeof other, "%s/sub/../new.vtu", dir);
    write_text(in, "x\n");
    assert_int_equal(distinct(in, out, out), FB_ERR_USAGE);
    snprintf(want, sizeof want, "cmd: --b %s is also --a: give each output its own file", out);
    assert_string_equal(fb_error_message(), want);
    char sub[128];
    path_in_dir("sub", sub, sizeof sub);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(distinct(in, out, other), FB_ERR_USAGE);
    snprintf(want, sizeof want, "cmd: --b %s is also --a (%s): give each output its own file", other, out);
    assert_string_equal(fb_error_message(), want);
    rmdir(sub);
}

/* An output that is a directory is refused before the command's work (solve
 * --vtk DIR ran the whole solve first), as its writer would refuse it. */
static void test_output_that_is_a_directory_refused(void **state)
{
    (void)state;
    char in[128], want[512];
    path_in_dir("in.jsonl", in, sizeof in);
    write_text(in, "x\n");
    assert_int_equal(distinct(in, NULL, dir), FB_ERR_INPUT);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    assert_string_equal(fb_error_message(), want);
}

/* A message may wrap the last one (fb_error_message() as an argument). */
static void test_error_message_wraps_the_last(void **state)
{
    (void)state;
    fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "f: line %d: bad", 3);
    fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s; the files are kept", fb_error_message());
    assert_string_equal(fb_error_message(), "f: line 3: bad; the files are kept");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_file_opens),
        cmocka_unit_test(test_fifo_refused_without_blocking),
        cmocka_unit_test(test_directory_refused),
        cmocka_unit_test(test_device_refused),
        cmocka_unit_test(test_missing_file_named_with_reason),
        cmocka_unit_test(test_if_exists_still_refuses_a_fifo),
        cmocka_unit_test(test_replace_commit_replaces),
        cmocka_unit_test(test_replace_abort_keeps_the_old_file),
        cmocka_unit_test(test_replace_refuses_what_is_not_a_file),
        cmocka_unit_test(test_writer_through_links_keeps_them),
        cmocka_unit_test(test_replace_in_a_missing_directory_names_the_reason),
        cmocka_unit_test(test_distinct_files_pass),
        cmocka_unit_test(test_output_that_is_the_input_refused),
        cmocka_unit_test(test_output_that_is_a_store_refused),
        cmocka_unit_test(test_two_outputs_that_are_one_file_refused),
        cmocka_unit_test(test_output_that_is_a_directory_refused),
        cmocka_unit_test(test_error_message_wraps_the_last),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
