/* A pattern-and-filters not body probed without its pipeline (see
 * sub_probe.h). */
#include "exec/sub_probe.h"

#include <stdlib.h>

/* Stored facts only, as sub_set.c's: derived facts and the tables rule
 * evaluation keeps are read through the pipeline's operators. */
static bool stored_only(const where_ctx *x) {
    return !x->derived && !x->delta_clause && !x->tables;
}

/* The first step a plain stored pattern joined by seeks, every later
 * step a filter. */
static bool has_shape(const plan_conj *c) {
    const plan_item *first = &c->items[c->order[0]];
    if (first->kind != PK_PATTERN || first->access.join != PLAN_JOIN_NESTED_LOOP)
        return false;
    for (size_t step = 2; step <= c->item_count; step++)
        if (c->items[c->order[step - 1]].kind != PK_EXPR)
            return false;
    return true;
}

static int build_tests(sub_probe *s, where_ctx *x, const plan_conj *c, err *e) {
    s->tests = calloc(c->item_count - 1 ? c->item_count - 1 : 1, sizeof *s->tests);
    if (!s->tests)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t step = 2; step <= c->item_count; step++) {
        op *f = op_filter_new(x, c, c->order[step - 1], NULL, e);
        if (!f)
            return e->code ? e->code : err_set(e, ERR(INT, 0), "out of memory");
        s->tests[s->test_count++] = (op_select *)f;
    }
    return 0;
}

/* Whether the pattern's entity variable has just two slots, the body's
 * INPUT slot and the pattern's own (so that agreeing means agreeing with
 * the input). */
static bool entity_from_input(const plan_conj *c, const plan_item *it) {
    if (it->slot[0] < 0)
        return false;
    const plan_var *v = &c->vars[c->slots[it->slot[0]].var];
    if (v->slot_count != 2)
        return false;
    int other = v->slots[0] == it->slot[0] ? v->slots[1] : v->slots[0];
    return c->slots[other].kind == SLOT_INPUT;
}

int sub_probe_init(sub_probe *s, where_ctx *x, const plan_sub *ps, err *e) {
    *s = (sub_probe){0};
    const plan_conj *c = ps->conj;
    if (!stored_only(x) || c->item_count == 0 || !has_shape(c))
        return 0;
    size_t item = c->order[0];
    s->step = c->step_of[item];
    pattern_binding_init(&s->bind, c, item, s->step);
    if (s->bind.record) /* a pseudo pattern reads its record: the pipeline's */
        return 0;
    int rc = batch_init(&s->row, c, 1, s->step, x->m, e);
    if (rc == 0)
        rc = build_tests(s, x, c, e);
    if (rc != 0) {
        sub_probe_free(s);
        return rc;
    }
    s->it = &c->items[item];
    s->entity_from_input = (s->bind.agree & 1u) && entity_from_input(c, s->it);
    return 0;
}

/* Whether the input is a Ref of the reader, which the seek binds the
 * entity to: every record read has that entity (the same Ref), so none
 * needs the entity's agreement check. */
static bool entity_fixed(const sub_probe *s, const where_ctx *x, const value *entity) {
    return s->entity_from_input && entity && entity->type == VT_REF && entity->stored &&
           entity->as.stored.src == store_reader_source(x->r);
}

/* The binding for this probe: without the entity's agreement check when
 * the seek fixed the entity. */
static const pattern_binding *binding(sub_probe *s, bool fixed, pattern_binding *local) {
    if (!fixed)
        return &s->bind;
    *local = s->bind;
    local->agree &= ~1u;
    return local;
}

/* The filters' verdict on the row: 1 kept, 0 dropped, or an error. */
static int passes(sub_probe *s, frame *row, err *e) {
    int rc = 1;
    for (size_t i = 0; i < s->test_count && rc == 1; i++)
        rc = s->tests[i]->keep(s->tests[i], row, e);
    return rc;
}

/* Whether the record the seek found decides the probe without a read:
 * none (the seek found no record), or one alone in its run (visible or
 * not) whose V is in no stretch or in an exact one (*seen, *found
 * whether it is visible). */
static bool judge_sought(sub_probe *s, const where_ctx *x, bool *found, bool *seen) {
    fact_ids first;
    bool alone = false;
    int rc = pattern_scan_sought(&s->ps, &first, &alone);
    if (rc == 0)
        return true;
    sub_range_verdict where = rc == 1 && alone ? sub_ranges_find(s->ranges, first.v)
                                               : SUB_RANGE_CHECKED;
    if (where == SUB_RANGE_CHECKED)
        return false;
    *seen = true;
    *found = where == SUB_RANGE_EXACT && visibility_shows_alone(&x->vis, &first);
    return true;
}

/* The records of the opened scan read as identifiers and judged by
 * their V field (s->ranges): only a record of a stretch that is not exact
 * is decoded and passed through the filters. 1, 0 at the end, or an error. */
static int probe_ids(sub_probe *s, where_ctx *x, const frame *in, bool *found, err *e) {
    const fact_ids *ids;
    int rc = 0;
    bool seen = false;
    if (judge_sought(s, x, found, &seen)) {
        if (!seen)
            return 0;
        if (meter_tick(x->m, 1, e) != 0) /* the one record judged counts as read */
            return e->code;
        return *found ? 1 : 0;
    }
    while (!*found && (rc = pattern_scan_next_ids(&s->ps, &ids, e)) == 1) {
        if (meter_tick(x->m, 1, e) != 0) /* a record read, as the rows of the pipeline count */
            return e->code;
        sub_range_verdict where = sub_ranges_find(s->ranges, ids->v);
        value vals[3];
        *found = where == SUB_RANGE_EXACT;
        if (where == SUB_RANGE_CHECKED && ((rc = store_reader_values(x->r, ids, vals, e)) != 0 ||
                                           (rc = sub_probe_record(s, in, vals, found, e)) != 1))
            return rc;
    }
    return *found ? 1 : rc;
}

int sub_probe_test(sub_probe *s, where_ctx *x, const frame *in, bool *found, err *e) {
    if (s->known_slots != in->slot) {
        pattern_known(in, s->it, s->step, s->known);
        s->known_slots = in->slot;
    }
    const value **known = s->known;
    bool fixed = entity_fixed(s, x, known[0]);
    pattern_binding local;
    const pattern_binding *b = binding(s, fixed, &local);
    *found = false;
    if (fixed && s->ranges && s->ranges->count == 0)
        return 1; /* no record passes the filters */
    int rc = pattern_scan_reopen(&s->ps, x, s->it, known, e);
    if (rc == 1 && fixed && s->ranges)
        rc = probe_ids(s, x, in, found, e);
    while (rc == 1 && !*found) {
        s->row.count = 0;
        rc = pattern_scan_fill(&s->ps, &s->row, 1, in, b, s->step, e);
        if (rc == 1 && meter_tick(x->m, 1, e) != 0) /* a row handed on, as op_next counts */
            rc = e->code;
        frame row = batch_row(&s->row, 0);
        int kept = rc == 1 ? passes(s, &row, e) : 0;
        if (kept == 1)
            *found = true;
        else if (kept != 0)
            rc = kept;
    }
    return rc == 0 || rc == 1 ? 1 : rc;
}

int sub_probe_record(sub_probe *s, const frame *in, const value vals[3], bool *kept, err *e) {
    pattern_binding b = s->bind;
    b.agree &= ~1u; /* the entity is the record's own */
    s->row.count = 0;
    *kept = false;
    if (!pattern_bind(&s->row, in, &b, s->step, vals, NULL))
        return 1;
    frame row = batch_row(&s->row, 0);
    int rc = passes(s, &row, e);
    *kept = rc == 1;
    return rc == 0 || rc == 1 ? 1 : rc;
}

void sub_probe_free(sub_probe *s) {
    pattern_scan_release(&s->ps); /* its read-ahead block, kept between probes */
    for (size_t i = 0; i < s->test_count; i++)
        op_free(&s->tests[i]->base);
    free(s->tests);
    batch_free(&s->row);
    *s = (sub_probe){0};
}
