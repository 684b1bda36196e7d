/* Dictionary entries shared by every reader of one store, both ways: the
 * location of an entity UUID or a text (storage/dict.h), so that a
 * query's constants cost a dictionary descent only the first time any
 * query names them, and the bytes at a location, so that the values small
 * queries keep decoding need no heap page read.
 *
 * A location never changes once given, so a found entry holds for every
 * later snapshot; an absent one holds only for snapshots at the
 * transaction count it was looked up at (a commit may add it). Two fixed
 * tables, direct-mapped by a hash of the key or of the location (a new
 * entry replaces its slot's), allocated on the first entry kept. Keys of
 * more than LOOKUP_CACHE_KEY bytes are not kept. Thread-safe: the readers
 * of one store run in parallel, and read the slots under their sequence
 * counts (base/seqlock.h) without a lock, so they write nothing shared;
 * keeping an entry takes the mutex. */
#ifndef MG_STORE_LOOKUP_CACHE_H
#define MG_STORE_LOOKUP_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LOOKUP_CACHE_SLOTS 1024 /* per table, a power of two */
#define LOOKUP_CACHE_KEY 48     /* longer keys are not kept */

typedef struct lookup_slot lookup_slot;

typedef struct lookup_cache {
    pthread_mutex_t mu; /* the writers' */
    /* 2 * LOOKUP_CACHE_SLOTS: by key, then by location; NULL until the
     * first entry. */
    _Atomic(lookup_slot *) slots;
} lookup_cache;

/* The hash of a dictionary key that places it here (and in a reader's
 * own memo, store_reader.c). */
uint64_t lookup_key_hash(int kind, const void *key, size_t len);

/* 0, or -1 when the mutex cannot be created. */
int lookup_cache_init(lookup_cache *c);
void lookup_cache_free(lookup_cache *c);

/* 1 found (*loc set), 0 known absent from the snapshot at `tx_count`, -1
 * not kept. `kind`: DICT_UUID or DICT_TEXT. */
int lookup_cache_get(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                     uint64_t *loc);
/* The entry at `loc` when kept: 1 with its kind, bytes (copied into
 * `out`) and length, else 0. */
int lookup_cache_entry(lookup_cache *c, uint64_t loc, int *kind, uint8_t out[LOOKUP_CACHE_KEY],
                       size_t *len);
/* Keeps a dictionary answer: `found` 1 with `loc` (kept both ways), or 0
 * absent at `tx_count`. Out of memory only means nothing is kept. */
void lookup_cache_put(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                      int found, uint64_t loc);

#endif
