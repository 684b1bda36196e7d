/* A derived binary relation (language.md §9.2): the facts [entity :p value] of one
 * rule predicate.
 *
 * - Compact: each distinct entity and each distinct value (under E3) is
 *   kept once, in the relation's own tables, and a row is the pair of
 *   their 32-bit ids; string and keyword payloads are copied into the
 *   relation, so values read back stay valid until relation_free.
 * - A set under E3 (4. of language.md §9.2): adding a row that is already there is a
 *   no-op (one hash probe on the id pair).
 * - Append-only: row ids are stable and grow with insertion order, so the
 *   rows added since some moment are a contiguous range. Semi-naive
 *   evaluation uses that: the delta of a round is [start of round, count).
 * - Indexed by entity (UUID equality) and by value (E2 entity equivalence,
 *   the join relation: a Keyword finds the Ref of its entity and back).
 *   The rows of one entity or one value are chained newest first, so a
 *   seek in a view stops at the view's first row (deltas are the newest
 *   rows); the UUID a keyword value names is derived once per distinct
 *   value.
 * - Its memory is charged to a meter as it grows (op "rule evaluation");
 *   relation_free gives it back.
 *
 * Not thread-safe: one relation belongs to one query evaluation. */
#ifndef MG_RULES_RELATION_H
#define MG_RULES_RELATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/htab.h"
#include "base/meter.h"
#include "model/value.h"

#define RELATION_END UINT32_MAX

/* One fact of a relation as relation_get gives it. */
typedef struct relation_row {
    uuid128 entity;
    value v;
} relation_row;

/* An open-addressing set of row or entity ids; the relation recomputes
 * an id's hash from its item, so a slot is 4 bytes (rows are the bulk). */
typedef struct relation_idset {
    uint32_t *slots; /* RELATION_END: empty */
    uint32_t cap, count;
} relation_idset;

typedef struct relation_tuple relation_tuple;
typedef struct relation_entity relation_entity;
typedef struct relation_value relation_value;

typedef struct relation {
    relation_tuple *rows;
    uint32_t count, cap;
    relation_entity *entities;
    uint32_t entity_count, entity_cap;
    relation_value *values;
    uint32_t value_count, value_cap;
    relation_idset rows_by_pair; /* E3 set: (entity id, value id) -> row */
    relation_idset entity_ids;   /* UUID -> entity id */
    uint32_t last_entity;        /* of the last add: bodies emit runs of one entity */
    htab value_ids;              /* E3 identity -> value id */
    htab values_by_class;        /* E2 hash -> newest value id of that hash */
    arena strings;
    meter *m;
    size_t charged;
} relation;

/* A window [lo, hi) of a relation's rows: the full relation as a round of
 * evaluation sees it, or the delta of the previous round. */
typedef struct relation_view {
    const relation *rel;
    uint32_t lo, hi;
} relation_view;

void relation_init(relation *r, meter *m); /* `m` may be NULL */
void relation_free(relation *r);
/* Empties r for another evaluation that charges `m`: its charge is given
 * back, and its tables are kept (refilled without growing again, charged
 * anew as the first row is added) while they take at most
 * RELATION_KEEP_BYTES, else freed. */
#define RELATION_KEEP_BYTES (64 * 1024)
void relation_clear(relation *r, meter *m);

/* Adds the row unless an E3-identical one exists; `*added` tells which.
 * Fails with QRY-012 (meter) or INT-000 (out of memory); a failed add
 * leaves the relation usable but the caller should abandon evaluation. */
int relation_add(relation *r, const uuid128 *entity, const value *v, bool *added, err *e);

bool relation_contains(const relation *r, const uuid128 *entity, const value *v);

/* Rows by the ids of their entity and value in r's tables (0 ..
 * relation_entity_count - 1 and the ids relation_row_ids gives): a
 * closure (rules/closure.h) joins rows it already holds without hashing
 * a UUID or a value again. relation_add_ids adds the row of an entity
 * and a value r has already, as relation_add would. */
int relation_add_ids(relation *r, uint32_t entity, uint32_t v, bool *added, err *e);
uint32_t relation_entity_count(const relation *r);
const uuid128 *relation_entity_uuid(const relation *r, uint32_t entity);
void relation_row_ids(const relation *r, uint32_t row, uint32_t *entity, uint32_t *v);

relation_view relation_all(const relation *r);
static inline uint32_t relation_view_size(const relation_view *w) {
    return w->hi - w->lo;
}
/* A copy of one row; its value's payload lives as long as the relation. */
relation_row relation_get(const relation_view *w, uint32_t row);

/* Index lookups inside a view: the first row with that entity (or whose
 * value is E2-equal to `v`), then the following ones (pass the same `v`),
 * RELATION_END at the end. Rows are not visited in any particular order. */
uint32_t relation_seek_entity(const relation_view *w, const uuid128 *entity);
uint32_t relation_next_entity(const relation_view *w, uint32_t row);
uint32_t relation_seek_value(const relation_view *w, const value *v);
uint32_t relation_next_value(const relation_view *w, uint32_t row, const value *v);

#endif
