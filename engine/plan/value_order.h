/* Index-ordered limits (language.md §8.15): a query with :order-by and :limit
 * whose first step is a pattern [?e :attr ?k] on its first key ?k can
 * read that pattern in AVET order (store_scan_values), so its solutions
 * come in the key's order and the top-k stops once no later row can
 * enter it (exec/finish.c) instead of reading every record. Every later
 * operator keeps the order of the rows it extends (op.h: a left-deep
 * pipeline that extends each row in turn). */
#ifndef MG_PLAN_VALUE_ORDER_H
#define MG_PLAN_VALUE_ORDER_H

#include <stdbool.h>

#include "datalog/ast.h"
#include "plan/conj.h"

typedef struct plan_value_order {
    const plan_item *item; /* the first step: a stored pattern, attribute constant */
    int var;               /* the key's variable in the conjunction */
    bool desc;
} plan_value_order;

/* Whether q's first :order-by key can come from the first step of `top`
 * read in value order: plain :find columns only, a :limit, and that step
 * a pattern with a keyword attribute, an entity that is not a constant,
 * and the key's representative slot (language.md D12) at its value position. */
bool plan_value_order_find(const ast_query *q, const plan_conj *top, plan_value_order *out);

#endif
