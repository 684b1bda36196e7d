/* What a rule evaluation keeps for the next query (exec/rule_eval.c).
 *
 * A query that invokes rules rewrites them for its call (plan/magic.h),
 * stratifies the rewrite and plans every rule body per delta position;
 * a query run again would do all of it again, for the same result. So
 * when the evaluation ends, that state (without the operators, which
 * belong to the query) is kept with the rules program it was made from
 * (rules_keep), and the next query takes it when nothing it depends on
 * changed:
 *   - the rules: kept per program, and registering a rule makes a new
 *     program;
 *   - the query: its canonical text (datalog/print.h), :as-of,
 *     :valid-at and limits included, and the magic option;
 *   - the store snapshot whose range estimates ordered the bodies: its
 *     transaction count (a commit) and checkpoint generation.
 * A body plan also depends on the sizes of the derived relations, which
 * rule_eval.c checks before each use, as it does within one query.
 *
 * The operators of a body whose plan allows it (exec/op.h:
 * op_sub_reusable) are kept too, closed: they were built over the
 * cache's own context `ctx`, into which each query copies its where_ctx
 * (snapshot, visibility, host scope), and charge the cache's meter `m`,
 * which each query starts at its own meter's count plus what the kept
 * operators hold (`baseline`), as a query that built them would. The
 * semi-naive state is kept too, its relations emptied (their small
 * tables kept: rules/seminaive.h, seminaive_reset). */
#ifndef MG_EXEC_RULE_CACHE_H
#define MG_EXEC_RULE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/htab.h"
#include "datalog/ast.h"
#include "exec/hj_table.h"
#include "exec/op.h"
#include "plan/conj.h"
#include "rules/registry.h"
#include "rules/seminaive.h"
#include "rules/stratify.h"

/* One rule body's compiled plan for one delta position (rule_eval.c:
 * ready_plan), and its operators, built once per query and opened again
 * for each evaluation of the body. */
typedef struct body_plan {
    const ast_rule *rule;
    size_t delta_pos;
    const ast_clause *delta_clause; /* the invocation at delta_pos, or NULL */
    bool mixed;                     /* the body has not / or (rule_eval.c: is_mixed) */
    arena mem;                      /* the plan */
    plan_conj *conj;
    uint8_t *sizes;              /* size class of the delta and each derived relation */
    size_t size_count;           /* at planning time */
    op_sub pipe;                 /* the operators over conj, once built */
    bool reusable;               /* pipe may serve the next query (op_sub_reusable) */
    int head_var[2];             /* per head argument: its body variable, or -1 */
    struct body_plan *same_next; /* the next plan of this rule and delta position */
} body_plan;

/* The store snapshot plans were ordered for. */
typedef struct rule_cache_snapshot {
    uint64_t tx_count, generation;
} rule_cache_snapshot;

typedef struct rule_cache {
    rules_kept base; /* first: the registry frees it through base.free */
    char *key;       /* the query's canonical text */
    bool magic;
    rule_cache_snapshot snap;
    arena mem;                          /* the query parsed back from `key`, its magic rewrite */
    const ast_query *q;                 /* in mem: the rewrite borrows its constants */
    bool rewrite_done;                  /* magic_rules / rewritten are decided */
    const ast_rule *const *magic_rules; /* NULL: the rules run as written */
    stratify_program *rewritten;
    plan_count_cache counts; /* range estimates of the snapshot */
    body_plan **plans;       /* stable addresses: operators borrow their plans */
    size_t plan_count, plan_cap;
    htab plan_index;                 /* (rule, delta position) -> its first plan in `plans` */
    stratify_plan strata;            /* the query's predicates and rules in plan_of */
    const stratify_program *plan_of; /* the program `strata` is of; NULL: none yet */
    where_ctx ctx;                   /* what the operators read: the running query's */
    meter m;                         /* what they charge */
    size_t baseline;                 /* bytes the kept operators hold between queries */
    seminaive *sn;                   /* the last evaluation's, emptied, or NULL */
    hj_cache tables; /* stored patterns' hash join tables, for every round; emptied after */
} rule_cache;

/* The state kept for q over program p (taken from it), or a new empty
 * one. INT-000. */
int rule_cache_take(rules_registry *reg, const rules_program *p, const ast_query *q, bool magic,
                    rule_cache_snapshot snap, rule_cache **out, err *e);
/* Frees a plan's operators (they belong to the query that built them);
 * the plan stays. */
void body_plan_drop_operators(body_plan *bp);
/* The same for each of c's plans. */
void rule_cache_drop_operators(rule_cache *c);
/* Frees the operators of c's plans that may not serve another query, and
 * what the others hold from their last run (op_sub_rest). */
void rule_cache_drop_unreusable(rule_cache *c);
/* Ends the query's use of c: kept with p for the next query when `keep`
 * (with the operators that may serve it: the caller has dropped the
 * others and set `baseline`), else freed. */
void rule_cache_give_back(rules_registry *reg, const rules_program *p, rule_cache *c, bool keep);

#endif
