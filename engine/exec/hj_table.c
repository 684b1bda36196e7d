/* Hash join tables and their cache (see hj_table.h). */
#include "exec/hj_table.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "exec/op_scan.h"

#define HJ_OP_NAME "hash join"

void hj_table_init(hj_table *t, int key_pos, meter *m) {
    memset(t, 0, sizeof *t);
    t->key_pos = key_pos;
    t->first = HJ_END;
    t->records = true;
    t->m = m;
}

void hj_table_free(hj_table *t) {
    meter_release(t->m, t->charged);
    if (!t->packed) {
        free(t->entries);
        free(t->recs);
    }
    free(t->heads);
    hj_table_init(t, t->key_pos, t->m);
}

/* Empties t for a table keyed by key_pos charging m; its arrays stay. */
static void table_reuse(hj_table *t, int key_pos, meter *m) {
    meter_release(t->m, t->charged);
    free(t->heads);
    t->heads = NULL;
    t->head_mask = 0;
    t->charged = t->count = 0;
    t->key_pos = key_pos;
    t->first = HJ_END;
    t->records = true;
    t->m = m;
}

static size_t bucket_of(const hj_table *t, const value *key) {
    return t->key_pos >= 0 ? (size_t)value_hash_entity(key) & t->head_mask : 0;
}

size_t hj_table_entry_bytes(const hj_table *t) {
    return sizeof(hj_entry) + (t->records ? sizeof(fact) : 0);
}

int hj_table_append(hj_table *t, const value vals[3], const fact *rec, err *e) {
    size_t bytes = hj_table_entry_bytes(t);
    int rc = meter_charge(t->m, bytes, HJ_OP_NAME, e);
    if (rc != 0)
        return rc;
    t->charged += bytes;
    if (!array_reserve(&t->entries, &t->cap, t->count + 1, sizeof *t->entries, 4) ||
        (t->records && !array_reserve(&t->recs, &t->recs_cap, t->count + 1, sizeof *t->recs, 4)))
        return err_set(e, ERR(INT, 0), "out of memory");
    if (t->records)
        t->recs[t->count] = *rec;
    t->entries[t->count++] = (hj_entry){.vals = {vals[0], vals[1], vals[2]}};
    return 0;
}

/* Frees the arrays' slack: tables are kept for a whole evaluation. */
static void hj_table_shrink(hj_table *t) {
    if (t->count == 0 || t->packed)
        return;
    hj_entry *n = t->count == t->cap ? NULL : realloc(t->entries, t->count * sizeof *n);
    if (n) {
        t->entries = n;
        t->cap = t->count;
    }
    fact *r = !t->recs || t->count == t->recs_cap ? NULL : realloc(t->recs, t->count * sizeof *r);
    if (r) {
        t->recs = r;
        t->recs_cap = t->count;
    }
}

size_t *hj_heads_new(size_t n) {
    size_t *heads = malloc(n * sizeof *heads);
    for (size_t i = 0; heads && i < n; i++)
        heads[i] = HJ_END;
    return heads;
}

/* 2^k buckets, k from the entry count; one chain without a key. */
int hj_table_index(hj_table *t, err *e) {
    if (t->key_pos < 0) {
        t->first = HJ_END;
        for (size_t i = t->count; i-- > 0; t->first = i)
            t->entries[i].next = t->first;
        return 0;
    }
    size_t n = 1;
    while (n < t->count)
        n *= 2;
    if (!(t->heads = hj_heads_new(n)))
        return err_set(e, ERR(INT, 0), "out of memory");
    t->head_mask = n - 1;
    for (size_t i = t->count; i-- > 0;) {
        size_t b = bucket_of(t, &t->entries[i].vals[t->key_pos]);
        t->entries[i].next = t->heads[b];
        t->heads[b] = i;
    }
    return 0;
}

int hj_table_read(hj_table *t, where_ctx *x, const plan_item *it, const value *known[3], err *e) {
    pattern_scan ps;
    pattern_scan_init(&ps);
    int rc = pattern_scan_open(&ps, x, it, known, e);
    value vals[3];
    fact rec;
    while (rc == 1 && (rc = pattern_scan_next(&ps, vals, t->records ? &rec : NULL, e)) == 1)
        rc = hj_table_append(t, vals, &rec, e) == 0 ? 1 : e->code;
    pattern_scan_release(&ps);
    hj_table_shrink(t);
    return rc != 0 ? rc : hj_table_index(t, e);
}

size_t hj_table_first(const hj_table *t, const value *key) {
    return t->key_pos < 0 ? t->first : t->heads[key ? bucket_of(t, key) : 0];
}

/* ---- the cache ------------------------------------------------------------------ */

typedef struct valid_span {
    int64_t lo, hi;
} valid_span;

struct hj_cached {
    value attr; /* borrowed from the rules */
    bool has_entity;
    uuid128 entity;
    bool refused; /* remembered as not kept: `t` is empty */
    bool derived;
    bool stale; /* a derived table of an earlier evaluation: read again */
    uint64_t version;
    /* The valid-time points at which t shows the same records: [lo, hi). */
    int64_t valid_lo, valid_hi;
    hj_table t;
};

/* The items' memory kept by hj_cache_clear for the next evaluation. */
#define HJ_CACHE_KEEP_BYTES (64 * 1024)
#define HJ_CACHE_BLOCK 8192

void hj_cache_init(hj_cache *c, size_t memory_limit) {
    memset(c, 0, sizeof *c);
    htab_init(&c->index);
    arena_init_blocks(&c->mem, HJ_CACHE_BLOCK);
    hj_table_init(&c->scratch, -1, NULL);
    c->budget = memory_limit ? memory_limit / 4 : SIZE_MAX;
}

static void free_tables(hj_cache *c) {
    for (size_t i = 0; i < c->count; i++)
        hj_table_free(&c->items[i]->t);
    table_reuse(&c->scratch, -1, NULL);
}

void hj_cache_free(hj_cache *c) {
    free_tables(c);
    free(c->items);
    htab_free(&c->index);
    arena_free(&c->mem);
    hj_table_free(&c->scratch);
    hj_cache_init(c, 0);
}

static size_t footprint(const hj_cache *c) {
    return arena_footprint(&c->mem) + c->cap * sizeof *c->items +
           c->index.cap * (sizeof *c->index.hashes + sizeof *c->index.ids) +
           c->scratch.cap * hj_table_entry_bytes(&c->scratch);
}

/* Frees every table (their charges released) for an evaluation under
 * `memory_limit`; the items' memory is kept while it is small. */
static void hj_cache_clear(hj_cache *c, size_t memory_limit) {
    if (footprint(c) > HJ_CACHE_KEEP_BYTES) {
        hj_cache_free(c);
    } else {
        free_tables(c);
        htab_clear(&c->index);
        arena_rewind(&c->mem);
        c->count = c->entity_tables = c->kept_bytes = 0;
    }
    c->budget = memory_limit ? memory_limit / 4 : SIZE_MAX;
}

/* Would item `it` show the same records under `vis`? */
static bool shows_same(const hj_cached *it, const visibility *vis) {
    return it->derived || vis->any_valid_time ||
           (it->valid_lo <= vis->valid_point && vis->valid_point < it->valid_hi);
}

static bool same_visibility(const visibility *a, const visibility *b) {
    return a->as_of == b->as_of && a->as_of_value == b->as_of_value &&
           a->any_valid_time == b->any_valid_time;
}

void hj_cache_begin(hj_cache *c, const where_ctx *x, size_t memory_limit) {
    bool keep = c->reader == x->r && c->limit == memory_limit && same_visibility(&c->vis, &x->vis);
    for (size_t i = 0; keep && i < c->count; i++)
        keep = shows_same(c->items[i], &x->vis);
    if (!keep)
        hj_cache_clear(c, memory_limit);
    c->reader = x->r;
    c->limit = memory_limit;
    c->vis = x->vis;
}

void hj_cache_end(hj_cache *c, size_t memory_limit) {
    for (size_t i = 0; i < c->count; i++) {
        hj_cached *it = c->items[i];
        if (it->derived) {
            c->kept_bytes -= it->t.charged;
            hj_table_free(&it->t);
            it->stale = true;
        }
    }
    table_reuse(&c->scratch, -1, NULL);
    if (footprint(c) + c->kept_bytes > HJ_CACHE_KEEP_BYTES)
        hj_cache_clear(c, memory_limit);
}

uint64_t hj_key_attr_hash(const value *attr) {
    return value_hash_identity(attr);
}

static uint64_t key_hash(const hj_key *k) {
    uint64_t h = k->attr_hash ^ (uint64_t)(k->key_pos + 2);
    if (k->entity) {
        uint64_t a, b;
        memcpy(&a, k->entity->bytes, 8);
        memcpy(&b, k->entity->bytes + 8, 8);
        h = hash_mix(h ^ hash_mix(a ^ hash_mix(b)));
    }
    return h;
}

typedef struct key_probe {
    const hj_cache *c;
    const hj_key *k;
} key_probe;

/* Bodies name one attribute through one constant each: the same text
 * is usually the same pointer. */
static bool same_attr(const value *kept, const value *attr) {
    return (kept->type == VT_KEYWORD && attr->type == VT_KEYWORD &&
            kept->as.str.ptr == attr->as.str.ptr && kept->as.str.len == attr->as.str.len) ||
           value_identical(kept, attr);
}

static bool same_key(const void *ctx, uint32_t id) {
    const key_probe *p = ctx;
    const hj_cached *it = p->c->items[id];
    return it->t.key_pos == p->k->key_pos && it->derived == p->k->derived &&
           it->has_entity == (p->k->entity != NULL) &&
           (!it->has_entity || uuid_equal(&it->entity, p->k->entity)) &&
           same_attr(&it->attr, p->k->attr);
}

static hj_cached *lookup(const hj_cache *c, const hj_key *k) {
    key_probe p = {c, k};
    uint32_t id = htab_find(&c->index, key_hash(k), same_key, &p);
    return id == HTAB_NONE ? NULL : c->items[id];
}

const hj_table *hj_cache_find(const hj_cache *c, const hj_key *k) {
    const hj_cached *it = lookup(c, k);
    return it && !it->refused ? &it->t : NULL;
}

/* Adds an item for `k` holding `t` (moved in), or NULL out of memory. */
static hj_cached *add(hj_cache *c, const hj_key *k, hj_table *t, bool refused,
                      const valid_span *span) {
    if (!array_reserve(&c->items, &c->cap, c->count + 1, sizeof *c->items, 8))
        return NULL;
    hj_cached *it = arena_alloc(&c->mem, sizeof *it);
    if (!it || c->count >= UINT32_MAX ||
        htab_insert(&c->index, key_hash(k), (uint32_t)c->count) != 0)
        return NULL;
    *it = (hj_cached){.attr = *k->attr,
                      .has_entity = k->entity != NULL,
                      .refused = refused,
                      .derived = k->derived,
                      .version = k->version,
                      .valid_lo = span->lo,
                      .valid_hi = span->hi,
                      .t = *t};
    if (k->entity)
        it->entity = *k->entity;
    c->entity_tables += k->entity != NULL;
    c->kept_bytes += t->charged;
    c->items[c->count++] = it;
    return it;
}

static bool fits(const hj_cache *c, size_t bytes) {
    return bytes <= c->budget && c->kept_bytes <= c->budget - bytes;
}

const hj_table *hj_cache_put(hj_cache *c, const hj_key *k, hj_table *t) {
    if (!fits(c, t->charged) || lookup(c, k)) /* a key is kept or refused once */
        return NULL;
    /* read at the query's point: it serves that point alone */
    int64_t p = c->vis.valid_point;
    valid_span span = {p, p < INT64_MAX ? p + 1 : p};
    hj_cached *it = add(c, k, t, false, &span);
    return it ? &it->t : NULL;
}

/* Does a record visible at some valid time show at `point`? The span of
 * points that decide the same way for every record so far narrows to
 * take it in. */
static bool shows_at(const fact *rec, int64_t point, valid_span *span) {
    if (point < rec->valid_from) {
        span->hi = span->hi < rec->valid_from ? span->hi : rec->valid_from;
        return false;
    }
    if (point >= rec->valid_to) {
        span->lo = span->lo > rec->valid_to ? span->lo : rec->valid_to;
        return false;
    }
    span->lo = span->lo > rec->valid_from ? span->lo : rec->valid_from;
    span->hi = span->hi < rec->valid_to ? span->hi : rec->valid_to;
    return true;
}

/* Reads the records into `t` while they fit the budget. 1 read, 0 they do
 * not fit (or not within the meter's limit), or a storage error. A stored
 * pattern is read at every valid time and its records kept as the
 * query's point shows them (visibility.h), so that `span` says at which
 * other points the table holds (a later evaluation's "now"). */
static int read_within_budget(hj_cache *c, hj_table *t, where_ctx *x, const plan_item *it,
                              const value *known[3], bool derived, valid_span *span, err *e) {
    const visibility vis = x->vis;
    bool filter = !derived && !vis.any_valid_time;
    *span = (valid_span){INT64_MIN, INT64_MAX};
    x->vis.any_valid_time = vis.any_valid_time || filter;
    pattern_scan ps;
    pattern_scan_init(&ps);
    int rc = pattern_scan_open(&ps, x, it, known, e);
    bool over = false;
    value vals[3];
    fact rec;
    while (rc == 1 && (rc = pattern_scan_next(&ps, vals, &rec, e)) == 1) {
        if (filter && !shows_at(&rec, vis.valid_point, span))
            continue;
        over = !fits(c, t->charged + hj_table_entry_bytes(t));
        rc = over ? 0 : hj_table_append(t, vals, &rec, e) == 0 ? 1 : e->code;
    }
    pattern_scan_release(&ps);
    x->vis = vis;
    if (rc == ERR(QRY, 12)) {
        err_clear(e);
        return 0;
    }
    if (rc != 0 || over)
        return over ? 0 : rc;
    return hj_table_index(t, e) == 0 ? 1 : e->code;
}

/* Tables of one chain and at most this many entries are copied into the
 * cache's arena. */
#define HJ_PACK_MAX 8

/* Moves the scratch table read into *t: its entries copied into the
 * arena when few, else its arrays (the scratch gets new ones). False: out
 * of memory (the scratch is emptied). */
static bool take_scratch(hj_cache *c, hj_table *t) {
    hj_table *s = &c->scratch;
    if (s->key_pos >= 0 || s->count > HJ_PACK_MAX) {
        *t = *s;
        hj_table_shrink(t);
        hj_table_init(s, -1, NULL);
        return true;
    }
    *t = *s;
    t->packed = true;
    t->cap = t->recs_cap = t->count;
    s->charged = s->count = 0;
    if (t->count == 0) { /* no record: no arrays */
        t->entries = NULL;
        t->recs = NULL;
        return true;
    }
    t->entries = arena_alloc(&c->mem, t->count * sizeof *t->entries);
    t->recs = s->recs ? arena_alloc(&c->mem, t->count * sizeof *t->recs) : NULL;
    if (!t->entries || (s->recs && !t->recs)) {
        hj_table_free(t);
        return false;
    }
    memcpy(t->entries, s->entries, t->count * sizeof *t->entries);
    if (t->recs)
        memcpy(t->recs, s->recs, t->count * sizeof *t->recs);
    /* the one chain (hj_table_index) stays: it links entry indices */
    return true;
}

/* Reads `item` again for version k->version, in place. */
static int reread(hj_cache *c, hj_cached *item, where_ctx *x, const plan_item *it, const hj_key *k,
                  const value *known[3], const hj_table **out, err *e) {
    c->kept_bytes -= item->t.charged;
    hj_table_free(&item->t);
    item->version = k->version;
    item->stale = false;
    valid_span span;
    int rc = read_within_budget(c, &item->t, x, it, known, k->derived, &span, e);
    item->valid_lo = span.lo;
    item->valid_hi = span.hi;
    item->refused = rc != 1;
    hj_table_shrink(&item->t);
    if (rc == 1)
        c->kept_bytes += item->t.charged;
    else
        hj_table_free(&item->t);
    *out = rc == 1 ? &item->t : NULL;
    return rc > 1 ? rc : 0;
}

int hj_cache_load(hj_cache *c, where_ctx *x, const plan_item *it, const hj_key *k,
                  const value *known[3], const hj_table **out, err *e) {
    hj_cached *found = lookup(c, k);
    if (found && (found->stale || found->version != k->version))
        return reread(c, found, x, it, k, known, out, e);
    *out = found && !found->refused ? &found->t : NULL;
    if (found || (k->entity && c->entity_tables >= HJ_CACHE_ENTITY_TABLES))
        return 0;
    table_reuse(&c->scratch, k->key_pos, x->m);
    valid_span span;
    int rc = read_within_budget(c, &c->scratch, x, it, known, k->derived, &span, e);
    if (rc != 1)
        table_reuse(&c->scratch, k->key_pos, x->m); /* refused: remembered empty */
    if (rc > 1)
        return rc;
    hj_table t;
    hj_table_init(&t, k->key_pos, x->m);
    if (rc == 1 && !take_scratch(c, &t))
        return err_set(e, ERR(INT, 0), "out of memory");
    const hj_cached *kept = add(c, k, &t, rc == 0, &span);
    if (!kept) {
        hj_table_free(&t);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    *out = rc == 1 ? &kept->t : NULL;
    return 0;
}
