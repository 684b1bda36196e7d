/* What the two joins of a pattern step to the rows before it share: the
 * index-nested-loop join (exec/op_join.c) and the hash join
 * (exec/op_hashjoin.c) each extend the child's rows one at a time with
 * the pattern's records into a batch, and each walks a table's chain of
 * entries (exec/hj_table.h) for a row. Each embeds a pattern_join. */
#ifndef MG_EXEC_PATTERN_JOIN_H
#define MG_EXEC_PATTERN_JOIN_H

#include "exec/hj_table.h"
#include "exec/op_scan.h"

typedef struct pattern_join {
    where_ctx *x;
    const plan_conj *p;
    size_t item, step;
    child_rows in;
    batch out;
    pattern_binding bind;
} pattern_join;

/* For step `item` of `p` over `child`, which pattern_join_free frees once
 * this returned 0 (on an error the caller keeps it). QRY-012. */
int pattern_join_init(pattern_join *j, where_ctx *x, const plan_conj *p, size_t item, op *child,
                      err *e);
void pattern_join_free(pattern_join *j);
/* Appends the current row bound by `b` (j's binding, or one that checks
 * less) to each next entry of `t` from *cursor while the batch holds
 * fewer than `max` rows. False once the chain is done (*cursor is HJ_END). */
bool pattern_join_fill(pattern_join *j, const pattern_binding *b, const hj_table *t, size_t *cursor,
                       size_t max);

#endif
