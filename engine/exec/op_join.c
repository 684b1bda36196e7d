/* Index-nested-loop join: for each row of the child, the pattern's records
 * are sought with every position the row (or a constant) fixes, so a bound
 * entity seeks EAVT, a bound attribute and value AVET, a ref value VAET,
 * an attribute alone AEVT (store_scan_open picks the index). Over a unit
 * child this is the plain scan of the pattern.
 *
 * During rule evaluation the records of one entity under a stored
 * attribute no rule derives are kept after their first seek
 * (where_ctx.tables): a body that reads a demand or guard relation in full
 * seeks the same entities again in every round. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/pattern_join.h"

typedef struct op_join {
    op base;
    pattern_join join;
    bool keep;            /* op_hashjoin_kept: fixed while the operator lives */
    uint64_t attr_hash;   /* of the kept records' key (when keep) */
    const hj_table *kept; /* the row's records come from here instead of ps */
    /* The binding for them: every kept record's entity is the row's
     * (sought by its UUID), so E2 agreement there needs no check. */
    pattern_binding kept_bind;
    size_t cursor;
    bool scanning;
    pattern_scan ps; /* last: its record buffers are not cleared */
} op_join;

static int join_open(op *o, err *e) {
    op_join *j = (op_join *)o;
    pattern_scan_close(&j->ps);
    j->scanning = false;
    child_rows_open(&j->join.in);
    return op_open(j->join.in.child, e);
}

/* A known value (always a variable's: kept patterns have no constant
 * one) narrows the seek; walking an entity's records instead is cheaper
 * only while they are few. pattern_bind checks the value either way. */
#define KEPT_WALK_MAX 16

/* The kept records of the known entity, read on first use; NULL when
 * they are not kept (then the join seeks). */
static const hj_table *kept_records(op_join *j, const value *known[3], err *e, int *rc) {
    const plan_item *it = &j->join.p->items[j->join.item];
    uuid128 u;
    const hj_table *t = NULL;
    *rc = 0;
    if (!known[0] || !j->keep || !value_as_entity(known[0], &u))
        return NULL;
    hj_key key = {.attr = &it->pc.pattern->a.constant,
                  .entity = &u,
                  .key_pos = -1,
                  .attr_hash = j->attr_hash};
    const value *entity_only[3] = {known[0], known[1], NULL};
    *rc = hj_cache_load(j->join.x->tables, j->join.x, it, &key, entity_only, &t, e);
    return t && (!known[2] || t->count <= KEPT_WALK_MAX) ? t : NULL;
}

/* Opens the records for the child's next row; 1 opened, 0 child exhausted. */
static int next_outer(op_join *j, size_t max, err *e) {
    for (;;) {
        int rc = child_rows_next(&j->join.in, max, e);
        if (rc != 1)
            return rc;
        const value *known[3];
        pattern_known(&j->join.in.row, &j->join.p->items[j->join.item], j->join.step, known);
        j->kept = kept_records(j, known, e, &rc);
        if (rc != 0)
            return rc;
        if (j->kept) {
            j->cursor = hj_table_first(j->kept, NULL);
            return 1;
        }
        rc = pattern_scan_open(&j->ps, j->join.x, &j->join.p->items[j->join.item], known, e);
        if (rc != 0)
            return rc;
    }
}

static int join_next(op *o, size_t max, batch **out, err *e) {
    op_join *j = (op_join *)o;
    j->join.out.count = 0;
    while (j->join.out.count < max) {
        if (!j->scanning) {
            int rc = next_outer(j, max, e);
            if (rc == 0)
                break;
            if (rc != 1)
                return rc;
            j->scanning = true;
        }
        pattern_join *pj = &j->join;
        int rc = j->kept ? pattern_join_fill(pj, &j->kept_bind, j->kept, &j->cursor, max)
                         : pattern_scan_fill(&j->ps, &pj->out, max, &pj->in.row, &pj->bind,
                                             pj->step, e);
        if (rc == 1)
            continue; /* the batch is full */
        pattern_scan_close(&j->ps);
        j->scanning = false;
        if (rc != 0)
            return rc;
    }
    *out = &j->join.out;
    return j->join.out.count > 0;
}

static void join_free(op *o) {
    op_join *j = (op_join *)o;
    pattern_scan_release(&j->ps);
    pattern_join_free(&j->join);
    free(j);
}

static void join_rest(op *o) {
    op_rest(((op_join *)o)->join.in.child);
}

static const op_vtable join_vt = {join_open, join_next, join_free, join_rest};

op *op_join_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    op_join *j = malloc(sizeof *j);
    if (!j)
        return NULL;
    memset(j, 0, offsetof(op_join, ps)); /* not the scan's record buffers */
    pattern_scan_init(&j->ps);
    j->base.vt = &join_vt;
    j->keep = op_hashjoin_kept(x, &p->items[item]);
    if (pattern_join_init(&j->join, x, p, item, child, e) != 0) {
        free(j);
        return NULL;
    }
    if (j->keep)
        j->attr_hash = hj_key_attr_hash(&p->items[item].pc.pattern->a.constant);
    j->kept_bind = j->join.bind;
    j->kept_bind.agree &= ~1u;
    return &j->base;
}
