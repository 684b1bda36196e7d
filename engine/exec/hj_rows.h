/* The other side of a hash join (exec/op_hashjoin.c): when the rows
 * before a pattern step are few beside the pattern's records, the rows
 * are kept and chained by the E2 hash of their join key, and the
 * pattern's records stream through them, a probe per record, instead of
 * the records being kept in a table probed per row (exec/hj_table.h).
 * Rows are copies of a conjunction's rows (slots and, when a pseudo
 * pattern reads them, records), charged to the query's meter. */
#ifndef MG_EXEC_HJ_ROWS_H
#define MG_EXEC_HJ_ROWS_H

#include "exec/hj_table.h"
#include "exec/op.h"

typedef struct hj_rows {
    const plan_conj *p;
    size_t record_width; /* records per row: 0 or p->item_count */
    value *slot;
    fact *record;
    uint64_t *hash; /* per row: the E2 hash of its key */
    size_t *next;   /* per row: chain, HJ_ROWS_END at the end */
    size_t *heads, head_mask;
    size_t count, cap;
    meter *m;
    size_t charged;
} hj_rows;

#define HJ_ROWS_END HJ_END

void hj_rows_init(hj_rows *r, const plan_conj *p, size_t record_width, meter *m);
void hj_rows_free(hj_rows *r);
/* Copies `row` with the hash of its key. QRY-012, INT-000. */
int hj_rows_append(hj_rows *r, const frame *row, uint64_t hash, err *e);
/* Chains the rows by hash; once, after the last append. QRY-012, INT-000. */
int hj_rows_index(hj_rows *r, err *e);
/* Row i as a frame of the conjunction (borrowed until the rows change). */
static inline frame hj_rows_row(const hj_rows *r, size_t i) {
    return (frame){r->p, r->slot + i * r->p->slot_count,
                   r->record_width ? r->record + i * r->record_width : NULL};
}
/* The first row whose key hashes to `hash` (then follow `next` and
 * compare `hash` again: chains share buckets), HJ_ROWS_END when none. */
static inline size_t hj_rows_first(const hj_rows *r, uint64_t hash) {
    return r->heads[(size_t)hash & r->head_mask];
}

#endif
