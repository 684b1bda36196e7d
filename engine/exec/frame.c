/* Frames: the slots of one conjunction's row and the pairwise agreement
 * rule between a variable's occurrences (plan/conj.h). */
#include <stdlib.h>

#include "exec/op.h"

/* One block: the records, then the slots. */
int frame_init(frame *f, const plan_conj *p, err *e) {
    f->p = p;
    f->record = calloc(1, (p->item_count + 1) * sizeof *f->record +
                              (p->slot_count + 1) * sizeof *f->slot);
    f->slot = f->record ? (value *)(f->record + p->item_count + 1) : NULL;
    return f->record ? 0 : err_set(e, ERR(INT, 0), "out of memory");
}

void frame_free(frame *f) {
    free(f->record);
    f->slot = NULL;
    f->record = NULL;
}

const value *frame_var_value(const frame *f, int var, size_t step) {
    const plan_var *v = &f->p->vars[var];
    if (v->slot_count == 0 || !plan_slot_set(f->p, v->slots[0], step))
        return NULL;
    return &f->slot[v->slots[0]];
}

const value *frame_any_value(const frame *f, int var, size_t step) {
    const plan_var *v = &f->p->vars[var];
    for (size_t i = 0; i < v->slot_count; i++)
        if (plan_slot_set(f->p, v->slots[i], step))
            return &f->slot[v->slots[i]];
    return NULL;
}

bool frame_agrees(const frame *f, int s, const value *val, size_t step) {
    const plan_conj *p = f->p;
    const plan_var *v = &p->vars[p->slots[s].var];
    bool strict_self = p->slots[s].kind == SLOT_EXPR;
    for (size_t i = 0; i < v->slot_count; i++) {
        int other = v->slots[i];
        if (other == s || !plan_slot_set(p, other, step))
            continue;
        bool strict = strict_self || p->slots[other].kind == SLOT_EXPR;
        const value *w = &f->slot[other];
        if (strict ? !value_equal_strict(w, val) : !value_equal_entity(w, val))
            return false;
    }
    return true;
}
