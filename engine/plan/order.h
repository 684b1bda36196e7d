/* Join ordering (plan_order_conj in plan/conj.h, implemented in order.c):
 * the order changes cost only, never the answer, since every clause keeps
 * its own values (plan/conj.h). */
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

#endif
