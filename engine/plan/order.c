#include "plan/order.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct estimate {
    size_t records;
    int bound_positions;
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

/* Records under one bound position, or SIZE_MAX when it cannot be counted
 * (the scan that follows reports any storage error). */
static size_t count_bound(store_reader *r, const store_bound *b) {
    size_t n;
    err ignored = {0};
    int rc = store_count(r, b, ESTIMATE_CAP, &n, &ignored);
    err_clear(&ignored);
    return rc == 0 ? n : SIZE_MAX;
}

/* Records reachable through the entity position, or SIZE_MAX. */
static size_t entity_estimate(store_reader *r, const plan_clause *c, const bool *bound) {
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
        return rc == 1 ? count_bound(r, &b) : rc == 0 ? 0 : SIZE_MAX;
    }
    if (c->var[0] >= 0 && bound[c->var[0]]) {
        uint64_t entities = store_reader_entity_count(r);
        size_t n = entities ? (size_t)(store_reader_fact_count(r) / entities) : 0;
        return n ? n : 1;
    }
    return SIZE_MAX;
}

/* Records reachable through a constant attribute, or SIZE_MAX. */
static size_t attribute_estimate(store_reader *r, const plan_clause *c) {
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
    return rc == 1 ? count_bound(r, &b) : rc == 0 ? 0 : SIZE_MAX;
}

static estimate estimate_clause(store_reader *s, const plan_clause *c, const bool *bound) {
    estimate est = {(size_t)store_reader_fact_count(s), 0};
    size_t by_entity = entity_estimate(s, c, bound);
    size_t by_attr = attribute_estimate(s, c);
    if (by_entity < est.records)
        est.records = by_entity;
    if (by_attr < est.records)
        est.records = by_attr;
    if (c->pattern->v.kind == TERM_NEVER)
        est.records = 0;
    for (int pos = 0; pos < 3; pos++)
        est.bound_positions += position_bound(c, pos, bound);
    return est;
}

static bool better(estimate a, estimate b) {
    if (a.records != b.records)
        return a.records < b.records;
    return a.bound_positions > b.bound_positions;
}

int plan_order_patterns(store_reader *s, const plan_clause *clauses, size_t n, size_t var_count,
                        size_t *order, err *e) {
    bool *bound = calloc(var_count ? var_count : 1, sizeof *bound);
    bool *taken = calloc(n ? n : 1, sizeof *taken);
    if (!bound || !taken) {
        free(bound);
        free(taken);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        size_t pick = n;
        estimate best = {0, 0};
        for (size_t c = 0; c < n; c++) {
            if (taken[c])
                continue;
            estimate est = estimate_clause(s, &clauses[c], bound);
            if (pick == n || better(est, best)) {
                pick = c;
                best = est;
            }
        }
        taken[pick] = true;
        order[k] = pick;
        for (int pos = 0; pos < 3; pos++)
            if (clauses[pick].var[pos] >= 0)
                bound[clauses[pick].var[pos]] = true;
    }
    free(bound);
    free(taken);
    return 0;
}
