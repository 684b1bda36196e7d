/* A per-record pseudo-attribute pattern [E :db/X ?v] correlated with the
 * nearest real-attribute pattern on E before it in source order (spec 8.9
 * rule 2, decision D16): ?v is read from the record that pattern matched
 * in the current row, so each row yields exactly one row or none. */
#include <stdlib.h>

#include "exec/match.h"
#include "exec/op_scan.h"

typedef struct op_pseudo {
    op base;
    where_ctx *x;
    frame *f;
    size_t item, step;
    op *child;
} op_pseudo;

static bool pseudo_row(op_pseudo *o) {
    const plan_item *it = &o->f->p->items[o->item];
    value v = pseudo_value(o->x, it->pseudo, &o->f->record[it->correlate]);
    if (!match_term(&it->pc.pattern->v, &v))
        return false;
    int s = it->slot[2];
    if (s < 0)
        return true;
    if (!frame_agrees(o->f, s, &v, o->step))
        return false;
    o->f->slot[s] = v;
    return true;
}

static int pseudo_open(op *base, err *e) {
    return op_open(((op_pseudo *)base)->child, e);
}

static int pseudo_next(op *base, err *e) {
    op_pseudo *o = (op_pseudo *)base;
    int rc;
    while ((rc = op_next(o->child, e)) == 1)
        if (pseudo_row(o))
            return 1;
    return rc;
}

static void pseudo_free(op *base) {
    op_pseudo *o = (op_pseudo *)base;
    op_free(o->child);
    free(o);
}

static const op_vtable pseudo_vt = {pseudo_open, pseudo_next, pseudo_free};

op *op_pseudo_new(where_ctx *x, frame *f, size_t item, op *child) {
    op_pseudo *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    *o = (op_pseudo){.base = {&pseudo_vt}, .x = x, .f = f, .item = item, .step = f->p->step_of[item], .child = child};
    return &o->base;
}
