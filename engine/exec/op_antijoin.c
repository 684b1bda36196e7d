/* not / not-join (language.md §8.7): a row of the child survives iff the body,
 * run with the row's values for the variables it takes from outside (the
 * join variables; the body's other variables are existential, decision
 * language.md D14), has no solution. A failure inside the body (an expression that
 * cannot be evaluated) only drops that body row, i.e. counts as "no
 * match". The body is asked for one row: it stops at its first solution.
 * A one-pattern body, or a pattern followed by filters on its value, may
 * instead be read once as a set of entities when enough rows come to pay
 * for it (exec/sub_set.h); until then a pattern followed by filters is
 * probed without its pipeline (exec/sub_probe.h). */
#include <stdlib.h>

#include "exec/op.h"
#include "exec/sub_probe.h"
#include "exec/sub_set.h"

typedef struct op_antijoin {
    op_select base;
    where_ctx *x;
    const plan_conj *p;
    size_t item, step;
    op_sub body;
    sub_set set;
    sub_probe probe;
} op_antijoin;

static int anti_keep(op_select *s, frame *row, err *e) {
    op_antijoin *o = (op_antijoin *)s;
    const plan_sub *ps = &o->p->items[o->item].subs[0];
    bool in_set;
    frame in = op_sub_input(&o->body, ps, row, o->step);
    int rc = sub_set_test(&o->set, o->x, ps, row, o->step, &in, &in_set, e);
    if (rc != 0)
        return rc == 1 ? !in_set : rc;
    if (o->probe.it) {
        rc = sub_probe_test(&o->probe, o->x, &in, &in_set, e);
        return rc == 1 ? !in_set : rc;
    }
    batch *found;
    rc = op_sub_open(&o->body, ps, row, o->step, e);
    if (rc == 0)
        rc = op_next(o->body.root, 1, &found, e);
    return rc == 0 ? 1 : rc == 1 ? 0 : rc;
}

static void anti_free(op *base) {
    op_antijoin *o = (op_antijoin *)base;
    sub_set_free(&o->set, o->x->m);
    sub_probe_free(&o->probe);
    op_sub_free(&o->body);
    op_free(o->base.child);
    free(o);
}

static const op_vtable anti_vt = {op_select_open, op_select_next, anti_free, op_select_rest};

op *op_antijoin_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    op_antijoin *o = malloc(sizeof *o);
    if (!o) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    *o = (op_antijoin){.base = {{&anti_vt}, NULL, anti_keep},
                       .x = x,
                       .p = p,
                       .item = item,
                       .step = p->step_of[item]};
    if (op_sub_init(x, &o->body, p->items[item].subs[0].conj, e) != 0 ||
        sub_probe_init(&o->probe, x, &p->items[item].subs[0], e) != 0) {
        anti_free(&o->base.base);
        return NULL;
    }
    sub_set_init(&o->set, x, &p->items[item].subs[0], &o->probe, p, o->step);
    o->base.child = child;
    return &o->base.base;
}
