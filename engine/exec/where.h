/* The :where half of query execution: plans a query's clauses
 * (plan/conj.h) and runs them as a pipeline of operators (exec/op.h) on
 * one snapshot of the store, as a stream of solutions (exec/solution.h). */
#ifndef MG_EXEC_WHERE_H
#define MG_EXEC_WHERE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "base/meter.h"
#include "exec/solution.h"
#include "store/store.h"

/* Opens the solutions of q's :where over the records of `s` visible per
 * language.md §7.4 (`now_ms`: the valid-time point when q names none). The stream
 * exports every variable the top-level conjunction binds, in order of
 * first appearance, and owns its snapshot until closed; `m` (may be NULL)
 * must outlive it. Errors: QRY-007, QRY-013 (plan/conj.h), storage
 * errors, INT-000 out of memory. */
struct query_rules;
/* `rules` (may be NULL): the database's rules, evaluated first when q
 * invokes any (exec/rule_eval.h); INT-020, INT-028 and rule head errors. */
int where_open(store *s, const ast_query *q, int64_t now_ms, meter *m, struct query_rules *rules,
               solution_stream **out, err *e);

/* ---- keeping a :where for the next run (prepared queries) ----------------
 * A prepared query runs one parse again and again; its :where can keep
 * its plan and operators, re-opened on a new snapshot with the constants
 * its AST holds then (a slot's new value is written there). */

struct host_scope;
/* After where_open, before the first row: marks `s` kept when its plan
 * stays right for any values of q's constants (plain patterns joined by
 * seeks, and filters; no rule invocation, no host predicate), or, when
 * `fixed` (q's constants never change), also pairs pseudo-attribute
 * patterns with them. Its close
 * then only lets go of the snapshot (the stream stays for where_rerun);
 * where_free ends it. False: nothing changes. */
bool where_keep(solution_stream *s, const ast_query *q, bool fixed);
/* Opens a kept, closed stream again on a new snapshot of `st` with
 * now_ms and q's values, `host` the new run's scope. 0 ready, 1 the plan
 * is stale (the store's size moved far from the one it was made for:
 * where_free it and open anew), or an error (storage; where_free it). */
int where_rerun(solution_stream *s, store *st, const ast_query *q, int64_t now_ms,
                struct host_scope *host, err *e);
void where_free(solution_stream *s);

#endif
