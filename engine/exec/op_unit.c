/* The leaf of every pipeline: one row, holding whatever the parent put in
 * the INPUT slots (nothing at the top), then the end. */
#include <stdlib.h>

#include "exec/op.h"

typedef struct op_unit {
    op base;
    bool done;
} op_unit;

static int unit_open(op *o, err *e) {
    (void)e;
    ((op_unit *)o)->done = false;
    return 0;
}

static int unit_next(op *o, err *e) {
    (void)e;
    op_unit *u = (op_unit *)o;
    if (u->done)
        return 0;
    u->done = true;
    return 1;
}

static void unit_free(op *o) {
    free(o);
}

static const op_vtable unit_vt = {unit_open, unit_next, unit_free};

op *op_unit_new(void) {
    op_unit *u = malloc(sizeof *u);
    if (!u)
        return NULL;
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *u = (op_unit){0};
    u->base.vt = &unit_vt;
    return &u->base;
}
