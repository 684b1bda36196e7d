/* The pull-based operators that evaluate a conjunction (plan/conj.h).
 *
 * The operators of one conjunction form a left-deep pipeline in plan order
 * and share one frame: the values of the conjunction's slots. A child's
 * next() fills the slots of the clauses before its step; the operator on
 * top of it fills its own and passes the row up. open() (re)starts an
 * operator from its first row: a sub-conjunction (not body, or-branch) is
 * re-opened for every outer row after the parent has copied the outer
 * values into its INPUT slots.
 *
 * A rule invocation is planned as a pattern over stored and derived facts
 * (PK_INVOKE): op_join / op_hashjoin read records only through op_scan,
 * the one place that knows about derived relations.
 *
 * Values in slots are borrowed from the store reader (strings live as long
 * as it does), the AST (constants) or are scalars (expression results). */
#ifndef MG_EXEC_OP_H
#define MG_EXEC_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "exec/meter.h"
#include "exec/visibility.h"
#include "model/fact.h"
#include "plan/conj.h"
#include "rules/relation.h"
#include "store/store.h"

struct derived_facts;

/* What every operator of one query shares. */
typedef struct where_ctx {
    store_reader *r;
    visibility vis;
    meter *m;
    value valid_at; /* what :db/valid-at binds: Integer ms, or Null (:any-valid-time) */
    /* Rules (exec/derived.h): NULL in a query without rule invocations.
     * While a rule body runs a delta round, `delta_clause` is the
     * invocation that reads only `delta`. */
    const struct derived_facts *derived;
    const ast_clause *delta_clause;
    relation_view delta;
    /* Hash join tables of stored patterns kept for the whole rule
     * evaluation (exec/hj_table.h), or NULL: none kept. */
    struct hj_cache *tables;
    /* Rule evaluation counts the body evaluations it runs: a body's
     * operators are kept from one to the next (exec/rule_eval.c), and
     * what an operator reads once for all its opens (a hash join's table)
     * it reads again in a new one. */
    uint64_t body_run;
} where_ctx;

/* The row being built in one conjunction. */
typedef struct frame {
    const plan_conj *p;
    value *slot;  /* per slot */
    fact *record; /* per item: the record a pattern matched (for D16) */
} frame;

typedef struct op op;
typedef struct op_vtable {
    int (*open)(op *o, err *e);
    /* 1 a row (in the frame), 0 the end, otherwise an error code. */
    int (*next)(op *o, err *e);
    void (*free)(op *o);
} op_vtable;

struct op {
    const op_vtable *vt;
};

static inline int op_open(op *o, err *e) { return o->vt->open(o, e); }
static inline int op_next(op *o, err *e) { return o->vt->next(o, e); }
static inline void op_free(op *o) { if (o) o->vt->free(o); }

/* ---- frames (exec/frame.c) ------------------------------------------- */

int frame_init(frame *f, const plan_conj *p, err *e);
void frame_free(frame *f);
/* The value of variable `var` seen by clauses from `step` on: its first
 * slot in source order (D12), or NULL when that slot is not filled yet. */
const value *frame_var_value(const frame *f, int var, size_t step);
/* Whether `v` may fill slot `s` at `step`: it must agree with every slot of
 * the same variable already filled — E1 when either is an expression
 * output (D11), E2 otherwise. */
bool frame_agrees(const frame *f, int s, const value *v, size_t step);
/* A value some filled slot of `var` holds at `step`, or NULL. */
const value *frame_any_value(const frame *f, int var, size_t step);

/* ---- operators ----------------------------------------------------------- */

/* Yields one row (the INPUT slots as the parent set them), then the end. */
op *op_unit_new(void);
/* Index-nested-loop join of `child` with pattern item `item` (a scan when
 * the child is a unit). */
op *op_join_new(where_ctx *x, frame *f, size_t item, op *child);
/* Hash join of `child` with a pattern item none of whose entity / value
 * positions is bound at its step: the pattern is read once. */
op *op_hashjoin_new(where_ctx *x, frame *f, size_t item, op *child);
/* Whether the hash join table of pattern `it` is kept across the rounds
 * of a rule evaluation (a stored attribute no rule derives). */
bool op_hashjoin_kept(const where_ctx *x, const plan_item *it);
/* Expression filter / binding (8.5). */
op *op_filter_new(where_ctx *x, frame *f, size_t item, op *child);
/* A pseudo-attribute pattern correlated with a real pattern (8.9, D16). */
op *op_pseudo_new(where_ctx *x, frame *f, size_t item, op *child);
/* not / not-join (8.7): keeps the rows whose body has no solution. */
op *op_antijoin_new(where_ctx *x, frame *f, size_t item, op *child, err *e);
/* or / or-join (8.6): de-duplicated union of the branches, joined (E2). */
op *op_union_new(where_ctx *x, frame *f, size_t item, op *child, err *e);

/* A sub-conjunction ready to run: its frame and pipeline (exec/op_build.c). */
typedef struct op_sub {
    frame f;
    op *root;
} op_sub;

/* Builds the pipeline of `p` over `f` (already initialised). NULL with `e`
 * set on failure. */
op *op_build(where_ctx *x, frame *f, err *e);
int op_sub_init(where_ctx *x, op_sub *s, const plan_conj *p, err *e);
void op_sub_free(op_sub *s);
/* Copies the parent's values into s's INPUT slots and restarts it. */
int op_sub_open(op_sub *s, const plan_sub *ps, const frame *parent, size_t step, err *e);

#endif
