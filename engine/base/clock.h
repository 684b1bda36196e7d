#ifndef MG_BASE_CLOCK_H
#define MG_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Wall-clock milliseconds since the Unix epoch (CLOCK_REALTIME), never
 * smaller than a value this function returned before in this process (so a
 * commit's tx time never exceeds a later query's "now"). Thread-safe. */
int64_t clock_now_ms(void);

/* The CLOCK_REALTIME instant `ms` milliseconds from now: the deadline
 * pthread_cond_timedwait takes (on its default clock). */
struct timespec clock_deadline_after_ms(int64_t ms);

#endif
