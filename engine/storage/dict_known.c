/* dict_known.h: linear probes from the hash's high bits (the DICT hash is
 * already mixed: entry_hash in dict.c). */
#include "storage/dict_known.h"

#include <stdlib.h>

static size_t home(const dict_known *t, uint32_t hash) {
    return (size_t)(((uint64_t)hash * (t->mask + 1)) >> 32);
}

void dict_known_free(dict_known *t) {
    free(t->locs);
    free(t->hashes);
    *t = (dict_known){0};
}

static void place(dict_known *t, uint32_t hash, uint64_t loc) {
    size_t i = home(t, hash);
    while (t->locs[i] != 0)
        i = (i + 1) & t->mask;
    t->locs[i] = loc;
    t->hashes[i] = hash;
    t->count++;
}

/* Out of line: a put's usual path (no growth) then saves no registers. */
static __attribute__((noinline)) bool grow(dict_known *t) {
    size_t n = t->locs ? 2 * (t->mask + 1) : DICT_KNOWN_MIN_SLOTS;
    if (n > DICT_KNOWN_MAX_SLOTS)
        return false;
    dict_known old = *t;
    *t = (dict_known){.locs = calloc(n, sizeof *t->locs),
                      .hashes = malloc(n * sizeof *t->hashes),
                      .mask = n - 1};
    if (!t->locs || !t->hashes) {
        dict_known_free(t);
        *t = old;
        return false;
    }
    for (size_t i = 0; old.locs && i <= old.mask; i++)
        if (old.locs[i] != 0)
            place(t, old.hashes[i], old.locs[i]);
    dict_known_free(&old);
    return true;
}

void dict_known_put(dict_known *t, uint32_t hash, uint64_t loc) {
    if (2 * (t->count + 1) > t->mask + 1 && !grow(t)) /* an empty table's mask is 0 */
        return;
    place(t, hash, loc);
}

bool dict_known_next(const dict_known *t, uint32_t hash, size_t *at, uint64_t *loc) {
    if (!t->locs)
        return false;
    for (size_t i = (home(t, hash) + *at) & t->mask, n = *at; n <= t->mask;
         n++, i = (i + 1) & t->mask) {
        if (t->locs[i] == 0)
            break;
        if (t->hashes[i] == hash) {
            *loc = t->locs[i];
            *at = n + 1;
            return true;
        }
    }
    *at = t->mask + 1;
    return false;
}
