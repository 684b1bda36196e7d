#include "base/htab.h"

#include <stdlib.h>

#include "base/mg_assert.h"

void htab_init(htab *h) {
    h->hashes = NULL;
    h->ids = NULL;
    h->cap = 0;
    h->count = 0;
}

void htab_free(htab *h) {
    free(h->hashes);
    free(h->ids);
    htab_init(h);
}

void htab_clear(htab *h) {
    for (size_t i = 0; i < h->cap; i++)
        h->ids[i] = HTAB_NONE;
    h->count = 0;
}

uint32_t htab_find(const htab *h, uint64_t hash, htab_eq_fn eq, const void *ctx) {
    if (h->cap == 0)
        return HTAB_NONE;
    size_t mask = h->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        if (h->ids[i] == HTAB_NONE)
            return HTAB_NONE;
        if (h->hashes[i] == hash && eq(ctx, h->ids[i]))
            return h->ids[i];
    }
}

static void htab_place(htab *h, uint64_t hash, uint32_t id) {
    MG_ASSERT(h->count < h->cap); /* an empty slot ends every probe */
    size_t mask = h->cap - 1;
    size_t i = (size_t)hash & mask;
    while (h->ids[i] != HTAB_NONE)
        i = (i + 1) & mask;
    h->hashes[i] = hash;
    h->ids[i] = id;
    h->count++;
}

static int htab_resize(htab *h, size_t cap) {
    if (cap > SIZE_MAX / sizeof(uint64_t))
        return -1;
    uint64_t *hashes = malloc(cap * sizeof *hashes);
    uint32_t *ids = malloc(cap * sizeof *ids);
    if (!hashes || !ids) {
        free(hashes);
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        ids[i] = HTAB_NONE;
    htab old = *h;
    h->hashes = hashes;
    h->ids = ids;
    h->cap = cap;
    h->count = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.ids[i] != HTAB_NONE)
            htab_place(h, old.hashes[i], old.ids[i]);
    free(old.hashes);
    free(old.ids);
    return 0;
}

/* The capacity that holds `count` entries at a load factor of at most
 * 1/2 (so probe runs stay short), doubling from `cap` (16 when 0). */
static size_t capacity_for(size_t cap, size_t count) {
    size_t need = count * 2;
    cap = cap ? cap : 16;
    while (cap < need)
        cap *= 2;
    return cap;
}

int htab_reserve(htab *h, size_t extra) {
    if (extra > SIZE_MAX / 4 - h->count)
        return -1;
    size_t need = (h->count + extra) * 2;
    if (need <= h->cap)
        return 0;
    return htab_resize(h, capacity_for(h->cap, h->count + extra));
}

size_t htab_bytes_for(size_t count) {
    if (count > SIZE_MAX / 64)
        return SIZE_MAX;
    return capacity_for(0, count) * (sizeof(uint64_t) + sizeof(uint32_t));
}

int htab_insert(htab *h, uint64_t hash, uint32_t id) {
    MG_ASSERT(id != HTAB_NONE); /* it marks an empty slot */
    if (htab_reserve(h, 1) != 0)
        return -1;
    htab_place(h, hash, id);
    return 0;
}
