#include "storage/dict.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "storage/btree.h"
#include "storage/btree_leaf.h"
#include "storage/varint.h"

/* DICT leaf entries: varints of the zigzag differences of the hash and of
 * the location from the base key's (from 0 for the leaf's first entry).
 * The tree is only ever searched for one hash, never scanned, so its
 * blocks are short; the hash alone (the lead) decides a search. (24-byte
 * blocks saved 0.2% of a point query's instructions over varied keys for
 * +0.5 B/fact at 1M; 16-byte ones cost 1.2 B/fact.) */
#define DICT_BLOCK_BYTES 32

static uint64_t key_hash(const uint8_t *k) {
    return (uint64_t)k[0] << 24 | (uint64_t)k[1] << 16 | (uint64_t)k[2] << 8 | k[3];
}

static uint64_t key_loc(const uint8_t *k) {
    k += DICT_HASH_BYTES;
    return (uint64_t)k[0] << 40 | (uint64_t)k[1] << 32 | (uint64_t)k[2] << 24 |
           (uint64_t)k[3] << 16 | (uint64_t)k[4] << 8 | k[5];
}

static void dict_key(uint8_t *key, uint64_t hash, uint64_t loc) {
    format_put_be(key, hash, DICT_HASH_BYTES);
    format_put_be(key + DICT_HASH_BYTES, loc, DICT_LOC_BYTES);
}

static size_t key_encode(const btree_codec *c, const uint8_t *prev, const uint8_t *key,
                         uint8_t *out) {
    (void)c;
    size_t n = varint_put(out, zigzag_delta(key_hash(key), prev ? key_hash(prev) : 0));
    return n + varint_put(out + n, zigzag_delta(key_loc(key), prev ? key_loc(prev) : 0));
}

/* The hash of an entry into key[0..4): its length, or 0. */
static size_t hash_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in,
                          size_t avail, uint8_t *key) {
    (void)c;
    uint64_t z = 0;
    size_t n = varint_get(in, avail, &z);
    uint64_t h = zigzag_apply(prev ? key_hash(prev) : 0, z);
    if (!n || h >> (8 * DICT_HASH_BYTES))
        return 0;
    format_put_be(key, h, DICT_HASH_BYTES);
    return n;
}

static size_t key_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                         uint8_t *key) {
    uint64_t z = 0;
    size_t n = hash_decode(c, prev, in, avail, key), m = n ? varint_get(in + n, avail - n, &z) : 0;
    uint64_t loc = zigzag_apply(prev ? key_loc(prev) : 0, z);
    if (!m || loc >> (8 * DICT_LOC_BYTES))
        return 0;
    format_put_be(key + DICT_HASH_BYTES, loc, DICT_LOC_BYTES);
    return n + m;
}

/* The first entry of a block at or above `target`, the entries compared
 * as numbers (no key built per entry): 1 with its key in `key`, *at its
 * offset and *used the bytes through it; 0 when every entry is below
 * (*at = len); -1 when one does not decode. `prev` (NULL: not wanted)
 * gets the entry before the place, *has_prev whether there is one. */
static int scan_block(const uint8_t *base, const uint8_t *in, size_t len, const uint8_t *target,
                      uint8_t *key, size_t *at, size_t *used, uint8_t *prev, bool *has_prev) {
    uint64_t want_hash = key_hash(target), want_loc = key_loc(target);
    uint64_t hash = base ? key_hash(base) : 0, loc = base ? key_loc(base) : 0;
    bool have = false;
    size_t off = 0;
    int rc = 0;
    while (off < len && rc == 0) {
        uint64_t zh = 0, zl = 0;
        size_t n = varint_get(in + off, len - off, &zh);
        size_t m = n ? varint_get(in + off + n, len - off - n, &zl) : 0;
        uint64_t h = zigzag_apply(hash, zh), l = zigzag_apply(loc, zl);
        if (!m || h >> (8 * DICT_HASH_BYTES) || l >> (8 * DICT_LOC_BYTES))
            return -1;
        if (h > want_hash || (h == want_hash && l >= want_loc)) {
            dict_key(key, h, l);
            *used = off + n + m;
            rc = 1;
        } else {
            hash = h;
            loc = l;
            have = true;
            off += n + m;
        }
    }
    *at = off;
    if (rc == 0)
        *used = off;
    if (prev && have)
        dict_key(prev, hash, loc);
    if (has_prev)
        *has_prev = have;
    return rc;
}

static int block_seek(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                      const uint8_t *target, uint8_t *key, size_t *used) {
    (void)c;
    size_t at = 0;
    return scan_block(base, in, len, target, key, &at, used, NULL, NULL);
}

static int block_place(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                       const uint8_t *target, uint8_t *key, size_t *at, size_t *used, uint8_t *prev,
                       bool *has_prev) {
    (void)c;
    return scan_block(base, in, len, target, key, at, used, prev, has_prev);
}

void dict_init(dict *d) {
    memset(d, 0, sizeof *d);
    d->codec = (btree_codec){.key_size = DICT_KEY_SIZE,
                             .block_bytes = DICT_BLOCK_BYTES,
                             .encode = key_encode,
                             .decode = key_decode,
                             .lead_size = DICT_HASH_BYTES,
                             .lead = hash_decode,
                             .seek = block_seek,
                             .place = block_place};
}

void dict_free(dict *d) {
    for (size_t i = 0; i < d->big_count; i++)
        free(d->big[i]);
    free(d->big);
    free(d->big_len);
    dict_cache_free(&d->cache);
    dict_known_free(&d->known);
    dict_filter_free(&d->filter);
    free(d->recent);
    dict_published(d, 0, UINT64_MAX); /* frees every flushed table */
    dict_init(d);
}

/* The hash's high DICT_HASH_BYTES bytes key the tree: a lookup compares
 * the heap entries of every match anyway, so a longer hash would only make
 * the tree bigger. Part of the file format (docs/file-format.md, DICT):
 * every file written holds these values, so neither the FNV-1a seed nor
 * this finaliser (half of hash_mix) may ever change. */
static uint64_t entry_hash(int kind, const void *bytes, size_t len) {
    uint64_t h = hash_bytes_from(HASH_FNV_BASIS ^ (uint64_t)kind, bytes, len);
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    return (h ^ (h >> 33)) >> (64 - 8 * DICT_HASH_BYTES);
}

static int bad_loc(err *e, uint64_t loc) {
    return err_set(e, ERR(STG, 9), "corrupt dictionary entry at location %llu",
                   (unsigned long long)loc);
}

int dict_read(const dict *d, pager *pg, uint64_t view, uint64_t loc, uint8_t *page, int *kind,
              const uint8_t **bytes, size_t *len, err *e) {
    return dict_read_held(d, pg, view, loc, page, NULL, kind, bytes, len, e);
}

/* The side table grows while readers read it (a commit does not wait
 * for them); its texts never change once added. One lock for every
 * dictionary: only texts longer than a page come here. */
static pthread_mutex_t big_mu = PTHREAD_MUTEX_INITIALIZER;

static int read_big(const dict *d, uint64_t loc, int *kind, const uint8_t **bytes, size_t *len,
                    err *e) {
    uint64_t i = loc & ~DICT_BIG_FLAG;
    pthread_mutex_lock(&big_mu);
    bool ok = i < d->big_count;
    if (ok) {
        *bytes = (const uint8_t *)d->big[i];
        *len = d->big_len[i];
    }
    pthread_mutex_unlock(&big_mu);
    if (!ok)
        return bad_loc(e, loc);
    *kind = DICT_TEXT;
    return 0;
}

int dict_read_held(const dict *d, pager *pg, uint64_t view, uint64_t loc, uint8_t *page,
                   uint32_t *held, int *kind, const uint8_t **bytes, size_t *len, err *e) {
    if (loc & DICT_BIG_FLAG)
        return read_big(d, loc, kind, bytes, len, e);
    uint32_t pgno = dict_loc_page(loc);
    if (pgno < FORMAT_FIRST_DATA_PAGE) /* a damaged location; 0 is also an empty *held */
        return bad_loc(e, loc);
    if (!held || *held != pgno) {
        int rc = pager_read(pg, view, pgno, page, e);
        if (held)
            *held = rc == 0 ? pgno : 0;
        if (rc != 0)
            return rc;
    }
    return dict_entry_in(page, loc, kind, bytes, len) ? 0 : bad_loc(e, loc);
}

/* find_in_place's answer when it cannot tell. */
#define DICT_UNDECIDED 2

/* dict_find for the writer, reading its newest pages where they are
 * (btree_newest_leaf, pager_newest) instead of copying three of them (two
 * tree levels, a heap page) through a cursor: 1 with *loc, 0 when the
 * tree has no such entry, DICT_UNDECIDED when a page is only in the file,
 * the entry is a big one, the hash's entries run on into the next leaf or
 * a page does not decode (the cursor's search then decides, and reports
 * the damage). */
static int find_in_place(const dict *d, pager *pg, uint32_t root, int kind, const void *bytes,
                         size_t len, const uint8_t *target, uint64_t *loc) {
    const btree_codec *c = &d->codec;
    const uint8_t *leaf = btree_newest_leaf(pg, root, c, target);
    uint8_t anchor[DICT_KEY_SIZE], keys[2][DICT_KEY_SIZE];
    leaf_pos pos;
    if (!leaf || leaf_first_key(leaf, c, anchor) != 0)
        return DICT_UNDECIDED;
    int cur = 0, rc = leaf_seek(leaf, c, target, &pos, keys[cur], anchor, NULL);
    while (rc == 1 && memcmp(keys[cur], target, DICT_HASH_BYTES) == 0) {
        uint64_t at = format_get_be(keys[cur] + DICT_HASH_BYTES, DICT_LOC_BYTES);
        uint32_t pgno = dict_loc_page(at);
        const uint8_t *heap = pgno >= FORMAT_FIRST_DATA_PAGE ? pager_newest(pg, pgno) : NULL;
        int got_kind = -1;
        const uint8_t *got = NULL;
        size_t got_len = 0;
        if (!heap || !dict_entry_in(heap, at, &got_kind, &got, &got_len))
            return DICT_UNDECIDED;
        if (got_kind == kind && got_len == len && memcmp(got, bytes, len) == 0) {
            *loc = at;
            return 1;
        }
        rc = leaf_next(leaf, c, &pos, keys[cur], anchor, keys[!cur]);
        cur = !cur;
    }
    return rc == 1 ? 0 : DICT_UNDECIDED;
}

/* Whether the entry at `loc` seen from `view` is (kind, bytes): 1, 0, or
 * an error. The writer reads its newest heap page in place. */
static int entry_is(const dict *d, pager *pg, uint64_t view, uint64_t loc, int kind,
                    const void *bytes, size_t len, err *e) {
    int got_kind = -1;
    const uint8_t *got = NULL;
    size_t got_len = 0;
    uint32_t pgno = dict_loc_page(loc);
    const uint8_t *heap = view == PAGER_LATEST && pgno >= FORMAT_FIRST_DATA_PAGE
                              ? pager_newest(pg, pgno)
                              : NULL;
    uint8_t page[FORMAT_PAGE_SIZE];
    int rc = heap ? (dict_entry_in(heap, loc, &got_kind, &got, &got_len) ? 0 : bad_loc(e, loc))
                  : dict_read(d, pg, view, loc, page, &got_kind, &got, &got_len, e);
    if (rc != 0)
        return rc;
    return got_kind == kind && got_len == len && memcmp(got, bytes, len) == 0;
}

/* The first of a hash's candidate locations, from the table of recent
 * entries `recent` (NULL: none) or else the writer's known entries
 * `known` (NULL: none), whose entry seen from `view` is (kind, bytes): 1
 * with *loc, 0, or an error. */
static int candidates_find(const dict *d, pager *pg, uint64_t view, const dict_recent *recent,
                           const dict_known *known, uint64_t hash, int kind, const void *bytes,
                           size_t len, uint64_t *loc, err *e) {
    size_t at = 0;
    uint64_t cand;
    while (recent  ? dict_recent_next(recent, (uint32_t)hash, view, &at, &cand)
           : known ? dict_known_next(known, (uint32_t)hash, &at, &cand)
                   : false) {
        int rc = entry_is(d, pg, view, cand, kind, bytes, len, e);
        if (rc == 1)
            *loc = cand;
        if (rc != 0)
            return rc;
    }
    return 0;
}

int dict_find(const dict *d, pager *pg, uint64_t view, uint32_t root, const dict_recent *recent,
              int kind, const void *bytes, size_t len, uint64_t *loc, err *e) {
    uint8_t key[DICT_KEY_SIZE];
    uint64_t hash = entry_hash(kind, bytes, len);
    int found = candidates_find(d, pg, view, recent, NULL, hash, kind, bytes, len, loc, e);
    if (found != 0)
        return found;
    dict_key(key, hash, 0);
    if (view == PAGER_LATEST) { /* the writer */
        int rc = find_in_place(d, pg, root, kind, bytes, len, key, loc);
        if (rc != DICT_UNDECIDED)
            return rc;
    }
    btree_cursor c;
    uint8_t scratch[FORMAT_PAGE_SIZE]; /* one per call: readers search concurrently */
    int rc = btree_cursor_init(&c, pg, view, root, &d->codec, e);
    if (rc == 0)
        rc = btree_seek(&c, key, DICT_HASH_BYTES, e);
    const uint8_t *k = NULL;
    while (rc == 0 && (rc = btree_next(&c, &k, e)) == 1 && memcmp(k, key, DICT_HASH_BYTES) == 0) {
        uint64_t at = format_get_be(k + DICT_HASH_BYTES, DICT_LOC_BYTES);
        int got_kind = -1;
        const uint8_t *got = NULL;
        size_t got_len = 0;
        rc = dict_read(d, pg, view, at, scratch, &got_kind, &got, &got_len, e);
        if (rc == 0 && got_kind == kind && got_len == len && memcmp(got, bytes, len) == 0) {
            *loc = at;
            rc = 1;
            break;
        }
    }
    if (rc == 1 && (!k || memcmp(k, key, DICT_HASH_BYTES) != 0))
        rc = 0;
    btree_cursor_free(&c);
    return rc;
}

static int grow_big(dict *d, err *e) {
    if (!array_reserve2(&d->big, sizeof *d->big, &d->big_len, sizeof *d->big_len, &d->big_cap,
                        d->big_count + 1, 8))
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

static int add_big(dict *d, const void *bytes, size_t len, uint64_t *loc, err *e) {
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return err_set(e, ERR(INT, 0), "out of memory");
    memcpy(copy, bytes, len);
    pthread_mutex_lock(&big_mu);
    int rc = grow_big(d, e);
    if (rc == 0) {
        d->big[d->big_count] = copy;
        d->big_len[d->big_count] = len;
        *loc = DICT_BIG_FLAG | d->big_count++;
    }
    pthread_mutex_unlock(&big_mu);
    if (rc != 0)
        free(copy);
    return rc;
}

/* Appends to the heap page being filled, starting a new one when it is
 * full or was committed by a checkpoint. */
static int add_heap(dict *d, pager *pg, int kind, const void *bytes, size_t len, uint64_t *loc,
                    err *e) {
    uint8_t *page = NULL;
    pager_marks *marks = NULL;
    int got = d->heap_page ? pager_dirty_marked(pg, d->heap_page, &page, &marks, e) : 0;
    if (got != 0)
        return got;
    if (!page || d->heap_used + DICT_ENTRY_HEADER + len > FORMAT_PAGE_PAYLOAD) {
        int rc = pager_alloc(pg, &d->heap_page, &page, e);
        if (rc != 0)
            return rc;
        d->heap_used = 0;
        marks = NULL; /* a new page: no version before it */
    }
    if (marks)
        pager_mark(marks, d->heap_used, DICT_ENTRY_HEADER + len);
    uint8_t *at = page + d->heap_used;
    at[0] = (uint8_t)kind;
    format_put_le(at + 1, len, 2);
    memcpy(at + DICT_ENTRY_HEADER, bytes, len);
    *loc = ((uint64_t)d->heap_page << 12) | d->heap_used;
    d->heap_used += (uint32_t)(DICT_ENTRY_HEADER + len);
    return 0;
}

/* New entries a writer adds before it builds the filter of a tree it did
 * not find empty (a reopened file, a transaction's view): reading the
 * whole tree (100-900 ms for a 1M-fact file on a loaded disk) pays only
 * for a writer adding many names, not for one adding a few. */
#define DICT_FILTER_AFTER 1024

/* Adds every hash of the recent table and of the tree at `root`
 * (PAGER_LATEST) to the filter,
 * emptied and sized for `expected` hashes. A failure (memory, a damaged
 * page) only leaves the dictionary without a filter, for now: the next
 * lookup meets the error, if any, in the tree itself. */
static void filter_fill(dict *d, pager *pg, uint32_t root, size_t expected) {
    d->added = 0;
    if (!dict_filter_reset(&d->filter, expected))
        return;
    for (size_t i = 0; d->recent && i < DICT_RECENT_SLOTS; i++) {
        uint64_t h = atomic_load_explicit(&d->recent->slot[i].hash, memory_order_relaxed);
        if (h != 0)
            dict_filter_add(&d->filter, (uint32_t)(h - 1));
    }
    if (root == 0)
        return;
    static const uint8_t first[DICT_KEY_SIZE];
    btree_cursor c;
    err e = {0};
    const uint8_t *k = NULL;
    int rc = btree_cursor_init(&c, pg, PAGER_LATEST, root, &d->codec, &e);
    if (rc == 0)
        rc = btree_seek(&c, first, 0, &e);
    while (rc == 0 && (rc = btree_next(&c, &k, &e)) == 1) {
        dict_filter_add(&d->filter, (uint32_t)key_hash(k));
        rc = 0;
    }
    btree_cursor_free(&c);
    err_clear(&e);
    if (rc != 0)
        dict_filter_free(&d->filter);
}

/* Builds the filter when it is due, and larger when it is too full for
 * its size: at most twice, since the first fill learns the count. */
static void filter_fit(dict *d, pager *pg, uint32_t root, size_t expected) {
    filter_fill(d, pg, root, expected);
    if (dict_filter_built(&d->filter) &&
        d->filter.count * DICT_FILTER_BITS_PER_ENTRY > d->filter.mask + 1 &&
        d->filter.mask + 1 < DICT_FILTER_MAX_BITS)
        filter_fill(d, pg, root, 2 * d->filter.count);
}

/* Whether the tree may hold an entry of this hash: false only when the
 * filter, built, says it cannot. */
static bool tree_may_hold(dict *d, pager *pg, uint32_t root, uint64_t hash) {
    size_t due = d->tree_size / 4 > DICT_FILTER_AFTER ? d->tree_size / 4 : DICT_FILTER_AFTER;
    if (!dict_filter_built(&d->filter) && (root == 0 || d->added >= due))
        filter_fit(d, pg, root, 0);
    return !dict_filter_built(&d->filter) || dict_filter_may_hold(&d->filter, (uint32_t)hash);
}

/* A new entry's hash goes into the filter, rebuilt larger when full;
 * without one, the entry counts towards building it. */
static void filter_note(dict *d, pager *pg, uint32_t root, uint64_t hash) {
    if (!dict_filter_built(&d->filter))
        d->added++;
    else if (dict_filter_add(&d->filter, (uint32_t)hash))
        filter_fit(d, pg, root, 2 * d->filter.count);
}

/* The entries of `t` as tree keys, sorted: a malloc'd array, or NULL.
 * The slots hold them almost in order (dict_recent.c): an insertion sort
 * moves the few a probe displaced. */
static uint8_t *sorted_keys(const dict_recent *t) {
    uint8_t *keys = malloc(t->count ? t->count * DICT_KEY_SIZE : 1);
    size_t n = 0;
    for (size_t i = 0; keys && i < DICT_RECENT_SLOTS; i++) {
        uint64_t h = atomic_load_explicit(&t->slot[i].hash, memory_order_relaxed);
        if (h == 0)
            continue;
        uint8_t key[DICT_KEY_SIZE], *at = keys + DICT_KEY_SIZE * n++;
        dict_key(key, h - 1, t->slot[i].loc);
        for (; at > keys && memcmp(at - DICT_KEY_SIZE, key, DICT_KEY_SIZE) > 0; at -= DICT_KEY_SIZE)
            memcpy(at, at - DICT_KEY_SIZE, DICT_KEY_SIZE);
        memcpy(at, key, DICT_KEY_SIZE);
    }
    return keys;
}

int dict_flush(dict *d, pager *pg, uint32_t *root, err *e) {
    dict_recent *t = d->recent;
    if (!t)
        return 0;
    uint8_t *keys = sorted_keys(t);
    btree_hint *hint = malloc(sizeof *hint); /* in key order: each insert follows the last */
    if (!keys || !hint) {
        free(keys);
        free(hint);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    btree_hint_reset(hint);
    int rc = 0;
    for (size_t i = 0; i < t->count && rc == 0; i++)
        rc = btree_insert(pg, root, &d->codec, keys + DICT_KEY_SIZE * i, hint, e);
    for (size_t i = 0; i < t->count && rc == 0; i++) /* in hash order: the slots in order */
        dict_known_put(&d->known, (uint32_t)key_hash(keys + DICT_KEY_SIZE * i),
                       key_loc(keys + DICT_KEY_SIZE * i));
    free(keys);
    free(hint);
    if (rc != 0)
        return rc;
    t->flushed_at = d->next_view;
    t->older = d->flushed;
    d->flushed = t;
    d->recent = NULL;
    return 0;
}

void dict_published(dict *d, uint64_t view, uint64_t oldest) {
    d->next_view = view + 1;
    dict_recent **link = &d->flushed;
    while (*link && (*link)->flushed_at > oldest)
        link = &(*link)->older;
    for (dict_recent *t = *link, *older; t; t = older) {
        older = t->older;
        free(t);
    }
    *link = NULL;
}

int dict_adopt_recent(dict *d, const dict *base, err *e) {
    const dict_recent *from = base->recent;
    if (!from)
        return 0;
    if (!d->recent && !(d->recent = dict_recent_new()))
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < DICT_RECENT_SLOTS; i++) {
        uint64_t h = atomic_load_explicit(&from->slot[i].hash, memory_order_relaxed);
        if (h != 0)
            dict_recent_add(d->recent, (uint32_t)(h - 1), from->slot[i].loc, 0);
    }
    return 0;
}

/* A new entry goes to the recent table (flushed first when full); without
 * memory for a table, into the tree at once. */
static int remember_new(dict *d, pager *pg, uint32_t *root, uint64_t hash, uint64_t loc, err *e) {
    if (d->recent && d->recent->count >= DICT_RECENT_MAX) {
        int rc = dict_flush(d, pg, root, e);
        if (rc != 0)
            return rc;
    }
    if (!d->recent)
        d->recent = dict_recent_new();
    if (d->recent) {
        dict_recent_add(d->recent, (uint32_t)hash, loc, d->next_view);
        return 0;
    }
    uint8_t key[DICT_KEY_SIZE];
    dict_key(key, hash, loc);
    return btree_insert(pg, root, &d->codec, key, NULL, e);
}

/* dict_find for the writer: the entries it knows (dict_known.h), then
 * its recent entries, then the tree, an entry found there becoming
 * known. */
static int known_find(dict *d, pager *pg, uint32_t root, uint64_t hash, int kind, const void *bytes,
                      size_t len, uint64_t *loc, err *e) {
    int rc = candidates_find(d, pg, PAGER_LATEST, NULL, &d->known, hash, kind, bytes, len, loc, e);
    if (rc == 0)
        rc = candidates_find(d, pg, PAGER_LATEST, d->recent, NULL, hash, kind, bytes, len, loc, e);
    if (rc == 0) {
        rc = dict_find(d, pg, PAGER_LATEST, root, NULL, kind, bytes, len, loc, e);
        if (rc == 1)
            dict_known_put(&d->known, (uint32_t)hash, *loc);
    }
    return rc;
}

int dict_intern(dict *d, pager *pg, uint32_t *root, int kind, const void *bytes, size_t len,
                uint64_t *loc, bool *added, err *e) {
    uint64_t hash = entry_hash(kind, bytes, len);
    *added = false;
    if (dict_cache_find(&d->cache, hash, kind, bytes, len, loc))
        return 0;
    int rc = tree_may_hold(d, pg, *root, hash)
                 ? known_find(d, pg, *root, hash, kind, bytes, len, loc, e)
                 : 0;
    if (rc == 1)
        dict_cache_put(&d->cache, hash, kind, bytes, len, *loc);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return rc;
    rc = len + DICT_ENTRY_HEADER > FORMAT_PAGE_PAYLOAD ? add_big(d, bytes, len, loc, e)
                                                       : add_heap(d, pg, kind, bytes, len, loc, e);
    if (rc != 0)
        return rc;
    rc = remember_new(d, pg, root, hash, *loc, e);
    *added = rc == 0;
    if (rc == 0) {
        dict_cache_put(&d->cache, hash, kind, bytes, len, *loc);
        filter_note(d, pg, *root, hash);
    }
    return rc;
}
