/* Which records a query sees: the visibility algorithm of spec 7.4 (v3,
 * normative). A record is visible when it passes the transaction-time cut,
 * is the last record of its (entity, attribute, value identity) group among
 * those that pass the cut (commit order = tx_count, then statement order),
 * is an assertion, and its half-open window [valid_from, valid_to) holds
 * the query's valid-time point. */
#ifndef MG_EXEC_VISIBILITY_H
#define MG_EXEC_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "store/store.h"

typedef struct visibility {
    const store *s;
    as_of_kind as_of;
    int64_t as_of_value;
    bool any_valid_time;
    int64_t valid_point;
    uint8_t *memo; /* per record: 0 unknown, 1 visible, 2 hidden */
} visibility;

/* `now_ms` is the valid-time point when the query names none. */
int visibility_init(visibility *v, const store *s, const ast_query *q, int64_t now_ms, err *e);
bool visibility_visible(visibility *v, size_t record);
void visibility_free(visibility *v);

#endif
