/* Expression clauses (language.md §8.5): [(expr)] keeps a row whose value is
 * truthy (language.md §8.5.2); [(expr) ?out] binds the value, or — when ?out already
 * holds a value — keeps the row only if they agree under E1 (decision
 * language.md D11). An evaluation failure (unbound variable, type mismatch, division
 * by zero, NaN result, a host predicate that is not registered) drops the
 * row (language.md §8.5.3); unregistered root predicates were rejected at plan time.
 *
 * A host predicate (language.md §12) answers a Boolean; its failure is an error of
 * the query (API-016 from the C API), not a dropped row. The predicates of
 * the clause are resolved once, when the filter is built, through the
 * query's scope (host/host_fns.h). */
#include <stdlib.h>

#include "exec/expr_eval.h"
#include "exec/op.h"
#include "host/host_fns.h"
#include "regex/regex.h"

/* The host predicate of each OP_HOST node of the clause, NULL when the
 * name is not registered. Expressions are tiny: a list searched by node. */
typedef struct host_call {
    const ast_expr *node;
    const host_fn *fn;
} host_call;

/* A variable term of the clause and its variable in the conjunction:
 * looked up once, not by name for every row. */
typedef struct var_term {
    const term *t;
    int var;
} var_term;

typedef struct op_filter {
    op_select base;
    const plan_conj *p;
    size_t item, step;
    host_call *calls;
    size_t call_count;
    var_term *vars;
    size_t var_count;
} op_filter;

/* EVAL_ERROR: a host callback failed and set the error. */
typedef enum eval_status { EVAL_OK, EVAL_FAIL, EVAL_OOM, EVAL_ERROR } eval_status;

static eval_status eval_term(const op_filter *o, const frame *row, const term *t, value *out) {
    if (t->kind == TERM_CONST) {
        *out = t->constant;
        return EVAL_OK;
    }
    int v = -1;
    for (size_t i = 0; i < o->var_count && v < 0; i++)
        if (o->vars[i].t == t)
            v = o->vars[i].var;
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

static const host_fn *host_of(const op_filter *o, const ast_expr *x) {
    for (size_t i = 0; i < o->call_count; i++)
        if (o->calls[i].node == x)
            return o->calls[i].fn;
    return NULL;
}

static eval_status eval_host(const op_filter *o, const ast_expr *x, const value *arg, value *out,
                             err *e) {
    const host_fn *f = host_of(o, x);
    if (!f)
        return EVAL_FAIL;
    const host_callbacks *cb = host_fn_callbacks(f);
    bool answer = false;
    if (cb->test(cb->ctx, arg, &answer, e) != 0)
        return EVAL_ERROR;
    *out = value_boolean(answer);
    return EVAL_OK;
}

static eval_status eval_expr(const op_filter *o, const frame *row, const ast_expr *x, value *out,
                             err *e) {
    if (x->kind == EXPR_TERM)
        return eval_term(o, row, &x->arg, out);
    if (x->argc == 0 || x->argc > 2 || (x->op == OP_HOST && x->argc != 1))
        return EVAL_FAIL;
    value args[2];
    for (size_t i = 0; i < x->argc; i++) {
        eval_status st = eval_expr(o, row, &x->args[i], &args[i], e);
        if (st != EVAL_OK)
            return st;
    }
    if (x->op == OP_HOST)
        return eval_host(o, x, &args[0], out, e);
    if (x->op == OP_MATCHES)
        return eval_matches(x, &args[0], out);
    return expr_apply(x->op, args, out) == EXPR_OK ? EVAL_OK : EVAL_FAIL;
}

/* Whether `row` survives, binding the output if any. */
static eval_status filter_row(const op_filter *o, frame *row, err *e) {
    const plan_item *it = &o->p->items[o->item];
    const ast_expr_clause *c = &it->clause->as.expr;
    value v;
    eval_status st = eval_expr(o, row, &c->expr, &v, e);
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
    eval_status st = filter_row((op_filter *)s, row, e);
    if (st == EVAL_OOM)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (st == EVAL_ERROR)
        return e->code ? e->code : err_set(e, ERR(INT, 0), "a host predicate failed");
    return st == EVAL_OK;
}

static void filter_free(op *base) {
    op_filter *o = (op_filter *)base;
    op_free(o->base.child);
    free(o->calls);
    free(o->vars);
    free(o);
}

static size_t count_var_terms(const ast_expr *x) {
    size_t n = x->kind == EXPR_TERM && x->arg.kind == TERM_VAR;
    for (size_t i = 0; x->kind == EXPR_CALL && i < x->argc; i++)
        n += count_var_terms(&x->args[i]);
    return n;
}

static void list_var_terms(op_filter *o, const ast_expr *x) {
    if (x->kind == EXPR_TERM && x->arg.kind == TERM_VAR) {
        o->vars[o->var_count++] = (var_term){&x->arg,
                                             plan_find_var(o->p, x->arg.name, x->arg.name_len)};
        return;
    }
    for (size_t i = 0; x->kind == EXPR_CALL && i < x->argc; i++)
        list_var_terms(o, &x->args[i]);
}

/* The variable of each variable term of the clause (-1: not in the
 * conjunction, which evaluation treats as unbound). */
static int filter_vars(op_filter *o, err *e) {
    const ast_expr *x = &o->p->items[o->item].clause->as.expr.expr;
    size_t n = count_var_terms(x);
    if (n == 0)
        return 0;
    o->vars = malloc(n * sizeof *o->vars);
    if (!o->vars)
        return err_set(e, ERR(INT, 0), "out of memory");
    list_var_terms(o, x);
    return 0;
}

static size_t count_calls(const ast_expr *x) {
    size_t n = x->kind == EXPR_CALL && x->op == OP_HOST;
    for (size_t i = 0; x->kind == EXPR_CALL && i < x->argc; i++)
        n += count_calls(&x->args[i]);
    return n;
}

bool op_filter_calls_host(const plan_item *it) {
    return count_calls(&it->clause->as.expr.expr) > 0;
}

static int resolve_calls(op_filter *o, host_scope *scope, const ast_expr *x, err *e) {
    if (x->kind != EXPR_CALL)
        return 0;
    if (x->op == OP_HOST) {
        host_call *c = &o->calls[o->call_count++];
        c->node = x;
        int rc = host_scope_find(scope, HOST_PREDICATE, x->name, x->name_len, &c->fn, e);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < x->argc; i++) {
        int rc = resolve_calls(o, scope, &x->args[i], e);
        if (rc)
            return rc;
    }
    return 0;
}

/* The host predicates the clause calls, looked up in the query's scope. */
static int filter_resolve(op_filter *o, host_scope *scope, err *e) {
    const ast_expr *x = &o->p->items[o->item].clause->as.expr.expr;
    size_t n = count_calls(x);
    if (n == 0)
        return 0;
    o->calls = calloc(n, sizeof *o->calls);
    if (!o->calls)
        return err_set(e, ERR(INT, 0), "out of memory");
    return resolve_calls(o, scope, x, e);
}

static const op_vtable filter_vt = {op_select_open, op_select_next, filter_free, op_select_rest};

op *op_filter_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    op_filter *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    *o = (op_filter){.base = {{&filter_vt}, child, filter_keep},
                     .p = p,
                     .item = item,
                     .step = p->step_of[item]};
    if (filter_resolve(o, x->host, e) != 0 || filter_vars(o, e) != 0) {
        o->base.child = NULL; /* the caller still owns it */
        filter_free(&o->base.base);
        return NULL;
    }
    return &o->base.base;
}
