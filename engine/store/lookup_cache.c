/* The shared dictionary entry cache (store/lookup_cache.h). */
#include "store/lookup_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

struct lookup_slot {
    uint8_t key[LOOKUP_CACHE_KEY];
    uint8_t len, kind; /* kind 0: empty */
    bool found;
    uint64_t loc;      /* found */
    uint64_t tx_count; /* absent at this count */
};

int lookup_cache_init(lookup_cache *c) {
    c->by_key = c->by_loc = NULL;
    return pthread_mutex_init(&c->mu, NULL) == 0 ? 0 : -1;
}

void lookup_cache_free(lookup_cache *c) {
    pthread_mutex_destroy(&c->mu);
    free(c->by_key);
    c->by_key = c->by_loc = NULL;
}

/* Eight bytes at a time: every query hashes its constants' keys (a
 * UUID, a keyword). */
uint64_t lookup_key_hash(int kind, const void *key, size_t len) {
    return hash_words(HASH_FNV_BASIS ^ (uint64_t)kind, key, len);
}

static size_t key_slot(int kind, const void *key, size_t len) {
    return (size_t)lookup_key_hash(kind, key, len) & (LOOKUP_CACHE_SLOTS - 1);
}

static size_t loc_slot(uint64_t loc) {
    return (size_t)hash_mix(loc) & (LOOKUP_CACHE_SLOTS - 1);
}

int lookup_cache_get(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                     uint64_t *loc) {
    if (len > LOOKUP_CACHE_KEY)
        return -1;
    int rc = -1;
    size_t slot = key_slot(kind, key, len);
    pthread_mutex_lock(&c->mu);
    const lookup_slot *s = c->by_key ? &c->by_key[slot] : NULL;
    if (s && s->kind == kind && s->len == len && memcmp(s->key, key, len) == 0) {
        if (s->found) {
            *loc = s->loc;
            rc = 1;
        } else if (s->tx_count == tx_count) {
            rc = 0;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int lookup_cache_entry(lookup_cache *c, uint64_t loc, int *kind, uint8_t out[LOOKUP_CACHE_KEY],
                       size_t *len) {
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    const lookup_slot *s = c->by_loc ? &c->by_loc[loc_slot(loc)] : NULL;
    if (s && s->kind != 0 && s->loc == loc) {
        *kind = s->kind;
        *len = s->len;
        memcpy(out, s->key, s->len);
        rc = 1;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static void fill(lookup_slot *s, int kind, const void *key, size_t len, uint64_t tx_count,
                 int found, uint64_t loc) {
    memcpy(s->key, key, len);
    s->len = (uint8_t)len;
    s->kind = (uint8_t)kind;
    s->found = found == 1;
    s->loc = loc;
    s->tx_count = tx_count;
}

void lookup_cache_put(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                      int found, uint64_t loc) {
    if (len > LOOKUP_CACHE_KEY)
        return;
    pthread_mutex_lock(&c->mu);
    if (!c->by_key && (c->by_key = calloc(2 * LOOKUP_CACHE_SLOTS, sizeof *c->by_key)))
        c->by_loc = c->by_key + LOOKUP_CACHE_SLOTS;
    if (c->by_key) {
        fill(&c->by_key[key_slot(kind, key, len)], kind, key, len, tx_count, found, loc);
        if (found == 1)
            fill(&c->by_loc[loc_slot(loc)], kind, key, len, tx_count, found, loc);
    }
    pthread_mutex_unlock(&c->mu);
}
