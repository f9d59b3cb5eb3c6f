/* clock.h - the one clock of flowbench: monotonic seconds, comparable
 * between the processes of one machine (CLOCK_MONOTONIC), so a sweep's
 * successor process (tune/sweep_guard.c) can go on timing from its
 * predecessor's start. Its own module so that the energy meters and the
 * measurement policy, which both read it, do not depend on each other. */
#ifndef FB_CORE_CLOCK_H
#define FB_CORE_CLOCK_H

/* Monotonic clock in seconds. */
double fb_now(void);

#endif
