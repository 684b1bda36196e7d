/* Expression clauses (spec 8.5): [(expr)] keeps a row whose value is
 * truthy (8.5.2); [(expr) ?out] binds the value, or — when ?out already
 * holds a value — keeps the row only if they agree under E1 (decision
 * D11). An evaluation failure (unbound variable, type mismatch, division
 * by zero, NaN result, a host predicate: there is no registry yet) drops
 * the row (8.5.3); unknown root predicates were rejected at plan time. */
#include <stdlib.h>

#include "exec/expr_eval.h"
#include "exec/op.h"
#include "regex/regex.h"

typedef struct op_filter {
    op_select base;
    const plan_conj *p;
    size_t item, step;
} op_filter;

typedef enum eval_status { EVAL_OK, EVAL_FAIL, EVAL_OOM } eval_status;

static eval_status eval_term(const op_filter *o, const frame *row, const term *t, value *out) {
    if (t->kind == TERM_CONST) {
        *out = t->constant;
        return EVAL_OK;
    }
    int v = t->kind == TERM_VAR ? plan_find_var(o->p, t->name, t->name_len) : -1;
    const value *val = v >= 0 ? frame_var_value(row, v, o->step) : NULL;
    if (!val)
        return EVAL_FAIL;
    *out = *val;
    /* Expressions read bytes; a failure is the source's to report (where.c). */
    return value_resolve(out, NULL) == 0 ? EVAL_OK : EVAL_FAIL;
}

static eval_status eval_matches(const ast_expr *x, const value *subject, value *out) {
    if (subject->type != VT_STRING || !x->regex)
        return EVAL_FAIL;
    int m = regex_match(x->regex, subject->as.str.ptr, subject->as.str.len);
    if (m < 0)
        return EVAL_OOM;
    *out = value_boolean(m == 1);
    return EVAL_OK;
}

static eval_status eval_expr(const op_filter *o, const frame *row, const ast_expr *x, value *out) {
    if (x->kind == EXPR_TERM)
        return eval_term(o, row, &x->arg, out);
    if (x->op == OP_HOST || x->argc == 0 || x->argc > 2)
        return EVAL_FAIL;
    value args[2];
    for (size_t i = 0; i < x->argc; i++) {
        eval_status st = eval_expr(o, row, &x->args[i], &args[i]);
        if (st != EVAL_OK)
            return st;
    }
    if (x->op == OP_MATCHES)
        return eval_matches(x, &args[0], out);
    return expr_apply(x->op, args, out) == EXPR_OK ? EVAL_OK : EVAL_FAIL;
}

/* Whether `row` survives, binding the output if any. */
static eval_status filter_row(const op_filter *o, frame *row) {
    const plan_item *it = &o->p->items[o->item];
    const ast_expr_clause *c = &it->clause->as.expr;
    value v;
    eval_status st = eval_expr(o, row, &c->expr, &v);
    if (st != EVAL_OK)
        return st;
    if (!c->has_out)
        return expr_truthy(&v) ? EVAL_OK : EVAL_FAIL;
    int s = it->slot[0];
    if (s < 0) /* [(expr) _]: bound to nothing, kept whatever the value */
        return EVAL_OK;
    if (!frame_agrees(row, s, &v, o->step))
        return EVAL_FAIL;
    row->slot[s] = v;
    return EVAL_OK;
}

static int filter_keep(op_select *s, frame *row, err *e) {
    eval_status st = filter_row((op_filter *)s, row);
    if (st == EVAL_OOM)
        return err_set(e, ERR(INT, 0), "out of memory");
    return st == EVAL_OK;
}

static void filter_free(op *base) {
    op_filter *o = (op_filter *)base;
    op_free(o->base.child);
    free(o);
}

static const op_vtable filter_vt = {op_select_open, op_select_next, filter_free};

op *op_filter_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    (void)x;
    (void)e;
    op_filter *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    *o = (op_filter){.base = {{&filter_vt}, child, filter_keep}, .p = p, .item = item,
                     .step = p->step_of[item]};
    return &o->base.base;
}
