/* A conjunction compiled for execution: the :where of a query, a not body,
 * one or-branch. Constants are resolved once, variables numbered, and every
 * occurrence of a variable gets its own *slot* so that answers do not depend
 * on the join order (language.md §8.4):
 *  - each clause keeps its own value for each of its variables;
 *  - two occurrences must agree pairwise: under E1 when one of them is an
 *    expression output (language.md D11), under E2 otherwise (E2 is not
 *    transitive for distinct keyword spellings of one UUID, so each pair
 *    is checked, not one representative);
 *  - a variable's value as seen by expressions, sub-conjunctions and the
 *    :find side is its first slot in source order (language.md D12).
 * A sub-conjunction (not body, or-branch) receives outer variables through
 * INPUT slots, which come first in their variable's slot list.
 *
 * Everything lives in the arena given to plan_compile_query. */
#ifndef MG_PLAN_CONJ_H
#define MG_PLAN_CONJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "plan/order.h"
#include "store/store.h"

typedef enum plan_kind {
    PK_PATTERN, /* a pattern over stored records */
    PK_PSEUDO,  /* a pseudo-attribute pattern (language.md §8.9) */
    PK_EXPR,    /* a filter or binding expression (language.md §8.5) */
    PK_NOT,     /* not / not-join: one sub-conjunction */
    PK_OR,      /* or / or-join: one sub-conjunction per branch */
    PK_INVOKE   /* a rule invocation (p X Y): the pattern [X :p Y] (language.md §9.2) */
} plan_kind;

typedef enum slot_kind { SLOT_INPUT, SLOT_PATTERN, SLOT_EXPR, SLOT_OR } slot_kind;

typedef enum pseudo_kind {
    PSEUDO_NONE,
    PSEUDO_VALID_FROM,
    PSEUDO_VALID_TO,
    PSEUDO_TX_COUNT,
    PSEUDO_TX_ID,
    PSEUDO_VALID_AT
} pseudo_kind;

typedef struct plan_slot {
    int var;
    int item; /* the clause that fills it, -1 for an INPUT */
    slot_kind kind;
} plan_slot;

typedef struct plan_var {
    const char *name;
    size_t len;
    int *slots; /* source order; slots[0] is the representative */
    size_t slot_count;
} plan_var;

typedef struct plan_conj plan_conj;

/* One sub-conjunction and how it connects to its parent. */
typedef struct plan_sub {
    plan_conj *conj;
    int *in_slot, *in_parent_var; /* INPUT slot of the sub ← parent variable */
    size_t in_count;
    int *out_var; /* OR: the sub's variable per output (plan_item.outs) */
} plan_sub;

/* How a pattern step joins the rows before it (plan/access.c): by
 * index-nested-loop, seeking its records per row with every position a
 * constant or an earlier step fixes, or by hash join, reading the pattern
 * once into a table probed per row when no seek can serve (neither its
 * entity nor its value is known, or the value is known only as an
 * entity's Ref, which stored keywords naming it also match, E4). */
typedef enum plan_join { PLAN_JOIN_NESTED_LOOP, PLAN_JOIN_HASH } plan_join;

typedef struct plan_access {
    bool known[3]; /* E, A, V fixed when the step runs (constant or bound) */
    plan_join join;
} plan_access;

typedef struct plan_item {
    plan_kind kind;
    const ast_clause *clause;
    plan_clause pc; /* PATTERN, PSEUDO, INVOKE: pattern and var per position */
    int slot[3];    /* PATTERN, PSEUDO, INVOKE: slot per position (-1 none); EXPR: slot[0] output */
    pseudo_kind pseudo;
    int correlate; /* PSEUDO: the real pattern it reads (language.md D16), or -1 */
    int *needs;    /* variables whose representative must be set first */
    size_t need_count;
    plan_sub *subs; /* NOT: 1; OR: one per branch */
    size_t sub_count;
    int *outs; /* OR: the parent slot per new variable */
    size_t out_count;
    plan_access access; /* PATTERN, INVOKE, uncorrelated PSEUDO: set once ordered */
} plan_item;

struct plan_conj {
    plan_item *items; /* source order */
    size_t item_count;
    plan_var *vars;
    size_t var_count;
    plan_slot *slots;
    size_t slot_count, slot_cap;
    size_t *order;   /* evaluation order: item per step */
    size_t *step_of; /* 1-based step per item (INPUT slots count as step 0) */
};

typedef struct plan_query {
    plan_conj *top;
    bool any_valid_time;
} plan_query;

/* What the join order should know about derived facts (exec/derived.h):
 * the rows a pattern or invocation item reads from derived relations
 * besides its stored records, or instead of them (`*instead`: the delta
 * invocation of a semi-naive round). NULL: no derived facts. */
typedef struct plan_count_cache plan_count_cache;
struct host_scope;
typedef struct plan_hint {
    size_t (*derived_rows)(const void *ctx, const plan_item *it, bool *instead);
    const void *ctx;
    /* Range estimates (store_estimate) kept for the query's later plans:
     * sub-conjunctions, and rule bodies planned again every round over
     * the same snapshot. May be NULL. */
    plan_count_cache *counts;
    /* The query's host functions (host/host_fns.h): a host predicate at
     * the root of an expression clause must be registered (QRY-007).
     * NULL: none. */
    struct host_scope *host;
} plan_hint;

#define PLAN_COUNT_CACHE_SIZE 12
typedef struct plan_range_key { /* a store_bound's fixed positions */
    uint64_t e, a;
    uint8_t v[FACT_V_SIZE];
    bool has_e, has_a, has_v;
} plan_range_key;
struct plan_count_cache {
    plan_range_key key[PLAN_COUNT_CACHE_SIZE];
    size_t count[PLAN_COUNT_CACHE_SIZE];
    bool capped[PLAN_COUNT_CACHE_SIZE]; /* count[i] is a lower bound */
    size_t used;
};

/* Compiles and orders q's :where. Errors: QRY-007 a host predicate not
 * registered in hint->host at the root of a top-level or or-branch
 * expression clause;
 * QRY-013 a per-record pseudo-attribute without :any-valid-time; INT-028
 * a rule invocation without 1 or 2 arguments; INT-000 out of memory. */
int plan_compile_query(const ast_query *q, store_reader *r, const plan_hint *hint, arena *a,
                       plan_query *out, err *e);

/* A variable of q's top conjunction that occurs once, in one position
 * of a pattern, and that nothing else reads (no other clause, no :find
 * spec, :with or :order-by key) matches as `_` would: its slot is
 * dropped, so scans neither fill nor export it (plan_compile_query does
 * this; its pc.var stays, for estimates). */
void plan_drop_unread(plan_conj *c, const ast_query *q);
/* The same for a rule body (language.md §9.3: body semantics equal :where's). */
int plan_compile_body(const ast_body *body, bool any_valid_time, store_reader *r,
                      const plan_hint *hint, arena *a, plan_conj **out, err *e);

/* The slot `s` is filled when a row reaches step `step` of its conjunction. */
static inline bool plan_slot_set(const plan_conj *c, int s, size_t step) {
    int item = c->slots[s].item;
    return item < 0 || c->step_of[item] < step;
}

/* Some slot of variable `var` is filled at step `step`. */
static inline bool plan_var_set(const plan_conj *c, int var, size_t step) {
    const plan_var *v = &c->vars[var];
    for (size_t i = 0; i < v->slot_count; i++)
        if (plan_slot_set(c, v->slots[i], step))
            return true;
    return false;
}

/* The pattern's three terms in position order. */
static inline const term *plan_pattern_term(const ast_pattern *p, int position) {
    return position == 0 ? &p->e : position == 1 ? &p->a : &p->v;
}

/* The variable named so in `c`, or -1. */
int plan_find_var(const plan_conj *c, const char *name, size_t len);

/* Orders c's items (plan/order.c), then sets each pattern's access. */
int plan_order_conj(store_reader *r, plan_conj *c, const plan_hint *hint, arena *a, err *e);
/* The access of every pattern item of an ordered c (plan/access.c). */
void plan_set_access(plan_conj *c);

#endif
