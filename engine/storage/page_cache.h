/* A cache of clean (checkpointed, immutable) pages, keyed by page number:
 * set-associative; a new page evicts, in its set, one not used lately,
 * chosen so that a loop over more pages than the cache holds still hits
 * (page_cache.c). Pages are copied in and out, so nothing handed
 * out can be evicted under a reader. Thread-safe, and a hit takes no lock
 * and writes nothing other threads read (page_cache.c). Entries are
 * allocated on first use: a freshly opened database costs nothing here.
 *
 * It also remembers, one bit per page number, which pages it was ever
 * given: their file image was checked (or written by this process), and
 * the file cannot change under it (copy-on-write, one writer: the lock),
 * so a page evicted and read again need not be checksummed again. A scan
 * larger than the cache reads its pages back on every pass; the CRC was
 * most of that cost. */
#ifndef MG_STORAGE_PAGE_CACHE_H
#define MG_STORAGE_PAGE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct page_cache page_cache;

/* `capacity` in pages (at least 1). NULL when out of memory. */
page_cache *page_cache_new(size_t capacity);
void page_cache_free(page_cache *c);

/* Copies page `pgno` into dst (FORMAT_PAGE_SIZE bytes) if cached. */
bool page_cache_get(page_cache *c, uint32_t pgno, uint8_t *dst);
/* The cache also remembers, per page number, what the page's image was
 * structurally checked as (a B+tree codec: storage/btree.c), evicted or
 * not, like `known good`: only a page's first read from the file pays for
 * that check. Up to PAGE_CACHE_CHECKERS different `as` are remembered. */
#define PAGE_CACHE_CHECKERS 32
/* page_cache_get, with what the page was checked as (NULL: nothing). */
bool page_cache_get_checked(page_cache *c, uint32_t pgno, uint8_t *dst, const void **as);
/* What page `pgno` was checked as (NULL: nothing; c may be NULL). */
const void *page_cache_checked_as(page_cache *c, uint32_t pgno);
/* Notes that `image`, the cached page's image, was checked as `as`
 * (nothing when the cache holds another image of it by now). */
void page_cache_set_checked(page_cache *c, uint32_t pgno, const uint8_t *image, const void *as);
/* Caches a copy of `src`, evicting the least recently used page when full,
 * and notes that page `pgno` is known good: `src` must be its checked (or
 * just written) image. Out of memory only means the page is not cached. */
void page_cache_put(page_cache *c, uint32_t pgno, const uint8_t *src);
/* The same, `src` checked as `as` (page_cache_check). */
void page_cache_put_checked(page_cache *c, uint32_t pgno, const uint8_t *src, const void *as);
/* True when page `pgno` was given to page_cache_put (c may be NULL). */
bool page_cache_known_good(page_cache *c, uint32_t pgno);
/* Lookups answered from the cache and not, since it was made, and the
 * pages it holds (for minigraf_stats). */
typedef struct page_cache_stats {
    uint64_t hits, misses;
    size_t pages, capacity;
} page_cache_stats;
page_cache_stats page_cache_get_stats(page_cache *c);
/* Drops every entry numbered >= first (pages a failed checkpoint wrote),
 * and forgets that they were good. */
void page_cache_drop_from(page_cache *c, uint32_t first);

#endif
