/* The store's in-memory indexes: record lists by attribute, by entity, and
 * by (entity, attribute, value identity E3) group, the unit of the
 * visibility rule (spec 7.4). Record indexes are uint32_t positions in the
 * store's fact vector, kept in commit order.
 *
 * Commits go in two steps so a failed write leaves no trace: `stage` finds
 * or creates the entries and reserves room (an entry created for a commit
 * that then fails stays behind empty, which no reader can tell apart from
 * absent), and `push` appends without allocating. */
#ifndef MG_STORE_STORE_INDEX_H
#define MG_STORE_STORE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/htab.h"
#include "model/uuid.h"
#include "model/value.h"

typedef struct idx_list {
    uint32_t *items;
    uint32_t count, cap;
    uint32_t pending; /* staged, not yet pushed */
} idx_list;

typedef struct store_attr {
    const char *text; /* in the pool */
    size_t len;
    idx_list recs;
} store_attr;

typedef struct store_entity {
    uuid128 id;
    idx_list recs;
} store_entity;

typedef struct store_group {
    uint32_t entity, attr;
    value v; /* strings in the pool */
    idx_list recs;
} store_group;

typedef struct store_index {
    store_attr *attrs;
    size_t attr_count, attr_cap;
    htab attr_map;
    store_entity *ents;
    size_t ent_count, ent_cap;
    htab ent_map;
    store_group *groups;
    size_t group_count, group_cap;
    htab group_map;
} store_index;

void store_index_init(store_index *x);
void store_index_free(store_index *x);

/* Find-or-create; strings are copied into `pool`. -1: out of memory. */
int store_index_attr(store_index *x, arena *pool, const char *text, size_t len, uint32_t *out);
int store_index_entity(store_index *x, const uuid128 *id, uint32_t *out);
int store_index_group(store_index *x, arena *pool, uint32_t entity, uint32_t attr,
                      const value *v, uint32_t *out);

/* HTAB_NONE when absent. */
uint32_t store_index_find_attr(const store_index *x, const char *text, size_t len);
uint32_t store_index_find_entity(const store_index *x, const uuid128 *id);

/* Reserves room for one more push. -1: out of memory. */
int idx_list_stage(idx_list *l);
void idx_list_unstage(idx_list *l);
void idx_list_push(idx_list *l, uint32_t record);

#endif
