/* test_interrupt.c - the signal handler's two modes (core/interrupt.h): a
 * signal sets the flag that loops poll, and inside an at-once stretch it
 * ends the process with exit status 130; and the multi-key index
 * (core/json_index.h) the readers of large inputs look records up in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "core/json_index.h"

/* Runs body in a child with the handler installed; its exit status. */
static int child_status(void (*body)(void))
{
    int wstatus = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        fb_install_interrupt_handler();
        body();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus)); /* not killed by the signal: the handler ended it */
    return WEXITSTATUS(wstatus);
}

/* A polled signal only sets the flag: the child goes on (exit 7 says so). */
static void signal_polled(void)
{
    raise(SIGINT);
    _exit(fb_interrupted ? 7 : 1);
}

static void signal_at_once(void)
{
    if (fb_interrupt_at_once_begin() != FB_OK) _exit(1);
    raise(SIGTERM);
    _exit(2); /* not reached: the handler exits 130 */
}

/* After the stretch, a signal is polled again. */
static void signal_after_stretch(void)
{
    if (fb_interrupt_at_once_begin() != FB_OK) _exit(1);
    fb_interrupt_at_once_end();
    raise(SIGINT);
    _exit(fb_interrupted ? 7 : 1);
}

static void test_signal_modes(void **state)
{
    (void)state;
    assert_int_equal(child_status(signal_polled), 7);
    assert_int_equal(child_status(signal_at_once), 130);
    assert_int_equal(child_status(signal_after_stretch), 7);
}

/* A signal that came before the stretch is not lost: the stretch refuses
 * to start and says interrupted. */
static void test_at_once_after_signal_refused(void **state)
{
    (void)state;
    fb_interrupted = 1;
    fb_status st = fb_interrupt_at_once_begin();
    fb_interrupted = 0;
    assert_int_equal(st, FB_ERR_INTERRUPTED);
    assert_string_equal(fb_error_message(), "interrupted");
    assert_int_equal(fb_interrupt_at_once_begin(), FB_OK);
    fb_interrupt_at_once_end();
}

static void test_index_keys_never_collide(void **state)
{
    (void)state;
    json_t *index = json_object();
    const char *ab_c[] = {"a|b", "c"}, *a_bc[] = {"a", "b|c"}, *a_b[] = {"a", "b"};
    assert_int_equal(fb_json_index_set(index, ab_c, 2, json_integer(1)), FB_OK);
    assert_int_equal(fb_json_index_set(index, a_bc, 2, json_integer(2)), FB_OK);
    assert_int_equal(fb_json_index_int(index, ab_c, 2), 1);
    assert_int_equal(fb_json_index_int(index, a_bc, 2), 2);
    assert_int_equal(fb_json_index_int(index, a_b, 2), -1);
    assert_null(fb_json_index_get(index, a_b, 2));
    assert_int_equal(fb_json_index_set(index, ab_c, 2, json_integer(3)), FB_OK); /* replaces */
    assert_int_equal(fb_json_index_int(index, ab_c, 2), 3);
    assert_int_equal(fb_json_index_set(index, ab_c, 2, NULL), FB_ERR_NOMEM); /* a failed json_integer() */
    json_decref(index);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_modes),
        cmocka_unit_test(test_at_once_after_signal_refused),
        cmocka_unit_test(test_index_keys_never_collide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
