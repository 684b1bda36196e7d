/* A per-record pseudo-attribute pattern [E :db/X ?v] correlated with the
 * nearest real-attribute pattern on E before it in source order (language.md §8.9
 * rule 2, language.md D16): ?v is read from the record that pattern matched
 * in the current row, so each row yields exactly one row or none. */
#include <stdlib.h>

#include "exec/match.h"
#include "exec/op_scan.h"

typedef struct op_pseudo {
    op_select base;
    where_ctx *x;
    const plan_conj *p;
    size_t item, step;
} op_pseudo;

static int pseudo_keep(op_select *sel, frame *row, err *e) {
    (void)e;
    const op_pseudo *o = (const op_pseudo *)sel;
    const plan_item *it = &o->p->items[o->item];
    value v = pseudo_value(o->x, it->pseudo, &row->record[it->correlate]);
    if (!match_term(&it->pc.pattern->v, &v))
        return 0;
    int s = it->slot[2];
    if (s < 0)
        return 1;
    if (!frame_agrees(row, s, &v, o->step))
        return 0;
    row->slot[s] = v;
    return 1;
}

static void pseudo_free(op *base) {
    op_pseudo *o = (op_pseudo *)base;
    op_free(o->base.child);
    free(o);
}

static const op_vtable pseudo_vt = {op_select_open, op_select_next, pseudo_free, op_select_rest};

op *op_pseudo_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    (void)e;
    op_pseudo *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    *o = (op_pseudo){.base = {{&pseudo_vt}, child, pseudo_keep},
                     .x = x,
                     .p = p,
                     .item = item,
                     .step = p->step_of[item]};
    return &o->base.base;
}
