/* Demand-driven evaluation of a bound rule call (language.md §9.7, magic sets).
 *
 * For a query whose one rule invocation has a constant first argument,
 * `(p :c ?y)`, the rules of p's closure are rewritten so that they derive
 * only the facts reachable from the constant:
 *
 *   seed        (magic·p :c).                       (empty body: holds from the
 *                                                    start, seminaive.h)
 *   guard       p(X, Y) :- magic·p(X), body.        (every rule of the closure)
 *   demand      magic·q(A) :- magic·p(X), prefix.   (per invocation q(A, B) in a
 *                                                    body, A bound by the prefix)
 *
 * When the closure is one binary predicate whose recursive rules are
 * right-linear, `p(X, Y) :- body, (p M Y)` with the call last and Y named
 * nowhere else, the guards' heads are the call's own instead:
 *
 *   answer      p(:c, Y) :- magic·p(X), body.       (every rule of p)
 *
 * so only the facts the call reads are derived (a chain of depth d: d
 * facts and d demand facts, where the guarded rules derive d²/2).
 *
 * Magic predicates are named so that no parsed symbol can name them (a
 * space), and are never visible to patterns (language.md D13). The demand
 * that needs no guarded fact is evaluated to its fixpoint first
 * (stratify_demand_first; exec/rule_eval.c on the language.md §9.6 cap).
 *
 * The rewrite is applied only where it cannot change any row (language.md §9.7): the
 * invocation is the query's only one, at top level; no pattern of the
 * query or of the closure has a variable attribute or names a closure
 * predicate's attribute; no rule of the closure contains not, not-join,
 * or, or-join; every invocation inside the closure has its first argument
 * bound by what precedes it in source order. Otherwise magic_rewrite
 * answers "not applicable" and the rules run as written. */
#ifndef MG_PLAN_MAGIC_H
#define MG_PLAN_MAGIC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "rules/stratify.h"

#define MAGIC_PREFIX "magic "

bool magic_is_magic_name(const char *name, size_t len);

/* The rewritten rules, in `a`: guarded rules of the closure, demand rules
 * and the seed, then every other rule unchanged. 1 rewritten, 0 not
 * applicable, or an error (INT-000 out of memory). */
int magic_rewrite(const ast_rule *const *rules, size_t count, const ast_query *q, arena *a,
                  const ast_rule *const **out, size_t *out_count, err *e);

#endif
