/* The store object, shared by store.c (writes) and store_reader.c. */
#ifndef MG_STORE_STORE_INTERNAL_H
#define MG_STORE_STORE_INTERNAL_H

#include <sys/types.h>

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
    /* Opens of the same file in this process share the store
     * (store_share.c): the file's identity and the opens holding it. */
    dev_t dev;
    ino_t ino;
    size_t refs;       /* under store_share.c's mutex; 0: not shared (memory) */
    store *next_open;  /* in store_share.c's list */
};

/* store_share.c: the store already open on `path`'s file, counted for
 * one more open, when its options allow (else STG-025): 1 with *out, 0
 * when the file is not open here, or an error. Called with the open
 * mutex held (store_share_lock). */
void store_share_lock(void);
void store_share_unlock(void);
int store_share_find(const char *path, const store_options *o, store **out, err *e);
/* Lists a store just opened on `path` (mutex held). */
void store_share_add(store *s, const char *path);
/* One open lets go: true when it was the last (the store is unlisted and
 * the caller frees it, then calls store_share_closed). Until then the
 * file counts as closing: an open of it waits (store_share_find), since
 * its lock is still held and a second one would be refused. */
bool store_share_release(store *s);
/* The last close of the file (dev, ino) is done: its lock is released. */
void store_share_closed(dev_t dev, ino_t ino);

/* The reader pool; freeing frees the idle readers (none may be open). */
void store_readers_init(store *s);
void store_readers_free(store *s);

/* Encodes a value's V field, interning (writer) or looking up (reader) its
 * text or UUID. `intern` NULL: lookup only; returns 0 when absent. */
int store_value_field(store *s, const value *v, bool intern, uint8_t out[FACT_V_SIZE], err *e);

#endif
