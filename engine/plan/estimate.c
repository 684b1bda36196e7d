/* Estimating a pattern's constant range (plan/estimate.h). The constants
 * are looked up as the scan will look them up (exec/op_scan.c), and the
 * reader keeps the lookups, so the scan finds them again for free. */
#include "plan/estimate.h"

#include <string.h>

/* A keyword value with the attribute fixed is two ranges, the keyword's
 * and the ref of its entity (E4); `alt` gets the second. Other values seek
 * only when matching them is exact (strings, integers, booleans). */
static int value_bound(store_reader *r, const value *v, store_bound *b, store_bound *alt, err *e) {
    if (v->type == VT_KEYWORD && b->has_a) {
        *alt = *b;
        value ref = value_ref((uuid128){{0}});
        value_as_entity(v, &ref.as.ref);
        int rc = store_reader_value_key(r, &ref, alt->ids.v, e);
        alt->has_v = rc == 1;
        if (rc != 0 && rc != 1)
            return rc;
    } else if (v->type != VT_STRING && v->type != VT_INTEGER && v->type != VT_BOOLEAN) {
        return 1;
    }
    int rc = store_reader_value_key(r, v, b->ids.v, e);
    b->has_v = rc == 1;
    if (rc == 0 && alt->has_v) { /* only the ref form is stored */
        *b = *alt;
        alt->has_v = false;
        rc = 1;
    }
    return rc;
}

/* The ranges the constants of `it` fix: 1 (with *alt when alt->has_v),
 * 0 nothing can match, otherwise an error. */
static int constant_bounds(store_reader *r, const plan_item *it, store_bound *b, store_bound *alt,
                           err *e) {
    const ast_pattern *p = it->pc.pattern;
    bool pseudo = it->kind == PK_PSEUDO; /* only the entity narrows a pseudo scan */
    memset(b, 0, sizeof *b);
    memset(alt, 0, sizeof *alt);
    if (p->e.kind == TERM_NEVER || p->a.kind == TERM_NEVER || p->v.kind == TERM_NEVER)
        return 0;
    int rc = p->e.kind == TERM_CONST ? store_bound_entity(r, &p->e.constant, b, e) : 1;
    if (rc == 1 && p->a.kind == TERM_CONST && !pseudo)
        rc = store_bound_attribute(r, &p->a.constant, b, e);
    if (rc == 1 && p->v.kind == TERM_CONST && !pseudo)
        rc = value_bound(r, &p->v.constant, b, alt, e);
    return rc;
}

static bool same_range(const plan_range_key *k, const store_bound *b) {
    return k->has_e == b->has_e && k->has_a == b->has_a && k->has_v == b->has_v &&
           (!b->has_e || k->e == b->ids.e) && (!b->has_a || k->a == b->ids.a) &&
           (!b->has_v || memcmp(k->v, b->ids.v, FACT_V_SIZE) == 0);
}

static plan_range_key range_key(const store_bound *b) {
    plan_range_key k = {.e = b->ids.e,
                        .a = b->ids.a,
                        .has_e = b->has_e,
                        .has_a = b->has_a,
                        .has_v = b->has_v};
    memcpy(k.v, b->ids.v, FACT_V_SIZE);
    return k;
}

/* A kept estimate standing for store_estimate(.., cap), or SIZE_MAX. One
 * that stopped at its cap C still answers any cap <= C. */
static size_t cached(const plan_count_cache *cc, const store_bound *b, size_t cap) {
    for (size_t i = 0; cc && i < cc->used; i++) {
        if (!same_range(&cc->key[i], b))
            continue;
        if (!cc->capped[i])
            return cc->count[i];
        if (cap <= cc->count[i])
            return cap;
    }
    return SIZE_MAX;
}

static void keep(plan_count_cache *cc, const store_bound *b, size_t n, size_t cap) {
    if (!cc)
        return;
    bool capped = n >= cap;
    for (size_t i = 0; i < cc->used; i++)
        if (same_range(&cc->key[i], b)) { /* a higher cap than the kept one */
            cc->count[i] = n;
            cc->capped[i] = capped;
            return;
        }
    if (cc->used < PLAN_COUNT_CACHE_SIZE) {
        cc->key[cc->used] = range_key(b);
        cc->capped[cc->used] = capped;
        cc->count[cc->used++] = n;
    }
}

static size_t range_estimate(store_reader *r, plan_count_cache *cc, const store_bound *b,
                             size_t cap) {
    if (!b->has_e && !b->has_a && !b->has_v)
        return (size_t)store_reader_fact_count(r);
    size_t n = cached(cc, b, cap);
    if (n != SIZE_MAX)
        return n;
    err ignored = {0};
    int rc = store_estimate(r, b, cap, &n, &ignored);
    err_clear(&ignored);
    if (rc != 0)
        return SIZE_MAX;
    keep(cc, b, n, cap);
    return n;
}

size_t plan_estimate_constants(store_reader *r, plan_count_cache *cc, const plan_item *it,
                               size_t cap) {
    store_bound b, alt;
    err ignored = {0};
    int rc = constant_bounds(r, it, &b, &alt, &ignored);
    err_clear(&ignored);
    if (rc != 1)
        return rc == 0 ? 0 : SIZE_MAX;
    size_t n = range_estimate(r, cc, &b, cap);
    if (n == SIZE_MAX || !alt.has_v || n >= cap)
        return n;
    size_t more = range_estimate(r, cc, &alt, cap - n);
    return more == SIZE_MAX ? SIZE_MAX : n + more;
}

size_t plan_estimate_rows_at(store_reader *r, const plan_conj *c, size_t step) {
    if (step != 2 || c->item_count < 2 || c->items[c->order[0]].kind != PK_PATTERN)
        return SIZE_MAX;
    return plan_estimate_constants(r, NULL, &c->items[c->order[0]], SIZE_MAX - 1);
}
