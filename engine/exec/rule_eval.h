/* Rule evaluation for one query (language.md §9.3): before the query's :where
 * runs, the rules it needs are evaluated stratum by stratum to their
 * fixpoint (rules/seminaive.h) with rule bodies run by the same operators
 * as a :where (full Section 8 semantics over the query's visible records
 * plus the derived facts so far); the derived relations then stay
 * visible to the query's own patterns (exec/derived.h). */
#ifndef MG_EXEC_RULE_EVAL_H
#define MG_EXEC_RULE_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/derived.h"
#include "exec/hj_table.h"
#include "exec/op.h"
#include "exec/query.h"
#include "exec/rule_cache.h"
#include "rules/registry.h"
#include "rules/seminaive.h"
#include "rules/stratify.h"

typedef struct rule_eval {
    query_rules *opts;
    const rules_program *snapshot;
    rule_cache *c;             /* the rewrite and body plans, maybe from an earlier query */
    bool keep;                 /* the evaluation succeeded: c is kept for the next query */
    bool keep_operators;       /* with its reusable bodies' operators */
    const stratify_plan *plan; /* c's, for the program being evaluated */
    seminaive *sn;
    derived_facts derived;
    bool has_derived;
    where_ctx *x;      /* the bodies' context: the cache's (rule_cache.h), once taken */
    where_ctx *query;  /* the query's */
    size_t query_used; /* the query meter's count when the evaluation began */
    size_t lent;       /* what the query's meter was charged for the evaluation */
    bool any_valid_time;
} rule_eval;

/* True when q invokes a rule anywhere (not / or bodies included). */
bool rule_eval_needed(const ast_query *q);

/* Evaluates the rules q needs over x's records and points x->derived at
 * the result. INT-020 limits, INT-028 arity, head conversion errors,
 * QRY-012, and whatever a body's evaluation reports. rule_eval_end
 * afterwards in every case (also after an error). */
int rule_eval_run(rule_eval *re, query_rules *opts, where_ctx *x, const ast_query *q, err *e);
void rule_eval_end(rule_eval *re);

/* The join-order hint for plans that read x's derived facts. */
plan_hint rule_eval_hint(const where_ctx *x);

#endif
