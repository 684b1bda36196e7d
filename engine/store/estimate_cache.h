/* Range estimates (store_estimate) shared by every reader of one store.
 *
 * Planning a query estimates the range of each of its patterns, and a
 * query that runs again (a rule query above all: its first plan counts
 * the records of the attribute its rules read) would count the same
 * ranges again. An estimate depends only on the records and the shape of
 * the index trees, so it holds for every snapshot with the same
 * transaction count (a commit advances it) and checkpoint generation (a
 * checkpoint rewrites the pages): an entry of another snapshot never
 * answers. One fixed table, direct-mapped by a hash of the bound (a new
 * entry replaces its slot's), allocated on the first entry kept.
 * Thread-safe: the readers of one store run in parallel, and read the
 * slots under their sequence counts (base/seqlock.h) without a lock, so
 * they write nothing shared; keeping an estimate takes the mutex. */
#ifndef MG_STORE_ESTIMATE_CACHE_H
#define MG_STORE_ESTIMATE_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define ESTIMATE_CACHE_SLOTS 64 /* a power of two */

typedef struct estimate_slot estimate_slot;

typedef struct estimate_cache {
    pthread_mutex_t mu;             /* the writers' */
    _Atomic(estimate_slot *) slots; /* NULL until the first entry */
} estimate_cache;

/* The snapshot an estimate belongs to. */
typedef struct estimate_snapshot {
    uint64_t tx_count, generation;
} estimate_snapshot;

/* 0, or -1 when the mutex cannot be created. */
int estimate_cache_init(estimate_cache *c);
void estimate_cache_free(estimate_cache *c);

/* 1 with *n = what store_estimate(b, cap) gives on `snap` when a kept
 * estimate tells it, else 0. */
int estimate_cache_get(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                       size_t *n);
/* Keeps store_estimate(b, cap) = n on `snap` (n == cap: at least cap).
 * Out of memory only means nothing is kept. */
void estimate_cache_put(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                        size_t n);

#endif
