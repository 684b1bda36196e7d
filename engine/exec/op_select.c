/* The operators that keep some rows of their child's batches (filter,
 * correlated pseudo pattern, anti-join): each row is judged in turn and
 * the survivors are moved down in place, so no row is copied twice. */
#include "exec/op.h"

int op_select_open(op *o, err *e) {
    return op_open(((op_select *)o)->child, e);
}

void op_select_rest(op *o) {
    op_rest(((op_select *)o)->child);
}

int op_select_next(op *o, size_t max, batch **out, err *e) {
    op_select *s = (op_select *)o;
    batch *b;
    int rc;
    while ((rc = op_next(s->child, max, &b, e)) == 1) {
        size_t n = b->count;
        b->count = 0;
        for (size_t i = 0; i < n; i++) {
            frame row = batch_row(b, i);
            rc = s->keep(s, &row, e);
            if (rc == 1)
                batch_keep(b, i);
            else if (rc != 0)
                return rc;
        }
        if (b->count > 0) {
            *out = b;
            return 1;
        }
    }
    return rc;
}
