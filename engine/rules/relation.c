#include "rules/relation.h"

#include <string.h>
#include <stdlib.h>

#define RELATION_OP "rule evaluation"

void relation_init(relation *r, meter *m) {
    memset(r, 0, sizeof *r);
    htab_init(&r->rows_by_fact);
    htab_init(&r->rows_by_entity);
    htab_init(&r->rows_by_value);
    arena_init(&r->strings);
    r->m = m;
}

void relation_free(relation *r) {
    free(r->rows);
    htab_free(&r->rows_by_fact);
    htab_free(&r->rows_by_entity);
    htab_free(&r->rows_by_value);
    arena_free(&r->strings);
    meter_release(r->m, r->charged);
    relation_init(r, r->m);
}

/* ---- hashing and equality ------------------------------------------------------ */

static uint64_t entity_hash(const uuid128 *u) {
    value ref = value_ref(*u);
    return value_hash_identity(&ref);
}

static uint64_t fact_hash(const uuid128 *u, const value *v) {
    return entity_hash(u) * 0x9e3779b97f4a7c15ULL ^ value_hash_identity(v);
}

typedef struct probe {
    const relation *r;
    const uuid128 *entity;
    const value *v;
} probe;

static bool same_fact(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    const relation_row *row = &p->r->rows[id];
    return uuid_equal(&row->entity, p->entity) && value_identical(&row->v, p->v);
}

static bool same_entity(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return uuid_equal(&p->r->rows[id].entity, p->entity);
}

static bool same_value_class(const void *ctx, uint32_t id) {
    const probe *p = ctx;
    return value_equal_entity(&p->r->rows[id].v, p->v);
}

bool relation_contains(const relation *r, const uuid128 *entity, const value *v) {
    probe p = {r, entity, v};
    return htab_find(&r->rows_by_fact, fact_hash(entity, v), same_fact, &p) != HTAB_NONE;
}

/* ---- adding ---------------------------------------------------------------------- */

static size_t footprint(const relation *r) {
    size_t slot = sizeof(uint64_t) + sizeof(uint32_t);
    size_t slots = r->rows_by_fact.cap + r->rows_by_entity.cap + r->rows_by_value.cap;
    return (size_t)r->cap * sizeof *r->rows + slots * slot + r->strings.bytes_used;
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

static bool reserve_row(relation *r) {
    if (r->count < r->cap)
        return true;
    if (r->cap >= (RELATION_END - 1) / 2)
        return false;
    uint32_t cap = r->cap ? r->cap * 2 : 64;
    relation_row *rows = realloc(r->rows, (size_t)cap * sizeof *rows);
    if (!rows)
        return false;
    r->rows = rows;
    r->cap = cap;
    return true;
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

/* Links `row` into the chain whose head `index` finds with `eq`, or makes
 * it the head of a new chain. */
static bool chain_row(relation *r, htab *index, uint64_t hash, htab_eq_fn eq, const probe *p,
                      uint32_t row, uint32_t *(*next_of)(relation_row *)) {
    uint32_t head = htab_find(index, hash, eq, p);
    if (head == HTAB_NONE) {
        *next_of(&r->rows[row]) = RELATION_END;
        return htab_insert(index, hash, row) == 0;
    }
    *next_of(&r->rows[row]) = *next_of(&r->rows[head]);
    *next_of(&r->rows[head]) = row;
    return true;
}

static uint32_t *next_entity_of(relation_row *row) {
    return &row->next_same_entity;
}

static uint32_t *next_value_of(relation_row *row) {
    return &row->next_same_value;
}

/* Reserving every table first keeps a failed add from leaving a row
 * half-indexed. */
static bool reserve_all(relation *r) {
    return reserve_row(r) && htab_reserve(&r->rows_by_fact, 1) == 0 &&
           htab_reserve(&r->rows_by_entity, 1) == 0 && htab_reserve(&r->rows_by_value, 1) == 0;
}

int relation_add(relation *r, const uuid128 *entity, const value *v, bool *added, err *e) {
    *added = false;
    uint64_t h = fact_hash(entity, v);
    probe p = {r, entity, v};
    if (htab_find(&r->rows_by_fact, h, same_fact, &p) != HTAB_NONE)
        return 0;
    value owned = *v;
    if (!reserve_all(r) || !own_payload(r, &owned))
        return oom(e);
    uint32_t row = r->count++;
    r->rows[row].entity = *entity;
    r->rows[row].v = owned;
    p.v = &owned;
    bool ok = htab_insert(&r->rows_by_fact, h, row) == 0 &&
              chain_row(r, &r->rows_by_entity, entity_hash(entity), same_entity, &p, row,
                        next_entity_of) &&
              chain_row(r, &r->rows_by_value, value_hash_entity(&owned), same_value_class, &p,
                        row, next_value_of);
    if (!ok)
        return oom(e);
    *added = true;
    return charge_growth(r, e);
}

/* ---- views -------------------------------------------------------------------------- */

relation_view relation_all(const relation *r) {
    return (relation_view){r, 0, r->count};
}

static bool in_view(const relation_view *w, uint32_t row) {
    return row >= w->lo && row < w->hi;
}

static uint32_t skip_entity(const relation_view *w, uint32_t row) {
    while (row != RELATION_END && !in_view(w, row))
        row = w->rel->rows[row].next_same_entity;
    return row;
}

static uint32_t skip_value(const relation_view *w, uint32_t row) {
    while (row != RELATION_END && !in_view(w, row))
        row = w->rel->rows[row].next_same_value;
    return row;
}

uint32_t relation_seek_entity(const relation_view *w, const uuid128 *entity) {
    probe p = {w->rel, entity, NULL};
    uint32_t head = htab_find(&w->rel->rows_by_entity, entity_hash(entity), same_entity, &p);
    return head == HTAB_NONE ? RELATION_END : skip_entity(w, head);
}

uint32_t relation_next_entity(const relation_view *w, uint32_t row) {
    return skip_entity(w, w->rel->rows[row].next_same_entity);
}

uint32_t relation_seek_value(const relation_view *w, const value *v) {
    probe p = {w->rel, NULL, v};
    uint32_t head = htab_find(&w->rel->rows_by_value, value_hash_entity(v), same_value_class, &p);
    return head == HTAB_NONE ? RELATION_END : skip_value(w, head);
}

uint32_t relation_next_value(const relation_view *w, uint32_t row) {
    return skip_value(w, w->rel->rows[row].next_same_value);
}
