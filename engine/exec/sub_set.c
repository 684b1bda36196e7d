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
/* A pattern-and-filters body's probe (sub_probe.h) costs ~4,600; a record
 * of an exact stretch ~340 (identifiers only), one the filters must see
 * ~800 (decoded, bound into a row and tested): 13 and 5 per probe. Half
 * that: the set is read only once the probes have cost about twice the
 * read, since the probes paid before it are lost (not_probe at 1M, 1,667
 * outer rows against a stretch of 18.5K records, sits at the break-even:
 * reading at 13 cost 15.8M instructions a query where probing costs
 * 10.5M). */
#define PROBE_FILTERED_RECORDS 3
#define PROBE_ID_RECORDS 6
/* The same ratios in full, for a choice made before any row is probed:
 * when the plan expects more outer rows than reading the body costs in
 * probes at these, the set is read at the first row (nothing is lost to
 * probes first). A probe of a pattern-and-filters body costs ~3,600
 * ("Negation probes, round 9"), a record of an exact stretch ~245 (read
 * a visible stretch at a time: read_exact), one the filters must see
 * ~800: 14.7 and 4.5, rounded down (a close call keeps the probes). */
#define ID_RECORDS_PER_PROBE 13
#define CHECKED_RECORDS_PER_PROBE 4
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

/* The pattern [?e :attr ...] with ?e the body's one input. */
static bool entity_pattern(const plan_sub *ps, const plan_item *it) {
    const ast_pattern *p = it->pc.pattern;
    return it->kind == PK_PATTERN && p->e.kind == TERM_VAR && it->pc.var[0] >= 0 &&
           ps->conj->slots[ps->in_slot[0]].var == it->pc.var[0] && p->a.kind == TERM_CONST &&
           p->a.constant.type == VT_KEYWORD;
}

/* A pattern-and-filters probe whose filters read neither the input nor
 * anything but the pattern's value variable, which has no other slot. */
static bool filtered_shape(const plan_conj *c, const sub_probe *probe) {
    const plan_item *it = probe->it;
    int v = it->pc.var[2];
    if (!probe->entity_from_input || it->pc.pattern->v.kind != TERM_VAR || v < 0 ||
        v == it->pc.var[0] || c->vars[v].slot_count != 1)
        return false;
    for (size_t step = 2; step <= c->item_count; step++) {
        const plan_item *f = &c->items[c->order[step - 1]];
        if (f->clause->as.expr.has_out)
            return false;
        for (size_t i = 0; i < f->need_count; i++)
            if (f->needs[i] != v)
                return false;
    }
    return true;
}

void sub_set_init(sub_set *s, const where_ctx *x, const plan_sub *ps, sub_probe *probe,
                  const plan_conj *outer, size_t step) {
    memset(s, 0, sizeof *s);
    s->estimate = SIZE_MAX;
    s->outer = outer;
    s->outer_step = step;
    const plan_conj *c = ps->conj;
    if (!stored_only(x) || ps->in_count != 1)
        return;
    if (c->item_count == 1 && entity_pattern(ps, &c->items[0]) && own_value(&c->items[0]))
        s->it = &c->items[0];
    else if (c->item_count > 1 && probe && probe->it && entity_pattern(ps, probe->it) &&
             filtered_shape(c, probe)) {
        s->it = probe->it;
        s->filtered = probe;
        sub_ranges_of(c, s->it, s->it->pc.var[2], &s->ranges);
        probe->ranges = &s->ranges;
    }
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

/* Grows the table to `cap` slots (charged to the meter). 0, or -1: no room (out of
 * memory, or the query's memory limit: the table is kept only while as
 * much again is left, so that a query the seeks would answer does not
 * fail for want of what the table took). */
static int grow_to(sub_set *s, meter *m, size_t cap) {
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

static int grow(sub_set *s, meter *m) {
    return grow_to(s, m, s->cap ? s->cap * 2 : 1024);
}

/* Room for the records the estimate expects, set aside at once rather
 * than doubled into (each doubling puts every entity again). */
static void reserve(sub_set *s, meter *m) {
    size_t cap = 1024;
    while (cap < s->records * 2 && cap < SIZE_MAX / 8)
        cap *= 2;
    if (cap > s->cap)
        grow_to(s, m, cap); /* no room: it grows as it fills, or stops */
}

static void drop(sub_set *s, meter *m) {
    free(s->slots);
    meter_release(m, s->charged);
    s->slots = NULL;
    s->cap = s->count = s->charged = 0;
}

/* `n` more records read (*polled since the last poll): the cancel is
 * polled as op_next would. 1, or an error. */
static int tick(where_ctx *x, size_t *polled, size_t n, err *e) {
    *polled += n;
    if (*polled < CANCEL_POLL_TICKS)
        return 1;
    size_t ticks = *polled;
    *polled = 0;
    return meter_tick(x->m, ticks, e) != 0 ? e->code : 1;
}

/* Room for `n` more entities: 1, 0 when the set cannot grow (then the
 * rows are probed). */
static int room(sub_set *s, meter *m, size_t n) {
    while ((s->count + n) * 2 > s->cap)
        if (grow(s, m) != 0)
            return 0;
    return 1;
}

/* next_entity's answers besides 1 (an entity), 0 (the end) and errors. */
enum { PASS_OVER = 2, NOT_STORED = -1 };

/* The next record of the open scan that belongs in the set: 1 with *id,
 * PASS_OVER a record the filters drop, 0 at the end, NOT_STORED a value
 * that is no entity of the store (keep probing), or an error. */
static int next_entity(sub_set *s, where_ctx *x, pattern_scan *ps, const frame *in, uint64_t *id,
                       err *e) {
    value out[3];
    bool kept = true;
    int rc = pattern_scan_next(ps, out, NULL, e);
    if (rc == 1 && s->filtered)
        rc = sub_probe_record(s->filtered, in, out, &kept, e);
    if (rc != 1 || !kept)
        return rc == 1 ? PASS_OVER : rc;
    store_bound b = {0};
    rc = store_bound_entity(x->r, &out[0], &b, e);
    *id = b.ids.e;
    return rc == 0 ? NOT_STORED : rc;
}

/* Reads the records of one opened scan into the set, each judged (its
 * values, the filters): 1 all read, 0 the set cannot be kept, or an
 * error. */
static int read_judged(sub_set *s, where_ctx *x, pattern_scan *ps, const frame *in, err *e) {
    size_t polled = 0;
    uint64_t id;
    int rc;
    while ((rc = next_entity(s, x, ps, in, &id, e)) == 1 || rc == PASS_OVER) {
        if (rc == 1 && !room(s, x->m, 1))
            return 0;
        if (rc == 1)
            put(s, id);
        if ((rc = tick(x, &polled, 1, e)) != 1)
            return rc;
    }
    return rc == 0 ? 1 : rc == NOT_STORED ? 0 : rc;
}

/* The same for a scan whose every record belongs (an exact stretch): its
 * identifiers only, a stretch of them at a time. */
static int read_exact(sub_set *s, where_ctx *x, pattern_scan *ps, err *e) {
    size_t polled = 0, n;
    const fact_ids *ids;
    int rc;
    while ((rc = pattern_scan_next_ids_run(ps, &ids, &n, e)) == 1) {
        if (!room(s, x->m, n))
            return 0;
        for (size_t i = 0; i < n; i++)
            put(s, ids[i].e);
        if ((rc = tick(x, &polled, n, e)) != 1)
            return rc;
    }
    return rc == 0 ? 1 : rc;
}

static int read_scan(sub_set *s, where_ctx *x, pattern_scan *ps, bool exact, const frame *in,
                     err *e) {
    return exact ? read_exact(s, x, ps, e) : read_judged(s, x, ps, in, e);
}

/* Reads the body's records (in each of its stretches, when filtered). */
static int read_body(sub_set *s, where_ctx *x, pattern_scan *ps, const frame *in, err *e) {
    const ast_pattern *p = s->it->pc.pattern;
    const value *known[3] = {NULL, &p->a.constant, p->v.kind == TERM_CONST ? &p->v.constant : NULL};
    if (!s->filtered) {
        int rc = pattern_scan_open(ps, x, s->it, known, e);
        return rc == 1 ? read_scan(s, x, ps, false, in, e) : rc == 0 ? 1 : rc;
    }
    int rc = 1;
    for (size_t i = 0; i < s->ranges.count && rc == 1; i++) {
        rc = pattern_scan_open_range(ps, x, s->it, known, &s->ranges.r[i], e);
        if (rc == 1)
            rc = read_scan(s, x, ps, s->ranges.exact[i], in, e);
        else if (rc == 0)
            rc = 1;
        pattern_scan_close(ps);
    }
    return rc;
}

/* Reads the body's records into the set. 0 (s->built, or s->it cleared
 * when the set cannot be kept: the rows are probed), or an error. */
static int build(sub_set *s, where_ctx *x, const frame *in, err *e) {
    pattern_scan ps;
    pattern_scan_init(&ps);
    reserve(s, x->m);
    int rc = read_body(s, x, &ps, in, e);
    pattern_scan_release(&ps);
    if (rc != 1) {
        drop(s, x->m);
        s->it = NULL;
        return rc == 0 ? 0 : rc;
    }
    s->built = true;
    return 0;
}

/* Whether reading the filtered body's stretches of attribute `attr`
 * costs fewer probes than the rows the plan expects: the stretches'
 * records counted from the tree (store_count_value_range), as far as
 * needed to know; then they are the records the set expects. */
static bool filtered_read_pays(sub_set *s, where_ctx *x, uint64_t attr, size_t rows) {
    double probes = 0;
    size_t records = 0;
    err ignored = {0};
    for (size_t i = 0; i < s->ranges.count && probes < (double)rows; i++) {
        size_t per = s->ranges.exact[i] ? ID_RECORDS_PER_PROBE : CHECKED_RECORDS_PER_PROBE, n;
        size_t cap = rows < SIZE_MAX / per ? rows * per : SIZE_MAX - 1;
        if (store_count_value_range(x->r, attr, s->ranges.r[i].lo, s->ranges.r[i].hi, cap, &n,
                                    &ignored) != 1) {
            err_clear(&ignored);
            return false; /* not known: the rows decide as they come */
        }
        probes += (double)n / (double)per;
        records += n;
    }
    if (probes >= (double)rows)
        return false;
    s->records = records; /* the set's room (reserve): the count is the closer */
    return true;
}

/* What reading the body costs, in probes (SIZE_MAX: not known); 0 when
 * it pays already for the rows the plan expects. */
static size_t estimate(sub_set *s, where_ctx *x) {
    size_t rows = plan_estimate_rows_at(x->r, s->outer, s->outer_step);
    if (!s->filtered) {
        size_t n = plan_estimate_constants(x->r, NULL, s->it, SIZE_MAX - 1);
        s->records = n == SIZE_MAX ? 0 : n;
        if (n != SIZE_MAX && rows != SIZE_MAX && n / PROBE_RECORDS < rows)
            return 0;
        return n == SIZE_MAX ? n : n / PROBE_RECORDS;
    }
    store_bound b = {0};
    err ignored = {0};
    int rc = store_bound_attribute(x->r, &s->it->pc.pattern->a.constant, &b, &ignored);
    double probes = rc == 1 && b.has_a ? 0 : rc == 0 ? 0 : -1; /* 0: nothing stored matches */
    for (size_t i = 0; i < s->ranges.count && rc == 1 && b.has_a && probes >= 0; i++) {
        size_t n = 0;
        if (store_estimate_value_range(x->r, b.ids.a, s->ranges.r[i].lo, s->ranges.r[i].hi,
                                       SIZE_MAX - 1, &n, &ignored) != 0) {
            probes = -1;
            break;
        }
        probes += (double)n / (s->ranges.exact[i] ? PROBE_ID_RECORDS : PROBE_FILTERED_RECORDS);
        s->records += n;
    }
    err_clear(&ignored);
    if (probes > 0 && rows != SIZE_MAX && filtered_read_pays(s, x, b.ids.a, rows))
        return 0;
    return probes >= 0 && probes < (double)(SIZE_MAX / 2) ? (size_t)probes : SIZE_MAX;
}

int sub_set_test(sub_set *s, where_ctx *x, const plan_sub *ps, const frame *parent, size_t step,
                 const frame *in, bool *found, err *e) {
    if (!s->it)
        return 0;
    if (!s->built) {
        if (s->probes++ == 0 && (s->estimate = estimate(s, x)) == SIZE_MAX)
            s->it = NULL; /* not known: probe every row */
        if (!s->it || s->probes <= s->estimate)
            return 0;
        int rc = build(s, x, in, e);
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
