/* not / not-join (language.md §8.7): a row of the child survives iff the body,
 * run with the row's values for the variables it takes from outside (the
 * join variables; the body's other variables are existential, decision
 * language.md D14), has no solution. A failure inside the body (an expression that
 * cannot be evaluated) only drops that body row, i.e. counts as "no
 * match". The body is asked for one row: it stops at its first solution. */
#include <stdlib.h>

#include "exec/op.h"

typedef struct op_antijoin {
    op_select base;
    const plan_conj *p;
    size_t item, step;
    op_sub body;
} op_antijoin;

static int anti_keep(op_select *s, frame *row, err *e) {
    op_antijoin *o = (op_antijoin *)s;
    batch *found;
    int rc = op_sub_open(&o->body, &o->p->items[o->item].subs[0], row, o->step, e);
    if (rc == 0)
        rc = op_next(o->body.root, 1, &found, e);
    return rc == 0 ? 1 : rc == 1 ? 0 : rc;
}

static void anti_free(op *base) {
    op_antijoin *o = (op_antijoin *)base;
    op_sub_free(&o->body);
    op_free(o->base.child);
    free(o);
}

static const op_vtable anti_vt = {op_select_open, op_select_next, anti_free};

op *op_antijoin_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    op_antijoin *o = malloc(sizeof *o);
    if (!o) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    *o = (op_antijoin){.base = {{&anti_vt}, NULL, anti_keep}, .p = p, .item = item,
                       .step = p->step_of[item]};
    if (op_sub_init(x, &o->body, p->items[item].subs[0].conj, e) != 0) {
        anti_free(&o->base.base);
        return NULL;
    }
    o->base.child = child;
    return &o->base.base;
}
