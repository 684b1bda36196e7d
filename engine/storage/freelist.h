/* Reuse of pages that copy-on-write left behind (docs/file-format.md §5).
 *
 * A committed page that an insert copies is "pending" until the next
 * checkpoint: the header being replaced still reaches it. Once that
 * checkpoint's header is durable, the pending pages are free and later
 * allocations take them. The fallback header (the slot the next checkpoint
 * overwrites) may still reach a free page, but that slot is only chosen
 * when the newest one is torn, and the newest one was fsynced before
 * anything could reuse its predecessor's pages.
 *
 * The free pages are a chain of list pages that the header points to, used
 * as a stack: allocations take entries from the top of the chain, and a
 * checkpoint replaces only the list pages whose entries changed. The chain
 * is read lazily, one page when an allocation needs entries, so opening a
 * file reads nothing and a small checkpoint reads and writes a page or two
 * of it, whatever its length. In memory:
 *
 *   read    the list pages read so far (the top of the chain, in order);
 *   avail   their entries not taken yet (the end of the vector is taken
 *           first);
 *   rest    the first unread page (0: none) and the entries from it down.
 *
 * At a checkpoint the pages in `read` are replaced (copy-on-write: the
 * header being replaced still reaches them) by new list pages holding
 * avail, the pending pages and the replaced list pages themselves, chained
 * to `rest`. New list pages come from avail (free now, never reached by
 * the current header) or are appended to the file. The lowest free pages
 * are handed out first (see freelist.c).
 *
 * List page: u32 next list page (0: last), u32 entry count (1..1021; 0
 * allowed on the last page), u32 entries. */
#ifndef MG_STORAGE_FREELIST_H
#define MG_STORAGE_FREELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct pgvec {
    uint32_t *v;
    size_t n, cap;
} pgvec;

int pgvec_push(pgvec *v, uint32_t pgno);
void pgvec_free(pgvec *v);

#define FREELIST_PER_PAGE ((4092u - 8u) / 4u)

typedef struct freelist {
    uint32_t head;       /* first page of the durable list (0: none) */
    uint64_t count;      /* entries of the durable list */
    pgvec read;          /* durable list pages read, from the head down */
    pgvec avail;         /* their entries not yet taken */
    uint32_t rest;       /* first unread list page (0: none) */
    uint64_t rest_count; /* entries from `rest` down */
    pgvec pending;       /* replaced since the last checkpoint */
    bool changed;        /* avail or pending changed since the durable list */
} freelist;

/* What a checkpoint writes: new list pages replacing the read ones. */
typedef struct freelist_plan {
    pgvec entries; /* what the new pages hold, top page first */
    pgvec pages;   /* the new list pages, top first */
    uint32_t head; /* the header's list reference and count */
    uint64_t count;
    uint32_t next;   /* page count once fresh list pages are appended */
    uint8_t *images; /* pages.n sealed page images */
} freelist_plan;

void freelist_init(freelist *f, uint32_t head, uint64_t count);
void freelist_free(freelist *f);

/* The list page to read before the next take (0: none needed). */
uint32_t freelist_wanted(const freelist *f);
/* Decodes the page freelist_wanted named (its entries must lie in
 * [2, page_count)). STG-008 when impossible; f is unchanged on failure. */
int freelist_load_page(freelist *f, const uint8_t *page, uint32_t page_count, err *e);
/* Takes a free page; false when none is loaded. */
bool freelist_take(freelist *f, uint32_t *pgno);
/* Records a page copy-on-write replaced. -1 when out of memory. */
int freelist_retire(freelist *f, uint32_t pgno);

/* Builds the list of the next checkpoint (only when f->changed); `next`
 * is the first page number past every dirty page. */
int freelist_plan_make(const freelist *f, uint32_t next, freelist_plan *plan, err *e);
void freelist_plan_free(freelist_plan *plan);
/* The checkpoint's header is durable: the plan becomes the durable list,
 * its top page read. */
void freelist_plan_adopt(freelist *f, freelist_plan *plan);

#endif
