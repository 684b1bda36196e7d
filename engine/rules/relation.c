#include "rules/relation.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define RELATION_OP "rule evaluation"

struct relation_tuple {
    uint32_t entity, value;                     /* ids in the relation's tables */
    uint32_t next_same_entity, next_same_value; /* older rows, RELATION_END ends */
};

struct relation_entity {
    uuid128 u;
    uint32_t newest; /* its newest row */
};

struct relation_value {
    value v;                /* payload owned by the relation */
    uint64_t class_hash;    /* value_hash_entity(v) */
    uint32_t newest;        /* its newest row */
    uint32_t next_in_class; /* another value of the same class hash, or RELATION_END */
};

void relation_init(relation *r, meter *m) {
    memset(r, 0, sizeof *r);
    htab_init(&r->value_ids);
    htab_init(&r->values_by_class);
    arena_init(&r->strings);
    r->last_entity = RELATION_END;
    r->m = m;
}

void relation_free(relation *r) {
    free(r->rows);
    free(r->entities);
    free(r->values);
    free(r->rows_by_pair.slots);
    free(r->entity_ids.slots);
    htab_free(&r->value_ids);
    htab_free(&r->values_by_class);
    arena_free(&r->strings);
    meter_release(r->m, r->charged);
    relation_init(r, r->m);
}

static size_t footprint(const relation *r);

static void idset_clear(relation_idset *s) {
    for (uint32_t i = 0; i < s->cap; i++)
        s->slots[i] = RELATION_END;
    s->count = 0;
}

void relation_clear(relation *r, meter *m) {
    if (footprint(r) > RELATION_KEEP_BYTES) {
        relation_free(r);
        r->m = m;
        return;
    }
    meter_release(r->m, r->charged);
    r->charged = 0;
    r->m = m;
    r->count = r->entity_count = r->value_count = 0;
    r->last_entity = RELATION_END;
    idset_clear(&r->rows_by_pair);
    idset_clear(&r->entity_ids);
    htab_clear(&r->value_ids);
    htab_clear(&r->values_by_class);
    arena_rewind(&r->strings);
}

/* ---- hashing and finding ids ---------------------------------------------------- */

static uint64_t entity_hash(const uuid128 *u) {
    uint64_t a, b;
    memcpy(&a, u->bytes, 8);
    memcpy(&b, u->bytes + 8, 8);
    return hash_mix(a ^ hash_mix(b));
}

static uint64_t pair_hash(uint32_t entity, uint32_t v) {
    return hash_mix((uint64_t)entity << 32 | v);
}

typedef struct probe {
    const relation *r;
    const uuid128 *entity;
    const value *v;
    uint32_t entity_id, value_id;
    uint64_t class_hash;
} probe;

static bool same_entity(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return uuid_equal(&p->r->entities[id].u, p->entity);
}

static bool same_value(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return value_identical(&p->r->values[id].v, p->v);
}

static bool same_pair(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return p->r->rows[id].entity == p->entity_id && p->r->rows[id].value == p->value_id;
}

static bool same_class(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return p->r->values[id].class_hash == p->class_hash;
}

/* ---- id sets ------------------------------------------------------------------------ */

typedef uint64_t (*id_hash_fn)(const relation *r, uint32_t id);

static uint32_t idset_find(const relation_idset *s, uint64_t hash, htab_eq_fn eq, const probe *p) {
    if (s->cap == 0)
        return HTAB_NONE;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
        if (s->slots[i] == RELATION_END)
            return HTAB_NONE;
        if (eq(p, s->slots[i]))
            return s->slots[i];
    }
}

static void idset_place(relation_idset *s, uint64_t hash, uint32_t id) {
    uint32_t mask = s->cap - 1, i = (uint32_t)hash & mask;
    while (s->slots[i] != RELATION_END)
        i = (i + 1) & mask;
    s->slots[i] = id;
    s->count++;
}

/* Room for one more id at a load of at most a half. A set holds the ids
 * 0 .. count - 1 (ids are handed out in order and never removed), so a
 * rehash walks the items in order instead of reading them in slot order,
 * a cache miss each once the relation is large. */
static bool idset_reserve(const relation *r, relation_idset *s, id_hash_fn hash_of) {
    if ((size_t)(s->count + 1) * 2 <= s->cap)
        return true;
    if (s->cap >= (UINT32_C(1) << 31))
        return false;
    uint32_t cap = s->cap ? s->cap * 2 : 16;
    uint32_t *slots = malloc((size_t)cap * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < cap; i++)
        slots[i] = RELATION_END;
    uint32_t count = s->count;
    free(s->slots);
    *s = (relation_idset){slots, cap, 0};
    for (uint32_t id = 0; id < count; id++)
        idset_place(s, hash_of(r, id), id);
    return true;
}

static uint64_t entity_hash_of(const relation *r, uint32_t id) {
    return entity_hash(&r->entities[id].u);
}

static uint64_t row_hash_of(const relation *r, uint32_t id) {
    return pair_hash(r->rows[id].entity, r->rows[id].value);
}

static uint32_t find_entity(const relation *r, const uuid128 *u) {
    probe p = {.r = r, .entity = u};
    return idset_find(&r->entity_ids, entity_hash(u), same_entity, &p);
}

static uint32_t find_value(const relation *r, const value *v, uint64_t h) {
    probe p = {.r = r, .v = v};
    return htab_find(&r->value_ids, h, same_value, &p);
}

static uint32_t find_pair(const relation *r, uint32_t entity, uint32_t v) {
    if (entity == HTAB_NONE || v == HTAB_NONE)
        return HTAB_NONE;
    probe p = {.r = r, .entity_id = entity, .value_id = v};
    return idset_find(&r->rows_by_pair, pair_hash(entity, v), same_pair, &p);
}

bool relation_contains(const relation *r, const uuid128 *entity, const value *v) {
    return find_pair(r, find_entity(r, entity), find_value(r, v, value_hash_identity(v))) !=
           HTAB_NONE;
}

/* ---- adding ---------------------------------------------------------------------- */

static size_t footprint(const relation *r) {
    size_t slot = sizeof(uint64_t) + sizeof(uint32_t);
    size_t slots = r->value_ids.cap + r->values_by_class.cap;
    size_t ids = (size_t)r->rows_by_pair.cap + r->entity_ids.cap;
    return (size_t)r->cap * sizeof *r->rows + (size_t)r->entity_cap * sizeof *r->entities +
           (size_t)r->value_cap * sizeof *r->values + slots * slot + ids * sizeof(uint32_t) +
           r->strings.bytes_used;
}

static int charge_growth(relation *r, err *e) {
    size_t now = footprint(r);
    if (now <= r->charged)
        return 0;
    int rc = meter_charge(r->m, now - r->charged, RELATION_OP, e);
    if (rc == 0)
        r->charged = now;
    return rc;
}

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
}

/* Room for one more item in an array of `size`-byte items. The first
 * block is small (malloc serves it from its per-thread cache): most
 * relations of a demand-driven query hold a few rows. Not array_reserve:
 * a relation's counts and capacities are 32-bit row ids, kept below
 * RELATION_END. */
static bool reserve(void **items, uint32_t count, uint32_t *cap, size_t size) {
    if (count < *cap)
        return true;
    if (*cap >= (RELATION_END - 1) / 2)
        return false;
    uint32_t n = *cap ? *cap * 2 : 16;
    void *grown = realloc(*items, (size_t)n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

/* Reserving every table first keeps a failed add from leaving a row
 * half-indexed. */
static inline bool reserve_row(relation *r) {
    return reserve((void **)&r->rows, r->count, &r->cap, sizeof *r->rows) &&
           idset_reserve(r, &r->rows_by_pair, row_hash_of);
}

static bool reserve_all(relation *r, bool new_entity, bool new_value) {
    return reserve_row(r) &&
           (!new_entity ||
            (reserve((void **)&r->entities, r->entity_count, &r->entity_cap, sizeof *r->entities) &&
             idset_reserve(r, &r->entity_ids, entity_hash_of))) &&
           (!new_value ||
            (reserve((void **)&r->values, r->value_count, &r->value_cap, sizeof *r->values) &&
             htab_reserve(&r->value_ids, 1) == 0 && htab_reserve(&r->values_by_class, 1) == 0));
}

static bool own_payload(relation *r, value *v) {
    if (v->type != VT_STRING && v->type != VT_KEYWORD)
        return true;
    char *copy = arena_strndup(&r->strings, v->as.str.ptr, v->as.str.len);
    if (!copy)
        return false;
    v->as.str.ptr = copy;
    return true;
}

static uint32_t add_entity(relation *r, const uuid128 *u) {
    uint32_t id = r->entity_count++;
    r->entities[id] = (relation_entity){*u, RELATION_END};
    idset_place(&r->entity_ids, entity_hash(u), id); /* reserved */
    return id;
}

/* The value joins the chain of its class hash (any place in it will do). */
static uint32_t add_value(relation *r, const value *owned, uint64_t identity_hash) {
    uint32_t id = r->value_count++;
    probe p = {.r = r, .class_hash = value_hash_entity(owned)};
    r->values[id] = (relation_value){*owned, p.class_hash, RELATION_END, RELATION_END};
    htab_insert(&r->value_ids, identity_hash, id); /* reserved */
    uint32_t head = htab_find(&r->values_by_class, p.class_hash, same_class, &p);
    if (head == HTAB_NONE) {
        htab_insert(&r->values_by_class, p.class_hash, id);
    } else {
        r->values[id].next_in_class = r->values[head].next_in_class;
        r->values[head].next_in_class = id;
    }
    return id;
}

static uint32_t find_entity_after_last(const relation *r, const uuid128 *u) {
    if (r->last_entity != RELATION_END && uuid_equal(&r->entities[r->last_entity].u, u))
        return r->last_entity;
    return find_entity(r, u);
}

/* Appends the row of two known ids (its tables reserved). Inline: it is
 * the tail of every add. */
static inline int append_row(relation *r, uint32_t ent, uint32_t val, bool *added, err *e) {
    uint32_t row = r->count++;
    r->rows[row] = (relation_tuple){ent, val, r->entities[ent].newest, r->values[val].newest};
    r->entities[ent].newest = row;
    r->values[val].newest = row;
    idset_place(&r->rows_by_pair, pair_hash(ent, val), row); /* reserved */
    *added = true;
    return charge_growth(r, e);
}

int relation_add(relation *r, const uuid128 *entity, const value *v, bool *added, err *e) {
    *added = false;
    uint64_t vh = value_hash_identity(v);
    uint32_t ent = find_entity_after_last(r, entity), val = find_value(r, v, vh);
    r->last_entity = ent == HTAB_NONE ? RELATION_END : ent;
    if (find_pair(r, ent, val) != HTAB_NONE)
        return 0;
    value owned = *v;
    if (!reserve_all(r, ent == HTAB_NONE, val == HTAB_NONE) ||
        (val == HTAB_NONE && !own_payload(r, &owned)))
        return oom(e);
    if (ent == HTAB_NONE)
        r->last_entity = ent = add_entity(r, entity);
    if (val == HTAB_NONE)
        val = add_value(r, &owned, vh);
    return append_row(r, ent, val, added, e);
}

int relation_add_ids(relation *r, uint32_t entity, uint32_t v, bool *added, err *e) {
    *added = false;
    if (find_pair(r, entity, v) != HTAB_NONE)
        return 0;
    if (!reserve_row(r))
        return oom(e);
    return append_row(r, entity, v, added, e);
}

uint32_t relation_entity_count(const relation *r) {
    return r->entity_count;
}

const uuid128 *relation_entity_uuid(const relation *r, uint32_t entity) {
    return &r->entities[entity].u;
}

void relation_row_ids(const relation *r, uint32_t row, uint32_t *entity, uint32_t *v) {
    *entity = r->rows[row].entity;
    *v = r->rows[row].value;
}

/* ---- views -------------------------------------------------------------------------- */

relation_view relation_all(const relation *r) {
    return (relation_view){r, 0, r->count};
}

relation_row relation_get(const relation_view *w, uint32_t row) {
    const relation_tuple *t = &w->rel->rows[row];
    return (relation_row){w->rel->entities[t->entity].u, w->rel->values[t->value].v};
}

/* Chains run newest first: skip the rows after the view, stop before it. */
static uint32_t in_view(const relation_view *w, uint32_t row, bool by_entity) {
    while (row != RELATION_END && row >= w->hi)
        row = by_entity ? w->rel->rows[row].next_same_entity : w->rel->rows[row].next_same_value;
    return row != RELATION_END && row >= w->lo ? row : RELATION_END;
}

uint32_t relation_seek_entity(const relation_view *w, const uuid128 *entity) {
    uint32_t id = find_entity(w->rel, entity);
    return id == HTAB_NONE ? RELATION_END : in_view(w, w->rel->entities[id].newest, true);
}

uint32_t relation_next_entity(const relation_view *w, uint32_t row) {
    return in_view(w, w->rel->rows[row].next_same_entity, true);
}

/* The first row in view of value `id` or of a later value in its class
 * chain that is E2-equal to `v`. */
static uint32_t seek_in_class(const relation_view *w, uint32_t id, const value *v) {
    for (; id != RELATION_END; id = w->rel->values[id].next_in_class) {
        const relation_value *rv = &w->rel->values[id];
        uint32_t row = value_equal_entity(&rv->v, v) ? in_view(w, rv->newest, false) : RELATION_END;
        if (row != RELATION_END)
            return row;
    }
    return RELATION_END;
}

uint32_t relation_seek_value(const relation_view *w, const value *v) {
    probe p = {.r = w->rel, .class_hash = value_hash_entity(v)};
    uint32_t head = htab_find(&w->rel->values_by_class, p.class_hash, same_class, &p);
    return head == HTAB_NONE ? RELATION_END : seek_in_class(w, head, v);
}

uint32_t relation_next_value(const relation_view *w, uint32_t row, const value *v) {
    uint32_t next = in_view(w, w->rel->rows[row].next_same_value, false);
    if (next != RELATION_END)
        return next;
    return seek_in_class(w, w->rel->values[w->rel->rows[row].value].next_in_class, v);
}
