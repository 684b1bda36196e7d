#include "base/clock.h"

#include <stdatomic.h>
#include <time.h>

/* The largest value handed out so far; later calls never go below it, even
 * if the system clock steps backwards. */
static _Atomic int64_t clock_last_ms;

static int64_t clock_realtime_ms(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000 + (int64_t)(ts.tv_nsec / 1000000);
}

int64_t clock_now_ms(void) {
    int64_t now = clock_realtime_ms();
    int64_t prev = atomic_load(&clock_last_ms);
    for (;;) {
        if (now <= prev)
            return prev;
        if (atomic_compare_exchange_weak(&clock_last_ms, &prev, now))
            return now;
    }
}

struct timespec clock_deadline_after_ms(int64_t ms) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}
