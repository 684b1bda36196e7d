#include "exec/supported.h"

#include <stdbool.h>

static int supported_slot_error(const term *t, err *e) {
    return err_set(
        e, ERR(API, 10),
        "bind slot '$%.*s' needs a prepared query; plain execution does not accept bind slots",
        (int)t->name_len, t->name);
}

static const term *slot_in_expr(const ast_expr *x) {
    if (x->kind == EXPR_TERM)
        return x->arg.kind == TERM_SLOT ? &x->arg : NULL;
    for (size_t i = 0; i < x->argc; i++) {
        const term *t = slot_in_expr(&x->args[i]);
        if (t)
            return t;
    }
    return NULL;
}

static const term *slot_in_terms(const term *ts, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (ts[i].kind == TERM_SLOT)
            return &ts[i];
    return NULL;
}

static const term *slot_in_body(const ast_body *b);

static const term *slot_in_clause(const ast_clause *cl) {
    const term *t = NULL;
    switch (cl->kind) {
    case CL_PATTERN:
        for (int pos = 0; pos < 3 && !t; pos++) {
            const term *pt = pos == 0   ? &cl->as.pattern.e
                             : pos == 1 ? &cl->as.pattern.a
                                        : &cl->as.pattern.v;
            t = pt->kind == TERM_SLOT ? pt : NULL;
        }
        return t;
    case CL_EXPR: return slot_in_expr(&cl->as.expr.expr);
    case CL_INVOKE: return slot_in_terms(cl->as.invoke.args, cl->as.invoke.argc);
    case CL_NOT:
    case CL_NOT_JOIN: return slot_in_body(&cl->as.not_.body);
    case CL_OR:
    case CL_OR_JOIN:
        for (size_t i = 0; i < cl->as.or_.branch_count && !t; i++)
            t = slot_in_body(&cl->as.or_.branches[i]);
        return t;
    }
    return NULL;
}

static const term *slot_in_body(const ast_body *b) {
    for (size_t i = 0; i < b->count; i++) {
        const term *t = slot_in_clause(&b->items[i]);
        if (t)
            return t;
    }
    return NULL;
}

int exec_check_supported(const ast_query *q, err *e) {
    const term *slot = q->as_of == AS_OF_SLOT   ? &q->as_of_slot
                       : q->valid == VALID_SLOT ? &q->valid_slot
                                                : slot_in_body(&q->body);
    return slot ? supported_slot_error(slot, e) : 0;
}
