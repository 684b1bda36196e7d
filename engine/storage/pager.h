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
 * Versions (issue 20): readers read through a view, a number the store
 * gives each snapshot it publishes. The single writer changes only
 * unpublished versions of pages: pager_dirty on a dirty page that a view
 * may see copies it first (the same page number, a new version), so a
 * commit never changes a byte an open view reads, and needs no exclusion
 * from readers. pager_publish makes the writer's versions visible from a
 * view number on; pager_collect frees the versions no open view can see
 * any more, oldest first, and a commit takes a version that no view open
 * at the last publish sees (pager_views_open) out of the middle of its
 * chain for the page's next version. A checkpoint writes its pages with
 * no view open (the store's lock) and keeps only the newest version of
 * each page; its syncs and header switch may run later, beside commits
 * (pager_checkpoint_sync).
 *
 * Concurrency: one writer at a time (alloc, dirty, retire, publish,
 * collect, checkpoint; the store serialises them), any number of readers
 * (pager_read with a published view) in parallel with it.
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

/* A view sees a page version when the version's tag is at most the
 * view. The writer reads through PAGER_LATEST: its own unpublished
 * versions included. */
#define PAGER_LATEST UINT64_MAX
#define PAGER_UNPUBLISHED UINT64_MAX

/* Scratch for a B+tree cursor's page copies: PAGER_SCRATCH_PAGES pages.
 * A point query opens a few cursors, and a fresh 48 KiB malloc for each
 * (cold memory, glibc's large-chunk path) was a fixed cost of every
 * query; given-back blocks (up to PAGER_SCRATCH_SPARES) are reused
 * instead. A block remembers which page each of its slots holds, so the
 * next cursor to use it (the next seek of a join, the next query) reads
 * again only the pages that differ: the root and upper branches of a tree
 * usually do not. What a slot holds stays valid until a page is handed
 * out for writing, for the writer's view (pager_dirty and pager_alloc
 * start a new epoch), and while the block serves one published view
 * (whose pages never change). Take and give are thread-safe; give back
 * before pager_close. */
#define PAGER_SCRATCH_PAGES 12
#define PAGER_SCRATCH_SIZE ((size_t)PAGER_SCRATCH_PAGES * FORMAT_PAGE_SIZE)
#define PAGER_SCRATCH_SPARES 8
#define PAGER_SCRATCH_NOTE 2048
typedef struct pager_scratch {
    uint64_t view;                      /* that `held` was read through */
    uint64_t epoch;                     /* of the pager then (the writer's view) */
    uint32_t held[PAGER_SCRATCH_PAGES]; /* per slot: the page it holds, 0: none */
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
    uint8_t *pages; /* PAGER_SCRATCH_PAGES page copies */
} pager_scratch;
/* NULL when out of memory. */
pager_scratch *pager_scratch_take(pager *p);
/* Returns a block from pager_scratch_take (NULL: nothing). */
void pager_scratch_give(pager *p, pager_scratch *s);
/* Whether slot `slot` of s holds page `pgno` (not 0) as `view` sees it,
 * checked as `as`. When it does not, the slot is marked empty: the caller
 * reads the page into it and calls pager_scratch_hold once the copy is
 * checked. */
bool pager_scratch_holds(pager *p, pager_scratch *s, uint64_t view, size_t slot, uint32_t pgno,
                         const void *as);
static inline void pager_scratch_hold(pager_scratch *s, size_t slot, uint32_t pgno,
                                      const void *as) {
    s->held[slot] = pgno;
    s->held_as[slot] = as;
}

/* The writer's newest version of page `pgno` when it is in memory (a
 * dirty page, published or not), read-only; NULL for a page only in the
 * file. Valid until the writer's next pager call. Writer only. */
const uint8_t *pager_newest(pager *p, uint32_t pgno);
/* Copies page `pgno` as `view` sees it into dst (FORMAT_PAGE_SIZE bytes). */
int pager_read(pager *p, uint64_t view, uint32_t pgno, uint8_t *dst, err *e);
/* The same, checking a page read from the file with ok(page, as) (a
 * B+tree node's whole structure: storage/btree.c) before it is cached,
 * STG-008 when it fails. A page in memory (written by this process) is
 * not checked, nor one the cache holds as checked by the same `as`. */
typedef struct pager_check {
    const void *as;
    bool (*ok)(const uint8_t *page, const void *as);
} pager_check;
int pager_read_checked(pager *p, uint64_t view, uint32_t pgno, uint8_t *dst, const pager_check *chk,
                       err *e);
/* *page: the writable buffer of a dirty page (an unpublished version,
 * copied from the newest when that one is published), or NULL when
 * `pgno` is committed. Fails only when out of memory. */
int pager_dirty(pager *p, uint32_t pgno, uint8_t **page, err *e);

/* The parts of a page version changed since the version before it: bit
 * i for bytes [i * PAGER_CHUNK, (i + 1) * PAGER_CHUNK). A commit copies a
 * published page it changes; when the page changed in the commit before
 * too, the copy goes into the block of the version two back (once no
 * view sees it) and copies only the parts the last commit marked. */
typedef uint64_t pager_marks;
#define PAGER_CHUNK (FORMAT_PAGE_SIZE / 64)
#define PAGER_ALL (~(pager_marks)0)
/* pager_dirty for a caller that marks (pager_mark) every byte it changes
 * in *page, through *marks (valid as long as *page; NULL when *page is). */
int pager_dirty_marked(pager *p, uint32_t pgno, uint8_t **page, pager_marks **marks, err *e);
static inline void pager_mark(pager_marks *marks, size_t off, size_t len) {
    if (len == 0)
        return;
    size_t first = off / PAGER_CHUNK, last = (off + len - 1) / PAGER_CHUNK;
    pager_marks upto = last >= 63 ? PAGER_ALL : ((pager_marks)1 << (last + 1)) - 1;
    *marks |= upto & (PAGER_ALL << first);
}
/* Tags every unpublished version `tag` (a view number, above every tag
 * given before): views from `tag` on see this commit. */
void pager_publish(pager *p, uint64_t tag);
/* The views open at a publish, each once; `all` false when more were
 * open than `tag` holds (or they are not known). */
#define PAGER_VIEWS_KNOWN 16
typedef struct pager_views {
    uint64_t tag[PAGER_VIEWS_KNOWN];
    size_t n;
    bool all;
} pager_views;
/* Adds `tag` to `v` unless there; false when it is full. */
bool pager_views_add(pager_views *v, uint64_t tag);
/* After pager_publish: the views open then (a view opened later sees the
 * newest version of every page). The next commit gives a superseded
 * version that none of them sees to its page's next version, copying only
 * what changed since instead of the whole page. */
void pager_views_open(pager *p, const pager_views *open);
/* Frees the versions superseded by one that every view from
 * `oldest_view` on sees: pass the oldest view still open (or, with none
 * open, the newest published). */
void pager_collect(pager *p, uint64_t oldest_view);
/* Superseded versions still kept for open views (pages of memory). */
size_t pager_versions_kept(const pager *p);
/* Freed versions kept for the next commits' copies (pages of memory):
 * up to 1,024; every 65,536 calls of pager_collect, those not taken
 * since the last such trim are freed, down to 32. */
size_t pager_versions_idle(const pager *p);
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

/* A checkpoint in two steps, so that commits need not wait for its
 * writes and syncs. pager_checkpoint_write (the writer, with no view
 * open) writes the dirty pages and the new free list, unsynced, into
 * pages the durable header does not refer to, and makes them committed
 * in memory: *h gets the free list, generation and page count of the
 * next header, encoded for the second step. On failure nothing changes
 * in memory. With `defer` it writes nothing: the pages stay in memory,
 * where reads find them, until the second step writes them (issue 20:
 * 0.7-6.8 ms of page writes, which every commit waited for).
 * pager_checkpoint_sync (any thread, beside the writer's commits and
 * reads, never beside another checkpoint) writes the deferred pages
 * (a failure keeps them in memory, and the next
 * pager_checkpoint_write fails: the caller stops writing), syncs them, writes that
 * header over the older slot and syncs again; until it has returned, no
 * page may be written to the file (the next checkpoint waits): pages
 * freed by the new free list are still the durable header's. A failure
 * there leaves memory ahead of the file: the caller stops writing (the
 * store breaks; the WAL still holds every commit since the durable
 * header). 0 when no header is due. */
int pager_checkpoint_write(pager *p, format_header *h, bool defer, err *e);
int pager_checkpoint_sync(pager *p, err *e);
/* Both steps at once; *h is updated once the pages are written. */
int pager_checkpoint(pager *p, format_header *h, err *e);

#endif
