/* A few spare objects that threads take and give back concurrently (cursor
 * scratch blocks, idle store readers): each slot is taken or filled by one
 * atomic exchange, not under a mutex (a lock pair per query each was a
 * fixed cost of a point query). Each slot has a cache line of its own,
 * and a thread tries the slots from its own (thread_slot) onwards: the
 * object it gave back last is usually the next it takes (the warmest),
 * and threads taking and giving at once write different lines. */
#ifndef MG_BASE_SPARES_H
#define MG_BASE_SPARES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/thread_slot.h"

#define SPARES_MAX 8

/* Padded (thread_slot.h), not aligned: the structs holding a `spares`
 * are malloc'd. */
typedef struct spare_slot {
    char gap[THREAD_STRIPE_GAP];
    _Atomic(void *) p;
} spare_slot;

typedef struct spares {
    spare_slot slot[SPARES_MAX];
    char gap[THREAD_STRIPE_GAP];
    size_t n; /* slots in use, <= SPARES_MAX */
} spares;

/* Up to n (<= SPARES_MAX) spares, none yet. */
void spares_init(spares *s, size_t n);
/* A spare, or NULL when there is none. */
void *spares_take(spares *s);
/* Keeps p (not NULL) as a spare: false when every slot is full. */
bool spares_give(spares *s, void *p);

#endif
