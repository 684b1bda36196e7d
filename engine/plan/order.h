/* Join ordering for the patterns of a query. The order changes cost only,
 * never the answer: the executor's results are order-independent. */
#ifndef MG_PLAN_ORDER_H
#define MG_PLAN_ORDER_H

#include <stddef.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "store/store.h"

typedef struct plan_clause {
    const ast_pattern *pattern;
    int var[3]; /* variable number at E, A, V, or -1 when not a variable */
} plan_clause;

/* Writes into order[0..n) the clause indexes in evaluation order: greedily
 * the clause with the fewest estimated candidate records given the
 * variables bound so far (index sizes for constant or bound entity and
 * attribute positions), ties going to more bound positions, then to source
 * order. */
int plan_order_patterns(store_reader *s, const plan_clause *clauses, size_t n, size_t var_count,
                        size_t *order, err *e);

#endif
