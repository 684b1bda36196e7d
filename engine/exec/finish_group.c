/* Aggregation (language.md §10): a hash table of groups keyed by the grouping
 * variables under O3 equality, one accumulator per aggregate column, then
 * one work row per group. Groups come out in first-seen order (the order is
 * unspecified, language.md §8.12.2). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "exec/finish_internal.h"

typedef struct group {
    value *key; /* group_count values, maybe stored values (value.h) */
    agg_state **aggs;
} group;

/* A two-way set-associative memo in front of the index, keyed by how the
 * key is represented (a stored value by its id, a text by its pointer, not
 * its bytes): a repeated stored value skips decoding and hashing its
 * bytes. A hit is still confirmed by key_equal, so a buffer reused for
 * other text cannot mislead it. It keeps FRONT_PER_GROUP slots per group
 * (few collisions), up to 2^FRONT_MAX_BITS; past that, misses fall back to
 * the index. */
#define FRONT_MIN_BITS 4
#define FRONT_MAX_BITS 16
#define FRONT_PER_GROUP 8

typedef struct front_slot {
    uint64_t tag;
    uint32_t id_plus_1; /* 0: empty */
} front_slot;

/* A one-column key whose representation names its value (exact_rep):
 * its words, and its group. */
typedef struct exact_slot {
    uint64_t rep[3];
    uint32_t id_plus_1; /* 0: empty */
} exact_slot;

typedef struct group_table {
    finish_plan *p;
    front_slot *front;
    exact_slot *exact; /* as many slots as `front`; one-column keys only */
    unsigned front_bits;
    htab index;
    size_t index_charged;
    group *groups;
    size_t count, cap;
    const value *probe; /* the key being looked up */
    bool by_aggregate;  /* a block steps one aggregate at a time (steps_by_aggregate) */
} group_table;

/* O3 equality treats every NaN alike and 0.0 like -0.0: value_hash_total. */
static uint64_t hash_key(const value *key, size_t n) {
    uint64_t h = HASH_FNV_BASIS;
    for (size_t i = 0; i < n; i++)
        h = hash_combine(h, value_hash_total(&key[i]));
    return h;
}

static bool key_equal(const void *ctx, uint32_t id) {
    const group_table *t = ctx;
    const value *key = t->groups[id].key;
    for (size_t i = 0; i < t->p->group_count; i++)
        if (!value_equal_total(&key[i], &t->probe[i]))
            return false;
    return true;
}

/* The key of one solution; Null for a variable the stream does not have. */
static void read_key(const finish_plan *p, const value *row, value *key) {
    for (size_t i = 0; i < p->group_count; i++)
        key[i] = p->group_vars[i] < 0 ? value_null() : row[p->group_vars[i]];
}

static int reserve_group(group_table *t, err *e) {
    int rc = 0;
    group *groups = finish_grow(t->p, t->groups, t->count, t->count + 1, &t->cap, sizeof *groups,
                                16, "aggregate", e, &rc);
    if (groups)
        t->groups = groups;
    return rc;
}

/* Grows the index for one more group, charging its growth. */
static int reserve_index(group_table *t, err *e) {
    if (htab_reserve(&t->index, 1) != 0)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t bytes = t->index.cap * (sizeof(uint64_t) + sizeof(uint32_t));
    if (bytes <= t->index_charged)
        return 0;
    int rc = meter_charge(t->p->m, bytes - t->index_charged, "aggregate", e);
    if (!rc)
        t->index_charged = bytes;
    return rc;
}

static int new_group(group_table *t, const value *key, uint64_t h, err *e) {
    finish_plan *p = t->p;
    int rc = reserve_group(t, e);
    if (!rc)
        rc = reserve_index(t, e);
    if (rc)
        return rc;
    group *g = &t->groups[t->count];
    g->key = finish_alloc(p, p->group_count * sizeof *g->key, "aggregate", e, &rc);
    g->aggs = g->key ? finish_alloc(p, p->agg_count * sizeof *g->aggs, "aggregate", e, &rc) : NULL;
    for (size_t i = 0; !rc && i < p->group_count; i++)
        rc = finish_copy_value(p, &g->key[i], &key[i], "aggregate", e);
    for (size_t a = 0; !rc && a < p->agg_count; a++)
        g->aggs[a] = NULL; /* so that a failure below leaves nothing to discard */
    for (size_t c = 0, a = 0; !rc && c < p->col_count; c++) {
        const finish_col *col = &p->cols[c];
        if (col->spec->kind != FIND_AGGREGATE)
            continue;
        rc = col->agg == AGG_HOST ? agg_new_host(&g->aggs[a++], col->host, &p->mem, p->m, e)
                                  : agg_new(&g->aggs[a++], col->agg, &p->mem, p->m, e);
    }
    if (rc)
        return rc;
    if (htab_insert(&t->index, h, (uint32_t)t->count) != 0)
        return err_set(e, ERR(INT, 0), "out of memory");
    t->count++;
    return 0;
}

/* A hash of the key's representation: cheap, and equal representations
 * (not only equal values) agree. */
static uint64_t front_tag(const value *key, size_t n) {
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
        const value *v = &key[i];
        uint64_t a = 0, b = 0;
        if (v->stored) {
            h = hash_combine(hash_combine(hash_combine(h, (uint64_t)v->type), v->as.stored.id),
                             (uint64_t)(uintptr_t)v->as.stored.src);
            continue;
        }
        switch (v->type) {
        case VT_STRING:
        case VT_KEYWORD:
            a = (uint64_t)(uintptr_t)v->as.str.ptr;
            b = v->as.str.len;
            break;
        case VT_INTEGER: a = (uint64_t)v->as.i; break;
        case VT_FLOAT: memcpy(&a, &v->as.f, sizeof a); break;
        case VT_BOOLEAN: a = v->as.b; break;
        case VT_REF:
            memcpy(&a, v->as.ref.bytes, 8);
            memcpy(&b, v->as.ref.bytes + 8, 8);
            break;
        case VT_LIST:
            a = (uint64_t)(uintptr_t)v->as.list.items;
            b = v->as.list.count;
            break;
        case VT_NULL: break;
        }
        h = hash_combine(hash_combine(hash_combine(h, (uint64_t)v->type), a), b);
    }
    return hash_mix(h);
}

/* A larger, empty memo once the groups outgrow it (the old one is left in
 * the arena: doubling bounds the waste). */
static int size_front(group_table *t, err *e) {
    unsigned bits = t->front_bits ? t->front_bits : FRONT_MIN_BITS;
    while (bits < FRONT_MAX_BITS && ((size_t)1 << bits) < t->count * FRONT_PER_GROUP)
        bits++;
    if (t->front && bits == t->front_bits)
        return 0;
    int rc = 0;
    size_t bytes = ((size_t)1 << bits) * sizeof *t->front;
    front_slot *front = finish_alloc(t->p, bytes, "aggregate", e, &rc);
    if (!front)
        return rc;
    memset(front, 0, bytes);
    t->front = front;
    t->front_bits = bits;
    if (t->p->group_count != 1)
        return 0;
    bytes = ((size_t)1 << bits) * sizeof *t->exact;
    exact_slot *exact = finish_alloc(t->p, bytes, "aggregate", e, &rc);
    if (!exact)
        return rc;
    memset(exact, 0, bytes);
    t->exact = exact;
    return 0;
}

/* The words of v's representation when they name its value: two values
 * with the same words are equal under O3 (a stored value by its id in
 * its source; numbers, booleans, Null and Refs by their bits: all NaN
 * bits are one value under O3, and 0.0 and -0.0, equal with other bits,
 * only miss). A text by pointer does not: its buffer may hold other text
 * later. */
static bool exact_rep(const value *v, uint64_t rep[3]) {
    rep[0] = (uint64_t)v->type;
    rep[1] = rep[2] = 0;
    if (v->stored) {
        rep[0] |= 0x100;
        rep[1] = v->as.stored.id;
        rep[2] = (uint64_t)(uintptr_t)v->as.stored.src;
        return true;
    }
    switch (v->type) {
    case VT_INTEGER: rep[1] = (uint64_t)v->as.i; return true;
    case VT_FLOAT: memcpy(&rep[1], &v->as.f, sizeof rep[1]); return true;
    case VT_BOOLEAN: rep[1] = v->as.b; return true;
    case VT_NULL: return true;
    case VT_REF:
        memcpy(&rep[1], v->as.ref.bytes, 8);
        memcpy(&rep[2], v->as.ref.bytes + 8, 8);
        return true;
    default: return false;
    }
}

/* The two slots of the exact memo a representation may occupy: a
 * multiplicative hash, whose top bits pick them (the words are a small
 * integer, a dictionary id beside a fixed pointer, or a Ref's halves). */
static exact_slot *exact_set(const group_table *t, const uint64_t rep[3]) {
    uint64_t h = (rep[1] ^ (rep[2] * UINT64_C(0x9e3779b97f4a7c15)) ^ (rep[0] << 56)) *
                 UINT64_C(0xff51afd7ed558ccd);
    return &t->exact[(h >> (64 - t->front_bits)) & ~(uint64_t)1];
}

static uint32_t exact_find(const group_table *t, const uint64_t rep[3]) {
    const exact_slot *set = exact_set(t, rep);
    for (int way = 0; way < 2; way++)
        if (set[way].id_plus_1 && set[way].rep[0] == rep[0] && set[way].rep[1] == rep[1] &&
            set[way].rep[2] == rep[2])
            return set[way].id_plus_1 - 1;
    return HTAB_NONE;
}

static void exact_put(group_table *t, const uint64_t rep[3], uint32_t id) {
    exact_slot *set = exact_set(t, rep);
    set[1] = set[0];
    set[0] = (exact_slot){{rep[0], rep[1], rep[2]}, id + 1};
}

/* The two slots `tag` may occupy. */
static front_slot *front_set(const group_table *t, uint64_t tag) {
    return &t->front[(tag >> (64 - t->front_bits)) & ~(uint64_t)1];
}

static uint32_t front_find(group_table *t, uint64_t tag) {
    const front_slot *set = front_set(t, tag);
    for (int way = 0; way < 2; way++)
        if (set[way].id_plus_1 && set[way].tag == tag && key_equal(t, set[way].id_plus_1 - 1))
            return set[way].id_plus_1 - 1;
    return HTAB_NONE;
}

/* The newest entry takes way 0, evicting the older of the two. */
static void front_put(group_table *t, uint64_t tag, uint32_t id) {
    front_slot *set = front_set(t, tag);
    set[1] = set[0];
    set[0] = (front_slot){tag, id + 1};
}

static int find_group_by_value(group_table *t, const value *key, group **out, err *e) {
    t->probe = key;
    uint64_t tag = front_tag(key, t->p->group_count);
    uint32_t id = front_find(t, tag);
    if (id == HTAB_NONE) {
        uint64_t h = hash_key(key, t->p->group_count);
        id = htab_find(&t->index, h, key_equal, t);
        if (id == HTAB_NONE) {
            int rc = new_group(t, key, h, e);
            if (!rc)
                rc = size_front(t, e);
            if (rc)
                return rc;
            id = (uint32_t)(t->count - 1);
        }
        front_put(t, tag, id);
    }
    *out = &t->groups[id];
    return 0;
}

/* A one-column key is first looked up by its representation (exact_rep):
 * no hash of its value, no comparison of values. */
static int find_group(group_table *t, const value *key, group **out, err *e) {
    uint64_t rep[3];
    if (!t->exact || !exact_rep(key, rep))
        return find_group_by_value(t, key, out, e);
    uint32_t id = exact_find(t, rep);
    if (id != HTAB_NONE) {
        *out = &t->groups[id];
        return 0;
    }
    int rc = find_group_by_value(t, key, out, e);
    if (rc == 0) /* into t->exact as it is now: size_front may have replaced it */
        exact_put(t, rep, (uint32_t)(*out - t->groups));
    return rc;
}

/* Steps the group's aggregates with a row standing for `n` solutions. */
static int step_group(const finish_plan *p, group *g, const value *row, uint64_t n, err *e) {
    static const value null = {.type = VT_NULL};
    for (size_t a = 0; a < p->agg_count; a++) {
        int rc = agg_step_n(g->aggs[a], p->agg_vars[a] < 0 ? &null : &row[p->agg_vars[a]], n, e);
        if (rc)
            return rc;
    }
    return 0;
}

/* Adds each solution of `b` to its group. */
static int add_block(group_table *t, const solution_block *b, value *key, err *e) {
    int rc = 0;
    for (size_t i = 0; !rc && i < b->count; i++) {
        const value *row = solution_row(b, i);
        read_key(t->p, row, key);
        group *g;
        rc = find_group(t, key, &g, e);
        if (!rc)
            rc = step_group(t->p, g, row, b->weight ? b->weight[i] : 1, e);
    }
    return rc;
}

/* The most solutions whose groups are looked up before their aggregates
 * are stepped. */
#define STEP_CHUNK 64

/* The aggregates of the group of each of n solutions from row `from` of
 * `b` (an array per group, in the plan's arena: it stays put as the
 * table grows). Without a grouping key there is one group: aggs[0]. */
static int find_groups(group_table *t, const solution_block *b, size_t from, size_t n, value *key,
                       agg_state **aggs[], err *e) {
    if (t->p->group_count == 0) {
        int rc = t->count ? 0 : new_group(t, key, hash_key(key, 0), e);
        aggs[0] = rc ? NULL : t->groups[0].aggs;
        return rc;
    }
    /* One column the stream has: its values are the keys, not copied. */
    long var = t->p->group_count == 1 ? t->p->group_vars[0] : -1;
    for (size_t i = 0; i < n; i++) {
        const value *row = solution_row(b, from + i);
        if (var < 0)
            read_key(t->p, row, key);
        group *g;
        int rc = find_group(t, var < 0 ? key : &row[var], &g, e);
        if (rc)
            return rc;
        aggs[i] = g->aggs;
    }
    return 0;
}

/* Adds each solution of `b` to its group, STEP_CHUNK solutions at a
 * time: their groups first, then each aggregate over all of them
 * (t->by_aggregate: at most one aggregate can fail, so stepping aggregate by
 * aggregate changes no answer and no error). */
static int add_block_by_aggregate(group_table *t, const solution_block *b, value *key, err *e) {
    const finish_plan *p = t->p;
    size_t each = p->group_count ? 1 : 0; /* 0: every solution steps the one group */
    agg_state **aggs[STEP_CHUNK];
    agg_state *states[STEP_CHUNK];
    int rc = 0;
    for (size_t from = 0; !rc && from < b->count; from += STEP_CHUNK) {
        size_t n = b->count - from < STEP_CHUNK ? b->count - from : STEP_CHUNK;
        rc = find_groups(t, b, from, n, key, aggs, e);
        for (size_t a = 0; !rc && a < p->agg_count; a++) {
            if (p->agg_vars[a] < 0)
                continue; /* every value is Null, which steps nothing */
            for (size_t i = 0; i < (each ? n : 1); i++)
                states[i] = aggs[i][a];
            rc = agg_step_each(states, each, solution_row(b, from) + p->agg_vars[a], n, b->stride,
                               b->weight ? b->weight + from : NULL, e);
        }
    }
    return rc;
}

/* Whether the aggregates can be stepped aggregate by aggregate. */
static bool steps_by_aggregate(const finish_plan *p) {
    size_t fallible = 0;
    for (size_t c = 0; c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_AGGREGATE)
            fallible += !agg_infallible(p->cols[c].agg);
    return fallible <= 1;
}

/* Reads every solution into the table; *solutions counts them all. */
static int fill_table(group_table *t, size_t *solutions, value *key, err *e) {
    solution_block b;
    int rc;
    while ((rc = finish_pull(t->p, &b, e)) == 1) {
        *solutions += b.count;
        if (!finish_has_plain_values(t->p, b.bound))
            continue;
        rc = t->by_aggregate ? add_block_by_aggregate(t, &b, key, e) : add_block(t, &b, key, e);
        if (rc)
            return rc;
    }
    return rc;
}

static value *new_work_row(finish_plan *p, err *e, int *rc) {
    value *row = finish_alloc(p, p->width * sizeof *row, "aggregate", e, rc);
    for (size_t i = 0; row && i < p->width; i++)
        row[i] = value_null();
    return row;
}

/* One group's row; *keep false when a min/max had no value (language.md §10.2). */
static int group_row(finish_plan *p, group *g, value *row, bool *keep, err *e) {
    *keep = true;
    for (size_t c = 0, k = 0, a = 0; c < p->col_count; c++) {
        const finish_col *col = &p->cols[c];
        if (col->spec->kind == FIND_VAR) {
            row[c] = g->key[k++];
            int rc = finish_own_values(p, &row[c], 1, ~0u, "aggregate", e);
            if (rc)
                return rc;
        } else if (col->spec->kind == FIND_AGGREGATE) {
            agg_result r;
            int rc = agg_finish(g->aggs[a++], &r, e);
            if (rc)
                return rc;
            *keep = *keep && !r.omit_group;
            row[c] = col->agg == AGG_COLLECT_SET ? value_list(r.items, r.item_count) : r.v;
        }
    }
    return 0;
}

static int emit_groups(group_table *t, finish_rows *out, err *e) {
    int rc = 0;
    for (size_t i = 0; i < t->count; i++) {
        value *row = new_work_row(t->p, e, &rc);
        bool keep = false;
        if (row)
            rc = group_row(t->p, &t->groups[i], row, &keep, e);
        if (!rc && keep)
            rc = finish_rows_push(t->p, out, row, "aggregate", e);
        if (rc)
            return rc;
    }
    return 0;
}

/* language.md §10.3: no solutions at all → one row of zeros or no row. */
static int emit_empty_input(finish_plan *p, finish_rows *out, err *e) {
    int rc = 0;
    agg_fn *fns = finish_alloc(p, (p->agg_count + 1) * sizeof *fns, "aggregate", e, &rc);
    value *zeros = fns ? finish_alloc(p, (p->agg_count + 1) * sizeof *zeros, "aggregate", e, &rc)
                       : NULL;
    if (!zeros)
        return rc;
    for (size_t c = 0, a = 0; c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_AGGREGATE)
            fns[a++] = p->cols[c].agg;
    if (!agg_empty_input_row(fns, p->agg_count, p->plain_count, zeros))
        return 0;
    value *row = new_work_row(p, e, &rc);
    if (!row)
        return rc;
    for (size_t c = 0, a = 0; c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_AGGREGATE)
            row[c] = zeros[a++];
    return finish_rows_push(p, out, row, "aggregate", e);
}

/* Host accumulators that agg_finish did not release (the query failed
 * first) are released here; for the others this is a no-op. */
static void discard_groups(group_table *t) {
    for (size_t i = 0; i < t->count; i++)
        for (size_t a = 0; a < t->p->agg_count; a++)
            agg_discard(t->groups[i].aggs[a]);
}

int finish_group(finish_plan *p, finish_rows *out, err *e) {
    group_table t = {.p = p, .by_aggregate = steps_by_aggregate(p)};
    htab_init(&t.index);
    size_t solutions = 0;
    int rc = 0;
    value *key = finish_alloc(p, (p->group_count + 1) * sizeof *key, "aggregate", e, &rc);
    if (key)
        rc = size_front(&t, e);
    if (!rc)
        rc = fill_table(&t, &solutions, key, e);
    if (!rc)
        rc = solutions ? emit_groups(&t, out, e) : emit_empty_input(p, out, e);
    discard_groups(&t);
    htab_free(&t.index);
    meter_release(p->m, t.index_charged);
    return rc;
}
