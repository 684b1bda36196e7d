/* The shared range estimate cache (store/estimate_cache.h). */
#include "store/estimate_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

struct estimate_slot {
    store_bound b; /* unbound positions zeroed */
    estimate_snapshot snap;
    size_t n;
    bool used, capped; /* capped: the range holds at least n records */
};

int estimate_cache_init(estimate_cache *c) {
    c->slots = NULL;
    return pthread_mutex_init(&c->mu, NULL) == 0 ? 0 : -1;
}

void estimate_cache_free(estimate_cache *c) {
    pthread_mutex_destroy(&c->mu);
    free(c->slots);
    c->slots = NULL;
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

static bool same(const estimate_slot *s, estimate_snapshot snap, const store_bound *k) {
    const store_bound *b = &s->b;
    return s->used && s->snap.tx_count == snap.tx_count && s->snap.generation == snap.generation &&
           b->has_e == k->has_e && b->has_a == k->has_a && b->has_v == k->has_v &&
           b->ids.e == k->ids.e && b->ids.a == k->ids.a &&
           memcmp(b->ids.v, k->ids.v, FACT_V_SIZE) == 0;
}

int estimate_cache_get(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                       size_t *n) {
    store_bound k = normalised(b);
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    const estimate_slot *s = c->slots ? &c->slots[slot_of(&k)] : NULL;
    /* store_estimate(b, cap) is min(its uncapped value, cap). */
    if (s && same(s, snap, &k) && (!s->capped || cap <= s->n)) {
        *n = s->n < cap ? s->n : cap;
        rc = 1;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void estimate_cache_put(estimate_cache *c, estimate_snapshot snap, const store_bound *b, size_t cap,
                        size_t n) {
    store_bound k = normalised(b);
    pthread_mutex_lock(&c->mu);
    if (!c->slots)
        c->slots = calloc(ESTIMATE_CACHE_SLOTS, sizeof *c->slots);
    if (c->slots) {
        estimate_slot *s = &c->slots[slot_of(&k)];
        /* A capped count does not replace a larger one of the range. */
        if (!(same(s, snap, &k) && n >= cap && (!s->capped || s->n >= n)))
            *s = (estimate_slot){.b = k, .snap = snap, .n = n, .used = true, .capped = n >= cap};
    }
    pthread_mutex_unlock(&c->mu);
}
