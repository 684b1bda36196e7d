/* not / not-join (spec 8.7): a row of the child survives iff the body,
 * run with the row's values for the variables it takes from outside (the
 * join variables; the body's other variables are existential, decision
 * D14), has no solution. A failure inside the body (an expression that
 * cannot be evaluated) only drops that body row, i.e. counts as "no
 * match". The body stops at its first solution. */
#include <stdlib.h>

#include "exec/op.h"

typedef struct op_antijoin {
    op base;
    frame *f;
    size_t item, step;
    op *child;
    op_sub body;
} op_antijoin;

static int anti_open(op *base, err *e) {
    return op_open(((op_antijoin *)base)->child, e);
}

static int anti_next(op *base, err *e) {
    op_antijoin *o = (op_antijoin *)base;
    const plan_sub *ps = &o->f->p->items[o->item].subs[0];
    int rc;
    while ((rc = op_next(o->child, e)) == 1) {
        rc = op_sub_open(&o->body, ps, o->f, o->step, e);
        if (rc == 0)
            rc = op_next(o->body.root, e);
        if (rc == 0)
            return 1;
        if (rc != 1)
            return rc;
    }
    return rc;
}

static void anti_free(op *base) {
    op_antijoin *o = (op_antijoin *)base;
    op_sub_free(&o->body);
    op_free(o->child);
    free(o);
}

static const op_vtable anti_vt = {anti_open, anti_next, anti_free};

op *op_antijoin_new(where_ctx *x, frame *f, size_t item, op *child, err *e) {
    op_antijoin *o = calloc(1, sizeof *o);
    if (!o) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    *o = (op_antijoin){.base = {&anti_vt}, .f = f, .item = item, .step = f->p->step_of[item], .child = child};
    if (op_sub_init(x, &o->body, f->p->items[item].subs[0].conj, e) != 0) {
        o->child = NULL;
        anti_free(&o->base);
        return NULL;
    }
    return &o->base;
}
