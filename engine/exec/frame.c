/* Batches of a conjunction's rows, and the pairwise agreement rule between
 * a variable's occurrences in one row (plan/conj.h). */
#include <stdlib.h>

#include "exec/op.h"

/* Whether a pseudo pattern reads the record another pattern matched. */
static bool reads_records(const plan_conj *p) {
    for (size_t i = 0; i < p->item_count; i++)
        if (p->items[i].kind == PK_PSEUDO && p->items[i].correlate >= 0)
            return true;
    return false;
}

static size_t batch_bytes(const batch *b) {
    return b->cap * (b->p->slot_count * sizeof *b->slot + b->record_width * sizeof *b->record) +
           b->p->slot_count * sizeof *b->carry;
}

/* One block: the records, the slots, then the carried slots' numbers. */
int batch_init(batch *b, const plan_conj *p, size_t cap, size_t step, meter *m, err *e) {
    *b = (batch){.p = p, .cap = cap, .record_width = reads_records(p) ? p->item_count : 0};
    size_t bytes = batch_bytes(b);
    int rc = meter_charge(m, bytes, "batch", e);
    if (rc != 0)
        return rc;
    fact *block = malloc(bytes + sizeof *b->slot);
    if (!block) {
        meter_release(m, bytes);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    b->m = m;
    b->record = b->record_width ? block : NULL;
    b->slot = (value *)(block + cap * b->record_width);
    b->carry = (int *)(b->slot + cap * p->slot_count);
    for (size_t s = 0; s < p->slot_count; s++)
        if (plan_slot_set(p, (int)s, step))
            b->carry[b->carry_count++] = (int)s;
    return 0;
}

void batch_free(batch *b) {
    if (!b->slot)
        return;
    meter_release(b->m, batch_bytes(b));
    free(b->record ? (void *)b->record : (void *)b->slot);
    *b = (batch){0};
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
