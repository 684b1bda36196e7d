/* The :where half of query execution: plans a query's clauses
 * (plan/conj.h) and runs them as a pipeline of operators (exec/op.h) on
 * one snapshot of the store, as a stream of solutions (exec/solution.h). */
#ifndef MG_EXEC_WHERE_H
#define MG_EXEC_WHERE_H

#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/meter.h"
#include "exec/solution.h"
#include "store/store.h"

/* Opens the solutions of q's :where over the records of `s` visible per
 * spec 7.4 (`now_ms`: the valid-time point when q names none). The stream
 * exports every variable the top-level conjunction binds, in order of
 * first appearance, and owns its snapshot until closed; `m` (may be NULL)
 * must outlive it. Errors: QRY-007, QRY-013 (plan/conj.h), storage
 * errors, INT-000 out of memory. */
struct query_rules;
/* `rules` (may be NULL): the database's rules, evaluated first when q
 * invokes any (exec/rule_eval.h); INT-020, INT-028 and rule head errors. */
int where_open(store *s, const ast_query *q, int64_t now_ms, meter *m, struct query_rules *rules,
               solution_stream **out, err *e);

#endif
