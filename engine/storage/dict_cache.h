/* The writer's cache of recently interned dictionary entries (short ones:
 * UUIDs, attribute names, most keywords): a direct-mapped table from an
 * entry's bytes to its location, consulted before the DICT tree. Entries
 * never move or disappear, so a cached location stays right for the
 * store's life. Allocated on first use; a failed allocation only means no
 * cache. Writer only (readers keep their own memo). */
#ifndef MG_STORAGE_DICT_CACHE_H
#define MG_STORAGE_DICT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_CACHE_SLOTS 4096
#define DICT_CACHE_BYTES 22

typedef struct dict_cache_slot {
    uint64_t loc; /* 0: empty (no entry lives on a header page) */
    uint8_t kind, len;
    uint8_t bytes[DICT_CACHE_BYTES];
} dict_cache_slot;

typedef struct dict_cache {
    dict_cache_slot *slots;
} dict_cache;

void dict_cache_free(dict_cache *c);
bool dict_cache_find(const dict_cache *c, uint64_t hash, int kind, const void *bytes, size_t len,
                     uint64_t *loc);
void dict_cache_put(dict_cache *c, uint64_t hash, int kind, const void *bytes, size_t len,
                    uint64_t loc);

#endif
