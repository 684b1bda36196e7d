/* What the planner chose for a query's :where (minigraf_explain): the
 * top-level clauses in evaluation order, how each pattern joins the rows
 * before it, the index it reads and how many stored records its constants
 * select. Sub-conjunctions (not, or) are one step each; derived rule facts
 * are not counted (the plan is the one the query would use with no rules
 * registered). */
#ifndef MG_PLAN_EXPLAIN_H
#define MG_PLAN_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "plan/conj.h"
#include "store/store.h"

typedef struct plan_step_info {
    const ast_clause *clause;
    plan_kind kind;
    bool has_access; /* pattern, invocation, uncorrelated pseudo */
    plan_join join;
    int index;       /* TREE_EAVT / TREE_AEVT / TREE_AVET */
    bool seeks;      /* some position is known when the step runs */
    size_t estimate; /* records its constants select; SIZE_MAX unknown */
} plan_step_info;

/* The index (TREE_EAVT / AEVT / AVET) a pattern, invocation or
 * uncorrelated pseudo step whose access is set will read: stated in
 * advance by the rules store_scan_open applies at run time to the
 * positions exec/op_scan.c fixes (the plan itself needs no index). */
int plan_step_index(const plan_item *it);

/* Plans q over `r` (arena `a` holds the result) and describes the steps.
 * Errors as plan_compile_query's. */
int plan_explain(const ast_query *q, store_reader *r, arena *a, plan_step_info **steps,
                 size_t *count, err *e);

#endif
