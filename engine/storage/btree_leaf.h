/* Compressed B+tree leaf pages (internal to btree.c; the layout is in
 * docs/file-format.md §3):
 *
 *   u8 kind 1, u8 0, u16 entry count, u16 restart count r, u16 end (offset
 *   just past the last entry), entries from offset 8, and at the end of the
 *   payload r u16 restart offsets (ascending; the first is 8).
 *
 * Each entry is the codec's encoding of its key against the key before it,
 * except at a restart: there the first entry of the leaf stands alone and
 * the others are encoded against it (the anchor). So a seek decodes the
 * anchor, binary-searches the restarts and decodes a few entries of one
 * block. A writer starts a new
 * block when an entry is appended to one of the codec's block_bytes or
 * more, and splits a block that inserts inside it have grown past twice
 * that. Little-endian. */
#ifndef MG_STORAGE_BTREE_LEAF_H
#define MG_STORAGE_BTREE_LEAF_H

#include <string.h>

#include "storage/btree.h"
#include "storage/format.h"

/* memcmp of two keys of ks bytes, eight bytes at a time as numbers: a
 * seek compares many keys, and fact keys often share their first eight
 * (the attribute and the top of a small entity id), which sent every
 * compare to a memcmp call. */
static inline int btree_key_cmp(const uint8_t *a, const uint8_t *b, size_t ks) {
    size_t i = 0;
    for (; i + 8 <= ks; i += 8) {
        uint64_t x = format_get_be(a + i, 8), y = format_get_be(b + i, 8);
        if (x != y)
            return x < y ? -1 : 1;
    }
    if (i + 4 <= ks) { /* a lead's tail (AEVT's: 12 bytes) in one step, not four */
        uint64_t x = format_get_be(a + i, 4), y = format_get_be(b + i, 4);
        if (x != y)
            return x < y ? -1 : 1;
        i += 4;
    }
    for (; i < ks; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* A split of a full page: `key` is the first key of the new right page.
 * Without a split, what an insert did to the leaf's last key: `ends` the
 * key inserted is now the last, `relast` the leaf was rebuilt (the last
 * key may be any). */
typedef struct btree_split {
    bool happened, ends, relast;
    uint8_t key[BTREE_MAX_KEY];
    uint32_t right;
} btree_split;

/* The header and restart array are consistent (entries are checked as
 * they decode). */
bool leaf_ok(const uint8_t *page);
/* The whole leaf is what seeks assume (restarts ascending, each on the
 * start of a block, every entry decoding, keys strictly ascending): a
 * check for a page read from the file, once (it decodes every entry). */
bool leaf_valid(const uint8_t *page, const btree_codec *c);
/* A leaf holding just `key`. */
void leaf_init(uint8_t *page, const btree_codec *c, const uint8_t *key);
/* Decodes the last key, `anchor` the first: 0, or -1 when an entry does
 * not decode. */
int leaf_last_key(const uint8_t *page, const btree_codec *c, const uint8_t *anchor, uint8_t *key);
/* The leaf's summary (btree_codec sum_add), NULL when it keeps none. */
const uint8_t *leaf_summary(const uint8_t *page);
/* How many entries the leaf holds. */
size_t leaf_count(const uint8_t *page);
/* Decodes the first key (the anchor): 0, or -1 when it does not decode. */
int leaf_first_key(const uint8_t *page, const btree_codec *c, uint8_t *key);

/* Inserts `key` into the dirty leaf `page` (nothing when present),
 * splitting it into a new right page when it is full; the bytes of `page`
 * it changes are marked in `marks` (NULL: none kept, pager_dirty_marked).
 * `slot` (NULL: none) is the hint slot of this leaf's page number: used
 * when it describes this leaf, and left describing it or empty. */
int leaf_insert(pager *pg, uint8_t *page, pager_marks *marks, uint32_t pgno, const btree_codec *c,
                const uint8_t *key, btree_hint_slot *slot, btree_split *sp, err *e);

/* Reading: a position (leaf_pos, btree.h); decoding also needs the key
 * before the entry (unused at a restart) and the anchor. */

/* The position of the first entry. */
leaf_pos leaf_begin(void);
/* The position past the last entry. */
leaf_pos leaf_finish(const uint8_t *page);
/* The position of the first entry of restart block b (beyond the last
 * block: of the last). */
leaf_pos leaf_block_begin(const uint8_t *page, size_t b);

/* The leads (codec lead_size bytes) of a leaf's first LEAF_LEADS restart
 * keys, kept with the leaf between seeks as they are decoded (btree.c
 * keeps them in the cursor's scratch note): a seek's binary search over
 * the restarts then decodes only those not seen before. */
#define LEAF_LEADS 64
#define LEAF_LEAD_MAX 24
typedef struct leaf_leads {
    uint64_t known; /* bit b: lead[b] holds restart b's */
    uint8_t lead[LEAF_LEADS][LEAF_LEAD_MAX];
} leaf_leads;

/* The first key >= target: 1 with it in key and *pos just past it, 0
 * when the leaf has none (*pos at its end), -1 when an entry does not
 * decode. `anchor` is the leaf's first key (leaf_first_key); `leads`
 * (NULL: none) this leaf's, filled in as the seek decodes more. */
int leaf_seek(const uint8_t *page, const btree_codec *c, const uint8_t *target, leaf_pos *pos,
              uint8_t *key, const uint8_t *anchor, leaf_leads *leads);
/* Decodes the entry at *pos into key: 1, 0 at the end of the leaf, -1
 * when it does not decode. */
int leaf_next(const uint8_t *page, const btree_codec *c, leaf_pos *pos, const uint8_t *prev,
              const uint8_t *anchor, uint8_t *key);
/* The leading bytes of the entry at pos (leaf_next's next key, `prev`
 * the key before it) into `lead`: the codec's lead_size of them, all of
 * the key without a lead; 0 at the end of the leaf or when it does not
 * decode. */
size_t leaf_next_lead(const uint8_t *page, const btree_codec *c, leaf_pos pos, const uint8_t *prev,
                      const uint8_t *anchor, uint8_t *lead);
/* The entries from *pos to the end of their block, undecoded, with what
 * the first is encoded against (prev inside a block) and the end of the
 * page's payload (which `page` holds whole): 1 with *pos moved
 * to the block's end, 0 at the end of the leaf, -1 when the restart array
 * is inconsistent. */
int leaf_run(const uint8_t *page, leaf_pos *pos, const uint8_t *prev, const uint8_t *anchor,
             btree_run *run);

#endif
