#include "store/store_index.h"

#include <stdlib.h>
#include <string.h>

void store_index_init(store_index *x) {
    memset(x, 0, sizeof *x);
    htab_init(&x->attr_map);
    htab_init(&x->ent_map);
    htab_init(&x->group_map);
}

void store_index_free(store_index *x) {
    for (size_t i = 0; i < x->attr_count; i++)
        free(x->attrs[i].recs.items);
    for (size_t i = 0; i < x->ent_count; i++)
        free(x->ents[i].recs.items);
    for (size_t i = 0; i < x->group_count; i++)
        free(x->groups[i].recs.items);
    free(x->attrs);
    free(x->ents);
    free(x->groups);
    htab_free(&x->attr_map);
    htab_free(&x->ent_map);
    htab_free(&x->group_map);
    store_index_init(x);
}

/* Grows *items so that index `count` is usable. Entry counts stay below
 * UINT32_MAX because ids are uint32_t. */
static int grow_entries(void **items, size_t *cap, size_t count, size_t elem) {
    if (count < *cap)
        return 0;
    if (count >= UINT32_MAX - 1)
        return -1;
    size_t next = *cap ? *cap * 2 : 16;
    if (next > SIZE_MAX / elem)
        return -1;
    void *grown = realloc(*items, next * elem);
    if (!grown)
        return -1;
    *items = grown;
    *cap = next;
    return 0;
}

static uint64_t hash_text(const char *text, size_t len) {
    value kw = value_keyword(text, len);
    return value_hash_identity(&kw);
}

typedef struct text_key {
    const store_index *x;
    const char *text;
    size_t len;
} text_key;

static bool attr_eq(const void *ctx, uint32_t id) {
    const text_key *k = ctx;
    const store_attr *a = &k->x->attrs[id];
    return a->len == k->len && memcmp(a->text, k->text, k->len) == 0;
}

uint32_t store_index_find_attr(const store_index *x, const char *text, size_t len) {
    text_key k = {x, text, len};
    return htab_find(&x->attr_map, hash_text(text, len), attr_eq, &k);
}

int store_index_attr(store_index *x, arena *pool, const char *text, size_t len, uint32_t *out) {
    uint32_t id = store_index_find_attr(x, text, len);
    if (id != HTAB_NONE) {
        *out = id;
        return 0;
    }
    if (grow_entries((void **)&x->attrs, &x->attr_cap, x->attr_count, sizeof *x->attrs) != 0 ||
        htab_reserve(&x->attr_map, 1) != 0)
        return -1;
    char *copy = arena_strndup(pool, text, len);
    if (!copy)
        return -1;
    id = (uint32_t)x->attr_count;
    x->attrs[id] = (store_attr){.text = copy, .len = len};
    x->attr_count++;
    htab_insert(&x->attr_map, hash_text(text, len), id); /* room reserved */
    *out = id;
    return 0;
}

typedef struct ent_key {
    const store_index *x;
    const uuid128 *id;
} ent_key;

static bool ent_eq(const void *ctx, uint32_t id) {
    const ent_key *k = ctx;
    return uuid_equal(&k->x->ents[id].id, k->id);
}

static uint64_t hash_uuid(const uuid128 *u) {
    value ref = value_ref(*u);
    return value_hash_identity(&ref);
}

uint32_t store_index_find_entity(const store_index *x, const uuid128 *id) {
    ent_key k = {x, id};
    return htab_find(&x->ent_map, hash_uuid(id), ent_eq, &k);
}

int store_index_entity(store_index *x, const uuid128 *id, uint32_t *out) {
    uint32_t slot = store_index_find_entity(x, id);
    if (slot != HTAB_NONE) {
        *out = slot;
        return 0;
    }
    if (grow_entries((void **)&x->ents, &x->ent_cap, x->ent_count, sizeof *x->ents) != 0 ||
        htab_reserve(&x->ent_map, 1) != 0)
        return -1;
    slot = (uint32_t)x->ent_count;
    x->ents[slot] = (store_entity){.id = *id};
    x->ent_count++;
    htab_insert(&x->ent_map, hash_uuid(id), slot);
    *out = slot;
    return 0;
}

typedef struct group_key {
    const store_index *x;
    uint32_t entity, attr;
    const value *v;
} group_key;

static bool group_eq(const void *ctx, uint32_t id) {
    const group_key *k = ctx;
    const store_group *g = &k->x->groups[id];
    return g->entity == k->entity && g->attr == k->attr && value_identical(&g->v, k->v);
}

static uint64_t hash_group(uint32_t entity, uint32_t attr, const value *v) {
    uint64_t h = value_hash_identity(v);
    h ^= ((uint64_t)entity * UINT64_C(0x9e3779b97f4a7c15)) ^ ((uint64_t)attr << 32);
    return h * UINT64_C(0xbf58476d1ce4e5b9);
}

static int copy_value(arena *pool, const value *src, value *dst) {
    *dst = *src;
    if (src->type != VT_STRING && src->type != VT_KEYWORD)
        return 0;
    char *copy = arena_strndup(pool, src->as.str.ptr, src->as.str.len);
    if (!copy)
        return -1;
    dst->as.str.ptr = copy;
    return 0;
}

int store_index_group(store_index *x, arena *pool, uint32_t entity, uint32_t attr,
                      const value *v, uint32_t *out) {
    group_key k = {x, entity, attr, v};
    uint64_t hash = hash_group(entity, attr, v);
    uint32_t id = htab_find(&x->group_map, hash, group_eq, &k);
    if (id != HTAB_NONE) {
        *out = id;
        return 0;
    }
    if (grow_entries((void **)&x->groups, &x->group_cap, x->group_count, sizeof *x->groups) != 0 ||
        htab_reserve(&x->group_map, 1) != 0)
        return -1;
    store_group g = {.entity = entity, .attr = attr};
    if (copy_value(pool, v, &g.v) != 0)
        return -1;
    id = (uint32_t)x->group_count;
    x->groups[id] = g;
    x->group_count++;
    htab_insert(&x->group_map, hash, id);
    *out = id;
    return 0;
}

int idx_list_stage(idx_list *l) {
    if (l->pending == UINT32_MAX - l->count)
        return -1;
    uint32_t need = l->count + l->pending + 1;
    if (need > l->cap) {
        uint32_t cap = l->cap ? l->cap : 4;
        while (cap < need)
            cap = cap > UINT32_MAX / 2 ? need : cap * 2;
        uint32_t *grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        l->items = grown;
        l->cap = cap;
    }
    l->pending++;
    return 0;
}

void idx_list_unstage(idx_list *l) {
    if (l->pending > 0)
        l->pending--;
}

void idx_list_push(idx_list *l, uint32_t record) {
    l->items[l->count++] = record;
    l->pending--;
}
