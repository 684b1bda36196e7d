/* The pull-based operators that evaluate a conjunction (plan/conj.h).
 *
 * The operators of one conjunction form a left-deep pipeline in plan order
 * and move batches of rows: next() returns up to `max` rows, each a row of
 * the conjunction's slots (a frame). A pattern operator fills its own slots
 * in copies of its child's rows (one child row can become many rows, and
 * the operator resumes mid-row at its next call); a filter, pseudo-pattern
 * or anti-join drops rows of its child's batch in place. open() (re)starts
 * an operator from its first row: a sub-conjunction (not body, or-branch)
 * is re-opened for every outer row after the parent has copied the outer
 * values into its INPUT slots, the one row of its leaf.
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
#include <string.h>

#include "base/error.h"
#include "base/mg_assert.h"
#include "base/meter.h"
#include "exec/visibility.h"
#include "model/fact.h"
#include "plan/conj.h"
#include "rules/relation.h"
#include "store/store.h"

struct derived_facts;
struct host_scope;

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
    /* The query's host functions (host/host_fns.h), or NULL. */
    struct host_scope *host;
    /* The pattern read in value order (plan/value_order.h), or NULL;
     * order_lost: its scan went on out of order (store_scan_values). */
    const plan_item *ordered;
    bool ordered_desc, order_lost;
    /* The conjunction whose pipeline is opened once (the query's :where),
     * or NULL: its hash joins may stream their records through the rows
     * before them (exec/op_hashjoin.c) instead of reading a table that
     * later opens would reuse. */
    const plan_conj *once;
    /* The pattern, the query's only clause, whose scan hands out one row
     * for a run of consecutive visible records (exec/where.c, for a
     * consumer of weighted solutions), or NULL: records that agree on the
     * positions in `collapse_read` (a bit each) and on whether those in
     * `collapse_null` are Null make one row, weight[i] the records row i
     * of the scan's batch stands for. */
    const plan_item *collapsed;
    unsigned collapse_read, collapse_null;
    uint64_t *weight;
    bool collapse_any_order; /* the scan may read another index (solution.h any_order) */
} where_ctx;

/* One row of a conjunction: a view into a batch. */
typedef struct frame {
    const plan_conj *p;
    value *slot;  /* per slot */
    fact *record; /* per item: the record a pattern matched (for language.md D16), or NULL */
} frame;

/* The most rows a batch holds. */
#define BATCH_ROWS 64

/* Rows of one conjunction, each `p->slot_count` values and, when a pseudo
 * pattern reads records (language.md D16), `p->item_count` records. A batch belongs
 * to the operator at one step of the pipeline; its memory is charged to
 * the query's meter. */
typedef struct batch {
    const plan_conj *p;
    size_t count, cap;
    size_t record_width; /* records per row: 0 or p->item_count */
    value *slot;
    fact *record;
    int *carry; /* the slots filled before the step: what batch_push copies */
    size_t carry_count;
    meter *m;
} batch;

typedef struct op op;
typedef struct op_vtable {
    int (*open)(op *o, err *e);
    /* 1 with *out a batch of 1 to `max` rows (max <= BATCH_ROWS), valid and
     * the caller's to change until the next call on the operator; 0 the end;
     * otherwise an error code. */
    int (*next)(op *o, size_t max, batch **out, err *e);
    void (*free)(op *o);
    /* Frees what the operator and its inputs hold from their last run
     * (a table), for an operator kept closed between rule evaluations
     * (op_sub_rest); NULL: they hold nothing then. */
    void (*rest)(op *o);
} op_vtable;

struct op {
    const op_vtable *vt;
};

static inline int op_open(op *o, err *e) {
    return o->vt->open(o, e);
}
/* Every batch an operator hands out counts its rows as work (base/meter.h):
 * how a query that produces rows without reading records (a hash join's
 * probe, a cross product) still polls its cancel. */
static inline int op_next(op *o, size_t max, batch **out, err *e) {
    MG_ASSERT(max >= 1 && max <= BATCH_ROWS);
    int rc = o->vt->next(o, max, out, e);
    MG_ASSERT(rc != 1 || ((*out)->count >= 1 && (*out)->count <= max));
    if (rc == 1 && (*out)->m && meter_tick((*out)->m, (*out)->count, e) != 0)
        return e->code;
    return rc;
}
static inline void op_free(op *o) {
    if (o)
        o->vt->free(o);
}
static inline void op_rest(op *o) {
    if (o && o->vt->rest)
        o->vt->rest(o);
}

/* ---- frames and batches (exec/frame.c) ----------------------------- */

/* `cap` rows of p for the operator at `step`; INT-000, or QRY-012 from
 * the meter. */
int batch_init(batch *b, const plan_conj *p, size_t cap, size_t step, meter *m, err *e);
void batch_free(batch *b);
static inline frame batch_row(const batch *b, size_t i) {
    return (frame){b->p, b->slot + i * b->p->slot_count,
                   b->record ? b->record + i * b->record_width : NULL};
}
/* Appends `n` rows, each with the part of `row` (a row of the step
 * before) the step keeps, and returns the first for the step to fill
 * (the others follow, p->slot_count values apart). */
static inline frame batch_push_rows(batch *b, const frame *row, size_t n) {
    MG_ASSERT(n <= b->cap - b->count);
    frame first = batch_row(b, b->count);
    b->count += n;
    if (!b->carry_count && !b->record_width)
        return first; /* nothing kept from the step before */
    frame f = first;
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < b->carry_count; c++)
            f.slot[b->carry[c]] = row->slot[b->carry[c]];
        if (b->record_width) {
            memcpy(f.record, row->record, b->record_width * sizeof *f.record);
            f.record += b->record_width;
        }
        f.slot += b->p->slot_count;
    }
    return first;
}
static inline frame batch_push(batch *b, const frame *row) {
    return batch_push_rows(b, row, 1);
}
/* Keeps row i (i >= count) as the batch's next row: how an operator that
 * drops rows of its child's batch compacts it in place. */
static inline void batch_keep(batch *b, size_t i) {
    MG_ASSERT(i >= b->count && i < b->cap);
    if (i != b->count) {
        frame from = batch_row(b, i), to = batch_row(b, b->count);
        memcpy(to.slot, from.slot, b->p->slot_count * sizeof *to.slot);
        if (b->record_width)
            memcpy(to.record, from.record, b->record_width * sizeof *to.record);
    }
    b->count++;
}

/* The value of variable `var` seen by clauses from `step` on: its first
 * slot in source order (language.md D12), or NULL when that slot is not filled yet. */
const value *frame_var_value(const frame *f, int var, size_t step);
/* Whether `v` may fill slot `s` at `step`: it must agree with every slot of
 * the same variable already filled — E1 when either is an expression
 * output (language.md D11), E2 otherwise. */
bool frame_agrees(const frame *f, int s, const value *v, size_t step);
/* A value some filled slot of `var` holds at `step`, or NULL. */
const value *frame_any_value(const frame *f, int var, size_t step);

/* ---- operators ----------------------------------------------------------- */

/* An operator's walk over its child's rows, one at a time across the
 * child's batches (joins and unions extend each row in turn). */
typedef struct child_rows {
    op *child;
    batch *b;  /* the child's batch, NULL before the first and after the end */
    size_t i;  /* the row of `b` being extended */
    frame row; /* that row */
} child_rows;

static inline void child_rows_open(child_rows *c) {
    c->b = NULL;
}

/* 1 with c->row the child's next row (asking it for `max` rows when a
 * new batch is needed), 0 at the child's end, or an error code. */
static inline int child_rows_next(child_rows *c, size_t max, err *e) {
    if (!c->b || ++c->i >= c->b->count) {
        int rc = op_next(c->child, max, &c->b, e);
        if (rc != 1) {
            c->b = NULL;
            return rc;
        }
        c->i = 0;
    }
    c->row = batch_row(c->b, c->i);
    return 1;
}

/* An operator that keeps some rows of its child's batches in place
 * (exec/op_select.c): filter, correlated pseudo pattern, anti-join. Each
 * embeds it first and gives op_select_open / op_select_next as its own. */
typedef struct op_select op_select;
struct op_select {
    op base;
    op *child;
    /* 1: keep the row (its step's slots filled), 0: drop it, else an error code. */
    int (*keep)(op_select *s, frame *row, err *e);
};
int op_select_open(op *o, err *e);
int op_select_next(op *o, size_t max, batch **out, err *e);
void op_select_rest(op *o);

/* Yields `input` (one row: the INPUT slots as the parent set them), then
 * the end. */
op *op_unit_new(batch *input);
/* Index-nested-loop join of `child` with pattern item `item` (a scan when
 * the child is a unit). */
op *op_join_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);
/* Hash join of `child` with a pattern item none of whose entity / value
 * positions is bound at its step: the pattern is read once. */
op *op_hashjoin_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);
/* Whether the hash join table of pattern `it` is kept across the rounds
 * of a rule evaluation (a stored attribute no rule derives). */
bool op_hashjoin_kept(const where_ctx *x, const plan_item *it);
/* Expression filter / binding (language.md §8.5). */
op *op_filter_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);
/* Whether expression clause `it` calls a host predicate (resolved when
 * its filter is built). */
bool op_filter_calls_host(const plan_item *it);
/* A pseudo-attribute pattern correlated with a real pattern (language.md §8.9, D16). */
op *op_pseudo_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);
/* not / not-join (language.md §8.7): keeps the rows whose body has no solution. */
op *op_antijoin_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);
/* or / or-join (language.md §8.6): de-duplicated union of the branches, joined (E2). */
op *op_union_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e);

/* A conjunction ready to run: the one row its leaf yields and its
 * pipeline (exec/op_build.c). */
typedef struct op_sub {
    batch input;
    op *root;
} op_sub;

int op_sub_init(where_ctx *x, op_sub *s, const plan_conj *p, err *e);
/* Whether s's operators, once built over x for p, may be opened again
 * for another query that copies its context into *x (exec/rule_eval.c
 * keeps rule bodies' operators so): every clause a pattern joined by
 * nested loops (which seeks at each open with what the context and the
 * AST hold then), by a hash join (which reads its table again in each
 * evaluation, and frees it at op_sub_rest) or an expression. Not: kept
 * scans (whether their table fits is decided when built), not / or
 * (their sub-pipelines' scans stay open after an early stop), pseudo
 * patterns, host predicates (resolved when built). */
bool op_sub_reusable(const where_ctx *x, const plan_conj *p);
void op_sub_free(op_sub *s);
/* Frees what s's operators hold from their last run (op_rest): they stay
 * built, closed. */
void op_sub_rest(op_sub *s);
/* Copies the parent's values into s's INPUT slots: its leaf's row. */
frame op_sub_input(op_sub *s, const plan_sub *ps, const frame *parent, size_t step);
/* Copies the parent's values into s's INPUT slots and restarts it. */
int op_sub_open(op_sub *s, const plan_sub *ps, const frame *parent, size_t step, err *e);

#endif
