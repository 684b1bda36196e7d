/* The dictionary's recent entries: (hash, location) pairs the writer
 * added since it last moved them into the DICT tree, one table of them
 * at a time. A new name's entry lands at a random place of the tree (the
 * key starts with a hash): a commit that adds one searched, edited and
 * copied a random leaf, a third of a single-fact commit's time. The table
 * takes the entry instead, and the writer moves a full table into the
 * tree in key order (dict_flush), where consecutive entries share leaves.
 *
 * Readers search the table their snapshot saw (store_reader), concurrently
 * with the writer's adds: an entry is written once, its hash last with
 * release order, and never changed or removed; each carries the view from
 * which it is visible (pager.h), so a snapshot sees whole commits only. A
 * flushed table stays readable by the snapshots older than the flush
 * until the writer frees it (dict_published). */
#ifndef MG_STORAGE_DICT_RECENT_H
#define MG_STORAGE_DICT_RECENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_RECENT_BITS 12
#define DICT_RECENT_SLOTS (1u << DICT_RECENT_BITS)
/* Entries before a flush: at most half the slots taken keeps probes short. */
#define DICT_RECENT_MAX (DICT_RECENT_SLOTS / 2)

typedef struct dict_recent_slot {
    _Atomic uint64_t hash; /* the entry's hash + 1; 0: empty */
    uint64_t loc;
    uint64_t view; /* the first view that sees it */
} dict_recent_slot;

typedef struct dict_recent dict_recent;
struct dict_recent {
    size_t count;        /* the writer's */
    uint64_t flushed_at; /* once flushed: the view whose tree holds every entry */
    dict_recent *older;  /* the writer's list of flushed tables */
    dict_recent_slot slot[DICT_RECENT_SLOTS];
};

/* An empty table, or NULL without memory. */
dict_recent *dict_recent_new(void);

/* The writer adds an entry, visible from `view` on; the table must not be
 * full (count < DICT_RECENT_MAX). */
void dict_recent_add(dict_recent *t, uint32_t hash, uint64_t loc, uint64_t view);

/* The next entry of `hash` visible at `view` (PAGER_LATEST: every entry),
 * from slot *at on (0 to start): true with *loc, false when none is left. */
bool dict_recent_next(const dict_recent *t, uint32_t hash, uint64_t view, size_t *at,
                      uint64_t *loc);

#endif
