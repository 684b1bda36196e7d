/* Hash join tables and their cache (see hj_table.h). */
#include "exec/hj_table.h"

#include <stdlib.h>
#include <string.h>

#define HJ_OP_NAME "hash join"

void hj_table_init(hj_table *t, int key_pos, meter *m) {
    memset(t, 0, sizeof *t);
    t->key_pos = key_pos;
    t->m = m;
}

void hj_table_free(hj_table *t) {
    meter_release(t->m, t->charged);
    free(t->entries);
    free(t->heads);
    hj_table_init(t, t->key_pos, t->m);
}

static size_t bucket_of(const hj_table *t, const value *key) {
    return t->key_pos >= 0 ? (size_t)value_hash_entity(key) & t->head_mask : 0;
}

int hj_table_append(hj_table *t, const value vals[3], const fact *rec, err *e) {
    int rc = meter_charge(t->m, sizeof(hj_entry), HJ_OP_NAME, e);
    if (rc != 0)
        return rc;
    t->charged += sizeof(hj_entry);
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        hj_entry *n = realloc(t->entries, cap * sizeof *n);
        if (!n)
            return err_set(e, ERR(INT, 0), "out of memory");
        t->entries = n;
        t->cap = cap;
    }
    t->entries[t->count++] = (hj_entry){.vals = {vals[0], vals[1], vals[2]}, .rec = *rec};
    return 0;
}

/* 2^k buckets, k from the entry count. */
int hj_table_index(hj_table *t, err *e) {
    size_t n = 1;
    while (t->key_pos >= 0 && n < t->count)
        n *= 2;
    t->heads = malloc(n * sizeof *t->heads);
    if (!t->heads)
        return err_set(e, ERR(INT, 0), "out of memory");
    t->head_mask = n - 1;
    for (size_t i = 0; i < n; i++)
        t->heads[i] = HJ_END;
    for (size_t i = t->count; i-- > 0;) {
        size_t b = bucket_of(t, &t->entries[i].vals[t->key_pos >= 0 ? t->key_pos : 0]);
        t->entries[i].next = t->heads[b];
        t->heads[b] = i;
    }
    return 0;
}

size_t hj_table_first(const hj_table *t, const value *key) {
    return t->heads[key ? bucket_of(t, key) : 0];
}

/* ---- the cache ------------------------------------------------------------------ */

void hj_cache_init(hj_cache *c) {
    memset(c, 0, sizeof *c);
}

void hj_cache_free(hj_cache *c) {
    for (size_t i = 0; i < c->count; i++) {
        hj_table_free(&c->items[i]->t);
        free(c->items[i]);
    }
    free(c->items);
    hj_cache_init(c);
}

hj_table *hj_cache_find(const hj_cache *c, const value *attr, int key_pos) {
    for (size_t i = 0; i < c->count; i++)
        if (c->items[i]->t.key_pos == key_pos && value_identical(&c->items[i]->attr, attr))
            return &c->items[i]->t;
    return NULL;
}

hj_table *hj_cache_put(hj_cache *c, const value *attr, hj_table *t) {
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        hj_cached **n = realloc(c->items, cap * sizeof *n);
        if (!n)
            return NULL;
        c->items = n;
        c->cap = cap;
    }
    hj_cached *it = malloc(sizeof *it);
    if (!it)
        return NULL;
    *it = (hj_cached){*attr, *t};
    c->items[c->count++] = it;
    return &it->t;
}
