/* The rule dependency graph and its strata (language.md §9.3, §9.5).
 *
 * Nodes are predicate names: every rule head and every invoked predicate
 * (one without rules is a stored attribute, stratum 0). `p -> q` is
 * positive when a body of p invokes q outside negation (or / or-join
 * branches included) and negative when q is invoked directly inside a
 * not / not-join body (also one nested in an or branch). The strata are
 * the least assignment with stratum(p) >= stratum(q) along positive edges
 * and stratum(p) > stratum(q) along negative ones; a cycle through a
 * negative edge has none and is INT-054.
 *
 * A stratify_program borrows the predicate names from the rules it was
 * built from: the rules must outlive it. */
#ifndef MG_RULES_STRATIFY_H
#define MG_RULES_STRATIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/htab.h"
#include "datalog/ast.h"

#define STRATIFY_NONE UINT32_MAX

/* Visits every rule invocation of `body` depth first, in source order,
 * with `negated` true inside not / not-join. The positive invocations, in
 * this order, are the "invocation positions" of a rule (seminaive.h). */
typedef void (*stratify_visit_fn)(void *ctx, const ast_clause *invoke, bool negated);
void stratify_walk_invocations(const ast_body *body, stratify_visit_fn fn, void *ctx);

typedef struct stratify_pred {
    const char *name; /* borrowed from the rules */
    size_t name_len;
    uint32_t stratum;
    uint32_t rule_count; /* 0: no rules, the predicate is a stored attribute */
} stratify_pred;

typedef struct stratify_edge {
    uint32_t from, to; /* predicate indexes: `from`'s rule invokes `to` */
    bool negative;
} stratify_edge;

typedef struct stratify_program {
    stratify_pred *preds;
    size_t pred_count;
    uint32_t *rule_head; /* per rule (in the order given): its head predicate */
    size_t rule_count;
    stratify_edge *edges; /* grouped by rule, in rule order */
    size_t edge_count;
    uint32_t stratum_count; /* highest stratum + 1; 0 for no predicates */
    htab names;             /* predicate name -> index (stratify_find) */
} stratify_program;

/* Builds the graph of `rules` and assigns strata. A negative cycle fails
 * with INT-054 `unstratifiable: predicate '<p>' is involved in a negative
 * cycle through '<q>'`, naming the negative edge p -> q on the cycle; the
 * rules are searched from the last one back, so a rule just appended
 * names itself when it closes the cycle. */
int stratify_build(const ast_rule *const *rules, size_t count, stratify_program **out, err *e);
void stratify_free(stratify_program *p); /* NULL: no-op */

/* Evaluates demand first (the magic rewrite, plan/magic.h): the
 * predicates marked in `demand` (per predicate of p) that reach no
 * unmarked predicate with rules move below every other predicate with
 * rules, each strongly connected component of them in a stratum of its
 * own, dependencies first; the others keep their strata relative to each
 * other, shifted above. Still a stratification (a negative edge never
 * lies on a cycle). rule_eval.c explains why the language.md §9.6 cap keeps its
 * meaning. INT-000 out of memory (p unchanged). */
int stratify_demand_first(stratify_program *p, const bool *demand, err *e);

/* The index of a predicate, or STRATIFY_NONE when no rule mentions it. */
uint32_t stratify_find(const stratify_program *p, const char *name, size_t len);

/* What one query needs evaluated (language.md §9.3): the predicates invoked
 * anywhere in the query plus, transitively, in the bodies of their rules,
 * restricted to those that have rules, ordered by stratum (then by index);
 * and the rules defining them, ordered by stratum, then registration
 * order. Both arrays are heap-owned. */
typedef struct stratify_plan {
    uint32_t *preds; /* predicate indexes */
    size_t pred_count;
    uint32_t *rules; /* rule indexes */
    size_t rule_count;
} stratify_plan;

int stratify_plan_query(const stratify_program *p, const ast_body *query, stratify_plan *out,
                        err *e);
void stratify_plan_free(stratify_plan *plan);

#endif
