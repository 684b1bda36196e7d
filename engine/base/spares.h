/* A few spare objects that threads take and give back concurrently (cursor
 * scratch blocks, idle store readers): each slot is taken or filled by one
 * atomic exchange, not under a mutex (a lock pair per query each was a
 * fixed cost of a point query). The first slots are tried first, so the
 * object given back last is usually the next taken (it is the warmest). */
#ifndef MG_BASE_SPARES_H
#define MG_BASE_SPARES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define SPARES_MAX 8

typedef struct spares {
    _Atomic(void *) slot[SPARES_MAX];
    size_t n; /* slots in use, <= SPARES_MAX */
} spares;

/* Up to n (<= SPARES_MAX) spares, none yet. */
void spares_init(spares *s, size_t n);
/* A spare, or NULL when there is none. */
void *spares_take(spares *s);
/* Keeps p (not NULL) as a spare: false when every slot is full. */
bool spares_give(spares *s, void *p);

#endif
