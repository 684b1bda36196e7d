/* The leaf of every pipeline: one row, holding whatever the parent put in
 * the INPUT slots (nothing at the top), then the end. */
#include <stdlib.h>

#include "exec/op.h"

typedef struct op_unit {
    op base;
    batch *input;
    bool done;
} op_unit;

static int unit_open(op *o, err *e) {
    (void)e;
    ((op_unit *)o)->done = false;
    return 0;
}

/* The row is handed out afresh each time: the caller may have dropped it. */
static int unit_next(op *o, size_t max, batch **out, err *e) {
    (void)max;
    (void)e;
    op_unit *u = (op_unit *)o;
    if (u->done)
        return 0;
    u->done = true;
    u->input->count = 1;
    *out = u->input;
    return 1;
}

static void unit_free(op *o) {
    free(o);
}

static const op_vtable unit_vt = {unit_open, unit_next, unit_free, NULL};

op *op_unit_new(batch *input) {
    op_unit *u = malloc(sizeof *u);
    if (!u)
        return NULL;
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *u = (op_unit){.base = {&unit_vt}, .input = input};
    return &u->base;
}
