/* Semi-naive fixed-point evaluation of rules (language.md §9.3, §9.4, §9.6).
 *
 * The driver owns one derived relation (rules/relation.h) per predicate of
 * a stratify_plan and evaluates the plan's strata lowest first, each to
 * its least fixpoint:
 *
 *   before:  the stratum's facts (rules with an empty body: the magic
 *            rewrite's seeds) are its initial state, visible to round 0;
 *   round 0: every rule of the stratum, every invocation reading its full
 *            relation;
 *   round k: for every rule and every positive invocation position whose
 *            predicate belongs to the stratum and gained rows in round
 *            k-1, the rule with that position reading only those new rows
 *            (the delta) and every other invocation the full relations;
 *   until a round adds nothing.
 *
 * Rows derived during a round become visible to bodies in the next round
 * only, so what a body reads never changes under it.
 *
 * Evaluating a body is the caller's business: a rule_body_eval_fn gets the
 * rule and the delta, reads relations through seminaive_full and reports
 * each head fact with seminaive_emit. Facts of predicates that have no
 * relation here (no rules) are stored facts, read by the callback itself;
 * so are the stored facts of a predicate that also has rules (language.md §9.2 item 2):
 * the relations hold derived facts only.
 *
 * Limits (language.md §9.6), all INT-020 errors, never truncation:
 * - max_iterations (default 1000) rounds that add facts, per stratum: a
 *   stratum needing more fails with `Max iterations (1000) exceeded.
 *   Possible infinite recursion or cycle in rules.` (A chain of 1000 edges
 *   closes in 1000 adding rounds plus the empty one that ends them.)
 * - max_derived_facts emits in one round, re-derivations included;
 * - max_results distinct derived facts in all relations together.
 * Relation memory is charged to the meter given to seminaive_new (QRY-012).
 *
 * One seminaive belongs to one query on one thread. */
#ifndef MG_RULES_SEMINAIVE_H
#define MG_RULES_SEMINAIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "base/meter.h"
#include "rules/relation.h"
#include "rules/stratify.h"

#define SEMINAIVE_NO_DELTA SIZE_MAX

typedef struct seminaive seminaive;

typedef struct seminaive_limits {
    int64_t max_iterations;    /* >= 1 */
    int64_t max_derived_facts; /* >= 1 */
    int64_t max_results;       /* >= 1 */
} seminaive_limits;

void seminaive_limits_default(seminaive_limits *l); /* 1000, 1000000, 1000000 */

/* Evaluates `rule`'s body once and emits its head facts. `delta_pos` is the
 * ordinal of the positive invocation (stratify_walk_invocations order,
 * negated ones not counted) that reads `delta` instead of its full
 * relation, or SEMINAIVE_NO_DELTA (then `delta` is NULL). Returns 0 or an
 * error code with `e` set; an error stops the evaluation. */
typedef int (*rule_body_eval_fn)(void *ctx, seminaive *sn, const ast_rule *rule, size_t delta_pos,
                                 const relation_view *delta, err *e);

/* Prepares the evaluation of `plan` (from stratify_plan_query over `prog`,
 * whose rules are `rules`, in the same order). Borrows all three and the
 * meter (may be NULL) until seminaive_free. */
int seminaive_new(const stratify_program *prog, const ast_rule *const *rules,
                  const stratify_plan *plan, const seminaive_limits *limits, meter *m,
                  seminaive **out, err *e);
void seminaive_free(seminaive *sn); /* NULL: no-op */
/* Whether sn was made by seminaive_new for these three. */
bool seminaive_serves(const seminaive *sn, const stratify_program *prog,
                      const ast_rule *const *rules, const stratify_plan *plan);
/* Makes sn, which has run, ready to run again from empty relations
 * (their tables kept while small: relation_clear) under `limits`,
 * charging `m`. A query evaluating the same rules again saves their
 * set-up and the growth of every relation's tables. */
void seminaive_reset(seminaive *sn, const seminaive_limits *limits, meter *m);

/* Runs every stratum to its fixpoint. Once only. */
int seminaive_run(seminaive *sn, rule_body_eval_fn fn, void *ctx, err *e);

/* The derived relation of a predicate as bodies see it now (during a
 * round: the rows from before the round; after seminaive_run: all).
 * False when the predicate has no relation in this evaluation. */
bool seminaive_full(const seminaive *sn, const char *name, size_t len, relation_view *out);

/* The relations of this evaluation, in stratum order: the i-th one's
 * predicate name (borrowed from the rules) and its rows as bodies see
 * them now. */
size_t seminaive_relation_count(const seminaive *sn);
void seminaive_relation(const seminaive *sn, size_t i, const char **name, size_t *len,
                        relation_view *out);

/* The number of distinct facts derived so far, in all relations. */
int64_t seminaive_fact_count(const seminaive *sn);

/* Called by a rule_body_eval_fn: one head fact of the rule being
 * evaluated. Duplicates (E3) are counted against max_derived_facts and
 * otherwise ignored. */
int seminaive_emit(seminaive *sn, const uuid128 *entity, const value *v, err *e);

/* Rounds run by the last stratum evaluated, the empty closing round
 * included (for tests and diagnostics). */
int64_t seminaive_rounds(const seminaive *sn);

#endif
