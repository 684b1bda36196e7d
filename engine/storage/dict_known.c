/* dict_known.h: linear probes from the hash's high bits (the DICT hash is
 * already mixed: entry_hash in dict.c). */
#include "storage/dict_known.h"

#include <stdlib.h>

static size_t home(const dict_known *t, uint32_t hash) {
    return (size_t)(((uint64_t)hash * (t->mask + 1)) >> 32);
}

static bool empty(const dict_known_slot *s) {
    return (s->loc_low | s->loc_high) == 0;
}

static uint64_t loc_of(const dict_known_slot *s) {
    return (uint64_t)s->loc_high << 32 | s->loc_low;
}

void dict_known_free(dict_known *t) {
    free(t->slots);
    *t = (dict_known){0};
}

static void place(dict_known *t, dict_known_slot slot) {
    size_t i = home(t, slot.hash);
    while (!empty(&t->slots[i]))
        i = (i + 1) & t->mask;
    t->slots[i] = slot;
    t->count++;
}

/* Out of line: a put's usual path (no growth) then saves no registers. */
static __attribute__((noinline)) bool grow(dict_known *t) {
    size_t n = t->slots ? 2 * (t->mask + 1) : DICT_KNOWN_MIN_SLOTS;
    dict_known_slot *slots = n <= DICT_KNOWN_MAX_SLOTS ? calloc(n, sizeof *slots) : NULL;
    if (!slots)
        return false;
    dict_known old = *t;
    *t = (dict_known){.slots = slots, .mask = n - 1};
    for (size_t i = 0; old.slots && i <= old.mask; i++)
        if (!empty(&old.slots[i]))
            place(t, old.slots[i]);
    dict_known_free(&old);
    return true;
}

void dict_known_put(dict_known *t, uint32_t hash, uint64_t loc) {
    if (2 * (t->count + 1) > t->mask + 1 && !grow(t)) /* an empty table's mask is 0 */
        return;
    place(t, (dict_known_slot){hash, (uint32_t)loc, (uint32_t)(loc >> 32)});
}

bool dict_known_next(const dict_known *t, uint32_t hash, size_t *at, uint64_t *loc) {
    if (!t->slots)
        return false;
    for (size_t i = (home(t, hash) + *at) & t->mask, n = *at; n <= t->mask;
         n++, i = (i + 1) & t->mask) {
        const dict_known_slot *s = &t->slots[i];
        if (empty(s))
            break;
        if (s->hash == hash) {
            *loc = loc_of(s);
            *at = n + 1;
            return true;
        }
    }
    *at = t->mask + 1;
    return false;
}
