/* Readers: a snapshot of the store (the published header and view,
 * listed while open; the store's read lock keeps checkpoints out), the
 * pool of idle readers, and the decoding of stored identifiers back into values.
 * Decoded texts are copied once per reader into its arena, so values
 * handed out stay valid until store_reader_close; that memo (texts, array
 * and index) is charged to the reader's budget before it grows. Index
 * scans over a reader are in store_scan.c. */
#include "store/store_reader_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/thread_slot.h"
#include "store/fact_codec.h"

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

int store_readers_init(store *s) {
    spares_init(&s->readers, STORE_IDLE_READERS);
    for (int i = 0; i < STORE_READER_LISTS; i++)
        if (pthread_mutex_init(&s->open[i].mu, NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(&s->open[i].mu);
            return -1;
        }
    return 0;
}

static void reader_free(store_reader *r) {
    err_clear(&r->failure);
    arena_free(&r->mem);
    htab_free(&r->memo_map);
    free(r->memo);
    keyword_memo_free(&r->keywords);
    free(r->scratch);
    free(r->uuids);
    store_scan_idle(r);
    for (size_t i = 0; i < r->spare_count; i++)
        free(r->spares[i]);
    free(r);
}

void store_readers_free(store *s) {
    for (store_reader *r; (r = spares_take(&s->readers)) != NULL;)
        reader_free(r);
    for (int i = 0; i < STORE_READER_LISTS; i++)
        pthread_mutex_destroy(&s->open[i].mu);
}

void store_publish_lock(store *s) {
    for (int i = 0; i < STORE_READER_LISTS; i++)
        pthread_mutex_lock(&s->open[i].mu);
}

void store_publish_unlock(store *s) {
    for (int i = STORE_READER_LISTS; i-- > 0;)
        pthread_mutex_unlock(&s->open[i].mu);
}

static int source_entity(const value_source *src, uint64_t id, uuid128 *out, err *e);
static int source_text(const value_source *src, uint64_t id, const char **ptr, size_t *len, err *e);
static int source_keyword_entity(const value_source *src, uint64_t id, uuid128 *out, err *e);
static void source_keyword_prefetch(const value_source *src, uint64_t id);
static int source_resolve_all(const value_source *src, value *v, size_t count, size_t *done,
                              err *e);

/* An idle reader, or a new one. */
static store_reader *reader_take(store *s) {
    store_reader *r = spares_take(&s->readers);
    if (r || !(r = calloc(1, sizeof *r)))
        return r;
    r->s = s;
    r->src.entity = source_entity;
    r->src.text = source_text;
    r->src.keyword_entity = source_keyword_entity;
    r->src.keyword_prefetch = source_keyword_prefetch;
    r->src.resolve_all = source_resolve_all;
    arena_init(&r->mem);
    htab_init(&r->memo_map);
    return r;
}

/* A memo array past this many entries is not kept with an idle reader. */
#define IDLE_MEMO_MAX 256

/* Gives back what the budget was charged and forgets the budget, decoded
 * texts and held page, keeping the snapshot's lookups (until a reader
 * opens on another), the memo (unless large), the texts' arena block
 * (unless the arena grew past one), the scratch page, the spare scans
 * with their cursors and the UUID slots (a location's UUID never changes).
 * The cursor keeps its pages and its place: the next query on the same
 * snapshot (a repeated or prepared query, btree_cursor_reuse) seeks
 * inside the leaf it holds without descending from the root; on another
 * snapshot it starts over. */
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

/* The newest snapshot, listed as the newest open reader (store.h). */
static void open_snapshot(store *s, store_reader *r) {
    reader_list *l = &s->open[thread_slot() % STORE_READER_LISTS];
    pthread_mutex_lock(&l->mu);
    r->h = s->pub;
    r->view = s->view;
    r->newest_tx_id = s->pub_newest_tx_id;
    r->recent = s->pub_recent;
    r->list = l;
    r->open_next = NULL;
    r->open_prev = l->newest;
    if (l->newest)
        l->newest->open_next = r;
    else
        l->oldest = r;
    l->newest = r;
    pthread_mutex_unlock(&l->mu);
}

/* On the list it opened on, which may be another thread's. */
static void close_snapshot(store_reader *r) {
    reader_list *l = r->list;
    pthread_mutex_lock(&l->mu);
    if (r->open_prev)
        r->open_prev->open_next = r->open_next;
    else
        l->oldest = r->open_next;
    if (r->open_next)
        r->open_next->open_prev = r->open_prev;
    else
        l->newest = r->open_prev;
    r->open_prev = r->open_next = NULL;
    r->list = NULL;
    pthread_mutex_unlock(&l->mu);
}

/* The open readers' views (pager_views). A list is in view order, so a
 * view shared by many readers is added once; the walk stops after
 * STORE_VIEWS_WALK readers, with `all` false. */
#define STORE_VIEWS_WALK 64
void store_readers_views(const store *s, pager_views *out) {
    out->n = 0;
    out->all = false;
    size_t walked = 0;
    for (int i = 0; i < STORE_READER_LISTS; i++) {
        for (const store_reader *r = s->open[i].oldest; r; r = r->open_next) {
            if (++walked > STORE_VIEWS_WALK || !pager_views_add(out, r->view))
                return;
        }
    }
    out->all = true;
}

/* Each list is in view order: its oldest is its first. */
uint64_t store_readers_oldest(const store *s) {
    uint64_t oldest = s->view;
    for (int i = 0; i < STORE_READER_LISTS; i++)
        if (s->open[i].oldest && s->open[i].oldest->view < oldest)
            oldest = s->open[i].oldest->view;
    return oldest;
}

int store_reader_open(store *s, store_reader **out, err *e) {
    store_reader *r = reader_take(s);
    if (!r)
        return oom(e);
    shared_lock_read(&s->rw); /* keeps checkpoints out, not commits */
    open_snapshot(s, r);
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
    close_snapshot(r);
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

int64_t store_reader_newest_tx_id(const store_reader *r) {
    return r->newest_tx_id;
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

/* A found UUID is kept for decoding too (a slot of the UUID cache): the
 * records a query's constants select carry it (a point query's entity).
 * A found text is not copied into the decoding memo: values stay stored
 * until something reads their bytes (model/value.h), which a constant's
 * text seldom is (never the attribute of a pattern that names it), and
 * then it is decoded once, the shared cache's way (entry_bytes). */
static int seed_decoded(store_reader *r, int kind, const void *key, uint64_t loc) {
    if (kind == DICT_UUID) {
        uuid128 u;
        memcpy(u.bytes, key, 16);
        uuid_keep(r, loc, &u);
    }
    return 1;
}

/* Through the reader's memo, then the store's shared cache, then the
 * dictionary's tree. */
static int dict_lookup(store_reader *r, int kind, const void *key, size_t len, uint64_t *id,
                       err *e) {
    uint64_t h = lookup_key_hash(kind, key, len);
    lookup *l = lookup_find(r, h, kind, key, len);
    if (l) {
        *id = l->id;
        if (l->rc != 1 || l->seeded == r->query)
            return l->rc;
        l->seeded = r->query; /* kept from an earlier query */
        return seed_decoded(r, kind, key, l->id);
    }
    uint64_t found = 0;
    int rc = lookup_cache_get(&r->s->lookups, kind, key, len, r->h.tx_count, &found);
    if (rc < 0) {
        rc = dict_find(&r->s->dic, r->s->pg, r->view, r->h.roots[TREE_DICT], r->recent, kind, key,
                       len, &found, e);
        if (rc == 0 || rc == 1)
            lookup_cache_put(&r->s->lookups, kind, key, len, r->h.tx_count, rc, found);
    }
    if (rc == 0 || rc == 1)
        lookup_keep(r, h, kind, key, len, found, rc);
    if (rc == 1)
        *id = found;
    return rc == 1 ? seed_decoded(r, kind, key, found) : rc;
}

/* dict_lookup through the memo of the last UUID, which seeds the UUID
 * slots once per query as a memo entry does (a slot may have been taken
 * by another location since). */
int store_reader_entity_id(store_reader *r, const uuid128 *u, uint64_t *id, err *e) {
    entity_memo *m = &r->last_entity;
    if (m->epoch == r->lookup_epoch && memcmp(m->u.bytes, u->bytes, 16) == 0) {
        if (m->rc == 1) {
            *id = m->id;
            if (m->seeded != r->query) {
                m->seeded = r->query;
                uuid_keep(r, m->id, u);
            }
        }
        return m->rc;
    }
    int rc = dict_lookup(r, DICT_UUID, u->bytes, 16, id, e);
    if (rc == 0 || rc == 1)
        *m = (entity_memo){.epoch = r->lookup_epoch,
                           .u = *u,
                           .id = rc == 1 ? *id : 0,
                           .seeded = r->query,
                           .rc = rc};
    return rc;
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
    if (!store_reader_own_id(r, v, &loc) && (rc = value_resolve(&d, e)) == 0)
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
static int entry_bytes(store_reader *r, uint64_t loc, int *kind, const uint8_t **bytes, size_t *len,
                       err *e) {
    bool shared = r->entry_reads++ < SHARED_DECODES;
    if (shared && lookup_cache_entry(&r->s->lookups, loc, kind, r->entry, len) == 1) {
        *bytes = r->entry;
        return 0;
    }
    if (!r->scratch && !(r->scratch = malloc(FORMAT_PAGE_SIZE)))
        return oom(e);
    int rc = dict_read_held(&r->s->dic, r->s->pg, r->view, loc, r->scratch, &r->scratch_pgno, kind,
                            bytes, len, e);
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
/* The first of the UUID_WAYS slots a UUID may be kept in: a set of
 * ways, so that an answer of a few thousand entities repeated does not
 * lose a third of them to collisions, as one slot a UUID did. */
#define UUID_WAYS 4
static inline size_t uuid_set(uint64_t loc) {
    return loc_hash(loc) % (UUID_SLOTS / UUID_WAYS) * UUID_WAYS;
}

static inline bool uuid_filled(const store_reader *r, size_t i) {
    return r->uuid_filled[i / 64] >> (i % 64) & 1;
}

/* The UUID at `loc` from the set at slot i, if kept there. */
static inline bool uuid_kept(const store_reader *r, size_t i, uint64_t loc, uuid128 *u) {
    for (size_t w = i; w < i + UUID_WAYS; w++)
        if (uuid_filled(r, w) && r->uuids[w].loc == loc) {
            *u = r->uuids[w].u;
            return true;
        }
    return false;
}

/* Keeps the UUID in the set at slot i (the slots exist): where it is
 * kept already (a point query's entity is seeded again every query),
 * else first, the others moving down a slot and the last going. */
static inline void uuid_store(store_reader *r, size_t i, uint64_t loc, const uuid128 *u) {
    uuid128 kept;
    if (uuid_kept(r, i, loc, &kept))
        return; /* a location's UUID never changes */
    for (size_t w = i + UUID_WAYS - 1; w > i; w--)
        if (uuid_filled(r, w - 1)) {
            r->uuids[w] = r->uuids[w - 1];
            r->uuid_filled[w / 64] |= UINT64_C(1) << (w % 64);
        }
    r->uuids[i].loc = loc;
    r->uuids[i].u = *u;
    r->uuid_filled[i / 64] |= UINT64_C(1) << (i % 64);
}

static void uuid_keep(store_reader *r, uint64_t loc, const uuid128 *u) {
    if (r->uuids || (r->uuids = malloc(UUID_SLOTS * sizeof *r->uuids)))
        uuid_store(r, uuid_set(loc), loc, u);
}

/* The bytes of the UUID at `loc` when they lie in `page`, heap page
 * `pgno` (a UUID entry of 16 bytes there), else NULL. Its offset from
 * the page's first location is the page test (dict_loc_page's) and the
 * offset's together: in another page, or with DICT_BIG_FLAG, it is
 * 4096 or more, or wraps around. */
static inline const uint8_t *uuid_in_page(const uint8_t *page, uint32_t pgno, uint64_t loc) {
    uint64_t off = loc - ((uint64_t)pgno << 12);
    if (off > FORMAT_PAGE_PAYLOAD - DICT_ENTRY_HEADER - 16 ||
        (format_get_le(page + off, 4) & 0xffffff) != (DICT_UUID | 16u << 8)) /* kind, length 16 */
        return NULL;
    return page + off + DICT_ENTRY_HEADER;
}

/* A scanning reader's UUID in the dictionary page it holds, where
 * entities met in storage order mostly are: no cache to probe or fill.
 * (The first reads go through the shared cache: entry_bytes.) False when
 * it is not there (or is not a UUID: the slow path reports that). */
static inline bool held_uuid(const store_reader *r, uint64_t loc, uuid128 *u) {
    const uint8_t *bytes;
    if (r->entry_reads < SHARED_DECODES || !r->scratch_pgno ||
        !(bytes = uuid_in_page(r->scratch, r->scratch_pgno, loc)))
        return false;
    memcpy(u->bytes, bytes, 16);
    return true;
}

/* A UUID through the reader's cache (unless not `probe`d: its page is to
 * be read anyway), else the dictionary. */
static int read_uuid(store_reader *r, uint64_t loc, bool probe, uuid128 *u, err *e) {
    if (!r->uuids)
        r->uuids = malloc(UUID_SLOTS * sizeof *r->uuids);
    size_t i = uuid_set(loc);
    if (probe && r->uuids && uuid_kept(r, i, loc, u))
        return 0;
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
    return held_uuid(r, loc, u) ? 0 : read_uuid(r, loc, true, u, e);
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

/* The UUIDs of this reader's Refs from v[i] on while they lie in the held
 * page (held_uuid's test, made once for the run: a block of rows in
 * entity order mostly lies in one page): where the run stops. */
static size_t held_refs(store_reader *r, value *v, size_t i, size_t count) {
    if (r->entry_reads < SHARED_DECODES || !r->scratch_pgno)
        return i;
    const uint8_t *page = r->scratch;
    uint32_t pgno = r->scratch_pgno;
    const value_source *src = &r->src;
    for (; i < count; i++) {
        if (!v[i].stored)
            continue;
        const uint8_t *bytes;
        if (v[i].type != VT_REF || v[i].as.stored.src != src ||
            !(bytes = uuid_in_page(page, pgno, v[i].as.stored.id)))
            break;
        uuid128 u;
        memcpy(u.bytes, bytes, sizeof u.bytes);
        value_set_ref(&v[i], &u);
    }
    return i;
}

/* How far past a Ref that leaves the held page page_read_next looks. */
#define NEXT_REF_LOOKAHEAD 8

/* Whether the block's next Ref of this reader after v[i] (which is one)
 * lies in v[i]'s dictionary page: a scan in entity order, which reads
 * that page next whatever the UUID cache holds. Probing the cache first
 * costs a miss in its 96 KiB of slots, and a hit (the entity the last
 * scan stored there) leaves the held page where it was, for the next Ref
 * to probe and miss again. */
static bool page_read_next(const store_reader *r, const value *v, size_t i, size_t count) {
    uint32_t pgno = dict_loc_page(v[i].as.stored.id);
    for (size_t j = i + 1; j < count && j <= i + NEXT_REF_LOOKAHEAD; j++)
        if (v[j].stored && v[j].type == VT_REF && v[j].as.stored.src == &r->src)
            return pgno && dict_loc_page(v[j].as.stored.id) == pgno;
    return false;
}

/* The Refs of this reader decoded here (a streamed answer's rows, a
 * block at a time: exec/finish.c), anything else stored through its
 * source. */
static int source_resolve_all(const value_source *src, value *v, size_t count, size_t *done,
                              err *e) {
    store_reader *r = (store_reader *)src;
    int rc = 0;
    size_t i = 0;
    for (; (i = held_refs(r, v, i, count)) < count; i++) {
        if (!v[i].stored)
            continue;
        if (v[i].type == VT_REF && v[i].as.stored.src == src) {
            uuid128 u; /* not in the held page (held_refs) */
            bool probe = r->entry_reads < SHARED_DECODES || !page_read_next(r, v, i, count);
            if ((rc = read_uuid(r, v[i].as.stored.id, probe, &u, e)) != 0)
                break;
            value_set_ref(&v[i], &u);
        } else if ((rc = value_resolve_stored(&v[i], e)) != 0) {
            break;
        }
    }
    *done = i;
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

/* The keyword memo is the reader's (kept for its next queries), so no
 * query is charged for it; under a memory limit it grows only within a
 * sixteenth of the limit. */
static bool grant_keywords(void *ctx, size_t bytes) {
    const store_reader *r = ctx;
    return r->budget.limit == 0 || bytes <= r->budget.limit / 16;
}

static int source_keyword_entity(const value_source *src, uint64_t id, uuid128 *out, err *e) {
    store_reader *r = (store_reader *)src;
    if (keyword_memo_find(&r->keywords, id, out))
        return 0;
    /* The text is read, not resolved: a join on keyword values meets one
     * per record of its scan, and only their entities are kept. */
    const uint8_t *bytes;
    size_t len;
    int rc = read_entry(r, id, DICT_TEXT, &bytes, &len, e ? e : &r->failure);
    if (rc != 0) {
        if (!e)
            r->src.failed = true;
        return rc;
    }
    *out = uuid_of_keyword((const char *)bytes, len);
    keyword_memo_put(&r->keywords, id, out, grant_keywords, r);
    return 0;
}

static void source_keyword_prefetch(const value_source *src, uint64_t id) {
    keyword_memo_prefetch(&((const store_reader *)src)->keywords, id);
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
    int rc = 0;
    switch (field[0]) {
    case VT_REF: *v = value_ref((uuid128){{0}}); return decode_uuid(r, payload, &v->as.ref, e);
    case VT_STRING:
    case VT_KEYWORD:
        rc = resolve(r, payload, DICT_TEXT, &d, e);
        if (rc == 0)
            *v = field[0] == VT_STRING ? value_string(d->ptr, d->len)
                                       : value_keyword(d->ptr, d->len);
        return rc;
    default:
        if (field_value_set(v, field[0], payload, NULL))
            return 0;
        break;
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

int store_reader_value_field(store_reader *r, const uint8_t v[FACT_V_SIZE], value *out, err *e) {
    return decode_value(r, v, out, e);
}

int store_reader_values(store_reader *r, const fact_ids *ids, value out[3], err *e) {
    store_reader_value_at(r, &r->src, ids, 0, &out[0], e);
    store_reader_value_at(r, &r->src, ids, 1, &out[1], e);
    return store_reader_value_at(r, &r->src, ids, 2, &out[2], e);
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
