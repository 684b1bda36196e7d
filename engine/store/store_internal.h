/* The store object, shared by store.c (writes), store_reader.c and store_scan.c. */
#ifndef MG_STORE_STORE_INTERNAL_H
#define MG_STORE_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "base/shared_lock.h"
#include "base/spares.h"
#include "base/thread_slot.h"
#include "storage/btree.h"
#include "storage/dict.h"
#include "storage/format.h"
#include "storage/pager.h"
#include "storage/wal.h"
#include "store/estimate_cache.h"
#include "store/lookup_cache.h"
#include "store/history.h"
#include "store/store.h"

/* Closed readers kept for reuse (store_reader.c): a query opens one,
 * and its allocations (memo array, scratch page, scan) were a fixed cost
 * of every query. */
#define STORE_IDLE_READERS 4

/* Closed scans a reader keeps, each with its cursor and scratch block
 * (pager.h, ~50 KiB): a seek takes the one whose cursor holds the leaf it
 * lands in (store_scan.c), so each probe of a query of up to four
 * patterns run again finds its pages and leaf note (with fewer spares
 * than patterns, least-recently-closed reuse makes the probes take
 * turns: join_3_selective 4.5 us with four, 6.6-6.8 with two or three). */
#define STORE_SPARE_SCANS 4

/* The open readers of one list, in the order they opened (so oldest
 * view first), under the list's mutex. Padded apart (thread_slot.h), not
 * aligned: the store is calloc'd. */
#define STORE_READER_LISTS 4
typedef struct reader_list {
    char gap[THREAD_STRIPE_GAP];
    pthread_mutex_t mu;
    store_reader *oldest, *newest;
} reader_list;

/* Snapshots (issue 20): a commit changes only page versions no reader
 * sees (pager.h), then publishes: under every reader list's mutex
 * (store_publish_lock) the header readers copy (`pub`) and the view
 * number they read through (`view`) move on, and the readers open now
 * are listed, so that the writer frees the versions none of them can
 * see. A reader opens under its own thread's list's mutex only
 * (thread_slot): threads opening a snapshot per query do not queue on
 * one lock or pass one list's line between their cores (issue 18).
 * Readers hold `rw` for reading only to keep checkpoints out: a commit
 * does not take it. */
struct store {
    shared_lock rw;                /* readers (snapshots) vs. checkpointing */
    pthread_mutex_t writing;       /* one writer: commits, counter jumps, checkpoints, stats */
    format_header pub;             /* the newest published snapshot */
    uint64_t view;                 /* its view number (pager.h) */
    int64_t pub_newest_tx_id;      /* the newest commit time it holds */
    const dict_recent *pub_recent; /* the dictionary's recent entries it sees */
    reader_list open[STORE_READER_LISTS];
    char gap[THREAD_STRIPE_GAP];
    pager *pg;
    wal *log; /* NULL in memory */
    dict dic;
    lookup_cache lookups;     /* dictionary lookups shared by the readers */
    estimate_cache estimates; /* range estimates shared by the readers */
    spares readers;           /* closed readers kept for reuse, up to STORE_IDLE_READERS */
    format_header h;          /* the writer's header: roots and counts with its pages */
    int64_t newest_tx_id;     /* the largest tx_id applied in this process (INT64_MIN: none) */
    btree_hint hints[TREE_TXLOG + 1]; /* the fact trees'; reset at checkpoints */
    history_writer hist;              /* the history tree's; the same */
    store_options opts;
    uint64_t pending_facts; /* in the WAL since the last checkpoint */
    /* A logged commit failed to apply, or its sync failed (atomic: the
     * syncer sets it while store_close and the open-store list read it). */
    _Atomic bool broken;
    /* Group commit (store_sync.c), under sync_mx: frames appended and
     * synced (counts since the open), whether a leader is syncing (or
     * gathering frames for its sync). */
    pthread_mutex_t sync_mx;    /* taken under `writing`, never the other way */
    pthread_cond_t synced_cv;   /* a sync ended */
    pthread_cond_t gathered_cv; /* a gathering leader's: enough frames are pending */
    uint64_t appended, synced;
    uint64_t waiting;    /* threads in store_await_durable */
    uint64_t committers; /* threads that were waiting when the last sync ended */
    int64_t sync_ns;     /* a sync's duration, smoothed */
    bool syncing, gathering, sync_failed;
    /* Checkpoints (store_checkpoint.c), under `writing`: one in flight
     * (its pages written, its header not yet durable), the WAL's size at
     * the last one's mark, and the frames appended then (group commit's
     * count). The syncer thread runs the syncs of the one in flight. */
    bool ckpt_flight;
    uint64_t ckpt_mark;
    uint64_t ckpt_appended;
    pthread_cond_t ckpt_done; /* with `writing`: the one in flight ended */
    pthread_cond_t syncer_cv; /* with `writing`: the syncer has work, or stops */
    pthread_t syncer;
    bool syncer_started, syncer_stop;
    /* Opens of the same file in this process share the store
     * (store_share.c): the file's identity and the opens holding it. */
    dev_t dev;
    ino_t ino;
    size_t refs;      /* under store_share.c's mutex; 0: not shared (memory) */
    store *next_open; /* in store_share.c's list */
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

/* store_sync.c (group commit). Init: 0, or -1 with nothing made. */
int store_sync_init(store *s);
void store_sync_destroy(store *s);
bool store_sync_ordered(store *s);
void store_sync_appended(store *s);
uint64_t store_sync_count(store *s);
void store_sync_folded(store *s, uint64_t appended);
void store_sync_pause(store *s);
void store_sync_resume(store *s, uint64_t durable);
bool store_sync_failed(store *s);

/* store_checkpoint.c. Init: 0, or -1 with nothing made; stop joins the
 * syncer (once it has ended the checkpoint in flight), before the pager
 * and log close. */
int store_syncer_init(store *s);
void store_syncer_stop(store *s);
void store_syncer_destroy(store *s);
/* Under `writing`: whether an automatic checkpoint is due; after a
 * commit, one when it is and no reader is in (the database's writer
 * checkpoints otherwise: store_wants_quiet). */
bool store_checkpoint_due(const store *s);
void store_checkpoint_auto(store *s);
/* The writer's B+tree and history hints, void once pages are freed. */
void store_reset_hints(store *s);

/* The writer's header becomes the readers' (under `writing`). */
void store_publish(store *s);
/* Every reader list's mutex, taken in order (and let go): `pub`, `view`
 * and the lists are then the caller's. */
void store_publish_lock(store *s);
void store_publish_unlock(store *s);
/* The view of the oldest open reader, else the newest (under
 * store_publish_lock). */
uint64_t store_readers_oldest(const store *s);
/* The open readers' views, as far as `out` holds them (under
 * store_publish_lock). */
void store_readers_views(const store *s, pager_views *out);

/* The reader pool and lists; freeing frees the idle readers (none may be
 * open). Init: 0, or -1 when the system cannot make the lists' mutexes. */
int store_readers_init(store *s);
void store_readers_free(store *s);

/* Encodes a value's V field, interning (writer) or looking up (reader) its
 * text or UUID. `intern` NULL: lookup only; returns 0 when absent. */
int store_value_field(store *s, const value *v, bool intern, uint8_t out[FACT_V_SIZE], err *e);

#endif
