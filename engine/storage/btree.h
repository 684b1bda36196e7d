/* Copy-on-write B+trees of fixed-size keys compared with memcmp (keys carry
 * everything: there are no separate values). A tree is its root page number
 * (0: empty). Inserting copies every committed page on the path into a new
 * dirty page and edits dirty pages in place, so the committed tree stays
 * intact until a checkpoint switches the header to the new root.
 *
 * Branch page: u8 kind 2, u8 0, u16 count, then `count` (key, u32 child)
 * pairs, where key i is a lower bound of child i's keys (key 0 is ignored
 * when descending). Little-endian child numbers.
 *
 * Leaf page (kind 1): compressed entries, each encoded by the tree's codec
 * against the key before it, in restart blocks whose first entry stands
 * alone (storage/btree_leaf.h; docs/file-format.md §3). The codec is part of
 * the tree's identity: a tree must always be opened with the same one.
 *
 * Cursors keep a copy of one page per level, so they stream a range
 * without loading the tree and never pin pages.
 *
 * STG-008: a page whose structure is impossible (kind, count, depth, an
 * entry that does not decode). */
#ifndef MG_STORAGE_BTREE_H
#define MG_STORAGE_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "storage/pager.h"

#define BTREE_MAX_KEY 72
#define BTREE_MAX_DEPTH 12
/* The longest encoded leaf entry a codec may produce. */
#define BTREE_MAX_ENTRY 96

/* How a tree's keys are stored in its leaves. `encode` writes `key`
 * relative to `prev` (the key before it; NULL at a restart point) into out
 * (at most BTREE_MAX_ENTRY bytes) and returns the length. `decode` reads
 * one entry from at most `avail` bytes at `in` relative to `prev` (NULL at
 * a restart) into key (never the same buffer as prev): the entry's length,
 * or 0 when the bytes cannot be an entry. */
typedef struct btree_codec btree_codec;
struct btree_codec {
    size_t key_size;
    /* Writers start a new restart block once one holds this many bytes:
     * smaller blocks make seeks and inserts decode fewer entries, larger
     * ones store fewer standalone entries. */
    size_t block_bytes;
    size_t (*encode)(const btree_codec *c, const uint8_t *prev, const uint8_t *key, uint8_t *out);
    size_t (*decode)(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                     uint8_t *key);
    /* Optional (NULL: none): decodes only the first lead_size bytes of the
     * key, nonzero when they decode. A seek's binary search over restart
     * points is usually decided by them. */
    size_t lead_size;
    size_t (*lead)(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                   uint8_t *key);
    /* Optional (NULL: a seek decodes entry by entry): finds the first key
     * >= target in one restart block, its `len` bytes of entries at `in`
     * the first encoded against `base` (NULL: against nothing), without
     * building the keys before it. 1 with the key in `key` and *used the
     * bytes up to and including its entry, 0 when every key is below
     * target, -1 when an entry does not decode. */
    int (*seek)(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                const uint8_t *target, uint8_t *key, size_t *used);
    /* Keys arrive at the front of groups sharing a leading field (a
     * newest-first order): a full leaf splits just after a new key that
     * starts such a group, so that the older keys fill the right page. */
    bool grows_at_front;
    /* Optional (NULL: an insert decodes entry by entry): `seek` for an
     * insert, which also needs the neighbours of the place. 1 with the
     * first key >= target in `key`, *at the offset of its entry and *used
     * the bytes up to its end; 0 when every key is below target (*at =
     * len). Either way *has_prev tells whether a key of the block comes
     * before the place, and `prev` holds it. -1 when an entry does not
     * decode. */
    int (*place)(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                 const uint8_t *target, uint8_t *key, size_t *at, size_t *used, uint8_t *prev,
                 bool *has_prev);
    /* Optional (NULL: none): the leaf summary (docs/file-format.md §3),
     * BTREE_LEAF_SUM_BYTES at the end of every leaf this codec writes,
     * kept as keys are added. Adds `key` to `sum` (all zero for an empty
     * leaf): `anchor` is the leaf's first key (key itself when it is the
     * first), `prev` and `next` its neighbours in the leaf (NULL: none). */
    void (*sum_add)(const btree_codec *c, uint8_t *sum, const uint8_t *anchor, const uint8_t *prev,
                    const uint8_t *key, const uint8_t *next);
    /* Optional (0: none; only with sum_add): the child summary a branch
     * over leaves keeps beside each child (format 6, docs/file-format.md
     * §3): child_sum_bytes of it, written by child_sum from the leaf's
     * summary `leaf_sum` (NULL: none), its last key `last` and `next`, the
     * first key of the leaf after it (NULL: none). With `last` NULL what
     * depends on the last key stays as `out` holds it. */
    size_t child_sum_bytes;
    void (*child_sum)(const btree_codec *c, uint8_t *out, const uint8_t *leaf_sum,
                      const uint8_t *last, const uint8_t *next);
};

/* The most bytes a child summary may take. */
#define BTREE_MAX_CHILD_SUM 32

/* The bytes a leaf summary takes at the end of a leaf's payload. */
#define BTREE_LEAF_SUM_BYTES 40

/* A writer's memory of where its recent inserts into one tree went, one
 * slot per leaf (by page number): an insert that lands just after the
 * previous one in the same leaf (appends, a growing group) skips the
 * search of the leaf. A slot is only trusted while the leaf's entry count
 * is what it recorded, and the whole hint must be reset whenever a
 * checkpoint may let page numbers be reused. */
#define BTREE_HINT_SLOTS 32
typedef struct btree_hint_slot {
    uint32_t leaf; /* 0: empty */
    size_t count;  /* the leaf's entries after the insert */
    size_t off;    /* offset just past the inserted entry */
    size_t block;  /* its restart block */
    uint8_t last[BTREE_MAX_KEY], anchor[BTREE_MAX_KEY];
} btree_hint_slot;

/* `child`: the child index the last insert took at each branch depth,
 * tried first by the next (a guess, checked against the branch's keys). */
typedef struct btree_hint {
    btree_hint_slot slots[BTREE_HINT_SLOTS];
    size_t child[BTREE_MAX_DEPTH];
} btree_hint;

void btree_hint_reset(btree_hint *h);

/* Rebuilds the child summaries the writer left unknown in the tree at
 * `root` (a branch over leaves changed since the last checkpoint), before
 * a checkpoint writes its pages: a file holds an all-zero child summary
 * only over a leaf without a summary. Writers only. */
int btree_settle_sums(pager *pg, uint32_t root, const btree_codec *codec, err *e);

/* Adds `key` to the tree at *root, updating *root. A key already present
 * is left as it is. `hint` (NULL: none) is this tree's. Writers only. */
int btree_insert(pager *pg, uint32_t *root, const btree_codec *codec, const uint8_t *key,
                 btree_hint *hint, err *e);

/* A position in a leaf: the offset of the next entry, the index of the
 * next restart point not passed and the end of the current block (so that
 * stepping through a block reads nothing else of the page). */
typedef struct leaf_pos {
    size_t off, restart, limit;
} leaf_pos;

/* The leaf of the tree at `root` whose range holds `target`, read in
 * place in the pager's newest page versions: for the writer, whose own
 * versions nothing else changes, and only while it changes none of them
 * itself. NULL when a page on the way is only in the file (not copied
 * out of it since the last checkpoint) or fails its header check: the
 * caller then reads through a cursor. */
const uint8_t *btree_newest_leaf(pager *pg, uint32_t root, const btree_codec *c,
                                 const uint8_t *target);

typedef struct btree_cursor {
    pager *pg;
    bool stop;     /* btree_stop_at_children */
    bool at_child; /* stopped before the child idx[depth - 2] (not read) */
    uint64_t view; /* the pages it reads: pager_read's */
    uint32_t root;
    const btree_codec *codec;
    int depth;
    uint16_t idx[BTREE_MAX_DEPTH]; /* branches: the current child */
    uint32_t leaf;                 /* the leaf's page number */
    leaf_pos pos;                  /* in the leaf */
    int cur;                       /* keys[cur]: the key before pos.off */
    bool pending;                  /* keys[cur] is the next key (a seek found it) */
    uint32_t anchored;             /* the leaf just read whose first key `anchor` holds, 0: none */
    uint8_t keys[2][BTREE_MAX_KEY];
    uint8_t anchor[BTREE_MAX_KEY]; /* the leaf's first key */
    pager_scratch *scratch;        /* its first BTREE_MAX_DEPTH slots: a page per level */
} btree_cursor;

/* A cursor over the tree at `root` as `view` sees it (pager.h). */
int btree_cursor_init(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                      const btree_codec *codec, err *e);
/* Sets up a cursor that holds a scratch block (btree_cursor_init's, not
 * freed) for the tree at `root` as `view` sees it. On the same tree and
 * view it keeps its position: a seek inside the leaf it holds then skips
 * the descent (btree_seek). Different pager: never (the scratch block is
 * that pager's). */
void btree_cursor_reuse(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                        const btree_codec *codec);
void btree_cursor_free(btree_cursor *c);
/* Whether a seek of prefix[0..len) by c, set up by btree_cursor_reuse for
 * the tree at `root` as `view` sees it, would stay inside the leaf c
 * holds (no page read). */
bool btree_cursor_covers(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                         const btree_codec *codec, const uint8_t *prefix, size_t len);
/* btree_seek of a cursor btree_cursor_covers found holding the leaf
 * (nothing moved it since): without checking that again. */
int btree_seek_held(btree_cursor *c, const uint8_t *prefix, size_t len, err *e);
/* Positions before the first key >= `prefix` (len <= key_size; missing
 * bytes count as zero). From the leaf the cursor holds when the key lies
 * in its range (probes in key order), else from the root. */
int btree_seek(btree_cursor *c, const uint8_t *prefix, size_t len, err *e);
/* The key the last seek stopped before, when it found it in the leaf it
 * searched and nothing was read since (btree_next would return it);
 * NULL otherwise. Valid until the next call on the cursor. */
const uint8_t *btree_sought(const btree_cursor *c);
/* With btree_sought's key: the leading bytes (the codec's lead_size, or
 * all of the key without a lead) of the key after it in the same leaf
 * into `lead`, and their count; 0 when there is none there or it does
 * not decode. */
size_t btree_sought_next_lead(const btree_cursor *c, uint8_t *lead);
/* The last key below prefix[0..len) (missing bytes count as zero) into
 * `key`: 1, 0 when there is none, or an error. The cursor is left
 * positioned nowhere: seek it again before reading on. How a scan walks
 * an order backwards, a group of keys at a time (store_scan.c). */
int btree_seek_before(btree_cursor *c, const uint8_t *prefix, size_t len, uint8_t *key, err *e);
/* 1 with *key (valid until the next call), 0 at the end, or an error. */
int btree_next(btree_cursor *c, const uint8_t **key, err *e);
/* Reading a range without decoding through the codec, for callers that
 * decode its entries into their own form: the cursor hands out the rest
 * of its current restart block at a time. `key` is a key already decoded
 * (the one a seek found) that comes first, or NULL; then `len` bytes of
 * entries at `bytes` (maybe none after a key), the first encoded against
 * `base` (NULL: against nothing, the leaf's first entry; `key` itself when
 * they follow it in its block) and each other against the key before it.
 * Valid until the next call on the cursor. */
typedef struct btree_run {
    const uint8_t *key, *base, *bytes;
    size_t len;
    const uint8_t *room; /* the page's end: readable past `len` (NULL: not) */
} btree_run;

/* 1 with *run, 0 at the end, or an error. The cursor moves past the run:
 * btree_next and btree_next_run both go on after it. A cursor that stops
 * at children (btree_stop_at_children) returns 2 instead when it reaches
 * a leaf whose branch keeps child summaries, before reading it: the
 * caller may look at it (btree_child) and pass it (btree_pass_child);
 * the next call reads it otherwise. */
int btree_next_run(btree_cursor *c, btree_run *run, err *e);
/* Whether btree_next_run stops before the leaves it reaches (a count
 * that may decide them from their branch). */
static inline void btree_stop_at_children(btree_cursor *c, bool on) {
    c->stop = on;
}
/* The child summary of the leaf the cursor holds, or of the child it
 * stopped at, when its branch keeps one (else NULL): all zero when the
 * leaf keeps none, or the writer left it unknown since the last
 * checkpoint (btree_settle_sums); *first its first
 * key (the branch's), *next the first key of the leaf after it (NULL:
 * none). */
const uint8_t *btree_child(const btree_cursor *c, const uint8_t **first, const uint8_t **next);
/* Passes the child the cursor stopped at without reading it: 0 or an
 * error; the next btree_next_run goes on after it. */
int btree_pass_child(btree_cursor *c, err *e);
/* The summary of the cursor's leaf (codec sum_add), or NULL when the
 * leaf has none (a leaf written before format version 5). */
const uint8_t *btree_leaf_summary(const btree_cursor *c);
/* How many entries the cursor's leaf holds (0 when it holds none). */
size_t btree_leaf_entries(const btree_cursor *c);
/* Moves the cursor past the rest of its leaf, undecoded, and decodes the
 * leaf's last key into `key`: 0, or an error. */
int btree_skip_leaf(btree_cursor *c, uint8_t *key, err *e);
/* STG-008 for the cursor's leaf: a run's entries did not decode. */
int btree_run_corrupt(const btree_cursor *c, err *e);
/* Where the cursor's leaf lies in the tree, as the share of the keys
 * before it: at each branch level, the child's position over the node's
 * child count (InnoDB and SQLite estimate ranges the same way). The
 * difference of two positions times the keys the tree holds estimates the
 * keys between them, to about a leaf. Reads only the branch pages the
 * cursor holds; 0 when it holds no path (an empty tree). */
double btree_cursor_position(const btree_cursor *c);

#endif
