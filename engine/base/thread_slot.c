#include "base/thread_slot.h"

#include <stdatomic.h>

static atomic_uint next_slot;
static _Thread_local unsigned mine; /* slot + 1; 0: not yet numbered */

unsigned thread_slot(void) {
    if (mine == 0)
        mine = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) + 1;
    return mine - 1;
}
