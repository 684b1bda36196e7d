/* The dictionary: every entity UUID and every text (attribute, keyword or
 * string value) is stored once, in heap pages, and facts refer to it by its
 * 48-bit location: page number << 12 | offset in the page. A B+tree (the
 * header's DICT root) maps (32-bit hash, location) so an entry can be found
 * from its bytes; the writer's newest entries wait for it in a table of
 * recent entries (dict_recent.h), flushed into the tree a batch at a time.
 *
 * Heap entry: u8 kind (1 UUID, 2 text), u16 length (LE), the bytes. Entries
 * never span pages; after a checkpoint the next entry starts a new page, so
 * committed pages are never written again. Texts longer than a heap page
 * exist only in memory databases (file-backed ones cap values at 4,068
 * bytes, language.md §4.2 item 9): they live in a side table and their location has
 * bit 47 set.
 *
 * Readers may call dict_find and dict_read concurrently, each through its
 * view, with the single writer's dict_intern. STG-009: a location or entry that cannot be right. */
#ifndef MG_STORAGE_DICT_H
#define MG_STORAGE_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "storage/btree.h"
#include "storage/dict_cache.h"
#include "storage/dict_filter.h"
#include "storage/dict_known.h"
#include "storage/dict_recent.h"
#include "storage/pager.h"

enum { DICT_UUID = 1, DICT_TEXT = 2 };

#define DICT_HASH_BYTES 4
#define DICT_LOC_BYTES 6
#define DICT_KEY_SIZE (DICT_HASH_BYTES + DICT_LOC_BYTES)

typedef struct dict {
    btree_codec codec;  /* of the DICT tree's keys */
    dict_cache cache;   /* the writer's recent entries */
    dict_known known;   /* the entries the writer flushed or found in the tree */
    dict_filter filter; /* the writer's filter of the tree's hashes */
    size_t added;       /* entries the writer added while it had no filter */
    size_t tree_size;   /* entries the tree holds at least (dict_expect) */
    uint32_t heap_page; /* dirty page being filled, or 0 */
    uint32_t heap_used;
    char **big; /* memory databases: texts too long for a page */
    size_t *big_len;
    size_t big_count, big_cap;
    dict_recent *recent;  /* the writer's entries not in the tree yet (NULL: none) */
    dict_recent *flushed; /* flushed tables older snapshots may read, newest first */
    uint64_t next_view;   /* the view the writer's next publish makes */
} dict;

void dict_init(dict *d);
void dict_free(dict *d);
/* The writer tells how many entries the tree holds at least (the store's
 * entity count): a dictionary over a tree it did not find empty builds
 * its filter only once it has added a quarter as many (at least 1,024),
 * since building it reads the whole tree. */
static inline void dict_expect(dict *d, size_t entries) {
    d->tree_size = entries;
}

/* 1 with *loc when present, 0 when absent, or an error; through `view`
 * (pager.h), PAGER_LATEST for the writer, and `recent`, the table of
 * recent entries that view saw (dict_recent.h; the writer's d->recent;
 * NULL: none). */
int dict_find(const dict *d, pager *pg, uint64_t view, uint32_t root, const dict_recent *recent,
              int kind, const void *bytes, size_t len, uint64_t *loc, err *e);
/* Finds or adds; *added tells which. A new entry goes into the table of
 * recent entries, visible from the writer's next publish on; a full table
 * is flushed into the tree first. */
int dict_intern(dict *d, pager *pg, uint32_t *root, int kind, const void *bytes, size_t len,
                uint64_t *loc, bool *added, err *e);
/* Moves the recent entries into the tree at *root (in key order), as
 * part of the writer's next publish: before pages are written to a file,
 * or another dictionary takes the tree over. The table stays for the
 * snapshots older than that publish. */
int dict_flush(dict *d, pager *pg, uint32_t *root, err *e);
/* The writer published `view`, and `oldest` is the oldest view a reader
 * still holds: entries added from now on are visible from view + 1, and
 * flushed tables no reader can see any more are freed. */
void dict_published(dict *d, uint64_t view, uint64_t oldest);
/* A fork's dictionary `d` (over a copy of `base`'s newest pages) takes
 * base's recent entries as visible to all its views; 0 or INT-000. */
int dict_adopt_recent(dict *d, const dict *base, err *e);
/* The entry at `loc`: *bytes points into `page` (FORMAT_PAGE_SIZE bytes of
 * scratch) or into the side table. */
int dict_read(const dict *d, pager *pg, uint64_t view, uint64_t loc, uint8_t *page, int *kind,
              const uint8_t **bytes, size_t *len, err *e);
/* The same for a caller that keeps the last page read in `page`: `*held`
 * names it (0: none; page 0 is never a heap page) and is updated, and a
 * location in that page is read without copying the page again. Only for
 * pages that cannot change meanwhile (a reader's snapshot). */
int dict_read_held(const dict *d, pager *pg, uint64_t view, uint64_t loc, uint8_t *page,
                   uint32_t *held, int *kind, const uint8_t **bytes, size_t *len, err *e);

#define DICT_BIG_FLAG (UINT64_C(1) << 47)
#define DICT_ENTRY_HEADER 3

/* The heap page holding `loc` (0: none, a text of the side table). */
static inline uint32_t dict_loc_page(uint64_t loc) {
    return loc & DICT_BIG_FLAG ? 0 : (uint32_t)(loc >> 12);
}

/* The entry at `loc` in `page`, its heap page: false when none can be
 * there (STG-009). Inline: scans read an entity's UUID per record. */
static inline bool dict_entry_in(const uint8_t *page, uint64_t loc, int *kind,
                                 const uint8_t **bytes, size_t *len) {
    size_t off = (size_t)(loc & 0xfff);
    if (off + DICT_ENTRY_HEADER > FORMAT_PAGE_PAYLOAD)
        return false;
    *kind = page[off];
    *len = (size_t)page[off + 1] | (size_t)page[off + 2] << 8;
    *bytes = page + off + DICT_ENTRY_HEADER;
    return (*kind == DICT_UUID || *kind == DICT_TEXT) &&
           off + DICT_ENTRY_HEADER + *len <= FORMAT_PAGE_PAYLOAD;
}

#endif
