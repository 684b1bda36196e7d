/* An LRU cache of clean (checkpointed, immutable) pages, keyed by page
 * number. Pages are copied in and out, so nothing handed out can be evicted
 * under a reader. Thread-safe. Entries are allocated on first use: a freshly
 * opened database costs nothing here. */
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
/* Caches a copy of `src`, evicting the least recently used page when full.
 * Out of memory only means the page is not cached. */
void page_cache_put(page_cache *c, uint32_t pgno, const uint8_t *src);
/* Drops every entry numbered >= first (pages a failed checkpoint wrote). */
void page_cache_drop_from(page_cache *c, uint32_t first);

#endif
