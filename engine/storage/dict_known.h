/* The writer's table of the dictionary entries it has moved from its
 * recent entries into the DICT tree (dict_flush: a batch in hash order,
 * the table's slots in order) or found in the tree since the store
 * opened: hash -> location, kept whole (unlike dict_cache.h's
 * direct-mapped slots, which hold the last name of each slot only), so a
 * name written again, long after, finds its location without the tree's
 * search. The caller checks the heap entry a candidate names, as it does
 * for the tree's. Open addressing, doubled when half full (a search for
 * an absent hash stays short): 24-48 bytes a name (12 a slot), up to
 * DICT_KNOWN_MAX_SLOTS (24 MiB, 1M names; past it names are not
 * remembered and are searched for in the tree, as before). Entries never
 * move nor disappear (dict.h), so a location stays right across commits
 * and checkpoints; a transaction's fork and a reopened store start
 * empty. Not counted by any meter (the project meters queries' memory,
 * not the writer's). Allocated on first use; a failed allocation only
 * means fewer names remembered. Writer only. */
#ifndef MG_STORAGE_DICT_KNOWN_H
#define MG_STORAGE_DICT_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_KNOWN_MIN_SLOTS 4096
#define DICT_KNOWN_MAX_SLOTS ((size_t)1 << 21)

/* One slot in one cache line (mostly): a put or a lookup touches one. */
typedef struct dict_known_slot {
    uint32_t hash;
    uint32_t loc_low, loc_high; /* both 0: empty (no entry lives on a header page) */
} dict_known_slot;

typedef struct dict_known {
    dict_known_slot *slots;
    size_t mask; /* slots - 1 */
    size_t count;
} dict_known;

void dict_known_free(dict_known *t);
/* Remembers `loc` as an entry of `hash` (the caller has not remembered
 * it before). */
void dict_known_put(dict_known *t, uint32_t hash, uint64_t loc);
/* The next location remembered for an entry of `hash`,
 * from *at on (0 to start): true with *loc, false when none is left. */
bool dict_known_next(const dict_known *t, uint32_t hash, size_t *at, uint64_t *loc);

#endif
