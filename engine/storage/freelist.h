/* Reuse of pages that copy-on-write left behind (docs/file-format.md §5).
 *
 * A committed page that an insert copies is "pending" until the next
 * checkpoint: the header being replaced still reaches it. Once that
 * checkpoint's header is durable, the pending pages join the "available"
 * set and later allocations take them. The fallback header (the slot the
 * next checkpoint overwrites) may still reach an available page, but that
 * slot is only chosen when the newest one is torn, and the newest one was
 * fsynced before anything could reuse its predecessor's pages.
 *
 * The set that is free once a checkpoint's header is durable (available +
 * pending + the pages of the previous list) is written at that checkpoint
 * as a chain of list pages, which the header points to. List pages are
 * taken from the available set (never from pages the current header still
 * reaches) or appended at the end of the file. The durable list is read
 * lazily, by the first write, so opening a file costs nothing more.
 *
 * List page: u32 next list page (0: last), u32 entry count, u32 entries. */
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
    uint32_t head;  /* first page of the durable list (0: none) */
    uint64_t count; /* entries of the durable list */
    bool loaded;    /* avail and pages hold the durable list */
    bool changed;   /* avail or pending changed since the durable list */
    pgvec avail;    /* free now */
    pgvec pending;  /* replaced since the last checkpoint */
    pgvec pages;    /* the pages holding the durable list */
} freelist;

/* What a checkpoint writes: the new list and the pages that hold it. */
typedef struct freelist_plan {
    pgvec entries;
    pgvec pages;
    uint32_t next;     /* page count once fresh list pages are appended */
    uint8_t *images;   /* pages.n sealed page images */
} freelist_plan;

void freelist_init(freelist *f, uint32_t head, uint64_t count);
void freelist_free(freelist *f);

/* Decodes one list page into f (entries must lie in [2, page_count));
 * *next gets the following list page. STG-008 when impossible. */
int freelist_load_page(freelist *f, const uint8_t *page, uint32_t pgno, uint32_t page_count,
                       uint32_t *next, err *e);

/* Builds the list of the next checkpoint; `next` is the first page number
 * past every dirty page. */
int freelist_plan_make(const freelist *f, uint32_t next, freelist_plan *plan, err *e);
void freelist_plan_free(freelist_plan *plan);
/* The checkpoint's header is durable: the plan becomes the durable list. */
void freelist_plan_adopt(freelist *f, freelist_plan *plan);

#endif
