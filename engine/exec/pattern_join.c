#include "exec/pattern_join.h"

int pattern_join_init(pattern_join *j, where_ctx *x, const plan_conj *p, size_t item, op *child,
                      err *e) {
    *j = (pattern_join){.x = x,
                        .p = p,
                        .item = item,
                        .step = p->step_of[item],
                        .in = {.child = child}};
    int rc = batch_init(&j->out, p, BATCH_ROWS, j->step, x->m, e);
    if (rc == 0)
        pattern_binding_init(&j->bind, p, item, j->step);
    return rc;
}

void pattern_join_free(pattern_join *j) {
    batch_free(&j->out);
    op_free(j->in.child);
}

bool pattern_join_fill(pattern_join *j, const pattern_binding *b, const hj_table *t, size_t *cursor,
                       size_t max) {
    while (*cursor != HJ_END && j->out.count < max) {
        const hj_entry *en = &t->entries[*cursor];
        const fact *rec = hj_table_record(t, *cursor);
        *cursor = en->next;
        pattern_bind(&j->out, &j->in.row, b, j->step, en->vals, rec);
    }
    return *cursor != HJ_END;
}
