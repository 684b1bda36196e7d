#include "storage/dict_cache.h"

#include <stdlib.h>
#include <string.h>

void dict_cache_free(dict_cache *c) {
    free(c->slots);
    c->slots = NULL;
}

static dict_cache_slot *slot(const dict_cache *c, uint64_t hash) {
    return &c->slots[hash & (DICT_CACHE_SLOTS - 1)];
}

bool dict_cache_find(const dict_cache *c, uint64_t hash, int kind, const void *bytes, size_t len,
                     uint64_t *loc) {
    if (!c->slots || len > DICT_CACHE_BYTES)
        return false;
    const dict_cache_slot *s = slot(c, hash);
    if (s->loc == 0 || s->kind != kind || s->len != len || memcmp(s->bytes, bytes, len) != 0)
        return false;
    *loc = s->loc;
    return true;
}

void dict_cache_put(dict_cache *c, uint64_t hash, int kind, const void *bytes, size_t len,
                    uint64_t loc) {
    if (len > DICT_CACHE_BYTES)
        return;
    if (!c->slots && !(c->slots = calloc(DICT_CACHE_SLOTS, sizeof *c->slots)))
        return;
    dict_cache_slot *s = slot(c, hash);
    s->loc = loc;
    s->kind = (uint8_t)kind;
    s->len = (uint8_t)len;
    memcpy(s->bytes, bytes, len);
}
