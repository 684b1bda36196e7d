/* The shared range estimate cache (store/estimate_cache.h). */
#include "store/estimate_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/seqlock.h"

/* What a slot holds, copied in and out whole. */
typedef struct estimate_record {
    store_bound b; /* unbound positions zeroed */
    estimate_snapshot snap;
    size_t n;
    bool used, capped; /* capped: the range holds at least n records */
} estimate_record;

#define RECORD_WORDS (sizeof(estimate_record) / sizeof(seq_word))
_Static_assert(sizeof(estimate_record) % sizeof(seq_word) == 0, "a record is whole words");

struct estimate_slot {
    seqlock seq;
    seq_word words[RECORD_WORDS];
};

int estimate_cache_init(estimate_cache *c) {
    atomic_init(&c->slots, NULL);
    return pthread_mutex_init(&c->mu, NULL) == 0 ? 0 : -1;
}

void estimate_cache_free(estimate_cache *c) {
    pthread_mutex_destroy(&c->mu);
    free(atomic_load_explicit(&c->slots, memory_order_relaxed));
    atomic_store_explicit(&c->slots, NULL, memory_order_relaxed);
}

/* `b` with the ids of its unbound positions zeroed, so equal ranges
 * have equal ids. */
static store_bound normalised(const store_bound *b) {
    store_bound k;
    memset(&k, 0, sizeof k);
    k.has_e = b->has_e;
    k.has_a = b->has_a;
    k.has_v = b->has_v;
    if (b->has_e)
        k.ids.e = b->ids.e;
    if (b->has_a)
        k.ids.a = b->ids.a;
    if (b->has_v)
        memcpy(k.ids.v, b->ids.v, FACT_V_SIZE);
    return k;
}

static size_t slot_of(const store_bound *k) {
    uint64_t h = hash_combine(hash_mix(k->ids.e), k->ids.a);
    h ^= (uint64_t)(k->has_e | k->has_a << 1 | k->has_v << 2);
    return (size_t)hash_words(h, k->ids.v, FACT_V_SIZE) & (ESTIMATE_CACHE_SLOTS - 1);
}

static bool same(const estimate_record *s, estimate_snapshot snap, const store_bound *k) {
    const store_bound *b = &s->b;
    return s->used && s->snap.tx_count == snap.tx_count && s->snap.generation == snap.generation &&
           b->has_e == k->has_e && b->has_a == k->has_a && b->has_v == k->has_v &&
           b->ids.e == k->ids.e && b->ids.a == k->ids.a &&
           memcmp(b->ids.v, k->ids.v, FACT_V_SIZE) == 0;
}

/* Slot `i`'s record, whole: false when there is none, or a writer came in
 * (the estimate then counts as not kept). */
static bool read_slot(estimate_cache *c, size_t i, estimate_record *out) {
    const estimate_slot *slots = atomic_load_explicit(&c->slots, memory_order_acquire);
    if (!slots)
        return false;
    unsigned begin = seqlock_read_begin(&slots[i].seq);
    seqlock_copy_out(out, slots[i].words, RECORD_WORDS);
    return seqlock_read_end(&slots[i].seq, begin);
}

int estimate_cache_get(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                       size_t *n) {
    store_bound k = normalised(b);
    estimate_record s;
    /* store_estimate(b, cap) is min(its uncapped value, cap). */
    if (!read_slot(c, slot_of(&k), &s) || !same(&s, snap, &k) || (s.capped && cap > s.n))
        return 0;
    *n = s.n < cap ? s.n : cap;
    return 1;
}

/* Under mu: the slots, made on the first entry. */
static estimate_slot *slots_made(estimate_cache *c) {
    estimate_slot *slots = atomic_load_explicit(&c->slots, memory_order_relaxed);
    if (!slots && (slots = calloc(ESTIMATE_CACHE_SLOTS, sizeof *slots))) {
        for (size_t i = 0; i < ESTIMATE_CACHE_SLOTS; i++)
            seqlock_init(&slots[i].seq);
        atomic_store_explicit(&c->slots, slots, memory_order_release);
    }
    return slots;
}

void estimate_cache_put(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                        size_t n) {
    store_bound k = normalised(b);
    pthread_mutex_lock(&c->mu);
    estimate_slot *slots = slots_made(c);
    if (slots) {
        estimate_slot *slot = &slots[slot_of(&k)];
        estimate_record s;
        seqlock_copy_out(&s, slot->words, RECORD_WORDS); /* no other writer: whole */
        /* A capped count does not replace a larger one of the range. */
        if (!(same(&s, snap, &k) && n >= cap && (!s.capped || s.n >= n))) {
            memset(&s, 0, sizeof s);
            s.b = k;
            s.snap = snap;
            s.n = n;
            s.used = true;
            s.capped = n >= cap;
            seqlock_write_begin(&slot->seq);
            seqlock_copy_in(slot->words, &s, RECORD_WORDS);
            seqlock_write_end(&slot->seq);
        }
    }
    pthread_mutex_unlock(&c->mu);
}
