#include "base/thread_slot.h"

#include <stdatomic.h>

static atomic_uint next_slot;
_Thread_local unsigned thread_slot_mine;

unsigned thread_slot_assign(void) {
    thread_slot_mine = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) + 1;
    return thread_slot_mine - 1;
}
