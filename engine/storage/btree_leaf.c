#include "storage/btree_leaf.h"

#include <stdlib.h>
#include <string.h>

#include "base/mg_assert.h"

enum { L_KIND = 0, L_FLAGS = 1, L_COUNT = 2, L_RESTARTS = 4, L_END = 6, LEAF_HEADER = 8 };
enum { LEAF_KIND = 1, LEAF_SUMMARY = 1 }; /* kind byte; flags byte: the leaf keeps a summary */

/* Entries are at least one byte, so a page never holds more. */
#define LEAF_MAX_ENTRIES (FORMAT_PAGE_PAYLOAD - LEAF_HEADER)

static size_t get16(const uint8_t *p) {
    return (size_t)format_get_le(p, 2);
}

static void put16(uint8_t *p, size_t v) {
    format_put_le(p, v, 2);
}

size_t leaf_count(const uint8_t *page) {
    return get16(page + L_COUNT);
}

static size_t restarts(const uint8_t *page) {
    return get16(page + L_RESTARTS);
}

static size_t leaf_end(const uint8_t *page) {
    return get16(page + L_END);
}

static bool has_summary(const uint8_t *page) {
    return page[L_FLAGS] & LEAF_SUMMARY;
}

/* Where the restart array ends: the summary, when there is one, takes
 * the end of the payload. */
static size_t leaf_top(const uint8_t *page) {
    return FORMAT_PAGE_PAYLOAD - (has_summary(page) ? BTREE_LEAF_SUM_BYTES : 0);
}

static uint8_t *leaf_sum(uint8_t *page) {
    return page + FORMAT_PAGE_PAYLOAD - BTREE_LEAF_SUM_BYTES;
}

static uint8_t *restart_slot(uint8_t *page, size_t i) {
    return page + leaf_top(page) - 2 * restarts(page) + 2 * i;
}

/* A leaf's restart array, its header fields read once: a seek's binary
 * search asks for two offsets at every step. */
typedef struct restart_array {
    const uint8_t *slot; /* restart 0's offset */
    size_t n, end;       /* the restarts; where the entries end */
} restart_array;

static restart_array restart_array_of(const uint8_t *page) {
    return (restart_array){restart_slot((uint8_t *)page, 0), restarts(page), leaf_end(page)};
}

/* Restart offsets are clamped to the end of the entries, so a damaged
 * array can make an entry fail to decode but never read past them. */
static size_t array_at(const restart_array *ra, size_t i) {
    size_t off = get16(ra->slot + 2 * i);
    return off < ra->end ? off : ra->end;
}

static size_t array_block_end(const restart_array *ra, size_t b) {
    return b + 1 < ra->n ? array_at(ra, b + 1) : ra->end;
}

static size_t restart_at(const uint8_t *page, size_t i) {
    restart_array ra = restart_array_of(page);
    return array_at(&ra, i);
}

static size_t block_end(const uint8_t *page, size_t b) {
    restart_array ra = restart_array_of(page);
    return array_block_end(&ra, b);
}

static size_t free_bytes(const uint8_t *page) {
    return leaf_top(page) - 2 * restarts(page) - leaf_end(page);
}

/* The restart offsets themselves are checked as they are used (a block
 * that is empty or runs backwards does not decode): a seek must not pay
 * for the whole array. */
bool leaf_ok(const uint8_t *page) {
    size_t n = leaf_count(page), r = restarts(page), end = leaf_end(page);
    return n > 0 && n <= LEAF_MAX_ENTRIES && r > 0 && r <= n && end > LEAF_HEADER &&
           (page[L_FLAGS] & ~LEAF_SUMMARY) == 0 && end + 2 * r <= leaf_top(page) &&
           restart_at(page, 0) == LEAF_HEADER;
}

/* Decodes the entry at `off`, which must end by `limit`: the offset after
 * it, or 0. */
static size_t decode_at(const btree_codec *c, const uint8_t *page, size_t off, size_t limit,
                        const uint8_t *prev, uint8_t *key) {
    if (off >= limit)
        return 0;
    size_t n = c->decode(c, prev, page + off, limit - off, key);
    return n ? off + n : 0;
}

int leaf_first_key(const uint8_t *page, const btree_codec *c, uint8_t *key) {
    return decode_at(c, page, LEAF_HEADER, block_end(page, 0), NULL, key) ? 0 : -1;
}

/* What the entry at restart b is encoded against: nothing for the first,
 * the leaf's first key (its anchor) for the others, so restart entries
 * stay short. */
static const uint8_t *restart_base(size_t b, const uint8_t *anchor) {
    return b == 0 ? NULL : anchor;
}

/* The restart offsets: each inside the entries and above the one before. */
static bool restarts_ascend(const uint8_t *page) {
    size_t r = restarts(page), end = leaf_end(page), prev = 0;
    for (size_t i = 0; i < r; i++) {
        size_t off = get16(restart_slot((uint8_t *)page, i));
        if (off <= prev || off >= end)
            return false;
        prev = off;
    }
    return true;
}

/* Seeks trust what leaf_ok does not check (a binary search over the
 * restarts, then a walk inside one block): every entry decodes inside its
 * block, each block starts exactly where a restart says, the keys ascend
 * strictly across the whole leaf and the count is the header's. */
bool leaf_valid(const uint8_t *page, const btree_codec *c) {
    if (!leaf_ok(page) || !restarts_ascend(page) || (has_summary(page) && !c->sum_add))
        return false;
    uint8_t anchor[BTREE_MAX_KEY], keys[2][BTREE_MAX_KEY], sum[BTREE_LEAF_SUM_BYTES] = {0};
    const uint8_t *prev = NULL;
    size_t r = restarts(page), n = 0, ks = c->key_size;
    int cur = 0;
    for (size_t b = 0; b < r; b++) {
        size_t off = restart_at(page, b), limit = block_end(page, b);
        const uint8_t *base = restart_base(b, anchor);
        while (off < limit) {
            off = decode_at(c, page, off, limit, base, keys[cur]);
            if (!off || (prev && btree_key_cmp(prev, keys[cur], ks) >= 0))
                return false;
            if (n++ == 0)
                memcpy(anchor, keys[cur], ks);
            if (has_summary(page))
                c->sum_add(c, sum, anchor, prev, keys[cur], NULL);
            prev = base = keys[cur];
            cur = !cur;
        }
    }
    return n == leaf_count(page) &&
           (!has_summary(page) || memcmp(sum, leaf_sum((uint8_t *)page), sizeof sum) == 0);
}

/* The lead of block b's first key: in `leads` (NULL: none; else the
 * codec's lead_size is at most LEAF_LEAD_MAX) when it holds it, else
 * decoded into `first` (and kept in `leads`). NULL when it does not
 * decode. */
static const uint8_t *restart_lead(const uint8_t *page, const restart_array *ra,
                                   const btree_codec *c, const uint8_t *anchor, size_t b,
                                   leaf_leads *leads, uint8_t *first) {
    bool keep = leads && b < LEAF_LEADS;
    if (keep && (leads->known >> b & 1))
        return leads->lead[b];
    size_t off = array_at(ra, b), limit = array_block_end(ra, b);
    if (off >= limit || !c->lead(c, anchor, page + off, limit - off, first))
        return NULL;
    if (keep) {
        MG_ASSERT(c->lead_size <= LEAF_LEAD_MAX);
        memcpy(leads->lead[b], first, LEAF_LEAD_MAX); /* a constant size: no call */
        leads->known |= UINT64_C(1) << b;
    }
    return first;
}

/* Compares the first key of block b (> 0) with target, decoding only its
 * lead when that decides. */
static int compare_restart(const uint8_t *page, const restart_array *ra, const btree_codec *c,
                           const uint8_t *anchor, size_t b, const uint8_t *target,
                           leaf_leads *leads, int *cmp) {
    uint8_t first[BTREE_MAX_KEY];
    if (c->lead) {
        const uint8_t *lead = restart_lead(page, ra, c, anchor, b, leads, first);
        if (!lead)
            return -1;
        *cmp = btree_key_cmp(lead, target, c->lead_size);
        if (*cmp != 0)
            return 0;
    }
    /* Only now: a lead that decides (the usual case) needs no offsets. */
    size_t off = array_at(ra, b), limit = array_block_end(ra, b);
    if (!decode_at(c, page, off, limit, anchor, first))
        return -1;
    *cmp = btree_key_cmp(first, target, c->key_size);
    return 0;
}

/* The block to search for `target`: the last whose first key is not above
 * it (block 0 when none is). (Inserts do not try the last block first: an
 * append mostly finds its place from the leaf's hint slot, and a full
 * decode of the last block's first key cost every other insert more than
 * it saved.) */
static int find_block(const uint8_t *page, const btree_codec *c, const uint8_t *anchor,
                      const uint8_t *target, leaf_leads *leads, size_t *block) {
    restart_array ra = restart_array_of(page);
    size_t lo = 1, hi = ra.n;
    if (!c->lead || c->lead_size > LEAF_LEAD_MAX)
        leads = NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp;
        if (compare_restart(page, &ra, c, anchor, mid, target, leads, &cmp) != 0)
            return -1;
        if (cmp <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *block = lo - 1;
    return 0;
}

leaf_pos leaf_begin(void) {
    return (leaf_pos){LEAF_HEADER, 0, LEAF_HEADER};
}

leaf_pos leaf_finish(const uint8_t *page) {
    return (leaf_pos){leaf_end(page), restarts(page), leaf_end(page)};
}

leaf_pos leaf_block_begin(const uint8_t *page, size_t b) {
    if (b >= restarts(page))
        b = restarts(page) - 1;
    if (b == 0 || b >= restarts(page))
        return leaf_begin();
    size_t off = restart_at(page, b);
    return (leaf_pos){off, b, off};
}

/* The first key >= target among the entries from `off` to `limit`, the
 * first encoded against `base`: 1 with it in key and *next the offset
 * after it, 0 when there is none, -1 when one does not decode. Through
 * the codec's seek when it has one, else decoding each entry. */
static int seek_block(const uint8_t *page, const btree_codec *c, size_t off, size_t limit,
                      const uint8_t *base, const uint8_t *target, uint8_t *key, size_t *next) {
    if (c->seek && off < limit) {
        int rc = c->seek(c, base, page + off, limit - off, target, key, next);
        *next += off;
        return rc;
    }
    uint8_t keys[2][BTREE_MAX_KEY];
    int cur = 0;
    while (off < limit) {
        size_t after = decode_at(c, page, off, limit, base, keys[cur]);
        if (!after)
            return -1;
        if (btree_key_cmp(keys[cur], target, c->key_size) >= 0) {
            memcpy(key, keys[cur], c->key_size);
            *next = after;
            return 1;
        }
        base = keys[cur];
        cur = !cur;
        off = after;
    }
    return 0;
}

int leaf_seek(const uint8_t *page, const btree_codec *c, const uint8_t *target, leaf_pos *pos,
              uint8_t *key, const uint8_t *anchor, leaf_leads *leads) {
    size_t b;
    if (find_block(page, c, anchor, target, leads, &b) != 0)
        return -1;
    restart_array ra = restart_array_of(page);
    size_t limit = array_block_end(&ra, b), next = 0;
    int found = seek_block(page, c, array_at(&ra, b), limit, restart_base(b, anchor), target, key,
                           &next);
    if (found != 0) {
        *pos = (leaf_pos){next, b + 1, limit};
        return found;
    }
    /* Every key of block b is below target: the next block's first key is
     * above it (find_block), so it is the answer. */
    *pos = (leaf_pos){limit, b + 1, limit};
    return leaf_next(page, c, pos, NULL, anchor, key);
}

/* At the end of a block (pos->off >= pos->limit), moves *pos into the
 * next one and sets *base to what its first entry is encoded against: 1,
 * 0 at the end of the leaf, -1 when the next block does not start here or
 * is empty. */
static inline int enter_block(const uint8_t *page, leaf_pos *pos, const uint8_t *anchor,
                              const uint8_t **base) {
    size_t b = pos->restart;
    if (b >= restarts(page))
        return pos->off >= leaf_end(page) ? 0 : -1;
    if (restart_at(page, b) != pos->off)
        return -1;
    *base = restart_base(b, anchor);
    pos->restart = b + 1;
    pos->limit = block_end(page, b);
    return pos->off < pos->limit ? 1 : -1;
}

int leaf_next(const uint8_t *page, const btree_codec *c, leaf_pos *pos, const uint8_t *prev,
              const uint8_t *anchor, uint8_t *key) {
    const uint8_t *base = prev;
    int rc = pos->off < pos->limit ? 1 : enter_block(page, pos, anchor, &base);
    if (rc != 1)
        return rc;
    size_t next = decode_at(c, page, pos->off, pos->limit, base, key);
    if (!next)
        return -1;
    pos->off = next;
    return 1;
}

size_t leaf_next_lead(const uint8_t *page, const btree_codec *c, leaf_pos pos, const uint8_t *prev,
                      const uint8_t *anchor, uint8_t *lead) {
    const uint8_t *base = prev;
    if ((pos.off < pos.limit ? 1 : enter_block(page, &pos, anchor, &base)) != 1)
        return 0;
    if (!c->lead)
        return decode_at(c, page, pos.off, pos.limit, base, lead) ? c->key_size : 0;
    return c->lead(c, base, page + pos.off, pos.limit - pos.off, lead) ? c->lead_size : 0;
}

int leaf_run(const uint8_t *page, leaf_pos *pos, const uint8_t *prev, const uint8_t *anchor,
             btree_run *run) {
    run->base = prev;
    int rc = pos->off < pos->limit ? 1 : enter_block(page, pos, anchor, &run->base);
    if (rc != 1)
        return rc;
    run->bytes = page + pos->off;
    run->len = pos->limit - pos->off;
    run->room = page + FORMAT_PAGE_PAYLOAD;
    pos->off = pos->limit;
    return 1;
}

/* ---- writing ---------------------------------------------------------- */

static int corrupt(err *e, uint32_t pgno) {
    return err_set(e, ERR(STG, 8), "corrupt B-tree page %u", (unsigned)pgno);
}

/* Where a key's entry came from in the leaf a rebuild reads: its bytes
 * and what they are encoded against (none: the key is new or its
 * predecessor changed). */
enum { SRC_NONE, SRC_FIRST, SRC_ANCHOR, SRC_PREV };
typedef struct leaf_src {
    const uint8_t *bytes;
    size_t len;
    int base;
} leaf_src;

/* The entry of keys[i], encoded against `base` (of kind `kind`): the
 * bytes it had (src, NULL: none) when they are encoded against the same
 * key, as most are in a rebuild (`same_anchor`: the leaf keeps its first
 * key), and are no longer than an entry may be; else encoded into `out`.
 * *len gets its length. */
static const uint8_t *entry_bytes(const btree_codec *c, const uint8_t *base, int kind,
                                  const uint8_t *key, const leaf_src *src, bool same_anchor,
                                  uint8_t *out, size_t *len) {
    if (src && src->base == kind && (kind != SRC_ANCHOR || same_anchor) &&
        src->len <= BTREE_MAX_ENTRY) {
        *len = src->len;
        return src->bytes;
    }
    *len = c->encode(c, base, key, out);
    return out;
}

/* Rebuilds `page` from sorted keys, a new block once the current one
 * holds block_bytes: how many of the first n fit. `src` (NULL: none) are
 * the keys' entries in the leaf they come from, whose first key is
 * `src_anchor`. */
static size_t leaf_build(uint8_t *page, const btree_codec *c, const uint8_t *keys, size_t n,
                         size_t block_bytes, const leaf_src *src, const uint8_t *src_anchor) {
    size_t ks = c->key_size, off = LEAF_HEADER, r = 0, block = 0, i;
    uint16_t starts[FORMAT_PAGE_PAYLOAD / 2];
    bool same_anchor = src && memcmp(keys, src_anchor, ks) == 0;
    memset(page, 0, FORMAT_PAGE_PAYLOAD);
    if (c->sum_add)
        page[L_FLAGS] = LEAF_SUMMARY;
    size_t top = leaf_top(page);
    for (i = 0; i < n; i++) {
        bool restart = i == 0 || off - block >= block_bytes;
        const uint8_t *base = restart ? restart_base(r, keys) : keys + (i - 1) * ks;
        int kind = !restart ? SRC_PREV : r ? SRC_ANCHOR : SRC_FIRST;
        uint8_t enc[BTREE_MAX_ENTRY];
        size_t len;
        const uint8_t *bytes = entry_bytes(c, base, kind, keys + i * ks, src ? src + i : NULL,
                                           same_anchor, enc, &len);
        if (off + len + 2 * (r + restart) > top || i == LEAF_MAX_ENTRIES)
            break;
        if (c->sum_add)
            c->sum_add(c, leaf_sum(page), keys, i ? keys + (i - 1) * ks : NULL, keys + i * ks,
                       NULL);
        if (restart) {
            starts[r++] = (uint16_t)off;
            block = off;
        }
        memcpy(page + off, bytes, len);
        off += len;
    }
    page[L_KIND] = LEAF_KIND;
    put16(page + L_COUNT, i);
    put16(page + L_RESTARTS, r);
    put16(page + L_END, off);
    for (size_t k = 0; k < r; k++)
        put16(restart_slot(page, k), starts[k]);
    return i;
}

void leaf_init(uint8_t *page, const btree_codec *c, const uint8_t *key) {
    leaf_build(page, c, key, 1, c->block_bytes, NULL, NULL);
}

/* Where `key` goes in block b: the keys before (prev, unless the place is
 * the block start) and at the place (next, with the offset just past it,
 * unless the place is the block end). */
typedef struct place {
    size_t off, next_end;
    bool has_prev, has_next;
    uint8_t prev[BTREE_MAX_KEY], next[BTREE_MAX_KEY];
} place;

static int find_place(const uint8_t *page, const btree_codec *c, size_t b, const uint8_t *anchor,
                      const uint8_t *key, place *pl) {
    size_t off = restart_at(page, b), limit = block_end(page, b);
    pl->has_prev = pl->has_next = false;
    if (c->place && off < limit) {
        size_t at = 0, used = 0;
        int rc = c->place(c, restart_base(b, anchor), page + off, limit - off, key, pl->next, &at,
                          &used, pl->prev, &pl->has_prev);
        pl->off = off + at;
        pl->has_next = rc == 1;
        pl->next_end = off + used;
        return rc < 0 ? -1 : 0;
    }
    while (off < limit) {
        const uint8_t *base = pl->has_prev ? pl->prev : restart_base(b, anchor);
        size_t next = decode_at(c, page, off, limit, base, pl->next);
        if (!next)
            return -1;
        if (btree_key_cmp(pl->next, key, c->key_size) >= 0) {
            pl->off = off;
            pl->next_end = next;
            pl->has_next = true;
            return 0;
        }
        memcpy(pl->prev, pl->next, c->key_size);
        pl->has_prev = true;
        off = next;
    }
    pl->off = limit;
    return 0;
}

/* A planned edit of block b: replace old_len bytes at `at` with
 * bytes[0..len) (adding `added` entries) and, with new_restart, start a
 * new block (b + 1) at offset `restart_off`. */
typedef struct edit {
    size_t at, old_len, len, restart_off, added;
    size_t key_len; /* of the inserted key's encoding, first in bytes */
    bool new_restart;
    uint8_t bytes[2 * BTREE_MAX_ENTRY];
} edit;

static bool edit_fits(const uint8_t *page, const edit *ed) {
    size_t need = ed->len + (ed->new_restart ? 2 : 0);
    return need <= free_bytes(page) + ed->old_len &&
           leaf_count(page) + ed->added <= LEAF_MAX_ENTRIES;
}

static void mark(pager_marks *marks, size_t off, size_t len) {
    if (marks)
        pager_mark(marks, off, len);
}

/* Marks the bytes it changes: the header, the entries from the edit on
 * and, when any moves or is added, the restart array. */
static void apply_edit(uint8_t *page, pager_marks *marks, size_t b, const edit *ed) {
    size_t end = leaf_end(page), r = restarts(page), tail = ed->at + ed->old_len;
    memmove(page + ed->at + ed->len, page + tail, end - tail);
    memcpy(page + ed->at, ed->bytes, ed->len);
    size_t shifted_end = end + ed->len - ed->old_len;
    if (shifted_end < end) /* before a new restart slot may take the space */
        memset(page + shifted_end, 0, end - shifted_end);
    uint8_t *slots = restart_slot(page, 0); /* the header is read once, not per slot */
    for (size_t i = b + 1; i < r; i++) {
        size_t off = get16(slots + 2 * i);
        put16(slots + 2 * i, (off < end ? off : end) + ed->len - ed->old_len);
    }
    if (ed->new_restart) {
        memmove(slots - 2, slots, 2 * (b + 1));
        put16(page + L_RESTARTS, r + 1);
        put16(restart_slot(page, b + 1), ed->restart_off);
    }
    put16(page + L_END, shifted_end);
    put16(page + L_COUNT, leaf_count(page) + ed->added);
    mark(marks, 0, LEAF_HEADER);
    mark(marks, ed->at, (shifted_end > end ? shifted_end : end) - ed->at);
    if (b + 1 < r || ed->new_restart) {
        size_t first = (size_t)(restart_slot(page, 0) - page);
        mark(marks, first, FORMAT_PAGE_PAYLOAD - first);
    }
}

/* Plans inserting `key` at `pl` in block b (never before the leaf's first
 * key: that changes the anchor): appended to the block, as a new block
 * after a full one, or between two entries (the new key encoded against
 * its predecessor, its successor re-encoded against it). */
static void plan_insert(const uint8_t *page, const btree_codec *c, size_t b, const uint8_t *anchor,
                        const place *pl, const uint8_t *key, edit *ed) {
    ed->at = pl->off;
    ed->added = 1;
    ed->new_restart = !pl->has_next && pl->off - restart_at(page, b) >= c->block_bytes;
    ed->restart_off = pl->off;
    const uint8_t *base = ed->new_restart ? anchor
                          : pl->has_prev  ? pl->prev
                                          : restart_base(b, anchor);
    ed->len = ed->key_len = c->encode(c, base, key, ed->bytes);
    ed->old_len = 0;
    if (pl->has_next) {
        ed->old_len = pl->next_end - pl->off;
        ed->len += c->encode(c, key, pl->next, ed->bytes + ed->len);
    }
}

/* Block b has grown past twice block_bytes through inserts inside it:
 * the entry nearest its middle becomes a restart (when the page has room
 * for its standalone encoding), so seeks keep decoding few entries. 1 when
 * it did (by `ed`), 0 when not, -1 when an entry does not decode. */
static int split_block(uint8_t *page, pager_marks *marks, const btree_codec *c, size_t b,
                       const uint8_t *anchor, edit *ed) {
    size_t start = restart_at(page, b), limit = block_end(page, b);
    if (limit - start <= 2 * c->block_bytes)
        return 0;
    uint8_t keys[2][BTREE_MAX_KEY];
    int cur = 0;
    size_t off = start, next = 0;
    while (off < start + (limit - start) / 2 || off == start) {
        const uint8_t *base = off == start ? restart_base(b, anchor) : keys[!cur];
        next = decode_at(c, page, off, limit, base, keys[cur]);
        if (!next)
            return -1;
        off = next;
        cur = !cur;
    }
    if (off >= limit)
        return 0;
    if (!(next = decode_at(c, page, off, limit, keys[!cur], keys[cur])))
        return -1;
    *ed = (edit){.at = off, .old_len = next - off, .restart_off = off, .new_restart = true};
    ed->len = c->encode(c, anchor, keys[cur], ed->bytes);
    if (!edit_fits(page, ed))
        return 0;
    apply_edit(page, marks, b, ed);
    return 1;
}

static size_t common_prefix(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* How many of the n + 1 keys (the new one at `pos`) stay left when a full
 * leaf splits. Appending at the end keeps the left leaf full. So does
 * appending at the end of a group of keys inside a leaf (the new key
 * shares more with its predecessor than with its successor, in the upper
 * half): an index such as AEVT grows at the end of each attribute's range,
 * and a middle split would leave a half-empty page behind at every split
 * there. The shared part must cover a whole leading field (6 bytes):
 * dictionary keys start with a hash, where a longer match is chance, and
 * uneven splits there made a 100K build seven times slower. Otherwise
 * split in the middle. */
static size_t split_point(const uint8_t *keys, size_t ks, size_t n, size_t pos, bool at_front) {
    if (pos == n)
        return n;
    if (at_front && pos < n / 2) { /* the mirror image, for newest-first orders */
        /* the new key starts a group that runs on for an eighth of the
         * page at least; an eighth at least goes left, so that the right
         * page (what filled this one, against another anchor) fits */
        const uint8_t *ent = keys + pos * ks;
        size_t with_pred = pos ? common_prefix(ent, ent - ks, ks) : 0;
        size_t with_far = common_prefix(ent, keys + (pos + 1 + n / 8) * ks, ks);
        if (with_far >= 6 && with_far > with_pred)
            return pos + 1 > n / 8 ? pos + 1 : n / 8;
    }
    if (pos > n / 2) {
        const uint8_t *ent = keys + pos * ks, *pred = ent - ks, *succ = ent + ks;
        size_t with_pred = common_prefix(ent, pred, ks);
        if (with_pred >= 6 && with_pred > common_prefix(ent, succ, ks))
            return pos;
    }
    return (n + 1) / 2;
}

/* All keys of a leaf plus a new one at its place (pos), with where their
 * entries came from (in `copy`, the leaf's bytes: the rebuild overwrites
 * the leaf). One allocation. */
typedef struct gathered {
    leaf_src *src; /* the allocation */
    uint8_t *keys, *copy, anchor[BTREE_MAX_KEY];
    size_t count, pos;
} gathered;

static int gather_entries(const uint8_t *page, const btree_codec *c, gathered *g) {
    size_t ks = c->key_size, n = 0, max = leaf_count(page);
    for (size_t b = 0; b < restarts(page); b++) {
        size_t off = restart_at(page, b), limit = block_end(page, b);
        if (off >= limit)
            return -1;
        const uint8_t *base = restart_base(b, g->anchor);
        int kind = b ? SRC_ANCHOR : SRC_FIRST;
        while (off < limit) {
            size_t next = n < max ? decode_at(c, page, off, limit, base, g->keys + n * ks) : 0;
            if (!next)
                return -1;
            g->src[n] = (leaf_src){g->copy + off, next - off, kind};
            if (n == 0)
                memcpy(g->anchor, g->keys, ks);
            base = g->keys + n++ * ks;
            kind = SRC_PREV;
            off = next;
        }
    }
    return n == max ? 0 : -1;
}

static int gather(const uint8_t *page, const btree_codec *c, const uint8_t *key, gathered *g) {
    size_t ks = c->key_size, n = leaf_count(page);
    g->src = malloc((n + 1) * (sizeof *g->src + ks) + FORMAT_PAGE_PAYLOAD);
    if (!g->src)
        return 1;
    g->keys = (uint8_t *)(g->src + n + 1);
    g->copy = g->keys + (n + 1) * ks;
    memcpy(g->copy, page, FORMAT_PAGE_PAYLOAD);
    if (gather_entries(page, c, g) != 0) {
        free(g->src);
        return -1;
    }
    size_t p = 0;
    while (p < n && btree_key_cmp(g->keys + p * ks, key, ks) < 0)
        p++;
    memmove(g->keys + (p + 1) * ks, g->keys + p * ks, (n - p) * ks);
    memcpy(g->keys + p * ks, key, ks);
    memmove(g->src + p + 1, g->src + p, (n - p) * sizeof *g->src);
    g->src[p].base = SRC_NONE;
    if (p < n && g->src[p + 1].base == SRC_PREV)
        g->src[p + 1].base = SRC_NONE; /* its predecessor is the new key */
    g->count = n + 1;
    g->pos = p;
    return 0;
}

/* Re-encodes the leaf with `key` added (copying the entries still
 * encoded against the same key); when they do not all fit (or `full`: an
 * edit did not fit), splits it into a new right page. */
static int rebuild(pager *pg, uint8_t *page, pager_marks *marks, uint32_t pgno,
                   const btree_codec *c, const uint8_t *key, bool full, btree_split *sp, err *e) {
    gathered g;
    size_t ks = c->key_size;
    int rc = gather(page, c, key, &g);
    if (rc != 0)
        return rc < 0 ? corrupt(e, pgno) : err_set(e, ERR(INT, 0), "out of memory");
    size_t total = g.count;
    sp->relast = true;
    mark(marks, 0, FORMAT_PAGE_PAYLOAD);
    if (!full && leaf_build(page, c, g.keys, total, c->block_bytes, g.src, g.anchor) == total) {
        free(g.src);
        return 0;
    }
    uint8_t *rpage;
    rc = pager_alloc(pg, &sp->right, &rpage, e);
    if (rc == 0) {
        size_t left = leaf_build(page, c, g.keys,
                                 split_point(g.keys, ks, total - 1, g.pos, c->grows_at_front),
                                 c->block_bytes, g.src, g.anchor);
        /* Standalone restart entries can make the right half longer than
         * it was: fewer, longer blocks fit it (one block is never longer
         * than the entries were in the full page). */
        size_t block = c->block_bytes, right = total - left;
        while (leaf_build(rpage, c, g.keys + left * ks, right, block, g.src + left, g.anchor) !=
                   right &&
               block < FORMAT_PAGE_SIZE)
            block *= 2;
        if (block >= FORMAT_PAGE_SIZE)
            rc = err_set(e, ERR(INT, 0), "internal: leaf split of page %u overflows",
                         (unsigned)pgno);
        memcpy(sp->key, g.keys + left * ks, ks);
        sp->happened = true;
    }
    free(g.src);
    return rc;
}

/* A key past every key of a full leaf starts the right page alone, as
 * rebuild's split would (split_point), without re-encoding the left one:
 * appends (TXLOG, ascending values) split this way. */
static int split_append(pager *pg, const btree_codec *c, const uint8_t *key, btree_split *sp,
                        err *e) {
    uint8_t *rpage;
    int rc = pager_alloc(pg, &sp->right, &rpage, e);
    if (rc != 0)
        return rc;
    leaf_init(rpage, c, key);
    memcpy(sp->key, key, c->key_size);
    sp->happened = sp->relast = true;
    return 0;
}

/* The place for `key` when `slot` says this leaf's last insert went
 * just before it, or one entry before (a retraction after its assertion,
 * where the previous one went after its own): true when the slot applies,
 * the key is above the slot's and goes at one of the next two places of
 * the slot's block (at its end: below the next block's first key). A key
 * further on pays two decodes before the leaf's search. */
#define HINT_REACH 2
static bool hinted_place(const uint8_t *page, const btree_codec *c, uint32_t pgno,
                         const btree_hint_slot *slot, const uint8_t *key, size_t *b, place *pl) {
    if (!slot || slot->leaf != pgno || slot->count != leaf_count(page) ||
        btree_key_cmp(slot->last, key, c->key_size) >= 0)
        return false;
    size_t limit = block_end(page, slot->block), off = slot->off;
    pl->has_prev = true;
    memcpy(pl->prev, slot->last, c->key_size);
    pl->has_next = false;
    for (int step = 0; step < HINT_REACH && off < limit && !pl->has_next; step++) {
        size_t next = decode_at(c, page, off, limit, pl->prev, pl->next);
        if (!next)
            return false;
        pl->has_next = btree_key_cmp(pl->next, key, c->key_size) >= 0;
        if (pl->has_next) {
            pl->next_end = next;
            break;
        }
        memcpy(pl->prev, pl->next, c->key_size);
        off = next;
    }
    pl->off = off;
    if (!pl->has_next && off < limit)
        return false;
    size_t r = slot->block + 1;
    if (!pl->has_next && r < restarts(page)) {
        uint8_t first[BTREE_MAX_KEY];
        if (!decode_at(c, page, restart_at(page, r), block_end(page, r), slot->anchor, first) ||
            btree_key_cmp(first, key, c->key_size) <= 0)
            return false;
    }
    *b = slot->block;
    return true;
}

/* The last key of block b into `key`: 0, or -1 when an entry does not
 * decode. */
static int block_last_key(const uint8_t *page, const btree_codec *c, size_t b,
                          const uint8_t *anchor, uint8_t *key) {
    uint8_t keys[2][BTREE_MAX_KEY];
    size_t off = restart_at(page, b), limit = block_end(page, b);
    const uint8_t *base = restart_base(b, anchor);
    int cur = 0;
    if (off >= limit)
        return -1;
    while (off < limit) {
        if (!(off = decode_at(c, page, off, limit, base, keys[cur])))
            return -1;
        base = keys[cur];
        cur = !cur;
    }
    memcpy(key, base, c->key_size);
    return 0;
}

/* The keys around `pl` in block b, from the blocks around it when the
 * place is at an end of its own: *prev (there always is one: a new first
 * key rebuilds the leaf) and *next (NULL: the place ends the leaf). */
static int neighbours(const uint8_t *page, const btree_codec *c, size_t b, const uint8_t *anchor,
                      place *pl, const uint8_t **next) {
    if (!pl->has_prev && (b == 0 || block_last_key(page, c, b - 1, anchor, pl->prev) != 0))
        return -1;
    pl->has_prev = true;
    *next = pl->has_next ? pl->next : NULL;
    if (!pl->has_next && b + 1 < restarts(page)) {
        if (!decode_at(c, page, restart_at(page, b + 1), block_end(page, b + 1), anchor, pl->next))
            return -1;
        *next = pl->next;
    }
    return 0;
}

int leaf_last_key(const uint8_t *page, const btree_codec *c, const uint8_t *anchor, uint8_t *key) {
    return block_last_key(page, c, restarts(page) - 1, anchor, key);
}

const uint8_t *leaf_summary(const uint8_t *page) {
    return has_summary(page) ? leaf_sum((uint8_t *)page) : NULL;
}

/* The slot after inserting `key` by `ed` into block b, then (`promo`,
 * NULL: none) promoting an entry of block b to a restart: one at or
 * before the key moves it into the block after, by the promoted entry's
 * change of length. */
static void remember(btree_hint_slot *slot, const uint8_t *page, uint32_t pgno,
                     const btree_codec *c, size_t b, const edit *ed, const edit *promo,
                     const uint8_t *key, const uint8_t *anchor) {
    slot->leaf = pgno;
    slot->count = leaf_count(page);
    slot->off = ed->at + ed->key_len;
    slot->block = ed->new_restart ? b + 1 : b;
    if (promo && promo->at < slot->off) {
        slot->off = slot->off + promo->len - promo->old_len;
        slot->block++;
    }
    memcpy(slot->last, key, c->key_size);
    memcpy(slot->anchor, anchor, c->key_size);
}

int leaf_insert(pager *pg, uint8_t *page, pager_marks *marks, uint32_t pgno, const btree_codec *c,
                const uint8_t *key, btree_hint_slot *slot, btree_split *sp, err *e) {
    place pl;
    edit ed;
    size_t b;
    uint8_t anchor[BTREE_MAX_KEY];
    if (hinted_place(page, c, pgno, slot, key, &b, &pl))
        memcpy(anchor, slot->anchor, c->key_size);
    else if (leaf_first_key(page, c, anchor) != 0 ||
             find_block(page, c, anchor, key, NULL, &b) != 0 ||
             find_place(page, c, b, anchor, key, &pl) != 0)
        return corrupt(e, pgno);
    if (pl.has_next && btree_key_cmp(pl.next, key, c->key_size) == 0)
        return 0;
    if (slot)
        slot->leaf = 0;
    if (!pl.has_prev && b == 0) /* a new first key */
        return rebuild(pg, page, marks, pgno, c, key, false, sp, e);
    plan_insert(page, c, b, anchor, &pl, key, &ed);
    if (!edit_fits(page, &ed) && !pl.has_next && b + 1 == restarts(page))
        return split_append(pg, c, key, sp, e);
    if (!edit_fits(page, &ed))
        return rebuild(pg, page, marks, pgno, c, key, true, sp, e);
    const uint8_t *next = NULL;
    if (has_summary(page) && neighbours(page, c, b, anchor, &pl, &next) != 0)
        return corrupt(e, pgno);
    apply_edit(page, marks, b, &ed);
    if (has_summary(page)) {
        c->sum_add(c, leaf_sum(page), anchor, pl.prev, key, next);
        mark(marks, FORMAT_PAGE_PAYLOAD - BTREE_LEAF_SUM_BYTES, BTREE_LEAF_SUM_BYTES);
        sp->ends = !next;
    }
    edit promo;
    int promoted = split_block(page, marks, c, b, anchor, &promo);
    if (promoted < 0)
        return corrupt(e, pgno);
    if (slot)
        remember(slot, page, pgno, c, b, &ed, promoted ? &promo : NULL, key, anchor);
    return 0;
}
