/* The shared dictionary entry cache (store/lookup_cache.h). */
#include "store/lookup_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/seqlock.h"

/* What a slot holds, copied in and out whole. */
typedef struct lookup_record {
    uint8_t key[LOOKUP_CACHE_KEY];
    uint8_t len, kind; /* kind 0: empty */
    bool found;
    uint8_t unused[5];
    uint64_t loc;      /* found */
    uint64_t tx_count; /* absent at this count */
} lookup_record;

#define RECORD_WORDS (sizeof(lookup_record) / sizeof(seq_word))
_Static_assert(sizeof(lookup_record) % sizeof(seq_word) == 0, "a record is whole words");

struct lookup_slot {
    seqlock seq;
    seq_word words[RECORD_WORDS];
};

int lookup_cache_init(lookup_cache *c) {
    atomic_init(&c->slots, NULL);
    return pthread_mutex_init(&c->mu, NULL) == 0 ? 0 : -1;
}

void lookup_cache_free(lookup_cache *c) {
    pthread_mutex_destroy(&c->mu);
    free(atomic_load_explicit(&c->slots, memory_order_relaxed));
    atomic_store_explicit(&c->slots, NULL, memory_order_relaxed);
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
    return LOOKUP_CACHE_SLOTS + ((size_t)hash_mix(loc) & (LOOKUP_CACHE_SLOTS - 1));
}

/* Slot `i`'s record, whole: false when there is none, or a writer came in
 * (the entry then counts as not kept). */
static bool read_slot(lookup_cache *c, size_t i, lookup_record *out) {
    const lookup_slot *slots = atomic_load_explicit(&c->slots, memory_order_acquire);
    if (!slots)
        return false;
    unsigned begin = seqlock_read_begin(&slots[i].seq);
    seqlock_copy_out(out, slots[i].words, RECORD_WORDS);
    return seqlock_read_end(&slots[i].seq, begin) && out->kind != 0;
}

int lookup_cache_get(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                     uint64_t *loc) {
    lookup_record r;
    if (len > LOOKUP_CACHE_KEY || !read_slot(c, key_slot(kind, key, len), &r) || r.kind != kind ||
        r.len != len || memcmp(r.key, key, len) != 0)
        return -1;
    if (r.found) {
        *loc = r.loc;
        return 1;
    }
    return r.tx_count == tx_count ? 0 : -1;
}

int lookup_cache_entry(lookup_cache *c, uint64_t loc, int *kind, uint8_t out[LOOKUP_CACHE_KEY],
                       size_t *len) {
    lookup_record r;
    if (!read_slot(c, loc_slot(loc), &r) || r.loc != loc)
        return 0;
    *kind = r.kind;
    *len = r.len;
    memcpy(out, r.key, r.len);
    return 1;
}

/* Under mu. */
static void write_slot(lookup_slot *s, const lookup_record *r) {
    seqlock_write_begin(&s->seq);
    seqlock_copy_in(s->words, r, RECORD_WORDS);
    seqlock_write_end(&s->seq);
}

/* Under mu: the slots, made on the first entry. */
static lookup_slot *slots_made(lookup_cache *c) {
    lookup_slot *slots = atomic_load_explicit(&c->slots, memory_order_relaxed);
    if (!slots && (slots = calloc(2 * LOOKUP_CACHE_SLOTS, sizeof *slots))) {
        for (size_t i = 0; i < 2 * LOOKUP_CACHE_SLOTS; i++)
            seqlock_init(&slots[i].seq);
        atomic_store_explicit(&c->slots, slots, memory_order_release);
    }
    return slots;
}

void lookup_cache_put(lookup_cache *c, int kind, const void *key, size_t len, uint64_t tx_count,
                      int found, uint64_t loc) {
    if (len > LOOKUP_CACHE_KEY)
        return;
    lookup_record r;
    memset(&r, 0, sizeof r);
    memcpy(r.key, key, len);
    r.len = (uint8_t)len;
    r.kind = (uint8_t)kind;
    r.found = found == 1;
    r.loc = loc;
    r.tx_count = tx_count;
    pthread_mutex_lock(&c->mu);
    lookup_slot *slots = slots_made(c);
    if (slots) {
        write_slot(&slots[key_slot(kind, key, len)], &r);
        if (found == 1)
            write_slot(&slots[loc_slot(loc)], &r);
    }
    pthread_mutex_unlock(&c->mu);
}
