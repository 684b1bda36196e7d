/* An open-addressed table (linear probing, at most 3/4 full) of keyword
 * locations and their entities. */
#include "store/keyword_memo.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define FIRST_SLOTS 1024

static size_t slot_of(const keyword_memo *m, uint64_t key) {
    return (size_t)hash_mix(key) & (m->cap - 1);
}

bool keyword_memo_find(const keyword_memo *m, uint64_t loc, uuid128 *u) {
    if (!m->count)
        return false;
    uint64_t key = loc + 1;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == key) {
            *u = m->slots[i].u;
            return true;
        }
        if (m->slots[i].key == 0)
            return false;
    }
}

void keyword_memo_prefetch(const keyword_memo *m, uint64_t loc) {
    if (m->count)
        __builtin_prefetch(&m->slots[slot_of(m, loc + 1)]);
}

static void insert(keyword_memo *m, uint64_t key, const uuid128 *u) {
    size_t i = slot_of(m, key);
    while (m->slots[i].key != 0 && m->slots[i].key != key)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].key == 0)
        m->count++;
    m->slots[i] = (keyword_slot){key, *u};
}

static bool grow(keyword_memo *m, keyword_memo_grant grant, void *ctx) {
    size_t cap = m->cap ? m->cap * 2 : FIRST_SLOTS;
    if (cap > KEYWORD_MEMO_MAX_SLOTS || !grant(ctx, cap * sizeof(keyword_slot)))
        return false;
    keyword_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    keyword_memo old = *m;
    *m = (keyword_memo){slots, cap, 0};
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key != 0)
            insert(m, old.slots[i].key, &old.slots[i].u);
    free(old.slots);
    return true;
}

void keyword_memo_put(keyword_memo *m, uint64_t loc, const uuid128 *u, keyword_memo_grant grant,
                      void *ctx) {
    if ((m->count + 1) * 4 > m->cap * 3 && !grow(m, grant, ctx))
        return;
    insert(m, loc + 1, u);
}

void keyword_memo_free(keyword_memo *m) {
    free(m->slots);
    *m = (keyword_memo){0};
}
