#include "storage/btree.h"

#include <stdlib.h>
#include <string.h>

#include "storage/btree_leaf.h"

enum { NODE_LEAF = 1, NODE_BRANCH = 2, BRANCH_HEADER = 4 };
/* Branch byte 1: its entries keep their child's summary (codec child_sum)
 * after the child number; only in a branch over leaves (format 6). */
enum { BRANCH_SUMS = 1 };

static int node_kind(const uint8_t *page) {
    return page[0];
}

static size_t branch_count(const uint8_t *page) {
    return (size_t)format_get_le(page + 2, 2);
}

static void set_branch_count(uint8_t *page, size_t n) {
    format_put_le(page + 2, n, 2);
}

static bool has_sums(const uint8_t *page) {
    return page[1] & BRANCH_SUMS;
}

/* The size of a branch's entries: key, child and maybe its summary. */
static size_t entry_size(const uint8_t *page, const btree_codec *c) {
    return c->key_size + 4 + (has_sums(page) ? c->child_sum_bytes : 0);
}

static size_t branch_capacity(size_t es) {
    return (FORMAT_PAGE_PAYLOAD - BRANCH_HEADER) / es;
}

static uint8_t *branch_entry(const uint8_t *page, size_t es, size_t i) {
    return (uint8_t *)page + BRANCH_HEADER + i * es;
}

static uint32_t child_at(const uint8_t *page, const btree_codec *c, size_t i) {
    return (uint32_t)format_get_le(branch_entry(page, entry_size(page, c), i) + c->key_size, 4);
}

static int corrupt(err *e, uint32_t pgno) {
    return err_set(e, ERR(STG, 8), "corrupt B-tree page %u", (unsigned)pgno);
}

/* A branch's header: a known flag (summaries only where the codec has
 * them) and a count that fits. */
static bool branch_ok(const uint8_t *page, const btree_codec *c) {
    size_t n = branch_count(page);
    return (page[1] == 0 || (page[1] == BRANCH_SUMS && c->child_sum)) && n > 0 &&
           n <= branch_capacity(entry_size(page, c));
}

static bool node_ok(const uint8_t *page, const btree_codec *c) {
    int kind = node_kind(page);
    return kind == NODE_LEAF ? leaf_ok(page) : kind == NODE_BRANCH ? branch_ok(page, c) : false;
}

static int check_node(const uint8_t *page, const btree_codec *c, uint32_t pgno, err *e) {
    return node_ok(page, c) ? 0 : corrupt(e, pgno);
}

/* What child_index's binary search assumes: keys 1.. strictly ascending
 * (key 0 is never compared). */
static bool branch_valid(const uint8_t *page, const btree_codec *c) {
    if (!branch_ok(page, c))
        return false;
    size_t n = branch_count(page), ks = c->key_size, es = entry_size(page, c);
    for (size_t i = 2; i < n; i++)
        if (btree_key_cmp(branch_entry(page, es, i - 1), branch_entry(page, es, i), ks) >= 0)
            return false;
    return true;
}

/* The whole-structure check of a node read from the file (pager_check):
 * `as` is the tree's codec. */
static bool node_valid(const uint8_t *page, const void *as) {
    const btree_codec *c = as;
    int kind = node_kind(page);
    return kind == NODE_LEAF     ? leaf_valid(page, c)
           : kind == NODE_BRANCH ? branch_valid(page, c)
                                 : false;
}

/* The child to descend into for `target`: the last whose key is <= it.
 * With `last_first` (inserts, which mostly append at the end of a tree)
 * the last child is tried first: one more compare of two keys as stored
 * for an insert elsewhere, the whole search saved for an append. */
static size_t child_index(const uint8_t *page, const btree_codec *c, const uint8_t *target,
                          bool last_first) {
    size_t ks = c->key_size, es = entry_size(page, c), lo = 1, hi = branch_count(page);
    if (last_first && hi > 1) {
        if (btree_key_cmp(branch_entry(page, es, hi - 1), target, ks) <= 0)
            return hi - 1;
        hi--;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (btree_key_cmp(branch_entry(page, es, mid), target, ks) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

const uint8_t *btree_newest_leaf(pager *pg, uint32_t root, const btree_codec *c,
                                 const uint8_t *target) {
    uint32_t pgno = root;
    for (int depth = 0; depth < BTREE_MAX_DEPTH; depth++) {
        const uint8_t *page = pgno ? pager_newest(pg, pgno) : NULL;
        if (!page || !node_ok(page, c))
            return NULL;
        if (node_kind(page) == NODE_LEAF)
            return page;
        pgno = child_at(page, c, child_index(page, c, target, false));
    }
    return NULL;
}

/* The dirty copy of *pgno, copying a committed page first, and where
 * to mark what changes in it (pager_dirty_marked; NULL for a copy of a
 * committed page). A dirty page is checked too: in a damaged file a tree
 * may point at a page the free list handed out again this checkpoint,
 * now another node or zeroes. */
static int writable(pager *pg, uint32_t *pgno, const btree_codec *c, uint8_t **page,
                    pager_marks **marks, err *e) {
    uint8_t *d;
    int rc = pager_dirty_marked(pg, *pgno, &d, marks, e);
    if (rc == 0 && d)
        rc = check_node(d, c, *pgno, e);
    if (rc != 0 || d) {
        *page = d;
        return rc;
    }
    uint8_t tmp[FORMAT_PAGE_SIZE];
    uint32_t old = *pgno;
    pager_check chk = {c, node_valid};
    rc = pager_read_checked(pg, PAGER_LATEST, old, tmp, &chk, e);
    if (rc == 0)
        rc = check_node(tmp, c, old, e);
    if (rc == 0)
        rc = pager_alloc(pg, pgno, page, e);
    if (rc == 0)
        rc = pager_retire(pg, old, e);
    if (rc == 0)
        memcpy(*page, tmp, FORMAT_PAGE_SIZE);
    return rc;
}

/* A child summary of all zero bytes: unknown, the leaf to be read. A
 * leaf without a summary has one; the writer leaves one there for a
 * leaf it changed, instead of making the branch writable again on every
 * insert, until the branch changes for another reason or the checkpoint
 * (btree_settle_sums) writes it to a file. */
static bool sum_unknown(const uint8_t *sum, const btree_codec *c) {
    static const uint8_t zero[BTREE_MAX_CHILD_SUM];
    return memcmp(sum, zero, c->child_sum_bytes) == 0;
}

/* Writes the child summary of the dirty leaf `pgno` into `sum`: `last`
 * its last key when the insert made it that (NULL: decoded when
 * `relast`, else the ends kept), `next` the first key of the leaf after
 * it (NULL: none). */
static int set_child_sum(pager *pg, const btree_codec *c, uint8_t *sum, uint32_t pgno, bool relast,
                         const uint8_t *last, const uint8_t *next, err *e) {
    const uint8_t *leaf = pager_newest(pg, pgno);
    uint8_t anchor[BTREE_MAX_KEY], key[BTREE_MAX_KEY];
    if (!leaf || node_kind(leaf) != NODE_LEAF)
        return corrupt(e, pgno);
    if (!last && relast) {
        if (leaf_first_key(leaf, c, anchor) != 0 || leaf_last_key(leaf, c, anchor, key) != 0)
            return corrupt(e, pgno);
        last = key;
    }
    c->child_sum(c, sum, leaf_summary(leaf), last, next);
    return 0;
}

/* Inserts (key, child, sum: the entry's summary, when the branch keeps
 * them) at `pos` of a branch that may be full; on overflow the upper half
 * moves to a new right branch. */
static int branch_add(pager *pg, uint8_t *page, const btree_codec *c, size_t pos,
                      const uint8_t *key, uint32_t child, const uint8_t *sum, btree_split *sp,
                      err *e) {
    size_t ks = c->key_size, es = entry_size(page, c), n = branch_count(page);
    uint8_t ent[BTREE_MAX_KEY + 4 + BTREE_MAX_CHILD_SUM];
    memcpy(ent, key, ks);
    format_put_le(ent + ks, child, 4);
    memcpy(ent + ks + 4, sum, es - ks - 4);
    uint8_t *at = branch_entry(page, es, pos);
    if (n < branch_capacity(es)) {
        memmove(at + es, at, (n - pos) * es);
        memcpy(at, ent, es);
        set_branch_count(page, n + 1);
        return 0;
    }
    uint8_t all[FORMAT_PAGE_SIZE + sizeof ent];
    memcpy(all, branch_entry(page, es, 0), pos * es);
    memcpy(all + pos * es, ent, es);
    memcpy(all + (pos + 1) * es, at, (n - pos) * es);
    /* The entries before the new one stay left, at least half of them:
     * appends keep the left branch full, and so do children that split
     * one after the other in the middle of a branch (a tree's keys
     * growing at the end of each attribute's or value's range), whose
     * left branches would otherwise stay half empty. */
    size_t left = pos > (n + 1) / 2 ? pos : (n + 1) / 2;
    uint8_t *rpage;
    int rc = pager_alloc(pg, &sp->right, &rpage, e);
    if (rc != 0)
        return rc;
    rpage[0] = NODE_BRANCH;
    rpage[1] = page[1];
    memcpy(branch_entry(page, es, 0), all, left * es);
    set_branch_count(page, left);
    memcpy(branch_entry(rpage, es, 0), all + left * es, (n + 1 - left) * es);
    set_branch_count(rpage, n + 1 - left);
    memcpy(sp->key, all + left * es, ks);
    sp->happened = true;
    return 0;
}

static int insert_node(pager *pg, uint32_t *pgno, const btree_codec *c, const uint8_t *key,
                       const uint8_t *hi, btree_hint *hint, int depth, btree_split *sp, err *e);

/* The child summaries of entry i of a dirty branch over leaves after an
 * insert into its child (`below`: what the insert did), and `right`, the
 * summary of the new child after it when the child split. `hi` is the
 * first key of the leaf after the child (NULL: none). */
static int update_sums(pager *pg, uint8_t *page, const btree_codec *c, size_t i, const uint8_t *key,
                       const uint8_t *hi, const btree_split *below, uint8_t *right, err *e) {
    uint8_t *ent = branch_entry(page, entry_size(page, c), i), *sum = ent + c->key_size + 4;
    uint32_t child = (uint32_t)format_get_le(ent + c->key_size, 4);
    bool relast = below->relast || sum_unknown(sum, c); /* no ends kept */
    if (!below->happened)
        return set_child_sum(pg, c, sum, child, relast, below->ends ? key : NULL, hi, e);
    int rc = set_child_sum(pg, c, sum, child, true, NULL, below->key, e);
    return rc == 0 ? set_child_sum(pg, c, right, below->right, true, NULL, hi, e) : rc;
}

/* The child of a branch whose range holds `key`: the one the hint says
 * the last insert at this depth took when it still does (inserts after
 * one another into the same leaf skip the binary search), remembered. */
static size_t hinted_child(const uint8_t *page, const btree_codec *c, const uint8_t *key,
                           btree_hint *hint, int depth) {
    size_t ks = c->key_size, es = entry_size(page, c), n = branch_count(page);
    size_t g = hint ? hint->child[depth] : n;
    bool holds = g < n && (g == 0 || btree_key_cmp(branch_entry(page, es, g), key, ks) <= 0) &&
                 (g + 1 == n || btree_key_cmp(key, branch_entry(page, es, g + 1), ks) < 0);
    size_t i = holds ? g : child_index(page, c, key, true);
    if (hint)
        hint->child[depth] = i;
    return i;
}

/* Inserts under the branch *pgno, whose bytes are `seen`: the branch
 * itself is made writable (copied, when a view may see it) only when it
 * changes: its child moved (a committed page copied), its lowest key
 * went down, the child split (the child summaries rebuilt), or (a branch
 * over leaves that keeps their summaries) the child's summary was still
 * known: it becomes unknown (sum_unknown), so that the next inserts into
 * the same leaf (the next commits' appends) leave the branch alone. `hi`:
 * the first key after the branch's keys (NULL: none). */
static int insert_branch(pager *pg, uint32_t *pgno, const uint8_t *seen, const btree_codec *c,
                         const uint8_t *key, const uint8_t *hi, btree_hint *hint, int depth,
                         btree_split *sp, err *e) {
    size_t ks = c->key_size, es = entry_size(seen, c), i = hinted_child(seen, c, key, hint, depth);
    bool sums = has_sums(seen);
    uint8_t after[BTREE_MAX_KEY]; /* the first key after child i's */
    if (i + 1 < branch_count(seen))
        hi = memcpy(after, branch_entry(seen, es, i + 1), ks);
    uint32_t was = child_at(seen, c, i), child = was;
    btree_split below = {0};
    int rc = insert_node(pg, &child, c, key, hi, hint, depth + 1, &below, e);
    if (rc != 0)
        return rc;
    bool lower = i == 0 && btree_key_cmp(key, branch_entry(seen, es, 0), ks) < 0;
    bool moved = child != was || lower || below.happened;
    if (!moved && (!sums || sum_unknown(branch_entry(seen, es, i) + ks + 4, c)))
        return 0;
    uint8_t *page, right[BTREE_MAX_CHILD_SUM] = {0};
    pager_marks *marks;
    if ((rc = writable(pg, pgno, c, &page, &marks, e)) != 0)
        return rc;
    uint8_t *ent = branch_entry(page, es, i);
    format_put_le(ent + ks, child, 4);
    if (lower)
        memcpy(ent, key, ks);
    if (!moved)
        memset(ent + ks + 4, 0, es - ks - 4);
    else if (sums && (rc = update_sums(pg, page, c, i, key, hi, &below, right, e)) != 0)
        return rc;
    if (marks && moved)
        *marks = PAGER_ALL;
    else if (marks)
        pager_mark(marks, (size_t)(ent - page) + ks + 4, es - ks - 4);
    if (!below.happened)
        return 0;
    return branch_add(pg, page, c, i + 1, below.key, below.right, right, sp, e);
}

static int insert_node(pager *pg, uint32_t *pgno, const btree_codec *c, const uint8_t *key,
                       const uint8_t *hi, btree_hint *hint, int depth, btree_split *sp, err *e) {
    if (depth >= BTREE_MAX_DEPTH)
        return corrupt(e, *pgno);
    /* A branch only in the file is copied first: its child is committed
     * too, so the insert moves it and the branch changes anyway. */
    const uint8_t *seen = pager_newest(pg, *pgno);
    if (seen && node_kind(seen) == NODE_BRANCH)
        return insert_branch(pg, pgno, seen, c, key, hi, hint, depth, sp, e);
    uint8_t *page;
    pager_marks *marks;
    int rc = writable(pg, pgno, c, &page, &marks, e);
    if (rc != 0)
        return rc;
    if (node_kind(page) == NODE_BRANCH) {
        seen = page;
        return insert_branch(pg, pgno, seen, c, key, hi, hint, depth, sp, e);
    }
    btree_hint_slot *slot = hint ? &hint->slots[*pgno % BTREE_HINT_SLOTS] : NULL;
    return leaf_insert(pg, page, marks, *pgno, c, key, slot, sp, e);
}

/* The lowest key under a dirty node, for a new root's entry 0. */
static int first_key(const uint8_t *page, const btree_codec *c, uint32_t pgno, uint8_t *key,
                     err *e) {
    if (node_kind(page) == NODE_BRANCH) {
        memcpy(key, page + BRANCH_HEADER, c->key_size);
        return 0;
    }
    return leaf_first_key(page, c, key) == 0 ? 0 : corrupt(e, pgno);
}

/* A new root over the old one and the right page of its split; over two
 * leaves it keeps their summaries when the codec has them. */
static int new_root(pager *pg, uint32_t *root, const btree_codec *c, const btree_split *sp,
                    err *e) {
    size_t ks = c->key_size;
    uint32_t left = *root, pgno;
    uint8_t lowest[BTREE_MAX_KEY], *page, *old;
    int rc = pager_dirty(pg, left, &old, e); /* already unpublished: no copy */
    if (rc == 0)
        rc = first_key(old, c, left, lowest, e);
    if (rc == 0)
        rc = pager_alloc(pg, &pgno, &page, e);
    if (rc != 0)
        return rc;
    page[0] = NODE_BRANCH;
    page[1] = node_kind(old) == NODE_LEAF && c->child_sum ? BRANCH_SUMS : 0;
    size_t es = entry_size(page, c);
    set_branch_count(page, 2);
    uint8_t *l = branch_entry(page, es, 0), *r = branch_entry(page, es, 1);
    memcpy(l, lowest, ks);
    format_put_le(l + ks, left, 4);
    memcpy(r, sp->key, ks);
    format_put_le(r + ks, sp->right, 4);
    *root = pgno;
    if (!has_sums(page))
        return 0;
    rc = set_child_sum(pg, c, l + ks + 4, left, true, NULL, sp->key, e);
    return rc == 0 ? set_child_sum(pg, c, r + ks + 4, sp->right, true, NULL, NULL, e) : rc;
}

void btree_hint_reset(btree_hint *h) {
    memset(h, 0, sizeof *h);
}

int btree_insert(pager *pg, uint32_t *root, const btree_codec *c, const uint8_t *key,
                 btree_hint *hint, err *e) {
    if (*root == 0) {
        uint8_t *page;
        int rc = pager_alloc(pg, root, &page, e);
        if (rc == 0)
            leaf_init(page, c, key);
        return rc;
    }
    btree_split sp = {0};
    int rc = insert_node(pg, root, c, key, NULL, hint, 0, &sp, e);
    if (rc == 0 && sp.happened)
        rc = new_root(pg, root, c, &sp, e);
    return rc;
}

/* The unknown child summaries under node `pgno`, rebuilt: only pages in
 * memory can hold one (a branch in the file was settled when written).
 * `hi`: the first key after the node's keys (NULL: none). */
static int settle_node(pager *pg, uint32_t pgno, const btree_codec *c, const uint8_t *hi, int depth,
                       err *e) {
    const uint8_t *seen = pager_newest(pg, pgno);
    if (!seen || node_kind(seen) != NODE_BRANCH)
        return 0;
    if (depth >= BTREE_MAX_DEPTH || !branch_ok(seen, c))
        return corrupt(e, pgno);
    size_t ks = c->key_size, es = entry_size(seen, c), n = branch_count(seen);
    uint8_t *page = NULL;
    pager_marks *marks = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const uint8_t *next = i + 1 < n ? branch_entry(seen, es, i + 1) : hi;
        if (!has_sums(seen)) {
            rc = settle_node(pg, child_at(seen, c, i), c, next, depth + 1, e);
            continue;
        }
        if (!sum_unknown(branch_entry(seen, es, i) + ks + 4, c))
            continue;
        if (!page && (rc = writable(pg, &pgno, c, &page, &marks, e)) != 0)
            return rc;
        seen = page; /* the same page number: it is in memory */
        uint8_t *sum = branch_entry(page, es, i) + ks + 4;
        rc = set_child_sum(pg, c, sum, child_at(page, c, i), true, NULL,
                           i + 1 < n ? branch_entry(page, es, i + 1) : hi, e);
        if (rc == 0 && marks)
            pager_mark(marks, (size_t)(sum - page), es - ks - 4);
    }
    return rc;
}

int btree_settle_sums(pager *pg, uint32_t root, const btree_codec *c, err *e) {
    return c->child_sum && root ? settle_node(pg, root, c, NULL, 0, e) : 0;
}

/* ---- cursors ---------------------------------------------------------- */

_Static_assert(BTREE_MAX_DEPTH <= PAGER_SCRATCH_PAGES, "a cursor keeps one page per level");
/* The last seek inside a leaf: its target and what it found there. */
typedef struct seek_memo {
    bool known;
    int found;    /* leaf_seek's answer */
    leaf_pos pos; /* just past the key found */
    uint8_t target[BTREE_MAX_KEY], key[BTREE_MAX_KEY];
} seek_memo;

/* What a cursor notes in its scratch block about the last leaf it read. */
typedef struct leaf_note {
    const btree_codec *codec; /* that decoded it: only a cursor of the same one trusts it */
    uint8_t anchor[BTREE_MAX_KEY];
    leaf_leads leads;
    seek_memo last;
} leaf_note;
_Static_assert(sizeof(leaf_note) <= PAGER_SCRATCH_NOTE, "a leaf's note fits the scratch block");

int btree_cursor_init(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                      const btree_codec *codec, err *e) {
    memset(c, 0, offsetof(btree_cursor, keys));
    c->pg = pg;
    c->view = view;
    c->root = root;
    c->codec = codec;
    c->scratch = pager_scratch_take(pg);
    if (!c->scratch)
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

void btree_cursor_reuse(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                        const btree_codec *codec) {
    if (c->pg == pg && c->view == view && c->root == root && c->codec == codec)
        return;
    pager_scratch *s = c->scratch;
    memset(c, 0, offsetof(btree_cursor, keys));
    c->pg = pg;
    c->view = view;
    c->root = root;
    c->codec = codec;
    c->scratch = s;
}

void btree_cursor_free(btree_cursor *c) {
    pager_scratch_give(c->pg, c->scratch);
    c->scratch = NULL;
}

static uint8_t *level(const btree_cursor *c, int l) {
    return c->scratch->pages + (size_t)l * FORMAT_PAGE_SIZE;
}

/* Whether the page at level l > 0 (`pgno`) is what its branch says of
 * it: a branch over leaves that keeps their summaries names the child's
 * first key and summary (the ends, which need the leaves around it, are
 * checked where a scan reads them: btree_child). The first key of a leaf
 * that agrees is kept in c->anchor for leaf_anchor (c->anchored). */
static bool child_agrees(btree_cursor *c, int l, uint32_t pgno) {
    const uint8_t *parent = level(c, l - 1), *page = level(c, l);
    if (!has_sums(parent))
        return true;
    const btree_codec *codec = c->codec;
    size_t ks = codec->key_size, n = codec->child_sum_bytes;
    const uint8_t *ent = branch_entry(parent, entry_size(parent, codec), c->idx[l - 1]);
    uint8_t first[BTREE_MAX_KEY], sum[BTREE_MAX_CHILD_SUM];
    if (node_kind(page) != NODE_LEAF || leaf_first_key(page, codec, first) != 0 ||
        memcmp(first, ent, ks) != 0)
        return false;
    if (sum_unknown(ent + ks + 4, codec))
        return true;
    memcpy(sum, ent + ks + 4, n);
    codec->child_sum(codec, sum, leaf_summary(page), NULL, NULL);
    if (memcmp(sum, ent + ks + 4, n) != 0)
        return false;
    memcpy(c->anchor, first, sizeof first); /* a constant size: no call */
    c->anchored = pgno;
    return true;
}

/* Page `pgno` at level l: read and checked unless the scratch slot holds
 * it already (the upper levels of the previous seek, usually). A damaged
 * branch may name a header page, 0 among them, and 0 is also what an
 * empty slot holds (nothing checked: stale or never-written bytes). */
static int load(btree_cursor *c, int l, uint32_t pgno, err *e) {
    if (l >= BTREE_MAX_DEPTH || pgno < FORMAT_FIRST_DATA_PAGE)
        return corrupt(e, pgno);
    if (!pager_scratch_holds(c->pg, c->scratch, c->view, (size_t)l, pgno, c->codec)) {
        c->anchored = 0;
        pager_check chk = {c->codec, node_valid};
        int rc = pager_read_checked(c->pg, c->view, pgno, level(c, l), &chk, e);
        if (rc == 0)
            rc = check_node(level(c, l), c->codec, pgno, e);
        if (rc == 0 && l > 0 && !child_agrees(c, l, pgno))
            rc = corrupt(e, pgno);
        if (rc != 0)
            return rc;
        pager_scratch_hold(c->scratch, (size_t)l, pgno, c->codec);
    }
    c->depth = l + 1;
    return 0;
}

/* The first key of leaf `pgno` (its anchor) into c->anchor, and the
 * leaf's note: noted in the scratch block with the restart leads seeks
 * decode, so that the next seek into the same leaf (a repeated query, the
 * next step of a join) does not decode them again. A note lasts while
 * pages do not change (the block's epoch), like the pages it holds. */
static leaf_note *leaf_anchor(btree_cursor *c, const uint8_t *page, uint32_t pgno, err *e) {
    pager_scratch *s = c->scratch;
    leaf_note *n = s->note;
    size_t ks = c->codec->key_size;
    if (s->noted == pgno && n->codec == c->codec) {
        memcpy(c->anchor, n->anchor, sizeof c->anchor); /* a constant size: no call */
        return n;
    }
    s->noted = 0;
    bool anchored = c->anchored == pgno;
    c->anchored = 0;
    if (!anchored && leaf_first_key(page, c->codec, c->anchor) != 0) {
        corrupt(e, pgno);
        return NULL;
    }
    memcpy(n->anchor, c->anchor, ks);
    n->codec = c->codec;
    n->leads.known = 0;
    n->last.known = false;
    s->noted = pgno;
    return n;
}

/* leaf_seek, or the answer of the last seek in the leaf when it sought
 * the same key: a query repeated on the same snapshot (an idle reader
 * keeps its cursor and its scratch block, store_reader.c), a join's
 * probes of one value, search the leaf once. The note, and so the memo,
 * lasts while the block holds this very page. */
static int seek_noted(btree_cursor *c, int l, leaf_note *n, const uint8_t *target) {
    /* whole buffers, a constant size (inline copies): a target is
     * zero-filled past the key, and bytes of a key past it are never read */
    seek_memo *m = &n->last;
    if (m->known && memcmp(m->target, target, BTREE_MAX_KEY) == 0) {
        c->pos = m->pos;
        memcpy(c->keys[c->cur], m->key, BTREE_MAX_KEY);
        return m->found;
    }
    int found = leaf_seek(level(c, l), c->codec, target, &c->pos, c->keys[c->cur], c->anchor,
                          &n->leads);
    m->known = found >= 0;
    m->found = found;
    m->pos = c->pos;
    memcpy(m->target, target, BTREE_MAX_KEY);
    memcpy(m->key, c->keys[c->cur], BTREE_MAX_KEY);
    return found;
}

/* The seek inside leaf `pgno`, held at level l with its note `n`. */
static int seek_in_leaf(btree_cursor *c, int l, uint32_t pgno, leaf_note *n, const uint8_t *target,
                        err *e) {
    int found = seek_noted(c, l, n, target);
    if (found < 0)
        return corrupt(e, pgno);
    c->depth = l + 1;
    c->pending = found == 1;
    c->leaf = pgno;
    return 0;
}

/* Whether a descent for `target` would reach the leaf the cursor holds:
 * at every branch level the child it holds is the one child_index picks
 * (its key at most the target, the next one above it). A join whose
 * probes come in key order, and a query repeated on the same snapshot
 * (an idle reader keeps its cursor), seek mostly inside the leaf of the
 * seek before. Checked against the path rather than the leaf's first key,
 * so that in a damaged tree too a seek lands where a descent, and the
 * insert that placed a key, would. */
static bool leaf_covers(btree_cursor *c, const uint8_t *target) {
    size_t ks = c->codec->key_size;
    int leaf = c->depth - 1;
    if (c->depth < 1 || c->at_child || c->leaf == 0 || c->scratch->noted != c->leaf ||
        !pager_scratch_holds(c->pg, c->scratch, c->view, (size_t)leaf, c->leaf, c->codec))
        return false;
    for (int l = 0; l < leaf; l++) {
        uint8_t *page = level(c, l);
        size_t i = c->idx[l], es = entry_size(page, c->codec);
        if ((i > 0 && btree_key_cmp(branch_entry(page, es, i), target, ks) > 0) ||
            (i + 1 < branch_count(page) &&
             btree_key_cmp(branch_entry(page, es, i + 1), target, ks) <= 0))
            return false;
    }
    return true;
}

bool btree_cursor_covers(btree_cursor *c, pager *pg, uint64_t view, uint32_t root,
                         const btree_codec *codec, const uint8_t *prefix, size_t len) {
    if (c->pg != pg || c->view != view || c->root != root || c->codec != codec)
        return false;
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    return leaf_covers(c, target);
}

int btree_seek_held(btree_cursor *c, const uint8_t *prefix, size_t len, err *e) {
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    return seek_in_leaf(c, c->depth - 1, c->leaf, c->scratch->note, target, e);
}

int btree_seek(btree_cursor *c, const uint8_t *prefix, size_t len, err *e) {
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    if (leaf_covers(c, target))
        return seek_in_leaf(c, c->depth - 1, c->leaf, c->scratch->note, target, e);
    c->depth = 0;
    c->at_child = false;
    c->pending = false;
    if (c->root == 0)
        return 0;
    uint32_t pgno = c->root;
    for (int l = 0;; l++) {
        int rc = load(c, l, pgno, e);
        if (rc != 0)
            return rc;
        uint8_t *page = level(c, l);
        if (node_kind(page) == NODE_LEAF) {
            leaf_note *n = leaf_anchor(c, page, pgno, e);
            return n ? seek_in_leaf(c, l, pgno, n, target, e) : e->code;
        }
        c->idx[l] = (uint16_t)child_index(page, c->codec, target, false);
        pgno = child_at(page, c->codec, c->idx[l]);
    }
}

const uint8_t *btree_sought(const btree_cursor *c) {
    return c->pending ? c->keys[c->cur] : NULL;
}

size_t btree_sought_next_lead(const btree_cursor *c, uint8_t *lead) {
    if (!c->pending)
        return 0;
    return leaf_next_lead(level(c, c->depth - 1), c->codec, c->pos, c->keys[c->cur], c->anchor,
                          lead);
}

/* Loads the child idx[l] of the branch at level l, a leaf, and moves to
 * its start: 1, or an error. */
static int enter_leaf(btree_cursor *c, int l, err *e) {
    uint32_t pgno = child_at(level(c, l), c->codec, c->idx[l]);
    c->at_child = false;
    int rc = load(c, l + 1, pgno, e);
    if (rc != 0)
        return rc;
    if (!leaf_anchor(c, level(c, l + 1), pgno, e))
        return e->code;
    c->pos = leaf_begin();
    c->leaf = pgno;
    return 1;
}

/* Moves to the start of the next leaf (forward) or of the previous one;
 * 0 past that end of the tree. Forward, a cursor that stops at children
 * stops before a leaf whose branch keeps child summaries: 2. */
static inline int step_leaf(btree_cursor *c, bool forward, err *e) {
    int l = c->depth - 2;
    while (l >= 0 &&
           (forward ? (size_t)c->idx[l] + 1 >= branch_count(level(c, l)) : c->idx[l] == 0))
        l--;
    if (l < 0) {
        c->depth = 0;
        c->at_child = false;
        return 0;
    }
    c->idx[l] = (uint16_t)(forward ? c->idx[l] + 1 : c->idx[l] - 1);
    for (;;) {
        if (has_sums(level(c, l))) {
            c->depth = l + 2;
            c->at_child = forward && c->stop;
            return c->at_child ? 2 : enter_leaf(c, l, e);
        }
        uint32_t pgno = child_at(level(c, l), c->codec, c->idx[l]);
        int rc = load(c, l + 1, pgno, e);
        if (rc != 0)
            return rc;
        l++;
        if (node_kind(level(c, l)) == NODE_LEAF) {
            if (!leaf_anchor(c, level(c, l), pgno, e))
                return e->code;
            c->pos = leaf_begin();
            c->leaf = pgno;
            return 1;
        }
        c->idx[l] = (uint16_t)(forward ? 0 : branch_count(level(c, l)) - 1);
    }
}

static int next_leaf(btree_cursor *c, err *e) {
    return step_leaf(c, true, e);
}

/* Reads the child the cursor stopped at, if it did: 0 or an error. */
static int enter_stopped(btree_cursor *c, err *e) {
    if (!c->at_child)
        return 0;
    int rc = enter_leaf(c, c->depth - 2, e);
    return rc == 1 ? 0 : rc;
}

int btree_next(btree_cursor *c, const uint8_t **key, err *e) {
    if (c->pending) {
        c->pending = false;
        *key = c->keys[c->cur];
        return 1;
    }
    for (;;) {
        if (c->depth == 0)
            return 0;
        int rc = enter_stopped(c, e);
        if (rc != 0)
            return rc;
        int l = c->depth - 1;
        rc = leaf_next(level(c, l), c->codec, &c->pos, c->keys[c->cur], c->anchor,
                       c->keys[!c->cur]);
        if (rc < 0)
            return corrupt(e, c->leaf);
        if (rc == 1) {
            c->cur = !c->cur;
            *key = c->keys[c->cur];
            return 1;
        }
        rc = next_leaf(c, e);
        if (rc != 1 && rc != 2) /* stopped at a child: read it */
            return rc;
    }
}

int btree_next_run(btree_cursor *c, btree_run *run, err *e) {
    run->key = c->pending ? c->keys[c->cur] : NULL;
    c->pending = false;
    for (;;) {
        if (c->depth == 0)
            return 0;
        int rc = enter_stopped(c, e);
        if (rc != 0)
            return rc;
        rc = leaf_run(level(c, c->depth - 1), &c->pos, c->keys[c->cur], c->anchor, run);
        if (rc < 0)
            return corrupt(e, c->leaf);
        if (rc == 1)
            return 1;
        if (run->key) { /* the seek's key ends its leaf */
            run->bytes = run->room = NULL;
            run->len = 0;
            return 1;
        }
        rc = next_leaf(c, e);
        if (rc != 1)
            return rc;
    }
}

const uint8_t *btree_child(const btree_cursor *c, const uint8_t **first, const uint8_t **next) {
    int l = c->depth - 2;
    if (l < 0 || !has_sums(level(c, l)))
        return NULL;
    size_t ks = c->codec->key_size, es = entry_size(level(c, l), c->codec);
    const uint8_t *ent = branch_entry(level(c, l), es, c->idx[l]);
    *first = ent;
    *next = NULL;
    /* the next leaf's first key: the next key at the lowest level that
     * has one (a branch's key i is its child's first key) */
    for (int up = l; up >= 0; up--) {
        const uint8_t *page = level(c, up);
        if ((size_t)c->idx[up] + 1 < branch_count(page)) {
            *next = branch_entry(page, entry_size(page, c->codec), c->idx[up] + 1u);
            break;
        }
    }
    return ent + ks + 4;
}

int btree_pass_child(btree_cursor *c, err *e) {
    if (!c->at_child)
        return err_set(e, ERR(INT, 0), "internal: no child to pass");
    int rc = step_leaf(c, true, e);
    return rc >= 0 && rc <= 2 ? 0 : rc;
}

const uint8_t *btree_leaf_summary(const btree_cursor *c) {
    return c->depth > 0 && !c->at_child ? leaf_summary(level(c, c->depth - 1)) : NULL;
}

size_t btree_leaf_entries(const btree_cursor *c) {
    return c->depth > 0 && !c->at_child ? leaf_count(level(c, c->depth - 1)) : 0;
}

int btree_skip_leaf(btree_cursor *c, uint8_t *key, err *e) {
    if (c->depth == 0 || c->at_child)
        return err_set(e, ERR(INT, 0), "internal: no leaf to skip");
    const uint8_t *page = level(c, c->depth - 1);
    if (leaf_last_key(page, c->codec, c->anchor, key) != 0)
        return corrupt(e, c->leaf);
    c->pending = false;
    c->pos = leaf_finish(page);
    return 0;
}

int btree_run_corrupt(const btree_cursor *c, err *e) {
    return corrupt(e, c->leaf);
}

double btree_cursor_position(const btree_cursor *c) {
    double pos = 0, width = 1;
    for (int l = 0; l + 1 < c->depth; l++) {
        width /= (double)branch_count(level(c, l));
        pos += width * c->idx[l];
    }
    return pos;
}

/* ---- reading backwards ---------------------------------------------------- */

/* The last key of the cursor's leaf below `target` (NULL: its last key)
 * into `out`, looking from restart block `from` on: 1, 0 when it has
 * none, -1 when an entry does not decode. Entries are encoded against the
 * key before them, so this decodes forwards up to there. */
static int leaf_last_below(btree_cursor *c, const uint8_t *target, size_t from, uint8_t *out) {
    const uint8_t *page = level(c, c->depth - 1);
    size_t ks = c->codec->key_size;
    leaf_pos pos = leaf_block_begin(page, from);
    uint8_t keys[2][BTREE_MAX_KEY];
    int cur = 0, found = 0, rc;
    while ((rc = leaf_next(page, c->codec, &pos, keys[cur], c->anchor, keys[!cur])) == 1) {
        cur = !cur;
        if (target && btree_key_cmp(keys[cur], target, ks) >= 0)
            break;
        found = 1;
    }
    if (rc < 0)
        return -1;
    /* the key before the one that stopped the walk, or the leaf's last */
    if (found)
        memcpy(out, keys[target && rc == 1 ? !cur : cur], ks);
    return found;
}

int btree_seek_before(btree_cursor *c, const uint8_t *prefix, size_t len, uint8_t *key, err *e) {
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    int rc = btree_seek(c, prefix, len, e);
    if (rc != 0 || c->depth == 0)
        return rc;
    /* The seek stopped in block pos.restart - 1 (or at the start of the
     * next one): the key before its stop is in that block, read up to the
     * stop, or else in the one before. Only when neither has a key below
     * target is the whole leaf read. */
    size_t stop = c->pos.restart;
    int found = leaf_last_below(c, target, stop >= 1 ? stop - 1 : 0, key);
    if (found == 0 && stop >= 2)
        found = leaf_last_below(c, target, stop - 2, key);
    if (found == 0 && stop >= 3)
        found = leaf_last_below(c, target, 0, key);
    while (found == 0 && (rc = step_leaf(c, false, e)) == 1)
        found = leaf_last_below(c, NULL, SIZE_MAX, key); /* in its last block */
    c->depth = 0; /* positioned nowhere: the caller seeks again */
    c->pending = false;
    if (found < 0)
        return corrupt(e, c->leaf);
    return found == 1 ? 1 : rc;
}
