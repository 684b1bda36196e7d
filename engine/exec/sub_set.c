/* A one-pattern not body or or-branch read once as a set of entities
 * (see sub_set.h). */
#include "exec/sub_set.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "exec/op_scan.h"
#include "plan/estimate.h"

/* One probe (a scan opened, a B-tree descent and the record read: ~6,000
 * instructions at 1M facts under callgrind) costs about what reading this
 * many records into the set does (~450 each: decoded, judged visible,
 * hashed). Rounded down: where the two are close, probing keeps its
 * memory and its early stops. */
#define PROBE_RECORDS 12
#define SET_OP_NAME "not / or set"

/* V may be anything the pattern does not share: a constant, `_`, or a
 * variable of its own (the body has one clause, so nothing else reads it). */
static bool own_value(const plan_item *it) {
    const term *v = &it->pc.pattern->v;
    return v->kind == TERM_CONST || v->kind == TERM_WILDCARD ||
           (v->kind == TERM_VAR && it->pc.var[2] >= 0 && it->pc.var[2] != it->pc.var[0]);
}

/* Stored facts only: derived ones (rules) are not entities of the store,
 * and rule evaluation keeps its operators across rounds. */
static bool stored_only(const where_ctx *x) {
    return !x->derived && !x->delta_clause && !x->tables;
}

void sub_set_init(sub_set *s, const where_ctx *x, const plan_sub *ps) {
    memset(s, 0, sizeof *s);
    s->estimate = SIZE_MAX;
    const plan_conj *c = ps->conj;
    if (!stored_only(x) || c->item_count != 1 || ps->in_count != 1)
        return;
    const plan_item *it = &c->items[0];
    const ast_pattern *p = it->pc.pattern;
    if (it->kind == PK_PATTERN && p->e.kind == TERM_VAR && it->pc.var[0] >= 0 &&
        c->slots[ps->in_slot[0]].var == it->pc.var[0] && p->a.kind == TERM_CONST &&
        p->a.constant.type == VT_KEYWORD && own_value(it))
        s->it = it;
}

static size_t slot_of(const sub_set *s, uint64_t id) {
    return (size_t)hash_mix(id) & (s->cap - 1);
}

static bool contains(const sub_set *s, uint64_t id) {
    if (s->cap == 0)
        return false;
    for (size_t k = slot_of(s, id); s->slots[k]; k = (k + 1) & (s->cap - 1))
        if (s->slots[k] == id + 1)
            return true;
    return false;
}

static void put(sub_set *s, uint64_t id) {
    size_t k = slot_of(s, id);
    while (s->slots[k] && s->slots[k] != id + 1)
        k = (k + 1) & (s->cap - 1);
    if (!s->slots[k])
        s->count++;
    s->slots[k] = id + 1;
}

/* Doubles the table (charged to the meter). 0, or -1: no room (out of
 * memory, or the query's memory limit: the table is kept only while as
 * much again is left, so that a query the seeks would answer does not
 * fail for want of what the table took). */
static int grow(sub_set *s, meter *m) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    err ignored = {0};
    if (cap > SIZE_MAX / 4 / sizeof *s->slots ||
        meter_charge(m, 2 * cap * sizeof *s->slots, SET_OP_NAME, &ignored)) {
        err_clear(&ignored);
        return -1;
    }
    meter_release(m, cap * sizeof *s->slots);
    uint64_t *old = s->slots;
    size_t old_cap = s->cap;
    s->slots = calloc(cap, sizeof *s->slots);
    if (!s->slots) {
        meter_release(m, cap * sizeof *s->slots);
        s->slots = old;
        return -1;
    }
    s->cap = cap;
    s->count = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            put(s, old[i] - 1);
    free(old);
    meter_release(m, s->charged);
    s->charged = cap * sizeof *s->slots;
    return 0;
}

static void drop(sub_set *s, meter *m) {
    free(s->slots);
    meter_release(m, s->charged);
    s->slots = NULL;
    s->cap = s->count = s->charged = 0;
}

/* Reads the body's records into the set. 0 (s->built, or s->it cleared
 * when the set cannot be kept: the rows are probed), or an error. */
static int build(sub_set *s, where_ctx *x, err *e) {
    const ast_pattern *p = s->it->pc.pattern;
    const value *known[3] = {NULL, &p->a.constant, p->v.kind == TERM_CONST ? &p->v.constant : NULL};
    pattern_scan ps;
    pattern_scan_init(&ps);
    value out[3];
    size_t n = 0;
    int rc = pattern_scan_open(&ps, x, s->it, known, e), room = 0;
    while (rc == 1 && room == 0 && (rc = pattern_scan_next(&ps, out, NULL, e)) == 1) {
        store_bound b = {0};
        rc = store_bound_entity(x->r, &out[0], &b, e);
        if (rc == 0)
            room = -1; /* not an entity of the store: keep probing */
        if (rc == 1 && (s->count + 1) * 2 > s->cap)
            room = grow(s, x->m);
        if (rc == 1 && room == 0)
            put(s, b.ids.e);
        if (rc == 1 && ++n % CANCEL_POLL_TICKS == 0 && meter_tick(x->m, CANCEL_POLL_TICKS, e) != 0)
            rc = e->code;
    }
    pattern_scan_release(&ps);
    if ((rc != 0 && rc != 1) || room != 0) {
        drop(s, x->m);
        s->it = NULL;
        return rc != 0 && rc != 1 ? rc : 0;
    }
    s->built = true;
    return 0;
}

int sub_set_test(sub_set *s, where_ctx *x, const plan_sub *ps, const frame *parent, size_t step,
                 bool *found, err *e) {
    if (!s->it)
        return 0;
    if (!s->built) {
        if (s->estimate == SIZE_MAX)
            s->estimate = plan_estimate_constants(x->r, NULL, s->it, SIZE_MAX - 1);
        if (s->estimate == SIZE_MAX || ++s->probes * PROBE_RECORDS < s->estimate)
            return 0;
        int rc = build(s, x, e);
        if (rc != 0 || !s->built)
            return rc;
    }
    const value *v = frame_var_value(parent, ps->in_parent_var[0], step);
    if (!v)
        v = frame_any_value(parent, ps->in_parent_var[0], step);
    store_bound b = {0};
    int rc = v ? store_bound_entity(x->r, v, &b, e) : 0;
    if (rc != 0 && rc != 1)
        return rc;
    *found = rc == 1 && contains(s, b.ids.e);
    return 1;
}

void sub_set_free(sub_set *s, meter *m) {
    drop(s, m);
    s->it = NULL;
}
