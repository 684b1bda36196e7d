/* Building a conjunction's pipeline from its plan (plan/conj.h): one
 * operator per clause in plan order over a unit leaf, each pattern joined
 * as its plan_access says. */
#include <stdlib.h>

#include "exec/hj_table.h"
#include "exec/op.h"

/* In a semi-naive delta round the delta comes first and is small, but a
 * stored pattern joined to it through a variable value only cannot always
 * seek (a keyword value also matches refs, E2): reading that pattern once
 * into a table keeps the round linear in the records. */
static bool delta_value_join(const where_ctx *x, const plan_item *it) {
    return x->delta_clause != NULL && it->kind == PK_PATTERN &&
           it->pc.pattern->v.kind != TERM_CONST && it->access.known[2];
}

/* A rule body's first pattern with neither entity nor value known scans
 * its attribute in every round: its records may be kept for the whole
 * evaluation (kept_scan). */
static bool may_keep_scan(const where_ctx *x, const plan_item *it, size_t step) {
    return step == 1 && !it->access.known[0] && !it->access.known[2] && op_hashjoin_kept(x, it);
}

/* The pattern is joined by a hash join whatever the tables hold. */
static bool hashed(const where_ctx *x, const plan_item *it, size_t step) {
    return it->access.join == PLAN_JOIN_HASH ||
           (step > 1 && !it->access.known[0] && delta_value_join(x, it));
}

/* When the records of may_keep_scan's pattern are kept (read now if not
 * yet, exec/hj_table.h), they are read and decoded once. 1 kept, 0 not
 * (the scan streams), or a storage error. */
static int kept_scan(where_ctx *x, const plan_item *it, size_t step, err *e) {
    if (!may_keep_scan(x, it, step))
        return 0;
    const value *known[3] = {NULL, &it->pc.pattern->a.constant, NULL};
    hj_key key = {.attr = known[1], .key_pos = -1, .attr_hash = hj_key_attr_hash(known[1])};
    const hj_table *t = NULL;
    int rc = hj_cache_load(x->tables, x, it, &key, known, &t, e);
    return rc != 0 ? rc : t != NULL;
}

static op *build_pattern(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    const plan_item *it = &p->items[item];
    size_t step = p->step_of[item];
    if (hashed(x, it, step))
        return op_hashjoin_new(x, p, item, child, e);
    int kept = kept_scan(x, it, step, e);
    if (kept > 1)
        return NULL;
    return kept == 1 ? op_hashjoin_new(x, p, item, child, e) : op_join_new(x, p, item, child, e);
}

static op *build_item(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    const plan_item *it = &p->items[item];
    switch (it->kind) {
    case PK_PATTERN:
    case PK_INVOKE: return build_pattern(x, p, item, child, e);
    case PK_PSEUDO:
        return it->correlate >= 0 ? op_pseudo_new(x, p, item, child, e)
                                  : build_pattern(x, p, item, child, e);
    case PK_EXPR: return op_filter_new(x, p, item, child, e);
    case PK_NOT: return op_antijoin_new(x, p, item, child, e);
    case PK_OR: return op_union_new(x, p, item, child, e);
    }
    return NULL;
}

/* The pipeline of `p` over a leaf that yields `input`. NULL with `e` set
 * on failure. */
static op *build_pipeline(where_ctx *x, const plan_conj *p, batch *input, err *e) {
    op *cur = op_unit_new(input);
    for (size_t step = 1; cur && step <= p->item_count; step++) {
        op *next = build_item(x, p, p->order[step - 1], cur, e);
        if (!next)
            op_free(cur);
        cur = next;
    }
    if (!cur && e->code == 0)
        err_set(e, ERR(INT, 0), "out of memory");
    return cur;
}

static bool item_reusable(const where_ctx *x, const plan_conj *p, size_t item) {
    const plan_item *it = &p->items[item];
    size_t step = p->step_of[item];
    switch (it->kind) {
    case PK_PATTERN:
    case PK_INVOKE: return hashed(x, it, step) || !may_keep_scan(x, it, step);
    case PK_EXPR: return !op_filter_calls_host(it);
    default: return false;
    }
}

bool op_sub_reusable(const where_ctx *x, const plan_conj *p) {
    for (size_t i = 0; i < p->item_count; i++)
        if (!item_reusable(x, p, i))
            return false;
    return true;
}

int op_sub_init(where_ctx *x, op_sub *s, const plan_conj *p, err *e) {
    s->root = NULL;
    int rc = batch_init(&s->input, p, 1, 0, x->m, e);
    if (rc != 0)
        return rc;
    s->root = build_pipeline(x, p, &s->input, e);
    if (!s->root)
        batch_free(&s->input);
    return s->root ? 0 : e->code;
}

void op_sub_rest(op_sub *s) {
    op_rest(s->root);
}

void op_sub_free(op_sub *s) {
    op_free(s->root);
    s->root = NULL;
    batch_free(&s->input);
}

frame op_sub_input(op_sub *s, const plan_sub *ps, const frame *parent, size_t step) {
    frame in = batch_row(&s->input, 0);
    for (size_t i = 0; i < ps->in_count; i++) {
        const value *v = frame_var_value(parent, ps->in_parent_var[i], step);
        if (!v)
            v = frame_any_value(parent, ps->in_parent_var[i], step);
        in.slot[ps->in_slot[i]] = v ? *v : value_null();
    }
    return in;
}

int op_sub_open(op_sub *s, const plan_sub *ps, const frame *parent, size_t step, err *e) {
    op_sub_input(s, ps, parent, step);
    return op_open(s->root, e);
}
