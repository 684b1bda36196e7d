#include "storage/btree.h"

#include <stdlib.h>
#include <string.h>

enum { NODE_LEAF = 1, NODE_BRANCH = 2, NODE_HEADER = 4 };

static int node_kind(const uint8_t *page) {
    return page[0];
}

static size_t node_count(const uint8_t *page) {
    return (size_t)format_get_le(page + 2, 2);
}

static void set_count(uint8_t *page, size_t n) {
    format_put_le(page + 2, n, 2);
}

static size_t entry_size(int kind, size_t ks) {
    return kind == NODE_LEAF ? ks : ks + 4;
}

static size_t node_capacity(int kind, size_t ks) {
    return (FORMAT_PAGE_PAYLOAD - NODE_HEADER) / entry_size(kind, ks);
}

static uint8_t *entry(uint8_t *page, int kind, size_t ks, size_t i) {
    return page + NODE_HEADER + i * entry_size(kind, ks);
}

static uint32_t child_at(const uint8_t *page, size_t ks, size_t i) {
    return (uint32_t)format_get_le(page + NODE_HEADER + i * (ks + 4) + ks, 4);
}

static int corrupt(err *e, uint32_t pgno) {
    return err_set(e, ERR(STG, 8), "corrupt B-tree page %u", (unsigned)pgno);
}

static int check_node(const uint8_t *page, size_t ks, uint32_t pgno, err *e) {
    int kind = node_kind(page);
    if (kind != NODE_LEAF && kind != NODE_BRANCH)
        return corrupt(e, pgno);
    size_t n = node_count(page);
    if (n == 0 || n > node_capacity(kind, ks))
        return corrupt(e, pgno);
    return 0;
}

/* First index whose key is >= target (count if none). */
static size_t lower_bound(uint8_t *page, int kind, size_t ks, const uint8_t *target) {
    size_t lo = 0, hi = node_count(page);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memcmp(entry(page, kind, ks, mid), target, ks) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The child to descend into for `target`: the last whose key is <= it. */
static size_t child_index(uint8_t *page, size_t ks, const uint8_t *target) {
    size_t lo = 1, hi = node_count(page);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memcmp(entry(page, NODE_BRANCH, ks, mid), target, ks) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The dirty copy of *pgno, copying a committed page first. */
static int writable(pager *pg, uint32_t *pgno, size_t ks, uint8_t **page, err *e) {
    uint8_t *d = pager_dirty(pg, *pgno);
    if (d) {
        *page = d;
        return 0;
    }
    uint8_t tmp[FORMAT_PAGE_SIZE];
    uint32_t old = *pgno;
    int rc = pager_read(pg, old, tmp, e);
    if (rc == 0)
        rc = check_node(tmp, ks, old, e);
    if (rc == 0)
        rc = pager_alloc(pg, pgno, page, e);
    if (rc == 0)
        rc = pager_retire(pg, old, e);
    if (rc == 0)
        memcpy(*page, tmp, FORMAT_PAGE_SIZE);
    return rc;
}

typedef struct split {
    bool happened;
    uint8_t key[BTREE_MAX_KEY];
    uint32_t right;
} split;

static size_t common_prefix(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* How many of the n + 1 entries (the new one at `pos`) stay left when a
 * full node splits. Appending at the end keeps the left node full. So does
 * appending at the end of a group of keys inside a node (the new key shares
 * more with its predecessor than with its successor, in the upper half):
 * an index such as AEVT grows at the end of each attribute's range, and a
 * middle split would leave a half-empty page behind at every split there.
 * The shared part must cover a whole leading field (6 bytes): dictionary
 * keys start with a hash, where a longer match is chance, and uneven splits
 * there made a 100K build seven times slower. Otherwise split in the
 * middle. */
static size_t split_point(uint8_t *page, int kind, size_t ks, size_t pos, const uint8_t *ent) {
    size_t n = node_count(page);
    if (pos == n)
        return n;
    if (kind == NODE_LEAF && pos > n / 2) {
        const uint8_t *pred = entry(page, kind, ks, pos - 1), *succ = entry(page, kind, ks, pos);
        size_t with_pred = common_prefix(ent, pred, ks);
        if (with_pred >= 6 && with_pred > common_prefix(ent, succ, ks))
            return pos;
    }
    return (n + 1) / 2;
}

/* Inserts `ent` at `pos` of a node that may be full; on overflow the upper
 * part moves to a new right node (split_point says where). */
static int insert_entry(pager *pg, uint8_t *page, size_t ks, size_t pos, const uint8_t *ent,
                        split *sp, err *e) {
    int kind = node_kind(page);
    size_t es = entry_size(kind, ks), n = node_count(page), cap = node_capacity(kind, ks);
    uint8_t *at = entry(page, kind, ks, pos);
    if (n < cap) {
        memmove(at + es, at, (n - pos) * es);
        memcpy(at, ent, es);
        set_count(page, n + 1);
        return 0;
    }
    size_t left = split_point(page, kind, ks, pos, ent);
    uint8_t all[2 * FORMAT_PAGE_SIZE];
    memcpy(all, entry(page, kind, ks, 0), pos * es);
    memcpy(all + pos * es, ent, es);
    memcpy(all + (pos + 1) * es, at, (n - pos) * es);
    uint8_t *rpage;
    int rc = pager_alloc(pg, &sp->right, &rpage, e);
    if (rc != 0)
        return rc;
    rpage[0] = (uint8_t)kind;
    memcpy(entry(page, kind, ks, 0), all, left * es);
    set_count(page, left);
    memcpy(entry(rpage, kind, ks, 0), all + left * es, (n + 1 - left) * es);
    set_count(rpage, n + 1 - left);
    memcpy(sp->key, all + left * es, ks);
    sp->happened = true;
    return 0;
}

static int insert_node(pager *pg, uint32_t *pgno, size_t ks, const uint8_t *key, int depth,
                       split *sp, err *e);

static int insert_branch(pager *pg, uint8_t *page, size_t ks, const uint8_t *key, int depth,
                         split *sp, err *e) {
    size_t i = child_index(page, ks, key);
    uint32_t child = child_at(page, ks, i);
    split below = {0};
    int rc = insert_node(pg, &child, ks, key, depth + 1, &below, e);
    if (rc != 0)
        return rc;
    uint8_t *ent = entry(page, NODE_BRANCH, ks, i);
    format_put_le(ent + ks, child, 4);
    if (i == 0 && memcmp(key, ent, ks) < 0)
        memcpy(ent, key, ks);
    if (!below.happened)
        return 0;
    uint8_t add[BTREE_MAX_KEY + 4];
    memcpy(add, below.key, ks);
    format_put_le(add + ks, below.right, 4);
    return insert_entry(pg, page, ks, i + 1, add, sp, e);
}

static int insert_node(pager *pg, uint32_t *pgno, size_t ks, const uint8_t *key, int depth,
                       split *sp, err *e) {
    if (depth >= BTREE_MAX_DEPTH)
        return corrupt(e, *pgno);
    uint8_t *page;
    int rc = writable(pg, pgno, ks, &page, e);
    if (rc != 0)
        return rc;
    if (node_kind(page) == NODE_BRANCH)
        return insert_branch(pg, page, ks, key, depth, sp, e);
    size_t pos = lower_bound(page, NODE_LEAF, ks, key);
    if (pos < node_count(page) && memcmp(entry(page, NODE_LEAF, ks, pos), key, ks) == 0)
        return 0;
    return insert_entry(pg, page, ks, pos, key, sp, e);
}

static int new_root(pager *pg, uint32_t *root, size_t ks, const split *sp, err *e) {
    uint32_t left = *root, pgno;
    uint8_t *page;
    int rc = pager_alloc(pg, &pgno, &page, e);
    if (rc != 0)
        return rc;
    const uint8_t *lpage = pager_dirty(pg, left);
    page[0] = NODE_BRANCH;
    set_count(page, 2);
    memcpy(entry(page, NODE_BRANCH, ks, 0), entry((uint8_t *)lpage, node_kind(lpage), ks, 0), ks);
    format_put_le(entry(page, NODE_BRANCH, ks, 0) + ks, left, 4);
    memcpy(entry(page, NODE_BRANCH, ks, 1), sp->key, ks);
    format_put_le(entry(page, NODE_BRANCH, ks, 1) + ks, sp->right, 4);
    *root = pgno;
    return 0;
}

int btree_insert(pager *pg, uint32_t *root, size_t ks, const uint8_t *key, err *e) {
    if (*root == 0) {
        uint8_t *page;
        int rc = pager_alloc(pg, root, &page, e);
        if (rc != 0)
            return rc;
        page[0] = NODE_LEAF;
        set_count(page, 1);
        memcpy(entry(page, NODE_LEAF, ks, 0), key, ks);
        return 0;
    }
    split sp = {0};
    int rc = insert_node(pg, root, ks, key, 0, &sp, e);
    if (rc == 0 && sp.happened)
        rc = new_root(pg, root, ks, &sp, e);
    return rc;
}

_Static_assert(BTREE_MAX_DEPTH <= PAGER_SCRATCH_PAGES, "a cursor keeps one page per level");

int btree_cursor_init(btree_cursor *c, pager *pg, uint32_t root, size_t ks, err *e) {
    memset(c, 0, sizeof *c);
    c->pg = pg;
    c->root = root;
    c->key_size = ks;
    c->pages = pager_scratch_take(pg);
    if (!c->pages)
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

void btree_cursor_free(btree_cursor *c) {
    if (c->pages)
        pager_scratch_give(c->pg, c->pages);
    c->pages = NULL;
}

static uint8_t *level(btree_cursor *c, int l) {
    return c->pages + (size_t)l * FORMAT_PAGE_SIZE;
}

static int load(btree_cursor *c, int l, uint32_t pgno, err *e) {
    if (l >= BTREE_MAX_DEPTH)
        return corrupt(e, pgno);
    int rc = pager_read(c->pg, pgno, level(c, l), e);
    if (rc == 0)
        rc = check_node(level(c, l), c->key_size, pgno, e);
    if (rc == 0)
        c->depth = l + 1;
    return rc;
}

int btree_seek(btree_cursor *c, const uint8_t *prefix, size_t len, err *e) {
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    c->depth = 0;
    if (c->root == 0)
        return 0;
    uint32_t pgno = c->root;
    for (int l = 0;; l++) {
        int rc = load(c, l, pgno, e);
        if (rc != 0)
            return rc;
        uint8_t *page = level(c, l);
        if (node_kind(page) == NODE_LEAF) {
            c->idx[l] = (uint16_t)lower_bound(page, NODE_LEAF, c->key_size, target);
            return 0;
        }
        c->idx[l] = (uint16_t)child_index(page, c->key_size, target);
        pgno = child_at(page, c->key_size, c->idx[l]);
    }
}

/* Moves to the first key of the next leaf; 0 at the end of the tree. */
static int next_leaf(btree_cursor *c, err *e) {
    int l = c->depth - 2;
    while (l >= 0 && (size_t)c->idx[l] + 1 >= node_count(level(c, l)))
        l--;
    if (l < 0) {
        c->depth = 0;
        return 0;
    }
    c->idx[l]++;
    for (;;) {
        uint32_t pgno = child_at(level(c, l), c->key_size, c->idx[l]);
        int rc = load(c, l + 1, pgno, e);
        if (rc != 0)
            return rc;
        l++;
        c->idx[l] = 0;
        if (node_kind(level(c, l)) == NODE_LEAF)
            return 1;
    }
}

int btree_next(btree_cursor *c, const uint8_t **key, err *e) {
    for (;;) {
        if (c->depth == 0)
            return 0;
        int l = c->depth - 1;
        uint8_t *page = level(c, l);
        if (c->idx[l] < node_count(page)) {
            *key = entry(page, NODE_LEAF, c->key_size, c->idx[l]++);
            return 1;
        }
        int rc = next_leaf(c, e);
        if (rc != 1)
            return rc;
    }
}

double btree_cursor_position(const btree_cursor *c) {
    double pos = 0, width = 1;
    for (int l = 0; l + 1 < c->depth; l++) {
        width /= (double)node_count(c->pages + (size_t)l * FORMAT_PAGE_SIZE);
        pos += width * c->idx[l];
    }
    return pos;
}
