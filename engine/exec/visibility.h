/* Which records a query sees: the visibility algorithm of spec 7.4 (v3,
 * normative). A record is visible when it passes the transaction-time cut,
 * is the last record of its (entity, attribute, value identity) group among
 * those that pass the cut (commit order = tx_count, then statement order),
 * is an assertion, and its half-open window [valid_from, valid_to) holds
 * the query's valid-time point. A group is read once from the EAVT index
 * (where it is contiguous and in commit order) and its verdicts memoised by
 * record number. */
#ifndef MG_EXEC_VISIBILITY_H
#define MG_EXEC_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "store/store.h"

typedef struct visibility {
    store_reader *r;
    as_of_kind as_of;
    int64_t as_of_value;
    bool any_valid_time;
    int64_t valid_point;
    uint64_t *seqs; /* open addressing: record number + 1, 0 empty */
    uint8_t *verdict; /* 1 visible, 2 hidden */
    size_t cap, count;
} visibility;

/* `now_ms` is the valid-time point when the query names none. */
void visibility_init(visibility *v, store_reader *r, const ast_query *q, int64_t now_ms);
/* Sets *visible for `rec`; fails only on storage errors or out of memory. */
int visibility_check(visibility *v, const store_rec *rec, bool *visible, err *e);
void visibility_free(visibility *v);

#endif
