/* Built-in aggregate accumulators (language.md §10.2, §10.3). */
#include "exec/aggregate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_fns.h"

#define AGG_SLOT_EMPTY SIZE_MAX

/* An arena-backed hash set of values under O3 equality; items keep their
 * insertion order. Outgrown arrays are abandoned in the arena (doubling
 * bounds the waste by the live size). */
typedef struct value_set {
    value *items;
    size_t count, cap;
    size_t *slots;   /* indexes into items, AGG_SLOT_EMPTY when free */
    size_t slot_cap; /* 0 or a power of two, at least 2 * cap */
} value_set;

/* Holds the current min/max string; reused while new strings fit. */
typedef struct text_buf {
    char *data;
    size_t cap;
} text_buf;

struct agg_state {
    agg_fn fn;
    arena *arena;
    meter *meter;
    size_t bytes;
    int64_t count;   /* values seen (count, avg, min/max presence) */
    int64_t int_sum; /* saturating */
    double float_sum;
    bool saw_float;
    value best; /* min/max so far */
    text_buf best_text;
    value_set set;
    const host_fn *host; /* AGG_HOST */
    void *acc;           /* AGG_HOST: the host's accumulator, while live */
    bool live;
};

static const char *const agg_names[] = {
    [AGG_COUNT] = "count",
    [AGG_COUNT_DISTINCT] = "count-distinct",
    [AGG_SUM] = "sum",
    [AGG_SUM_DISTINCT] = "sum-distinct",
    [AGG_MIN] = "min",
    [AGG_MAX] = "max",
    [AGG_AVG] = "avg",
    [AGG_COLLECT_SET] = "collect-set",
    [AGG_HOST] = "host aggregate",
};

bool agg_lookup(const char *name, size_t len, agg_fn *out) {
    for (int fn = 0; fn < AGG_HOST; fn++) {
        if (strlen(agg_names[fn]) == len && memcmp(agg_names[fn], name, len) == 0) {
            *out = (agg_fn)fn;
            return true;
        }
    }
    return false;
}

const char *agg_name(agg_fn fn) {
    return agg_names[fn];
}

/* Charges first, so a refused allocation leaves nothing half-counted. */
static void *state_alloc(arena *a, meter *m, size_t *bytes, size_t size, err *e, int *rc) {
    size_t rounded = size == 0 ? 16 : (size + 15) & ~(size_t)15;
    *rc = meter_charge(m, rounded, "aggregate", e);
    if (*rc)
        return NULL;
    void *p = arena_alloc(a, size);
    if (!p) {
        meter_release(m, rounded);
        *rc = err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    *bytes += rounded;
    return p;
}

static void *agg_alloc(agg_state *s, size_t size, err *e, int *rc) {
    return state_alloc(s->arena, s->meter, &s->bytes, size, e, rc);
}

int agg_new(agg_state **out, agg_fn fn, arena *a, meter *m, err *e) {
    size_t bytes = 0;
    int rc = 0;
    *out = NULL;
    agg_state *s = state_alloc(a, m, &bytes, sizeof *s, e, &rc);
    if (!s)
        return rc;
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->arena = a;
    s->meter = m;
    s->bytes = bytes;
    s->best = value_null();
    *out = s;
    return 0;
}

int agg_new_host(agg_state **out, const host_fn *f, arena *a, meter *m, err *e) {
    int rc = agg_new(out, AGG_HOST, a, m, e);
    if (!rc)
        (*out)->host = f;
    return rc;
}

void agg_discard(agg_state *s) {
    if (!s || !s->live)
        return;
    const host_callbacks *cb = host_fn_callbacks(s->host);
    s->live = false;
    if (cb->release)
        cb->release(cb->ctx, s->acc);
}

size_t agg_bytes(const agg_state *s) {
    return s->bytes;
}

/* ---- the distinct set ------------------------------------------------ */

static size_t set_probe(const value_set *set, const value *v, uint64_t h) {
    size_t mask = set->slot_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        size_t id = set->slots[i];
        if (id == AGG_SLOT_EMPTY || value_compare_total(&set->items[id], v) == 0)
            return i;
    }
}

/* Not finish_grow nor arena_grow_array: the items are copied but the
 * slots are rebuilt (every item hashed again into twice as many), and
 * both come from the state's own charged arena. */
static int set_grow(agg_state *s, err *e) {
    value_set *set = &s->set;
    size_t cap = set->cap ? set->cap * 2 : 8;
    int rc = 0;
    if (cap > SIZE_MAX / 2 / sizeof(size_t))
        return err_set(e, ERR(INT, 0), "out of memory");
    value *items = agg_alloc(s, cap * sizeof *items, e, &rc);
    size_t *slots = items ? agg_alloc(s, 2 * cap * sizeof *slots, e, &rc) : NULL;
    if (!slots)
        return rc;
    if (set->count)
        memcpy(items, set->items, set->count * sizeof *items);
    for (size_t i = 0; i < 2 * cap; i++)
        slots[i] = AGG_SLOT_EMPTY;
    set->items = items;
    set->cap = cap;
    set->slots = slots;
    set->slot_cap = 2 * cap;
    for (size_t id = 0; id < set->count; id++)
        slots[set_probe(set, &items[id], value_hash_total(&items[id]))] = id;
    return 0;
}

/* Strings and keywords are copied so the caller's buffer may change. */
static int own_text(agg_state *s, value *v, err *e) {
    if (v->type != VT_STRING && v->type != VT_KEYWORD)
        return 0;
    int rc = 0;
    char *copy = agg_alloc(s, v->as.str.len, e, &rc);
    if (!copy)
        return rc;
    if (v->as.str.len)
        memcpy(copy, v->as.str.ptr, v->as.str.len);
    v->as.str.ptr = copy;
    return 0;
}

static int set_add(agg_state *s, const value *v, err *e) {
    value_set *set = &s->set;
    if (set->count == set->cap) {
        int rc = set_grow(s, e);
        if (rc)
            return rc;
    }
    size_t slot = set_probe(set, v, value_hash_total(v));
    if (set->slots[slot] != AGG_SLOT_EMPTY)
        return 0;
    value item = *v;
    int rc = own_text(s, &item, e);
    if (rc)
        return rc;
    set->items[set->count] = item;
    set->slots[slot] = set->count++;
    return 0;
}

/* ---- sum --------------------------------------------------------------- */

static int64_t saturating_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int sum_check(const value *v, err *e) {
    if (v->type == VT_INTEGER || v->type == VT_FLOAT)
        return 0;
    return err_set(e, ERR(INT, 41), "sum: expected Integer, Float, or Null, got %s",
                   value_type_name(v->type));
}

static void sum_add(agg_state *s, const value *v) {
    if (v->type == VT_INTEGER) {
        s->int_sum = saturating_add(s->int_sum, v->as.i);
        s->float_sum += (double)v->as.i;
    } else if (v->type == VT_FLOAT) {
        s->saw_float = true;
        s->float_sum += v->as.f;
    }
    s->count++;
}

static value sum_result(const agg_state *s) {
    return s->saw_float ? value_float(s->float_sum) : value_integer(s->int_sum);
}

/* ---- min / max ------------------------------------------------------- */

static bool extreme_type_ok(value_type t) {
    return t == VT_INTEGER || t == VT_FLOAT || t == VT_STRING;
}

static int compare_same_type(const value *a, const value *b) {
    switch (a->type) {
    case VT_INTEGER: return (a->as.i > b->as.i) - (a->as.i < b->as.i);
    case VT_FLOAT: return (a->as.f > b->as.f) - (a->as.f < b->as.f); /* NaN: 0 */
    default: return value_compare_total(a, b);
    }
}

static int keep_text(agg_state *s, value *v, err *e) {
    size_t len = v->as.str.len;
    if (len > s->best_text.cap) {
        size_t cap = s->best_text.cap * 2 > len ? s->best_text.cap * 2 : len;
        int rc = 0;
        char *data = agg_alloc(s, cap, e, &rc);
        if (!data)
            return rc;
        s->best_text.data = data;
        s->best_text.cap = cap;
    }
    if (len)
        memcpy(s->best_text.data, v->as.str.ptr, len);
    v->as.str.ptr = s->best_text.data;
    return 0;
}

static int extreme_step(agg_state *s, const value *v, err *e) {
    if (s->count > 0 && v->type != s->best.type)
        return err_set(e, ERR(INT, 42), "%s: cannot compare %s and %s values", agg_name(s->fn),
                       value_type_name(s->best.type), value_type_name(v->type));
    s->count++;
    if (s->count > 1) {
        if (!extreme_type_ok(v->type))
            return 0;
        int c = compare_same_type(v, &s->best);
        if (s->fn == AGG_MIN ? c >= 0 : c <= 0)
            return 0;
    }
    value kept = *v;
    if (kept.type == VT_STRING) {
        int rc = keep_text(s, &kept, e);
        if (rc)
            return rc;
    }
    s->best = kept;
    return 0;
}

static int extreme_finish(const agg_state *s, agg_result *out, err *e) {
    if (s->count == 0) {
        out->omit_group = true;
        return 0;
    }
    if (!extreme_type_ok(s->best.type))
        return err_set(e, ERR(INT, 43), "%s: expected Integer, Float, String, or Null, got %s",
                       agg_name(s->fn), value_type_name(s->best.type));
    out->v = s->best;
    return 0;
}

/* ---- host aggregates (language.md §10.5) --------------------------------------- */

static int host_step(agg_state *s, const value *v, err *e) {
    const host_callbacks *cb = host_fn_callbacks(s->host);
    if (!s->live) {
        int rc = cb->init(cb->ctx, &s->acc, e);
        if (rc)
            return rc;
        s->live = true;
    }
    value arg = *v;
    int rc = value_resolve(&arg, e);
    if (!rc)
        rc = cb->step(cb->ctx, s->acc, &arg, e);
    if (!rc)
        s->count++;
    return rc;
}

static int host_finish(agg_state *s, agg_result *out, err *e) {
    if (!s->live)
        return 0; /* no non-null value: Null, no callback */
    const host_callbacks *cb = host_fn_callbacks(s->host);
    value v;
    int rc = cb->finish(cb->ctx, s->acc, s->count, &v, e);
    if (!rc)
        rc = own_text(s, &v, e);
    agg_discard(s);
    if (!rc)
        out->v = v;
    return rc;
}

/* ---- step / finish --------------------------------------------------- */

int agg_step(agg_state *s, const value *v, err *e) {
    if (v->type == VT_NULL)
        return 0;
    switch (s->fn) {
    case AGG_COUNT: s->count++; return 0;
    case AGG_SUM: {
        int rc = sum_check(v, e);
        if (!rc)
            sum_add(s, v);
        return rc;
    }
    case AGG_SUM_DISTINCT: {
        int rc = sum_check(v, e);
        return rc ? rc : set_add(s, v, e);
    }
    case AGG_COUNT_DISTINCT:
    case AGG_COLLECT_SET: return set_add(s, v, e);
    case AGG_MIN:
    case AGG_MAX: return extreme_step(s, v, e);
    case AGG_AVG:
        if (v->type == VT_INTEGER || v->type == VT_FLOAT)
            sum_add(s, v);
        return 0;
    case AGG_HOST: return host_step(s, v, e);
    }
    return err_set(e, ERR(INT, 0), "unknown aggregate");
}

/* Whether stepping `fn` again with the value it was just stepped with
 * changes nothing: a set already holds it, an extreme is replaced only by
 * a strictly smaller or larger value (and a type mismatch failed the
 * first time). */
static bool repeat_idempotent(agg_fn fn) {
    return fn == AGG_COUNT_DISTINCT || fn == AGG_COLLECT_SET || fn == AGG_MIN || fn == AGG_MAX;
}

int agg_step_n(agg_state *s, const value *v, uint64_t n, err *e) {
    if (s->fn == AGG_COUNT) {
        s->count += v->type != VT_NULL ? (int64_t)n : 0;
        return 0;
    }
    if (n > 1 && repeat_idempotent(s->fn))
        n = 1;
    int rc = 0;
    for (uint64_t i = 0; !rc && i < n; i++)
        rc = agg_step(s, v, e);
    return rc;
}

int agg_step_each(agg_state *const *states, size_t each, const value *first, size_t count,
                  size_t stride, const uint64_t *weight, err *e) {
    if (count && states[0]->fn == AGG_COUNT) {
        for (size_t i = 0; i < count; i++)
            states[i * each]->count += first[i * stride].type != VT_NULL
                                           ? (weight ? (int64_t)weight[i] : 1)
                                           : 0;
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < count; i++)
        rc = weight ? agg_step_n(states[i * each], &first[i * stride], weight[i], e)
                    : agg_step(states[i * each], &first[i * stride], e);
    return rc;
}

bool agg_infallible(agg_fn fn) {
    return fn == AGG_COUNT || fn == AGG_AVG;
}

static int compare_items(const void *a, const void *b) {
    return value_compare_total(a, b);
}

int agg_finish(agg_state *s, agg_result *out, err *e) {
    memset(out, 0, sizeof *out);
    out->v = value_null();
    switch (s->fn) {
    case AGG_COUNT: out->v = value_integer(s->count); return 0;
    case AGG_COUNT_DISTINCT: out->v = value_integer((int64_t)s->set.count); return 0;
    case AGG_SUM: out->v = sum_result(s); return 0;
    case AGG_SUM_DISTINCT:
        for (size_t i = 0; i < s->set.count; i++)
            sum_add(s, &s->set.items[i]);
        out->v = sum_result(s);
        return 0;
    case AGG_MIN:
    case AGG_MAX: return extreme_finish(s, out, e);
    case AGG_AVG:
        if (s->count > 0)
            out->v = value_float(s->float_sum / (double)s->count);
        return 0;
    case AGG_COLLECT_SET:
        /* Distinct under O3, so the order is strict and qsort's lack of
         * stability cannot show. */
        if (s->set.count > 1)
            qsort(s->set.items, s->set.count, sizeof(value), compare_items);
        out->items = s->set.items;
        out->item_count = s->set.count;
        return 0;
    case AGG_HOST: return host_finish(s, out, e);
    }
    return err_set(e, ERR(INT, 0), "unknown aggregate");
}

bool agg_empty_input_row(const agg_fn *fns, size_t count, size_t plain_vars, value *row) {
    if (plain_vars > 0 || count == 0)
        return false;
    for (size_t i = 0; i < count; i++)
        if (fns[i] != AGG_COUNT && fns[i] != AGG_COUNT_DISTINCT)
            return false;
    for (size_t i = 0; row && i < count; i++)
        row[i] = value_integer(0);
    return true;
}
