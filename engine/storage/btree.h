/* Copy-on-write B+trees of fixed-size keys compared with memcmp (keys carry
 * everything: there are no separate values). A tree is its root page number
 * (0: empty). Inserting copies every committed page on the path into a new
 * dirty page and edits dirty pages in place, so the committed tree stays
 * intact until a checkpoint switches the header to the new root.
 *
 * Node page: u8 kind (1 leaf, 2 branch), u8 0, u16 count, then entries:
 * leaf: `count` keys; branch: `count` (key, u32 child) pairs, where key i
 * is a lower bound of child i's keys (key 0 is ignored when descending).
 * Little-endian child numbers. Cursors keep a copy of one page per level,
 * so they stream a range without loading the tree and never pin pages.
 *
 * STG-008: a page whose structure is impossible (kind, count, depth). */
#ifndef MG_STORAGE_BTREE_H
#define MG_STORAGE_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "storage/pager.h"

#define BTREE_MAX_KEY 64
#define BTREE_MAX_DEPTH 12

/* Adds `key` (key_size bytes) to the tree at *root, updating *root. A key
 * already present is left as it is. Writers only. */
int btree_insert(pager *pg, uint32_t *root, size_t key_size, const uint8_t *key, err *e);

typedef struct btree_cursor {
    pager *pg;
    uint32_t root;
    size_t key_size;
    int depth;
    uint16_t idx[BTREE_MAX_DEPTH]; /* branch: current child; leaf: next key */
    uint8_t *pages;                /* BTREE_MAX_DEPTH page copies */
} btree_cursor;

int btree_cursor_init(btree_cursor *c, pager *pg, uint32_t root, size_t key_size, err *e);
void btree_cursor_free(btree_cursor *c);
/* Positions before the first key >= `prefix` (len <= key_size; missing
 * bytes count as zero). */
int btree_seek(btree_cursor *c, const uint8_t *prefix, size_t len, err *e);
/* 1 with *key (valid until the next call), 0 at the end, or an error. */
int btree_next(btree_cursor *c, const uint8_t **key, err *e);
/* Where the cursor's leaf lies in the tree, as the share of the keys
 * before it: at each branch level, the child's position over the node's
 * child count (InnoDB and SQLite estimate ranges the same way). The
 * difference of two positions times the keys the tree holds estimates the
 * keys between them, to about a leaf. Reads only the branch pages the
 * cursor holds; 0 when it holds no path (an empty tree). */
double btree_cursor_position(const btree_cursor *c);

#endif
