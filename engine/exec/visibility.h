/* Which records a query sees: the visibility algorithm of language.md §7.4.
 * A record is visible when it passes the transaction-time cut,
 * is the last record of its (entity, attribute, value identity) group among
 * those that pass the cut (commit order = tx_count, then statement order),
 * is an assertion, and its half-open window [valid_from, valid_to) holds
 * the query's valid-time point.
 *
 * Every index order keeps a group contiguous and in commit order (E, A and
 * V lead every key, TXC and SEQ follow them: store/fact_key.h), so a scan
 * judges each group as it passes, from the stored identifiers alone:
 * visibility_group_* below, used by exec/op_scan.c. */
#ifndef MG_EXEC_VISIBILITY_H
#define MG_EXEC_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "datalog/ast.h"
#include "store/store.h"

typedef struct visibility {
    as_of_kind as_of;
    int64_t as_of_value;
    bool any_valid_time;
    int64_t valid_point;
} visibility;

/* `now_ms` is the valid-time point when the query names none. */
void visibility_init(visibility *v, const ast_query *q, int64_t now_ms);

/* The three tests below run for every record a scan reads: inline. */

/* Do two records belong to the same group? */
static inline bool visibility_same_group(const fact_ids *a, const fact_ids *b) {
    return a->e == b->e && a->a == b->a && memcmp(a->v, b->v, FACT_V_SIZE) == 0;
}

/* Does the record pass the transaction-time cut (:as-of)? */
static inline bool visibility_passes_cut(const visibility *v, const fact_ids *f) {
    switch (v->as_of) {
    case AS_OF_COUNTER: return v->as_of_value >= 0 && f->tx_count <= (uint64_t)v->as_of_value;
    case AS_OF_TIME: return f->tx_id <= v->as_of_value;
    case AS_OF_NONE: return true;
    case AS_OF_SLOT: return false; /* rejected before execution */
    }
    return true;
}

/* The cut as a largest tx_count (UINT64_MAX: none), when it is one: a
 * cut by tx_id keeps records that need not lead commit order (tx_id is a
 * wall clock), and a negative counter keeps nothing. */
static inline bool visibility_counter_cut(const visibility *v, uint64_t *max_txc) {
    if (v->as_of == AS_OF_NONE)
        *max_txc = UINT64_MAX;
    else if (v->as_of == AS_OF_COUNTER && v->as_of_value >= 0)
        *max_txc = (uint64_t)v->as_of_value;
    else
        return false;
    return true;
}

/* Is the last record of a group that passes the cut visible (an assertion
 * whose window holds the valid-time point)? */
static inline bool visibility_shows(const visibility *v, const fact_ids *last) {
    if (!last->asserted)
        return false;
    return v->any_valid_time ||
           (last->valid_from <= v->valid_point && v->valid_point < last->valid_to);
}

/* Is a record that is the only one of its group visible? */
static inline bool visibility_shows_alone(const visibility *v, const fact_ids *f) {
    return visibility_passes_cut(v, f) && visibility_shows(v, f);
}

#endif
