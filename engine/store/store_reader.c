/* Readers: a snapshot of the store (its read lock), index scans, and the
 * decoding of stored identifiers back into values. Decoded texts are copied
 * once per reader into its arena, so values handed out stay valid until
 * store_reader_close; that memo (texts, array and index) is charged to the
 * reader's budget before it grows. */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/htab.h"
#include "storage/btree.h"
#include "store/fact_codec.h"
#include "store/fact_run.h"

typedef struct decoded {
    uint64_t loc;
    const char *ptr;
    size_t len;
} decoded;

/* A recent dictionary lookup, in a direct-mapped memo (by
 * lookup_key_hash). Rule evaluation seeks the same attribute keywords and
 * entities again on every scan it opens, round after round, and a
 * repeated query its constants; lookups are kept while the reader's
 * snapshot is the same (tx count and generation: a pooled reader keeps
 * them for its next query), so a hit (found or not) is the answer the
 * tree would give. */
#define LOOKUP_MEMO 32 /* a power of two */
#define LOOKUP_KEY 48  /* longer keys are not kept */
typedef struct lookup {
    uint8_t key[LOOKUP_KEY]; /* inline: misses must not grow the reader */
    size_t len;
    uint64_t id;
    uint64_t epoch;  /* the reader's lookup_epoch when kept; 0: empty */
    uint64_t seeded; /* the reader's query that seeded its decoding memo */
    int kind, rc;
} lookup;

#define UUID_SLOTS 256
typedef struct uuid_slot {
    uint64_t loc;
    uuid128 u;
} uuid_slot;

struct store_reader {
    value_source src; /* of the stored values it hands out */
    err failure;      /* the last failure to decode one inside a comparison */
    store *s;
    format_header h; /* the snapshot */
    lookup lookups[LOOKUP_MEMO];
    uint64_t lookup_epoch; /* moves when the snapshot does: voids the lookups */
    uint64_t lookup_tx, lookup_generation; /* the snapshot of the lookups */
    uint64_t query;        /* how many times the reader was opened */
    arena mem;
    decoded *memo;
    size_t memo_count, memo_cap;
    htab memo_map;
    store_budget budget;   /* charge NULL: none */
    size_t charged;        /* bytes charged to the budget */
    size_t charged_cap;    /* the memo capacity they cover */
    decoded attr;          /* the last attribute decoded (ptr NULL: none) */
    uint8_t *scratch;      /* one page, allocated when first needed */
    uint32_t scratch_pgno; /* the dictionary page it holds, 0: none */
    uint8_t entry[LOOKUP_CACHE_KEY]; /* an entry from the shared cache */
    size_t entry_reads;    /* dictionary entries read so far */
    uuid_slot *uuids; /* allocated at the first UUID, never zeroed: */
    uint64_t uuid_filled[UUID_SLOTS / 64]; /* which slots hold one */
    store_scan *spare;     /* a closed scan, for the next one to reuse */
};

struct store_scan {
    store_reader *r;
    int order;
    btree_cursor c;
    fact_run run;  /* the cursor's entries being read */
    bool bounded;  /* run has the order and bound (set when first read:
                      estimates never read runs) */
    uint8_t prefix[FACT_KEY_SIZE];
    size_t plen;
    bool desc;     /* AVET groups from the last value down (store_scan_values) */
    unsigned desc_groups; /* value groups a descending scan has sought */
    bool has_below;       /* the rest, forwards: values below `below` only */
    uint8_t below[FACT_V_SIZE];
    bool *order_lost;     /* set when a descending scan reads on forwards */
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

/* The dictionary id of a stored value this reader handed out, if it is one. */
static bool own_id(const store_reader *r, const value *v, uint64_t *id) {
    if (!v->stored || v->as.stored.src != &r->src)
        return false;
    *id = v->as.stored.id;
    return true;
}

void store_readers_init(store *s) {
    spares_init(&s->readers, STORE_IDLE_READERS);
}

static void reader_free(store_reader *r) {
    err_clear(&r->failure);
    arena_free(&r->mem);
    htab_free(&r->memo_map);
    free(r->memo);
    free(r->scratch);
    free(r->uuids);
    free(r->spare);
    free(r);
}

void store_readers_free(store *s) {
    for (store_reader *r; (r = spares_take(&s->readers)) != NULL;)
        reader_free(r);
}

static int source_entity(const value_source *src, uint64_t id, uuid128 *out, err *e);
static int source_text(const value_source *src, uint64_t id, const char **ptr, size_t *len,
                       err *e);

/* An idle reader, or a new one. */
static store_reader *reader_take(store *s) {
    store_reader *r = spares_take(&s->readers);
    if (r || !(r = calloc(1, sizeof *r)))
        return r;
    r->s = s;
    r->src.entity = source_entity;
    r->src.text = source_text;
    arena_init(&r->mem);
    htab_init(&r->memo_map);
    return r;
}

/* A memo array past this many entries is not kept with an idle reader. */
#define IDLE_MEMO_MAX 256

/* Gives back what the budget was charged and forgets the budget, decoded
 * texts and held page, keeping the snapshot's lookups (until a reader
 * opens on another), the memo (unless large), the texts' arena block
 * (unless the arena grew past one), the scratch page, the spare scan and
 * the UUID slots (a location's UUID never changes). */
static void reader_reset(store_reader *r) {
    if (r->budget.release)
        r->budget.release(r->budget.ctx, r->charged);
    r->budget = (store_budget){0};
    r->charged = 0;
    r->charged_cap = 0;
    err_clear(&r->failure);
    r->src.failed = false;
    arena_rewind(&r->mem);
    r->memo_count = 0;
    r->attr.ptr = NULL;
    r->scratch_pgno = 0;
    r->entry_reads = 0;
    if (r->memo_cap > IDLE_MEMO_MAX) {
        free(r->memo);
        r->memo = NULL;
        r->memo_cap = 0;
        htab_free(&r->memo_map);
    } else {
        htab_clear(&r->memo_map);
    }
}

int store_reader_open(store *s, store_reader **out, err *e) {
    store_reader *r = reader_take(s);
    if (!r)
        return oom(e);
    shared_lock_read(&s->rw);
    r->h = s->h;
    r->query++;
    if (r->lookup_epoch == 0 || r->lookup_tx != r->h.tx_count ||
        r->lookup_generation != r->h.generation) {
        r->lookup_epoch++;
        r->lookup_tx = r->h.tx_count;
        r->lookup_generation = r->h.generation;
    }
    *out = r;
    return 0;
}

void store_reader_close(store_reader *r) {
    if (!r)
        return;
    store *s = r->s;
    shared_lock_read_done(&s->rw);
    reader_reset(r);
    if (!spares_give(&s->readers, r))
        reader_free(r);
}

void store_reader_set_budget(store_reader *r, const store_budget *b) {
    r->budget = *b;
}

static int charge(store_reader *r, size_t bytes, err *e) {
    if (!r->budget.charge)
        return 0;
    int rc = r->budget.charge(r->budget.ctx, bytes, e);
    if (rc == 0)
        r->charged += bytes;
    return rc;
}

static void release(store_reader *r, size_t bytes) {
    if (!r->budget.release)
        return;
    r->budget.release(r->budget.ctx, bytes);
    r->charged -= bytes;
}

uint64_t store_reader_tx_count(const store_reader *r) {
    return r->h.tx_count;
}

uint64_t store_reader_generation(const store_reader *r) {
    return r->h.generation;
}

uint64_t store_reader_fact_count(const store_reader *r) {
    return r->h.fact_count;
}

uint64_t store_reader_entity_count(const store_reader *r) {
    return r->h.entity_count;
}

static uint64_t loc_hash(uint64_t loc) {
    return hash_mix(loc);
}

typedef struct memo_key {
    const store_reader *r;
    uint64_t loc;
} memo_key;

static bool memo_eq(const void *ctx, uint32_t id) {
    const memo_key *k = ctx;
    return k->r->memo[id].loc == k->loc;
}

#define MEMO_FIRST 16

/* The memo's array and index at capacity `cap`. */
static size_t memo_bytes(size_t cap) {
    return cap ? cap * sizeof(decoded) + htab_bytes_for(cap) : 0;
}

/* Room for `cap` entries, in the array and in the index, so that no
 * insert grows the index. */
static int memo_grow(store_reader *r, size_t cap, err *e) {
    decoded *grown = realloc(r->memo, cap * sizeof *grown);
    if (!grown)
        return oom(e);
    r->memo = grown;
    r->memo_cap = cap;
    return htab_reserve(&r->memo_map, cap - r->memo_count) == 0 ? 0 : oom(e);
}

/* Room for one more entry. The charge follows the capacity a fresh reader
 * would have (an idle reader's kept memo is not this query's doing), and
 * covers the old arrays and the new ones together while both exist. */
static int memo_reserve(store_reader *r, err *e) {
    if (r->memo_count < r->charged_cap)
        return 0;
    size_t cap = r->charged_cap ? r->charged_cap * 2 : MEMO_FIRST;
    if (cap > UINT32_MAX - 1)
        return oom(e);
    int rc = charge(r, memo_bytes(cap), e);
    if (rc != 0)
        return rc;
    if (cap > r->memo_cap && (rc = memo_grow(r, cap, e)) != 0) {
        release(r, memo_bytes(cap));
        return rc;
    }
    release(r, memo_bytes(r->charged_cap)); /* the old arrays are gone */
    r->charged_cap = cap;
    return 0;
}

static int memo_add(store_reader *r, uint64_t loc, const uint8_t *bytes, size_t len,
                    const decoded **out, err *e) {
    size_t text = arena_size(len + 1);
    int rc = text ? memo_reserve(r, e) : oom(e);
    if (rc == 0)
        rc = charge(r, text, e);
    if (rc != 0)
        return rc;
    char *copy = arena_strndup(&r->mem, (const char *)bytes, len);
    if (!copy || htab_insert(&r->memo_map, loc_hash(loc), (uint32_t)r->memo_count) != 0)
        return oom(e);
    r->memo[r->memo_count] = (decoded){loc, copy, len};
    *out = &r->memo[r->memo_count++];
    return 0;
}

/* The memo slot of a key of hash h. */
static lookup *lookup_slot_of(store_reader *r, uint64_t h) {
    return &r->lookups[h & (LOOKUP_MEMO - 1)];
}

static lookup *lookup_find(store_reader *r, uint64_t h, int kind, const void *key, size_t len) {
    lookup *l = lookup_slot_of(r, h);
    bool same = l->epoch == r->lookup_epoch && l->kind == kind && l->len == len &&
                memcmp(l->key, key, len) == 0;
    return same ? l : NULL;
}

static void lookup_keep(store_reader *r, uint64_t h, int kind, const void *key, size_t len,
                        uint64_t id, int rc) {
    if (len > LOOKUP_KEY)
        return;
    lookup *l = lookup_slot_of(r, h);
    memcpy(l->key, key, len);
    l->len = len;
    l->id = id;
    l->epoch = r->lookup_epoch;
    l->seeded = r->query; /* dict_lookup seeds a found entry next */
    l->kind = kind;
    l->rc = rc;
}

static void uuid_keep(store_reader *r, uint64_t loc, const uuid128 *u);

/* A found entry is kept for decoding too: the records a query's constants
 * select carry them (a point query's entity and attribute). */
static int seed_decoded(store_reader *r, int kind, const void *key, size_t len, uint64_t loc,
                        err *e) {
    memo_key k = {r, loc};
    const decoded *d;
    if (kind == DICT_UUID) {
        uuid128 u;
        memcpy(u.bytes, key, 16);
        uuid_keep(r, loc, &u);
        return 1;
    }
    if (htab_find(&r->memo_map, loc_hash(loc), memo_eq, &k) != HTAB_NONE)
        return 1;
    return memo_add(r, loc, key, len, &d, e) == 0 ? 1 : e->code;
}

/* Through the reader's memo, then the store's shared cache, then the
 * dictionary's tree. */
static int dict_lookup(store_reader *r, int kind, const void *key, size_t len, uint64_t *id, err *e) {
    uint64_t h = lookup_key_hash(kind, key, len);
    lookup *l = lookup_find(r, h, kind, key, len);
    if (l) {
        *id = l->id;
        if (l->rc != 1 || l->seeded == r->query)
            return l->rc;
        l->seeded = r->query; /* kept from an earlier query */
        return seed_decoded(r, kind, key, len, l->id, e);
    }
    uint64_t found = 0;
    int rc = lookup_cache_get(&r->s->lookups, kind, key, len, r->h.tx_count, &found);
    if (rc < 0) {
        rc = dict_find(&r->s->dic, r->s->pg, r->h.roots[TREE_DICT], kind, key, len, &found, e);
        if (rc == 0 || rc == 1)
            lookup_cache_put(&r->s->lookups, kind, key, len, r->h.tx_count, rc, found);
    }
    if (rc == 0 || rc == 1)
        lookup_keep(r, h, kind, key, len, found, rc);
    if (rc == 1)
        *id = found;
    return rc == 1 ? seed_decoded(r, kind, key, len, found, e) : rc;
}

int store_reader_entity_id(store_reader *r, const uuid128 *u, uint64_t *id, err *e) {
    return dict_lookup(r, DICT_UUID, u->bytes, 16, id, e);
}

int store_reader_text_id(store_reader *r, const char *text, size_t len, uint64_t *id, err *e) {
    return dict_lookup(r, DICT_TEXT, text, len, id, e);
}

/* Texts and UUIDs through dict_lookup; the other types need no lookup. */
int store_reader_value_key(store_reader *r, const value *v, uint8_t out[FACT_V_SIZE], err *e) {
    bool text = v->type == VT_STRING || v->type == VT_KEYWORD;
    if (!text && v->type != VT_REF)
        return store_value_field(r->s, v, false, out, e);
    uint64_t loc;
    value d = *v;
    int rc = 1;
    if (!own_id(r, v, &loc) && (rc = value_resolve(&d, e)) == 0)
        rc = text ? dict_lookup(r, DICT_TEXT, d.as.str.ptr, d.as.str.len, &loc, e)
                  : dict_lookup(r, DICT_UUID, d.as.ref.bytes, 16, &loc, e);
    if (rc != 1)
        return rc;
    memset(out, 0, FACT_V_SIZE);
    out[0] = (uint8_t)v->type;
    format_put_be(out + 1, loc, 8);
    return 1;
}

/* A reader's first entry reads go through the store's shared cache:
 * small queries decode the same few values again and again. A reader that
 * has read this many is scanning; it bypasses the cache, which would cost
 * it a lock per value and flush what the small queries keep there. */
#define SHARED_DECODES 32

/* The bytes of the entry at `loc`: from the shared cache, or the heap
 * page, kept in the scratch page while the next entries fall in it. */
static int entry_bytes(store_reader *r, uint64_t loc, int *kind, const uint8_t **bytes,
                       size_t *len, err *e) {
    bool shared = r->entry_reads++ < SHARED_DECODES;
    if (shared && lookup_cache_entry(&r->s->lookups, loc, kind, r->entry, len) == 1) {
        *bytes = r->entry;
        return 0;
    }
    if (!r->scratch && !(r->scratch = malloc(FORMAT_PAGE_SIZE)))
        return oom(e);
    int rc = dict_read_held(&r->s->dic, r->s->pg, loc, r->scratch, &r->scratch_pgno, kind, bytes,
                            len, e);
    if (rc == 0 && shared)
        lookup_cache_put(&r->s->lookups, *kind, *bytes, *len, r->h.tx_count, 1, loc);
    return rc;
}

/* The dictionary entry at `loc`, which must be of `kind`: its bytes are
 * valid until the next read. */
static int read_entry(store_reader *r, uint64_t loc, int kind, const uint8_t **bytes, size_t *len,
                      err *e) {
    int got;
    int rc = entry_bytes(r, loc, &got, bytes, len, e);
    if (rc == 0 && (got != kind || (kind == DICT_UUID && *len != 16)))
        rc = err_set(e, ERR(STG, 9), "dictionary entry at %llu has the wrong kind",
                     (unsigned long long)loc);
    return rc;
}

/* A text entry, copied once per reader (values borrow it). */
static int resolve(store_reader *r, uint64_t loc, int kind, const decoded **out, err *e) {
    memo_key k = {r, loc};
    uint32_t id = htab_find(&r->memo_map, loc_hash(loc), memo_eq, &k);
    if (id != HTAB_NONE) {
        *out = &r->memo[id];
        return 0;
    }
    const uint8_t *bytes;
    size_t len;
    int rc = read_entry(r, loc, kind, &bytes, &len, e);
    return rc != 0 ? rc : memo_add(r, loc, bytes, len, out, e);
}

/* UUIDs are copied into the values, so they are not kept for the reader's
 * life (a scan of every entity would hold them all): a small cache serves
 * entities met again, the kept scratch page those met in storage order. */
/* Fills UUID slot `i` (the slots exist). */
static inline void uuid_store(store_reader *r, size_t i, uint64_t loc, const uuid128 *u) {
    r->uuids[i].loc = loc;
    r->uuids[i].u = *u;
    r->uuid_filled[i / 64] |= UINT64_C(1) << (i % 64);
}

static void uuid_keep(store_reader *r, uint64_t loc, const uuid128 *u) {
    if (r->uuids || (r->uuids = malloc(UUID_SLOTS * sizeof *r->uuids)))
        uuid_store(r, loc_hash(loc) % UUID_SLOTS, loc, u);
}

/* A scanning reader's UUID in the dictionary page it holds, where
 * entities met in storage order mostly are: no cache to probe or fill.
 * (The first reads go through the shared cache: entry_bytes.) False when
 * it is not there (or is not a UUID: the slow path reports that). */
static inline bool held_uuid(const store_reader *r, uint64_t loc, uuid128 *u) {
    int kind;
    const uint8_t *bytes;
    size_t len;
    if (r->entry_reads < SHARED_DECODES || !r->scratch_pgno ||
        dict_loc_page(loc) != r->scratch_pgno ||
        !dict_entry_in(r->scratch, loc, &kind, &bytes, &len) || kind != DICT_UUID || len != 16)
        return false;
    memcpy(u->bytes, bytes, 16);
    return true;
}

/* A UUID through the reader's cache, else the dictionary. */
static int read_uuid(store_reader *r, uint64_t loc, uuid128 *u, err *e) {
    if (!r->uuids)
        r->uuids = malloc(UUID_SLOTS * sizeof *r->uuids);
    size_t i = loc_hash(loc) % UUID_SLOTS;
    uint64_t bit = UINT64_C(1) << (i % 64);
    if (r->uuids && (r->uuid_filled[i / 64] & bit) && r->uuids[i].loc == loc) {
        *u = r->uuids[i].u;
        return 0;
    }
    const uint8_t *bytes;
    size_t len;
    int rc = read_entry(r, loc, DICT_UUID, &bytes, &len, e);
    if (rc != 0)
        return rc;
    memcpy(u->bytes, bytes, 16);
    if (r->uuids) /* out of memory only means no cache */
        uuid_store(r, i, loc, u);
    return 0;
}

static inline int decode_uuid(store_reader *r, uint64_t loc, uuid128 *u, err *e) {
    return held_uuid(r, loc, u) ? 0 : read_uuid(r, loc, u, e);
}

/* src is the reader's first member. Without `e` (a comparison) a failure
 * is kept for store_reader_check. */
static int source_entity(const value_source *src, uint64_t id, uuid128 *out, err *e) {
    store_reader *r = (store_reader *)src;
    int rc = decode_uuid(r, id, out, e ? e : &r->failure);
    if (rc != 0 && !e)
        r->src.failed = true;
    return rc;
}

static int source_text(const value_source *src, uint64_t id, const char **ptr, size_t *len,
                       err *e) {
    store_reader *r = (store_reader *)src;
    const decoded *d;
    int rc = resolve(r, id, DICT_TEXT, &d, e ? e : &r->failure);
    if (rc == 0) {
        *ptr = d->ptr;
        *len = d->len;
    } else if (!e) {
        r->src.failed = true;
    }
    return rc;
}

const value_source *store_reader_source(const store_reader *r) {
    return &r->src;
}

int store_reader_check(store_reader *r, err *e) {
    if (!r->src.failed)
        return 0;
    r->src.failed = false;
    int rc = r->failure.code;
    err_move(e, &r->failure);
    return rc;
}

static int decode_value(store_reader *r, const uint8_t *field, value *v, err *e) {
    uint64_t payload = format_get_be(field + 1, 8);
    const decoded *d;
    double f;
    int rc = 0;
    switch (field[0]) {
    case VT_INTEGER: *v = value_integer(format_from_sortable(payload)); return 0;
    case VT_FLOAT: memcpy(&f, &payload, sizeof f); *v = value_float(f); return 0;
    case VT_BOOLEAN: *v = value_boolean(payload != 0); return 0;
    case VT_NULL: *v = value_null(); return 0;
    case VT_REF:
        *v = value_ref((uuid128){{0}});
        return decode_uuid(r, payload, &v->as.ref, e);
    case VT_STRING:
    case VT_KEYWORD:
        rc = resolve(r, payload, DICT_TEXT, &d, e);
        if (rc == 0)
            *v = field[0] == VT_STRING ? value_string(d->ptr, d->len) : value_keyword(d->ptr, d->len);
        return rc;
    default: break;
    }
    return err_set(e, ERR(STG, 8), "corrupt index record: value type %u", (unsigned)field[0]);
}

/* The attribute keyword: scans keep one, so the last is remembered. */
static int decode_attribute(store_reader *r, uint64_t loc, value *out, err *e) {
    if (!(r->attr.ptr && r->attr.loc == loc)) {
        const decoded *a; /* into r->memo: copied before the next resolve grows it */
        int rc = resolve(r, loc, DICT_TEXT, &a, e);
        if (rc != 0)
            return rc;
        r->attr = *a;
    }
    *out = value_keyword(r->attr.ptr, r->attr.len);
    return 0;
}

int store_reader_values(store_reader *r, const fact_ids *ids, value out[3], err *e) {
    out[0] = value_stored(VT_REF, &r->src, ids->e);
    out[1] = value_stored(VT_KEYWORD, &r->src, ids->a);
    uint8_t type = ids->v[0];
    if (type == VT_REF || type == VT_STRING || type == VT_KEYWORD) {
        out[2] = value_stored((value_type)type, &r->src, format_get_be(ids->v + 1, 8));
        return 0;
    }
    return decode_value(r, ids->v, &out[2], e);
}

int store_reader_decode(store_reader *r, const fact_ids *ids, store_rec *out, err *e) {
    if (ids != &out->ids)
        out->ids = *ids;
    ids = &out->ids;
    fact *f = &out->f;
    int rc = decode_uuid(r, ids->e, &f->entity, e);
    if (rc == 0)
        rc = decode_attribute(r, ids->a, &f->attribute, e);
    if (rc == 0)
        rc = decode_value(r, ids->v, &f->v, e);
    if (rc != 0)
        return rc;
    f->tx_count = ids->tx_count;
    f->tx_id = ids->tx_id;
    f->valid_from = ids->valid_from;
    f->valid_to = ids->valid_to;
    f->asserted = ids->asserted;
    return 0;
}

/* The index for a bound set and how many leading fields it fixes. */
static int choose_order(const store_bound *b, int *fields) {
    if (b->has_e) {
        *fields = b->has_a ? (b->has_v ? 3 : 2) : 1;
        return TREE_EAVT;
    }
    if (b->has_a) {
        *fields = b->has_v ? 2 : 1;
        return b->has_v ? TREE_AVET : TREE_AEVT;
    }
    if (b->has_v && b->ids.v[0] == VT_REF) {
        *fields = 1;
        return TREE_VAET;
    }
    *fields = 0;
    return TREE_EAVT;
}

/* Seeks to from[0..len) and keeps to keys sharing its first `bound` bytes. */
static int scan_seek(store_reader *r, int order, const uint8_t *from, size_t len, size_t bound,
                     store_scan **out, err *e) {
    store_scan *sc = r->spare ? r->spare : malloc(sizeof *sc);
    r->spare = NULL;
    if (!sc)
        return oom(e);
    sc->r = r;
    sc->order = order;
    sc->plen = bound;
    sc->desc = false;
    sc->has_below = false;
    memcpy(sc->prefix, from, len);
    fact_run_clear(&sc->run);
    sc->bounded = false;
    int rc = btree_cursor_init(&sc->c, r->s->pg, r->h.roots[order], fact_codec(order), e);
    if (rc == 0)
        rc = btree_seek(&sc->c, from, len, e);
    if (rc != 0) {
        store_scan_close(sc);
        return rc;
    }
    *out = sc;
    return 0;
}

static int scan_start(store_reader *r, int order, const fact_ids *ids, int fields,
                      store_scan **out, err *e) {
    uint8_t prefix[FACT_KEY_SIZE] = {0};
    size_t plen = fields ? fact_key_prefix(order, ids, fields, prefix) : 0;
    return scan_seek(r, order, prefix, plen, plen, out, e);
}

int store_scan_open(store_reader *r, const store_bound *b, store_scan **out, err *e) {
    int fields;
    int order = choose_order(b, &fields);
    return scan_start(r, order, &b->ids, fields, out, e);
}

int store_scan_order(store_reader *r, int order, store_scan **out, err *e) {
    if (order < TREE_EAVT || order > TREE_TXLOG)
        return err_set(e, ERR(INT, 0), "internal: no such index order %d", order);
    return scan_start(r, order, NULL, 0, out, e);
}

int store_scan_from(store_reader *r, int order, const uint8_t *from, size_t len, size_t bound,
                    store_scan **out, err *e) {
    if (order < TREE_EAVT || order > TREE_TXLOG || len > FACT_KEY_SIZE || bound > len)
        return err_set(e, ERR(INT, 0), "internal: bad scan range");
    return scan_seek(r, order, from, len, bound, out, e);
}

void store_key_successor(int order, const store_rec *rec, uint8_t key[FACT_KEY_SIZE]) {
    fact_key_encode(order, &rec->ids, key);
    key[FACT_KEY_SIZE - 1]++; /* the asserted byte: 0 or 1, so never a carry */
}

/* Past the scan's prefix: nothing more to read. */
static int scan_end(store_scan *sc) {
    sc->c.depth = 0;
    fact_run_clear(&sc->run);
    return 0;
}

/* The next key inside the scan's prefix, for counting (store_estimate):
 * 1, 0 at the end, or an error. */
static int next_key(store_scan *sc, const uint8_t **key, err *e) {
    int rc = btree_next(&sc->c, key, e);
    if (rc == 1 && memcmp(*key, sc->prefix, sc->plen) != 0)
        return scan_end(sc);
    return rc;
}

/* Reads the entries of `run` next; `key` (NULL: none) holds the
 * identifiers of the run's key. */
static void start_entries(store_scan *sc, const btree_run *run, const fact_ids *key) {
    fact_ids base;
    if (!sc->bounded) {
        fact_run_init(&sc->run, sc->order, sc->prefix, sc->plen);
        sc->bounded = true;
    }
    if (run->base && run->base == run->key) {
        fact_run_start(&sc->run, key, run->bytes, run->len);
        return;
    }
    if (run->base)
        fact_key_decode(sc->order, run->base, &base);
    fact_run_start(&sc->run, run->base ? &base : NULL, run->bytes, run->len);
}

/* A run that starts with the key a seek found: that key, if inside the
 * prefix. */
static int sought_key(store_scan *sc, const btree_run *run, fact_ids *out) {
    if (memcmp(run->key, sc->prefix, sc->plen) != 0)
        return scan_end(sc);
    fact_key_decode(sc->order, run->key, out);
    start_entries(sc, run, out);
    return 1;
}

static int scan_next_ids(store_scan *sc, fact_ids *out, err *e) {
    int rc;
    while ((rc = fact_run_next(&sc->run, out)) != 1) {
        if (rc == FACT_RUN_PAST)
            return scan_end(sc);
        if (rc < 0)
            return btree_run_corrupt(&sc->c, e);
        btree_run run;
        if ((rc = btree_next_run(&sc->c, &run, e)) != 1)
            return rc;
        if (run.key)
            return sought_key(sc, &run, out);
        start_entries(sc, &run, NULL);
    }
    return 1;
}

/* ---- value order (AVET) ------------------------------------------------------ */

/* AVET key bytes: the attribute, then the attribute and value. */
#define AVET_ATTR_BYTES 6
#define AVET_GROUP_BYTES (AVET_ATTR_BYTES + FACT_V_SIZE)

/* A descending scan seeks this many value groups (each a backward and a
 * forward seek, a few thousand instructions); if the query still reads
 * on, later clauses drop most rows, and the rest of the attribute is
 * read forwards in one pass instead, out of order (*order_lost). */
#define DESC_GROUPS_MAX 32

/* The values below the scan's current group, forwards. */
static int read_rest_forwards(store_scan *sc, err *e) {
    sc->desc = false;
    *sc->order_lost = true;
    sc->has_below = true;
    memcpy(sc->below, sc->prefix + AVET_ATTR_BYTES, FACT_V_SIZE);
    sc->plen = AVET_ATTR_BYTES;
    sc->bounded = false;
    fact_run_clear(&sc->run);
    int rc = btree_seek(&sc->c, sc->prefix, AVET_ATTR_BYTES, e);
    return rc == 0 ? 1 : rc;
}

/* A descending scan moves to the value group before the keys from
 * below[0..len): the last key under them, if of the scan's attribute,
 * names the group, which is then read forwards (visibility is decided
 * over each (E, A, V) group in commit order). 1 moved, 0 the end. */
static int desc_group(store_scan *sc, const uint8_t *below, size_t len, err *e) {
    if (sc->order_lost && ++sc->desc_groups > DESC_GROUPS_MAX)
        return read_rest_forwards(sc, e);
    uint8_t key[BTREE_MAX_KEY];
    int rc = btree_seek_before(&sc->c, below, len, key, e);
    if (rc != 1 || memcmp(key, sc->prefix, AVET_ATTR_BYTES) != 0) {
        sc->desc = false;
        return rc == 1 ? scan_end(sc) : rc;
    }
    memcpy(sc->prefix, key, AVET_GROUP_BYTES);
    sc->plen = AVET_GROUP_BYTES;
    sc->bounded = false;
    fact_run_clear(&sc->run);
    rc = btree_seek(&sc->c, sc->prefix, AVET_GROUP_BYTES, e);
    return rc == 0 ? 1 : rc;
}

int store_scan_values(store_reader *r, uint64_t attr, bool desc, bool *order_lost, store_scan **out,
                      err *e) {
    fact_ids ids = {.a = attr};
    uint8_t prefix[FACT_KEY_SIZE];
    size_t plen = fact_key_prefix(TREE_AVET, &ids, 1, prefix);
    int rc = scan_seek(r, TREE_AVET, prefix, plen, plen, out, e);
    if (rc != 0 || !desc)
        return rc;
    uint8_t above[FACT_KEY_SIZE];
    memset(above, 0xff, sizeof above);
    memcpy(above, prefix, plen);
    (*out)->desc = true;
    (*out)->desc_groups = 0;
    (*out)->order_lost = order_lost;
    rc = desc_group(*out, above, sizeof above, e);
    if (rc > 1) {
        store_scan_close(*out);
        *out = NULL;
        return rc;
    }
    return 0;
}

/* The V type of the first record a scan of `attr`'s values gives. */
static int first_value_type(store_reader *r, uint64_t attr, bool desc, int *type, err *e) {
    store_scan *sc = NULL;
    fact_ids ids;
    int rc = store_scan_values(r, attr, desc, NULL, &sc, e);
    if (rc != 0)
        return rc;
    rc = store_scan_next_ids(sc, &ids, e);
    store_scan_close(sc);
    if (rc == 1)
        *type = ids.v[0];
    return rc;
}

int store_value_types(store_reader *r, uint64_t attr, int *lowest, int *highest, err *e) {
    int rc = first_value_type(r, attr, false, lowest, e);
    return rc == 1 ? first_value_type(r, attr, true, highest, e) : rc;
}

int store_scan_next_ids(store_scan *sc, fact_ids *out, err *e) {
    int rc;
    while ((rc = scan_next_ids(sc, out, e)) == 0 && sc->desc)
        if ((rc = desc_group(sc, sc->prefix, sc->plen, e)) != 1)
            return rc;
    if (rc == 1 && sc->has_below && memcmp(out->v, sc->below, FACT_V_SIZE) >= 0)
        return scan_end(sc); /* read before, in order */
    return rc;
}

int store_scan_next(store_scan *sc, store_rec *out, err *e) {
    int rc = store_scan_next_ids(sc, &out->ids, e);
    if (rc != 1)
        return rc;
    rc = store_reader_decode(sc->r, &out->ids, out, e);
    return rc == 0 ? 1 : rc;
}

void store_scan_close(store_scan *sc) {
    if (!sc)
        return;
    btree_cursor_free(&sc->c);
    if (sc->r->spare)
        free(sc);
    else
        sc->r->spare = sc;
}

/* The smallest key above every key that starts with prefix[0..len): the
 * prefix plus one as a big-endian number. False when there is none (the
 * range runs to the end of the tree). */
static bool prefix_successor(const uint8_t *prefix, size_t len, uint8_t *out) {
    memcpy(out, prefix, len);
    for (size_t i = len; i-- > 0;)
        if (++out[i] != 0)
            return true;
    return false;
}

/* The keys between the scan's start and the end of its prefix, from the
 * branch positions of both ends. Every order holds every record but VAET
 * (refs only), for which the record count is an upper bound. */
static int range_estimate(store_scan *sc, double from, double *out, err *e) {
    uint8_t hi[FACT_KEY_SIZE];
    double to = 1;
    if (prefix_successor(sc->prefix, sc->plen, hi)) {
        int rc = btree_seek(&sc->c, hi, sc->plen, e);
        if (rc != 0)
            return rc;
        to = btree_cursor_position(&sc->c);
    }
    *out = (to - from) * (double)sc->r->h.fact_count;
    return 0;
}

static int count_estimate(store_reader *r, const store_bound *b, size_t cap, size_t *out, err *e) {
    store_scan *sc;
    int rc = store_scan_open(r, b, &sc, e);
    if (rc != 0)
        return rc;
    double from = btree_cursor_position(&sc->c);
    size_t n = 0, exact = cap < STORE_ESTIMATE_EXACT ? cap : STORE_ESTIMATE_EXACT;
    const uint8_t *key;
    while (n < exact && (rc = next_key(sc, &key, e)) == 1)
        n++;
    double est = 0;
    if (rc == 1 && n < cap && (rc = range_estimate(sc, from, &est, e)) == 0 && est > (double)n)
        n = est >= (double)cap ? cap : (size_t)est;
    store_scan_close(sc);
    if (rc > 1)
        return rc;
    *out = n;
    return 0;
}

int store_estimate(store_reader *r, const store_bound *b, size_t cap, size_t *out, err *e) {
    estimate_snapshot snap = {r->h.tx_count, r->h.generation};
    if (estimate_cache_get(&r->s->estimates, snap, b, cap, out) == 1)
        return 0;
    int rc = count_estimate(r, b, cap, out, e);
    if (rc == 0)
        estimate_cache_put(&r->s->estimates, snap, b, cap, *out);
    return rc;
}

int store_bound_entity(store_reader *r, const value *v, store_bound *b, err *e) {
    uuid128 id;
    if (v->type == VT_REF && own_id(r, v, &b->ids.e)) {
        b->has_e = true;
        return 1;
    }
    if (!value_as_entity(v, &id))
        return 0;
    int rc = store_reader_entity_id(r, &id, &b->ids.e, e);
    b->has_e = rc == 1;
    return rc;
}

int store_bound_attribute(store_reader *r, const value *v, store_bound *b, err *e) {
    if (v->type == VT_REF)
        return 1;
    if (v->type != VT_KEYWORD)
        return 0;
    value kw = *v;
    int rc = 1;
    if (!own_id(r, v, &b->ids.a) && (rc = value_resolve(&kw, e)) == 0)
        rc = store_reader_text_id(r, kw.as.str.ptr, kw.as.str.len, &b->ids.a, e);
    b->has_a = rc == 1;
    return rc;
}
