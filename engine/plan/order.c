#include "plan/conj.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plan/estimate.h"

typedef struct estimate {
    size_t records; /* read per row */
    size_t range;   /* the records its constants select */
    int bound_positions;
    size_t cost, out; /* rule plans: the work of the step and the rows after it */
    bool cross;       /* rule plans: the step pairs several rows with its whole range */
} estimate;

static bool position_bound(const plan_clause *c, int pos, const bool *bound) {
    const term *t = pos == 0 ? &c->pattern->e : pos == 1 ? &c->pattern->a : &c->pattern->v;
    if (t->kind == TERM_CONST || t->kind == TERM_NEVER)
        return true;
    return c->var[pos] >= 0 && bound[c->var[pos]];
}

/* Rule plans see stored ranges no larger than this. Their greedy order
 * weighs each step's own cost only: a large stored pattern read first,
 * then the derived relation probed per record, beats reading a delta of
 * similar size first and seeking the stored records per delta row, which
 * that cost model cannot see; ranges counted up to this cap (as rule
 * plans were tuned with) put the stored pattern first in those rounds. */
#define RULE_RANGE_CAP 4096

/* Records one row reaches through a bound entity: the average per
 * entity, at least 1. */
static size_t per_entity(store_reader *r) {
    uint64_t entities = store_reader_entity_count(r);
    size_t n = entities ? (size_t)(store_reader_fact_count(r) / entities) : 0;
    return n ? n : 1;
}

/* Records among `range` that share one value: without value statistics,
 * √range (as many distinct values as records per value). */
static size_t per_value(size_t range) {
    if (range < 4)
        return 1;
    size_t n = range / 2; /* Newton's method from above: floor(√range) */
    while (n > range / n)
        n = (n + range / n) / 2;
    return n;
}

static bool never_matches(const plan_clause *c) {
    return c->pattern->e.kind == TERM_NEVER || c->pattern->a.kind == TERM_NEVER ||
           c->pattern->v.kind == TERM_NEVER;
}

/* A variable (not a constant) fills the position before this step. */
static bool var_bound(const plan_clause *c, int pos, const bool *bound) {
    return c->var[pos] >= 0 && bound[c->var[pos]];
}

static size_t add_capped(size_t a, size_t b) {
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* What an item's estimate takes from the store and the derived relations,
 * whatever the variables bound before it. */
typedef struct item_base {
    size_t range;   /* the records its constants select (rule plans: capped) */
    size_t derived; /* derived rows it reads besides them, or instead of them */
    bool instead;
} item_base;

static item_base item_base_of(store_reader *s, const plan_hint *hint, const plan_item *it,
                              size_t cap) {
    item_base b = {plan_estimate_constants(s, hint ? hint->counts : NULL, it, cap), 0, false};
    if (b.range == SIZE_MAX)
        b.range = (size_t)store_reader_fact_count(s);
    if (hint && hint->derived_rows && b.range > RULE_RANGE_CAP)
        b.range = RULE_RANGE_CAP;
    if (hint && hint->derived_rows)
        b.derived = hint->derived_rows(hint->ctx, it, &b.instead);
    return b;
}

/* Derived rows added to the stored records and range of `est`: a seek by
 * entity or value finds few of them. */
static void with_derived(const item_base *b, const plan_item *it, const bool *bound,
                         estimate *est) {
    size_t rows = b->derived;
    if (rows > 1 && (position_bound(&it->pc, 0, bound) || position_bound(&it->pc, 2, bound)))
        rows = 1;
    est->records = b->instead ? rows : add_capped(est->records, rows);
    est->range = b->instead ? rows : add_capped(est->range, rows);
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
    est->cross = false;
    if (position_bound(c, 0, bound) || value_const ||
        (it->kind == PK_INVOKE && position_bound(c, 2, bound))) {
        est->cost = rows;
    } else if (position_bound(c, 2, bound)) {
        est->cost = add_capped(est->range, rows);
    } else {
        est->cost = est->out = mul_capped(rows, est->range ? est->range : 1);
        est->cross = rows > 1;
    }
}

/* The records `it` reads per row at this step: the range its constants
 * select (plan/estimate.h), narrowed by the variables earlier steps bind. */
static estimate narrowed(store_reader *s, const item_base *b, const plan_item *it,
                         const bool *bound) {
    const plan_clause *c = &it->pc;
    estimate est = {b->range, b->range, 0, 0, 0, false};
    bool by_entity = var_bound(c, 0, bound), by_value = !by_entity && var_bound(c, 2, bound);
    if (by_entity && per_entity(s) < b->range)
        est.records = per_entity(s);
    else if (by_value)
        est.records = per_value(b->range);
    with_derived(b, it, bound, &est);
    if (never_matches(c))
        est.records = est.range = 0;
    for (int pos = 0; pos < 3; pos++)
        est.bound_positions += position_bound(c, pos, bound);
    return est;
}

/* narrowed() with the range counted for this step. `cap`: the best
 * estimate so far plus one; a range counted that far can no longer win
 * (then it is a lower bound, so it is only passed on when no variable
 * narrows it). */
static estimate estimate_clause(store_reader *s, const plan_hint *hint, const plan_item *it,
                                const bool *bound, size_t cap) {
    const plan_clause *c = &it->pc;
    bool by_entity = var_bound(c, 0, bound), by_value = !by_entity && var_bound(c, 2, bound);
    if (by_entity && per_entity(s) < cap) /* min(range, per_entity) is known past it */
        cap = per_entity(s) + 1;
    item_base b = item_base_of(s, hint, it, by_value ? SIZE_MAX : cap);
    return narrowed(s, &b, it, bound);
}

/* Rule plans: an item's base, read once per ordering. */
typedef struct rule_memo {
    item_base base;
    bool known;
} rule_memo;

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
 * slots (language.md D12) must be filled; a correlated pseudo pattern needs
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

/* What ordering one conjunction needs besides the conjunction. */
typedef struct orderer {
    store_reader *r;
    const plan_hint *hint;
    const plan_conj *c;
    bool *bound;     /* per variable: filled by the steps placed */
    bool *after;     /* scratch: `bound` plus one more step's variables */
    rule_memo *memo; /* rule plans: per item */
    size_t rows;     /* rule plans: rows reaching the next step */
} orderer;

/* The variables item i fills, added to `bound`. */
static void bind_item(const plan_conj *c, size_t i, bool *bound) {
    for (size_t s = 0; s < c->slot_count; s++)
        if (c->slots[s].item == (int)i)
            bound[c->slots[s].var] = true;
}

/* A rule plan's estimate of item i after the variables in `bound`, over
 * `rows` rows. Rule plans count no range short (a capped count would
 * distort their costs), so an item's base is read once per ordering. */
static estimate rule_estimate(const orderer *o, size_t i, const bool *bound, size_t rows) {
    const plan_item *it = &o->c->items[i];
    rule_memo *m = &o->memo[i];
    if (!m->known) {
        m->base = item_base_of(o->r, o->hint, it, SIZE_MAX);
        m->known = true;
    }
    estimate est = narrowed(o->r, &m->base, it, bound);
    rule_cost(it, bound, rows, &est);
    return est;
}

/* The cheapest scan left besides `placed` once it ran (o->after), over
 * `rows` rows (cost 0 when none is left). */
static estimate next_step(const orderer *o, size_t placed, size_t rows) {
    estimate best = {0, 0, 0, 0, 0, false};
    bool any = false;
    for (size_t j = 0; j < o->c->item_count; j++) {
        if (j == placed || o->c->step_of[j] != 0 || !is_scan(&o->c->items[j]))
            continue;
        estimate est = rule_estimate(o, j, o->after, rows);
        if (!any || est.cost < best.cost)
            best = est;
        any = true;
    }
    return best;
}

/* Rule plans pick the cheapest step (rule_cost), except where the best
 * step after it would be a cross product: then each candidate counts
 * with the best step after it. Weighing single steps, a round would read
 * its small delta first and pair it with every row of a demand relation
 * of similar size, where reading the demand first makes every later step
 * a probe. */
static size_t pick_rule_scan(orderer *o) {
    const plan_conj *c = o->c;
    size_t greedy = c->item_count, ahead = c->item_count, ahead_total = 0;
    estimate g = {0, 0, 0, 0, o->rows, false}, a = g;
    bool greedy_then_cross = false;
    for (size_t i = 0; i < c->item_count; i++) {
        if (c->step_of[i] != 0 || !is_scan(&c->items[i]))
            continue;
        estimate est = rule_estimate(o, i, o->bound, o->rows);
        memcpy(o->after, o->bound, (c->var_count + 1) * sizeof *o->after);
        bind_item(c, i, o->after);
        estimate next = next_step(o, i, est.out);
        size_t total = add_capped(est.cost, next.cost);
        if (greedy == c->item_count || better(o->hint, est, g)) {
            greedy = i;
            g = est;
            greedy_then_cross = next.cross;
        }
        if (ahead == c->item_count || total < ahead_total ||
            (total == ahead_total && better(o->hint, est, a))) {
            ahead = i;
            a = est;
            ahead_total = total;
        }
    }
    o->rows = greedy_then_cross ? a.out : g.out;
    return greedy_then_cross ? ahead : greedy;
}

/* The cheapest scan by its estimate (a sole one needs no estimate: it
 * would be most of a point query). */
static size_t pick_scan(orderer *o) {
    const plan_conj *c = o->c;
    size_t only = sole_scan(c);
    if (only != SIZE_MAX)
        return only;
    size_t pick = c->item_count;
    estimate best = {0, 0, 0, 0, 0, false};
    for (size_t i = 0; i < c->item_count; i++) {
        if (c->step_of[i] != 0 || !is_scan(&c->items[i]))
            continue;
        size_t cap = pick == c->item_count || best.records == SIZE_MAX ? SIZE_MAX
                                                                       : best.records + 1;
        estimate est = estimate_clause(o->r, o->hint, &c->items[i], o->bound, cap);
        if (pick == c->item_count || better(o->hint, est, best)) {
            pick = i;
            best = est;
        }
    }
    return pick;
}

/* The next item: a ready filter-like clause as soon as its inputs are
 * bound (source order among them), else the cheapest scan. */
static size_t pick_next(orderer *o) {
    const plan_conj *c = o->c;
    for (size_t i = 0; i < c->item_count; i++) {
        const plan_item *it = &c->items[i];
        if (c->step_of[i] == 0 && !is_scan(it) && ready(c, it))
            return i;
    }
    size_t pick = o->memo ? pick_rule_scan(o) : pick_scan(o);
    for (size_t i = 0; i < c->item_count && pick == c->item_count; i++)
        if (c->step_of[i] == 0)
            pick = i;
    return pick;
}

int plan_order_conj(store_reader *r, plan_conj *c, const plan_hint *hint, arena *a, err *e) {
    size_t n = c->item_count;
    bool rule_plan = hint && hint->derived_rows;
    orderer o = {r, hint, c, NULL, NULL, NULL, 1};
    c->order = arena_calloc(a, n + 1, sizeof *c->order);
    c->step_of = arena_calloc(a, n + 1, sizeof *c->step_of);
    o.bound = arena_calloc(a, c->var_count + 1, sizeof *o.bound);
    o.after = arena_calloc(a, c->var_count + 1, sizeof *o.after);
    if (rule_plan)
        o.memo = arena_calloc(a, n + 1, sizeof *o.memo);
    if (!c->order || !c->step_of || !o.bound || !o.after || (rule_plan && !o.memo))
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t s = 0; s < c->slot_count; s++)
        if (c->slots[s].item < 0)
            o.bound[c->slots[s].var] = true;
    for (size_t step = 1; step <= n; step++) {
        size_t pick = pick_next(&o);
        c->order[step - 1] = pick;
        c->step_of[pick] = step;
        bind_item(c, pick, o.bound);
    }
    plan_set_access(c);
    return 0;
}
