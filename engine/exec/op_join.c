/* Index-nested-loop join: for each row of the child, the pattern's records
 * are sought with every position the row (or a constant) fixes, so a bound
 * entity seeks EAVT, a bound attribute and value AVET, a ref value VAET,
 * an attribute alone AEVT (store_scan_open picks the index). Over a unit
 * child this is the plain scan of the pattern. */
#include <stdlib.h>

#include "exec/op_scan.h"

typedef struct op_join {
    op base;
    where_ctx *x;
    frame *f;
    size_t item, step;
    op *child;
    pattern_scan ps;
    bool scanning;
} op_join;

static int join_open(op *o, err *e) {
    op_join *j = (op_join *)o;
    pattern_scan_close(&j->ps);
    j->scanning = false;
    return op_open(j->child, e);
}

/* Opens the scan for the child's next row; 1 opened, 0 child exhausted. */
static int next_outer(op_join *j, err *e) {
    for (;;) {
        int rc = op_next(j->child, e);
        if (rc != 1)
            return rc;
        const value *known[3];
        pattern_known(j->f, &j->f->p->items[j->item], j->step, known);
        rc = pattern_scan_open(&j->ps, j->x, &j->f->p->items[j->item], known, e);
        if (rc != 0)
            return rc;
    }
}

static int join_next(op *o, err *e) {
    op_join *j = (op_join *)o;
    for (;;) {
        if (!j->scanning) {
            int rc = next_outer(j, e);
            if (rc != 1)
                return rc;
            j->scanning = true;
        }
        value vals[3];
        fact rec;
        int rc = pattern_scan_next(&j->ps, vals, &rec, e);
        if (rc == 1 && pattern_bind(j->f, j->item, j->step, vals, &rec))
            return 1;
        if (rc == 1)
            continue;
        pattern_scan_close(&j->ps);
        j->scanning = false;
        if (rc != 0)
            return rc;
    }
}

static void join_free(op *o) {
    op_join *j = (op_join *)o;
    pattern_scan_close(&j->ps);
    op_free(j->child);
    free(j);
}

static const op_vtable join_vt = {join_open, join_next, join_free};

op *op_join_new(where_ctx *x, frame *f, size_t item, op *child) {
    op_join *j = malloc(sizeof *j); /* set in full below */
    if (!j)
        return NULL;
    *j = (op_join){.base = {&join_vt}, .x = x, .f = f, .item = item,
                   .step = f->p->step_of[item], .child = child};
    return &j->base;
}
