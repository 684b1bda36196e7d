/* dict_recent.h: open addressing with linear probes over the slots. An
 * entry's first slot is its hash's high bits (the hash is already mixed:
 * entry_hash in dict.c), so the slots hold the entries almost in the
 * tree's order, hash first, which a flush needs. */
#include "storage/dict_recent.h"

#include <stdlib.h>

static size_t home(uint32_t hash) {
    return hash >> (32 - DICT_RECENT_BITS);
}

dict_recent *dict_recent_new(void) {
    return calloc(1, sizeof(dict_recent));
}

void dict_recent_add(dict_recent *t, uint32_t hash, uint64_t loc, uint64_t view) {
    size_t i = home(hash);
    while (atomic_load_explicit(&t->slot[i].hash, memory_order_relaxed) != 0)
        i = (i + 1) & (DICT_RECENT_SLOTS - 1);
    t->slot[i].loc = loc;
    t->slot[i].view = view;
    atomic_store_explicit(&t->slot[i].hash, (uint64_t)hash + 1, memory_order_release);
    t->count++;
}

bool dict_recent_next(const dict_recent *t, uint32_t hash, uint64_t view, size_t *at,
                      uint64_t *loc) {
    size_t start = home(hash);
    for (size_t n = *at; n < DICT_RECENT_SLOTS; n++) {
        const dict_recent_slot *s = &t->slot[(start + n) & (DICT_RECENT_SLOTS - 1)];
        uint64_t h = atomic_load_explicit(&s->hash, memory_order_acquire);
        if (h == 0)
            break;
        if (h == (uint64_t)hash + 1 && s->view <= view) {
            *loc = s->loc;
            *at = n + 1;
            return true;
        }
    }
    *at = DICT_RECENT_SLOTS;
    return false;
}
