/* The store object, shared by store.c (writes) and store_reader.c. */
#ifndef MG_STORE_STORE_INTERNAL_H
#define MG_STORE_STORE_INTERNAL_H

#include "base/shared_lock.h"
#include "base/spares.h"
#include "storage/btree.h"
#include "storage/dict.h"
#include "storage/format.h"
#include "storage/pager.h"
#include "storage/wal.h"
#include "store/estimate_cache.h"
#include "store/lookup_cache.h"
#include "store/store.h"

/* Closed readers kept for reuse (store_reader.c): a query opens one,
 * and its allocations (memo array, scratch page, scan) were a fixed cost
 * of every query. */
#define STORE_IDLE_READERS 4

struct store {
    shared_lock rw; /* readers (snapshots) vs. applying a commit or checkpointing */
    pager *pg;
    wal *log; /* NULL in memory */
    dict dic;
    lookup_cache lookups; /* dictionary lookups shared by the readers */
    estimate_cache estimates; /* range estimates shared by the readers */
    spares readers; /* closed readers kept for reuse, up to STORE_IDLE_READERS */
    format_header h; /* the live header: roots and counts with dirty pages */
    btree_hint hints[TREE_TXLOG + 1]; /* the fact trees'; reset at checkpoints */
    store_options opts;
    uint64_t pending_facts; /* in the WAL since the last checkpoint */
    bool broken;            /* a logged commit failed to apply */
};

/* The reader pool; freeing frees the idle readers (none may be open). */
void store_readers_init(store *s);
void store_readers_free(store *s);

/* Encodes a value's V field, interning (writer) or looking up (reader) its
 * text or UUID. `intern` NULL: lookup only; returns 0 when absent. */
int store_value_field(store *s, const value *v, bool intern, uint8_t out[FACT_V_SIZE], err *e);

#endif
