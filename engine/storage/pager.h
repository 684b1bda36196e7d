/* Pages of the database file. Committed pages (below the header's page
 * count) are immutable: they are read on demand, checked against their
 * checksum, and kept in an LRU page cache. Pages allocated since the last
 * checkpoint are "dirty": they live in memory, numbered from the committed
 * page count up, and a checkpoint writes them all, syncs, then switches the
 * header (two alternating slots) and syncs again. A crash before the header
 * switch leaves the old header pointing at untouched old pages.
 *
 * An in-memory pager has only dirty pages and no file.
 *
 * Concurrency: the store serialises writers (alloc, dirty access,
 * checkpoint) against readers (pager_read) with its read-write lock; reads
 * may run in parallel.
 *
 * STG codes: 001 file shorter than its header, 002 not a minigraf file,
 * 003 a newer format, 004 no header slot with a valid checksum, 006
 * unsupported page size, 007 header page count beyond the end of the file
 * (truncated), 008 page number out of range, 010-015 I/O (open, read,
 * write, sync, truncate, stat), 017 the file would exceed 2^32 pages,
 * 028 an older format (v1) this release cannot read, 029 page checksum
 * mismatch met by a read. */
#ifndef MG_STORAGE_PAGER_H
#define MG_STORAGE_PAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/shared_lock.h"
#include "storage/format.h"
#include "storage/page_cache.h"
#include "storage/vfs.h"

typedef struct pager pager;

/* Opens (creating when empty and writable) the file at `path` under the
 * process registry and file lock (store_lock.h), and reads the newest valid
 * header slot into *h. `cache_pages` sizes the page cache. */
int pager_open_file(const char *path, bool read_only, bool allow_unlocked, size_t cache_pages,
                    pager **out, format_header *h, err *e);
int pager_open_memory(pager **out, format_header *h, err *e);
/* An in-memory pager over `base` as it is now: its pages below base's
 * end are read from `base` (committed for the fork: a change copies them
 * to new pages of its own), so creating it costs nothing whatever the
 * size of `base`. `base` must not change, nor close, while the fork
 * lives (a write transaction's view: the transaction holds the writer). */
int pager_fork(pager *base, pager **out, err *e);
void pager_close(pager *p);

bool pager_is_memory(const pager *p);

/* The store's write lock: from this call on, in builds with MG_ASSERTS,
 * every page handed out for writing (pager_dirty, pager_alloc) asserts that
 * `l` is held for writing, the rule the pager's epoch relies on. Opening
 * (recovery, a first identity) writes before the store is shared, so the
 * store sets it once open. */
void pager_set_write_lock(pager *p, const shared_lock *l);

/* Scratch for a B+tree cursor's page copies: PAGER_SCRATCH_PAGES pages.
 * A point query opens a few cursors, and a fresh 48 KiB malloc for each
 * (cold memory, glibc's large-chunk path) was a fixed cost of every
 * query; given-back blocks (up to PAGER_SCRATCH_SPARES) are reused
 * instead. A block remembers which page each of its slots holds, so the
 * next cursor to use it (the next seek of a join, the next query) reads
 * again only the pages that differ: the root and upper branches of a tree
 * usually do not. What a slot holds stays valid until a page is handed
 * out for writing (pager_dirty and pager_alloc start a new epoch; a
 * checkpoint changes no page's bytes). Take and give are thread-safe; give back before pager_close. */
#define PAGER_SCRATCH_PAGES 12
#define PAGER_SCRATCH_SIZE ((size_t)PAGER_SCRATCH_PAGES * FORMAT_PAGE_SIZE)
#define PAGER_SCRATCH_SPARES 8
#define PAGER_SCRATCH_NOTE 2048
typedef struct pager_scratch {
    uint64_t epoch;                      /* of the pager when `held` was last valid */
    uint32_t held[PAGER_SCRATCH_PAGES];  /* per slot: the page it holds, 0: none */
    /* Per slot: what the page was checked as (a B+tree cursor's codec).
     * Only a reader of the same kind trusts it: in a damaged file one tree
     * may point into another's pages, and a branch checked for 10-byte
     * keys holds more entries than a page read with 62-byte keys can. */
    const void *held_as[PAGER_SCRATCH_PAGES];
    /* The user's note on page `noted` (0: none), forgotten with `held`:
     * what it derived from the page's bytes (a B+tree leaf's first key
     * and restart keys); PAGER_SCRATCH_NOTE bytes, 16-byte aligned. */
    uint32_t noted;
    void *note;
    uint8_t *pages;                      /* PAGER_SCRATCH_PAGES page copies */
} pager_scratch;
/* NULL when out of memory. */
pager_scratch *pager_scratch_take(pager *p);
/* Returns a block from pager_scratch_take (NULL: nothing). */
void pager_scratch_give(pager *p, pager_scratch *s);
/* Whether slot `slot` of s holds page `pgno` (not 0) as it is now, checked as
 * `as`. When it does not, the slot is marked empty: the caller reads the
 * page into it and calls pager_scratch_hold once the copy is checked.
 * Under the store's read lock, like pager_read. */
bool pager_scratch_holds(const pager *p, pager_scratch *s, size_t slot, uint32_t pgno,
                         const void *as);
static inline void pager_scratch_hold(pager_scratch *s, size_t slot, uint32_t pgno,
                                      const void *as) {
    s->held[slot] = pgno;
    s->held_as[slot] = as;
}

/* Copies page `pgno` into dst (FORMAT_PAGE_SIZE bytes). */
int pager_read(pager *p, uint32_t pgno, uint8_t *dst, err *e);
/* The writable buffer of a dirty page, or NULL when `pgno` is committed. */
uint8_t *pager_dirty(pager *p, uint32_t pgno);
/* A new zeroed dirty page: a free page when there is one (freelist.h),
 * else one past the end. */
int pager_alloc(pager *p, uint32_t *pgno, uint8_t **page, err *e);
/* Records that copy-on-write replaced committed page `pgno`: it is free
 * once the next checkpoint's header is durable. */
int pager_retire(pager *p, uint32_t pgno, err *e);
/* Pages in use (committed + dirty): the header's page count after the next
 * checkpoint. */
uint32_t pager_page_count(const pager *p);
/* The page cache's counters (storage/page_cache.h). */
page_cache_stats pager_cache_stats(const pager *p);
bool pager_has_dirty(const pager *p);

/* Writes the dirty pages and a header carrying `h`'s counts and roots
 * (generation and page count are filled in here), syncing before and after
 * the header switch. On failure nothing changes in memory. */
int pager_checkpoint(pager *p, format_header *h, err *e);

#endif
