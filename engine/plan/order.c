#include "plan/conj.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct estimate {
    size_t records;
    int bound_positions;
    size_t cost, out; /* rule plans: the work of the step and the rows after it */
} estimate;

static bool position_bound(const plan_clause *c, int pos, const bool *bound) {
    const term *t = pos == 0 ? &c->pattern->e : pos == 1 ? &c->pattern->a : &c->pattern->v;
    if (t->kind == TERM_CONST || t->kind == TERM_NEVER)
        return true;
    return c->var[pos] >= 0 && bound[c->var[pos]];
}

/* Index counts stop here: beyond it the exact size no longer changes the
 * order much, and counting would cost more than it saves. */
#define ESTIMATE_CAP 4096

/* Records under one bound position, counting at most `cap` (callers pass
 * one more than the best count so far: beyond it the exact size cannot
 * change the choice), or SIZE_MAX when it cannot be counted (the scan that
 * follows reports any storage error). */
static size_t count_bound(store_reader *r, const store_bound *b, size_t cap) {
    size_t n;
    err ignored = {0};
    int rc = store_count(r, b, cap < ESTIMATE_CAP ? cap : ESTIMATE_CAP, &n, &ignored);
    err_clear(&ignored);
    return rc == 0 ? n : SIZE_MAX;
}

/* Records reachable through the entity position, or SIZE_MAX. */
static size_t entity_estimate(store_reader *r, const plan_clause *c, const bool *bound, size_t cap) {
    const term *t = &c->pattern->e;
    uuid128 id;
    store_bound b = {.has_e = true};
    err ignored = {0};
    if (t->kind == TERM_NEVER)
        return 0;
    if (t->kind == TERM_CONST) {
        if (!value_as_entity(&t->constant, &id))
            return 0;
        int rc = store_reader_entity_id(r, &id, &b.ids.e, &ignored);
        err_clear(&ignored);
        return rc == 1 ? count_bound(r, &b, cap) : rc == 0 ? 0 : SIZE_MAX;
    }
    if (c->var[0] >= 0 && bound[c->var[0]]) {
        uint64_t entities = store_reader_entity_count(r);
        size_t n = entities ? (size_t)(store_reader_fact_count(r) / entities) : 0;
        return n ? n : 1;
    }
    return SIZE_MAX;
}

static size_t effective_cap(size_t cap) {
    return cap < ESTIMATE_CAP ? cap : ESTIMATE_CAP;
}

/* A cached count standing for count_bound(.., cap), or SIZE_MAX. A count
 * that stopped at its cap C still answers any cap <= C (the count stops
 * there again); exact counts answer as they always did. */
static size_t cached_count(const plan_count_cache *cc, uint64_t attr, size_t cap) {
    for (size_t i = 0; cc && i < cc->used; i++) {
        if (cc->attr[i] != attr)
            continue;
        if (!cc->capped[i])
            return cc->count[i];
        if (effective_cap(cap) <= cc->count[i])
            return effective_cap(cap);
    }
    return SIZE_MAX;
}

static void cache_count(plan_count_cache *cc, uint64_t attr, size_t n, size_t cap) {
    if (!cc || n == SIZE_MAX)
        return;
    bool capped = n >= effective_cap(cap);
    for (size_t i = 0; i < cc->used; i++)
        if (cc->attr[i] == attr) { /* a higher cap than the kept one */
            cc->count[i] = n;
            cc->capped[i] = capped;
            return;
        }
    if (cc->used < PLAN_COUNT_CACHE_SIZE) {
        cc->attr[cc->used] = attr;
        cc->capped[cc->used] = capped;
        cc->count[cc->used++] = n;
    }
}

/* count_bound through the hint's cache (plan_hint.counts): a rule body
 * is planned many times per query over one snapshot. */
static size_t count_attribute(store_reader *r, const plan_hint *hint, const store_bound *b,
                              size_t cap) {
    plan_count_cache *cc = hint ? hint->counts : NULL;
    size_t n = cached_count(cc, b->ids.a, cap);
    if (n != SIZE_MAX)
        return n;
    n = count_bound(r, b, cap);
    cache_count(cc, b->ids.a, n, cap);
    return n;
}

/* Records reachable through a constant attribute, or SIZE_MAX. */
static size_t attribute_estimate(store_reader *r, const plan_hint *hint, const plan_clause *c,
                                 size_t cap) {
    const term *t = &c->pattern->a;
    store_bound b = {.has_a = true};
    err ignored = {0};
    if (t->kind == TERM_NEVER)
        return 0;
    if (t->kind != TERM_CONST)
        return SIZE_MAX;
    if (t->constant.type == VT_REF) /* may name a keyword attribute (E4) */
        return SIZE_MAX;
    if (t->constant.type != VT_KEYWORD)
        return 0;
    int rc = store_reader_text_id(r, t->constant.as.str.ptr, t->constant.as.str.len, &b.ids.a,
                                  &ignored);
    err_clear(&ignored);
    return rc == 1 ? count_attribute(r, hint, &b, cap) : rc == 0 ? 0 : SIZE_MAX;
}

static size_t add_capped(size_t a, size_t b) {
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Derived rows (plan_hint): a seek by entity or value finds few of them. */
static size_t with_derived(const plan_hint *hint, const plan_item *it, const bool *bound,
                           size_t stored) {
    if (!hint || !hint->derived_rows)
        return stored;
    bool instead = false;
    size_t rows = hint->derived_rows(hint->ctx, it, &instead);
    if (rows > 1 && (position_bound(&it->pc, 0, bound) || position_bound(&it->pc, 2, bound)))
        rows = 1;
    return instead ? rows : add_capped(stored, rows);
}

static size_t mul_capped(size_t a, size_t b) {
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* Rule plans only (derived relation sizes change between rounds, so the
 * join order must follow them): the work of running `it` over `rows` rows.
 * An entity seek, a constant value or an indexed derived relation costs a
 * probe per row; a stored pattern joined by a variable value only is read
 * once into a hash table (exec/op_build.c); anything else is read again
 * for every row (a cross product). */
static void rule_cost(const plan_item *it, const bool *bound, size_t rows, estimate *est) {
    const plan_clause *c = &it->pc;
    bool value_const = c->pattern->v.kind == TERM_CONST;
    est->out = rows;
    if (position_bound(c, 0, bound) || value_const ||
        (it->kind == PK_INVOKE && position_bound(c, 2, bound)))
        est->cost = rows;
    else if (position_bound(c, 2, bound))
        est->cost = add_capped(est->records, rows);
    else
        est->cost = est->out = mul_capped(rows, est->records ? est->records : 1);
}

/* `cap`: counts stop there (see count_bound). */
static estimate estimate_clause(store_reader *s, const plan_hint *hint, const plan_item *it,
                                const bool *bound, size_t cap) {
    const plan_clause *c = &it->pc;
    estimate est = {(size_t)store_reader_fact_count(s), 0, 0, 0};
    size_t by_entity = entity_estimate(s, c, bound, cap);
    if (by_entity < cap)
        cap = by_entity + 1;
    /* A pseudo-attribute is never stored: its keyword narrows nothing. */
    size_t by_attr = it->kind == PK_PSEUDO ? SIZE_MAX : attribute_estimate(s, hint, c, cap);
    if (by_entity < est.records)
        est.records = by_entity;
    if (by_attr < est.records)
        est.records = by_attr;
    est.records = with_derived(hint, it, bound, est.records);
    if (c->pattern->v.kind == TERM_NEVER)
        est.records = 0;
    for (int pos = 0; pos < 3; pos++)
        est.bound_positions += position_bound(c, pos, bound);
    return est;
}

/* Rule plans compare the cost of the step first (rule_cost). */
static bool better(const plan_hint *hint, estimate a, estimate b) {
    if (hint && hint->derived_rows && a.cost != b.cost)
        return a.cost < b.cost;
    if (a.records != b.records)
        return a.records < b.records;
    return a.bound_positions > b.bound_positions;
}

static bool is_scan(const plan_item *it) {
    return it->kind == PK_PATTERN || it->kind == PK_INVOKE ||
           (it->kind == PK_PSEUDO && it->correlate < 0);
}

/* Can `it` run once the items with a step run? Its inputs' representative
 * slots (decision D12) must be filled; a correlated pseudo pattern needs
 * its real pattern. A variable with no slot at all can never be filled:
 * the clause then fails per row instead of blocking the plan. */
static bool ready(const plan_conj *c, const plan_item *it) {
    if (it->kind == PK_PSEUDO && it->correlate >= 0)
        return c->step_of[it->correlate] != 0;
    for (size_t i = 0; i < it->need_count; i++) {
        const plan_var *v = &c->vars[it->needs[i]];
        if (v->slot_count == 0)
            continue;
        int item = c->slots[v->slots[0]].item;
        if (item >= 0 && c->step_of[item] == 0)
            return false;
    }
    return true;
}

/* The only scan left to place, or SIZE_MAX when there are several. */
static size_t sole_scan(const plan_conj *c) {
    size_t only = SIZE_MAX, count = 0;
    for (size_t i = 0; i < c->item_count; i++) {
        if (c->step_of[i] == 0 && is_scan(&c->items[i])) {
            only = i;
            count++;
        }
    }
    return count == 1 ? only : SIZE_MAX;
}

/* The next item: a ready filter-like clause as soon as its inputs are
 * bound (source order among them), else the cheapest scan (a sole one
 * needs no estimate: counting index entries is most of a point query). */
static size_t pick_next(store_reader *r, const plan_hint *hint, const plan_conj *c,
                        const bool *bound, size_t *rows) {
    size_t pick = c->item_count;
    estimate best = {0, 0, 0, *rows};
    bool rule_plan = hint && hint->derived_rows;
    for (size_t i = 0; i < c->item_count; i++) {
        const plan_item *it = &c->items[i];
        if (c->step_of[i] != 0 || is_scan(it))
            continue;
        if (ready(c, it))
            return i;
    }
    size_t only = rule_plan ? SIZE_MAX : sole_scan(c);
    if (only != SIZE_MAX)
        return only;
    for (size_t i = 0; i < c->item_count; i++) {
        if (c->step_of[i] != 0 || !is_scan(&c->items[i]))
            continue;
        /* Rule plans weigh costs that a capped count would distort. */
        size_t cap = rule_plan || pick == c->item_count || best.records == SIZE_MAX
                         ? SIZE_MAX
                         : best.records + 1;
        estimate est = estimate_clause(r, hint, &c->items[i], bound, cap);
        if (rule_plan)
            rule_cost(&c->items[i], bound, *rows, &est);
        if (pick == c->item_count || better(hint, est, best)) {
            pick = i;
            best = est;
        }
    }
    for (size_t i = 0; i < c->item_count && pick == c->item_count; i++)
        if (c->step_of[i] == 0)
            pick = i;
    *rows = best.out;
    return pick;
}

int plan_order_conj(store_reader *r, plan_conj *c, const plan_hint *hint, arena *a, err *e) {
    size_t n = c->item_count;
    c->order = arena_calloc(a, n + 1, sizeof *c->order);
    c->step_of = arena_calloc(a, n + 1, sizeof *c->step_of);
    bool *bound = arena_calloc(a, c->var_count + 1, sizeof *bound);
    if (!c->order || !c->step_of || !bound)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t s = 0; s < c->slot_count; s++)
        if (c->slots[s].item < 0)
            bound[c->slots[s].var] = true;
    size_t rows = 1;
    for (size_t step = 1; step <= n; step++) {
        size_t pick = pick_next(r, hint, c, bound, &rows);
        c->order[step - 1] = pick;
        c->step_of[pick] = step;
        for (size_t s = 0; s < c->slot_count; s++)
            if (c->slots[s].item == (int)pick)
                bound[c->slots[s].var] = true;
    }
    return 0;
}
