/* Which records a query sees: the visibility algorithm of spec 7.4 (v3,
 * normative). A record is visible when it passes the transaction-time cut,
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

/* Do two records belong to the same group? */
bool visibility_same_group(const fact_ids *a, const fact_ids *b);
/* Does the record pass the transaction-time cut (:as-of)? */
bool visibility_passes_cut(const visibility *v, const fact_ids *f);
/* Is the last record of a group that passes the cut visible (an assertion
 * whose window holds the valid-time point)? */
bool visibility_shows(const visibility *v, const fact_ids *last);

#endif
