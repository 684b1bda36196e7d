/* The fact store: the append-only log of fact records (language.md §1) kept in four
 * B+tree orders (EAVT, AEVT, AVET, VAET) plus a commit-order log (TXLOG),
 * with a dictionary for entities and texts, over a pager that is either a
 * single file with a WAL sidecar or memory alone (engine/storage/).
 *
 * Writers: one at a time (the store serialises them). A commit appends to
 * the WAL (file-backed), applies the records to the trees in new page
 * versions no reader sees, then publishes them (pager.h): it never waits
 * for a reader. A checkpoint writes the new pages copy-on-write and
 * switches the header, with no reader in (the store's lock).
 *
 * Readers: store_reader_open takes a consistent snapshot, the newest
 * published one, kept until store_reader_close whatever commits meanwhile:
 * several readers run in parallel with each other and with the writer.
 * An open reader keeps the page versions its snapshot sees (at most
 * STORE_MAX_KEPT_VERSIONS superseded ones before store_wants_quiet asks
 * the writer to stop the readers) and keeps checkpoints waiting. */
#ifndef MG_STORE_STORE_H
#define MG_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/fact.h"
#include "storage/format.h"
#include "store/fact_key.h"
#include "store/fact_summary.h"
#include "store/row_values.h"

typedef struct store store;

typedef enum store_sync {
    STORE_SYNC_FULL,  /* the WAL is synced before each commit returns */
    STORE_SYNC_NORMAL /* synced at checkpoint and close only: a commit survives
                         a crash of the process, maybe not of the machine */
} store_sync;

typedef struct store_options {
    bool read_only;
    bool allow_unlocked;    /* open even where the filesystem cannot lock */
    size_t page_cache_size; /* pages of FORMAT_PAGE_SIZE */
    /* Facts pending in the WAL, or STORE_CHECKPOINT_WAL_BYTES of it,
     * whichever comes first; 0: never. */
    uint64_t wal_checkpoint_threshold;
    store_sync sync;
    /* Open a WAL that is corrupt (a damaged frame before frames that
     * verify, STG-045) by cutting it at the damaged frame (wal.h). */
    bool recover_truncate_wal;
    /* Keep the history index (store/history.h): a file that lacks it
     * gets it at a read-write open (a read-only open reads without it); a
     * file that has it keeps it whatever this says. */
    bool history_index;
    /* Automatic checkpoints sync and switch the header on a thread of the
     * store's (store_checkpoint.c) while commits go on; false: inside the
     * commit that starts them. */
    bool background_checkpoint;
} store_options;

/* The largest transaction counter: `:as-of N` takes a signed 64-bit N. */
#define STORE_MAX_TX_COUNT ((uint64_t)INT64_MAX)

#define STORE_DEFAULT_CACHE_PAGES 4096
/* Automatic checkpoints: every pending fact and every byte of the WAL is
 * also a change held in memory until the checkpoint (dirty pages) and
 * replayed by an open after a crash, while each checkpoint writes its
 * pages and syncs three times. 100,000 facts of small values are ≈ 6.4 MB
 * of WAL and ≈ 1,300 dirty pages; the byte bound (SQLite's 1,000 pages of
 * WAL) checkpoints first for anything but tiny facts, keeping memory and
 * replay near 4 MB (≈ 0.5 s of replay after a crash) whatever the fact
 * size. 1,000 facts synced so often that a file took 52-66K facts/s in
 * batches of 100 (docs/benchmarks.md). */
#define STORE_DEFAULT_CHECKPOINT_THRESHOLD 100000
#define STORE_CHECKPOINT_WAL_BYTES (1000u * 4096u)

void store_options_default(store_options *o);

/* What the store holds and how its caches do (minigraf_stats). */
typedef struct store_stats {
    bool in_memory;
    bool history_index; /* store_has_history */
    uint32_t pages;     /* pages of FORMAT_PAGE_SIZE in the file (or memory) */
    uint32_t page_size;
    uint64_t wal_bytes; /* frames in <path>.wal since the last checkpoint */
    uint64_t wal_facts; /* facts in those frames */
    uint64_t facts, entities, tx_count;
    uint64_t cache_hits, cache_misses;
    size_t cache_pages, cache_capacity;
} store_stats;

/* The store's figures, read under its lock: call with the writer
 * serialised (db_stats holds the database's writer lock), since the WAL
 * grows outside the store lock. */
void store_get_stats(store *s, store_stats *out);

/* `history`: with the history index (store_options.history_index). */
int store_open_memory(bool history, store **out, err *e);
/* Does the store keep the history index (fixed at open)? */
bool store_has_history(const store *s);
/* A private in-memory store holding what `base` holds now, made without
 * copying it (storage/pager.h: pager_fork): its commits go to pages of
 * its own, `base` is only read. `base` must not change, nor close, while
 * the fork lives. 0 with *out (store_close it), 1 when `base` cannot be
 * forked (a memory store with texts longer than a page: copy it
 * instead), or an error. */
int store_fork(store *base, store **out, err *e);
/* Opens or creates the file at `path` and replays its WAL. Errors: the STG
 * and WAL codes of storage/pager.h and storage/wal.h; STG-004 also when the
 * newest header is older than the WAL it should continue (a damaged header
 * slot); STG-005 a WAL frame whose checksum holds but whose content does
 * not fit; STG-026/027 (store_lock.h); STG-044 a WAL of another
 * database; STG-045 a corrupt WAL (unless recover_truncate_wal). A file
 * this process has open already gives the same store, counted
 * (store_share.c): STG-025 when the options conflict with that open's (a
 * different `synchronous` or `wal_checkpoint_threshold`, or read-write
 * over a read-only open). */
int store_open_file(const char *path, const store_options *o, store **out, err *e);
/* One open lets go; the last one checkpoints a writable file-backed store
 * (errors ignored: the WAL keeps everything), then frees it. NULL: no-op. */
void store_close(store *s);

/* Frees the store without checkpointing or syncing anything, leaving the
 * files as a crash at this point would (tests and benchmarks). */
void store_abandon(store *s);

uint64_t store_tx_count(store *s);

/* Commits one transaction: the records must all carry tx_count ==
 * store_tx_count(s) + 1 (an empty transaction is legal and still advances
 * the counter). Durable on return per the sync option. Errors: API-014
 * read-only; WAL-003 (file-backed only) an attribute or keyword over 1024
 * bytes or a string over 4068; STG-012/013/016 log write failures (then
 * nothing changed); STG-018 the store is unusable after a failure to apply
 * a logged commit (reopen recovers it); INT-000 out of memory. */
int store_commit(store *s, const fact *facts, size_t count, err *e);
/* store_commit without waiting for the commit to be durable: the caller
 * calls store_await_durable once it holds no lock a committer takes, so
 * that commits waiting together share one sync (group commit). */
int store_commit_nowait(store *s, const fact *facts, size_t count, err *e);
/* With synchronous "full", waits until every frame appended before the
 * call is synced, syncing them itself when no other thread is (one sync
 * for all the commits waiting). STG-013 when that sync failed (the store
 * then takes no further commit, STG-018). 0 at once otherwise. */
int store_await_durable(store *s, err *e);
/* The WAL-003 size limits store_commit applies to file-backed stores, for
 * callers that must refuse a record before they queue it. */
int store_check_sizes(const fact *f, err *e);
/* Moves the transaction counter forward to `tx_count` (> store_tx_count)
 * with one record, whatever the gap: the values in between are empty
 * transactions. Durable as a commit is. Errors: those of store_commit;
 * STG-046 a counter beyond STORE_MAX_TX_COUNT. */
int store_advance(store *s, uint64_t tx_count, err *e);
/* STG-046 for `tx_count`. */
int store_tx_count_error(uint64_t tx_count, err *e);
/* Writes everything the WAL holds into the main file and resets the WAL,
 * waiting for the readers in to finish (readers arriving wait for it). In
 * memory: frees the page versions no open reader sees. A no-op when
 * read-only. A commit checkpoints by itself (wal_checkpoint_threshold)
 * only when no reader is in. */
int store_checkpoint(store *s, err *e);
/* The checkpoint the database's writer runs when store_wants_quiet: as
 * store_checkpoint, but with background_checkpoint its syncs and header
 * switch run on the store's thread after this returns (the WAL is reset
 * there when no commit came meanwhile; a failure breaks the store,
 * STG-018 at the next commit). */
int store_checkpoint_background(store *s, err *e);
/* A checkpoint in two calls, as the background one runs (tests): begin
 * makes the pages committed in memory (waiting for the readers in): 1
 * when a header is now due; finish (no lock held) writes them, syncs,
 * switches the header and settles the WAL, 0 when none was due. Commits may run between the two. */
int store_checkpoint_begin(store *s, err *e);
int store_checkpoint_finish(store *s, err *e);
/* Superseded page versions kept for open readers beyond which the
 * database asks its writer to detach streaming cursors and wait for the
 * queries under way (store_wants_quiet): 4096 pages, 16 MiB. */
#define STORE_MAX_KEPT_VERSIONS 4096
/* After a commit: true when the store wants store_checkpoint called with
 * no reader held open for long (the caller stops its streaming cursors
 * first): a checkpoint is due that readers kept out, or open readers keep
 * more than STORE_MAX_KEPT_VERSIONS superseded page versions alive; never
 * while a background checkpoint's syncs run. */
bool store_wants_quiet(store *s);

/* ---- readers ---------------------------------------------------------- */

typedef struct store_reader store_reader;

int store_reader_open(store *s, store_reader **out, err *e);
void store_reader_close(store_reader *r);

/* Where a reader accounts for the memory it keeps for its caller: the
 * texts it decodes (values borrow them until the reader closes) and the
 * memo that finds them again. `charge` is called before the memory is
 * taken; its error fails the read that needed it. Everything charged is
 * released when the reader closes. */
typedef struct store_budget {
    int (*charge)(void *ctx, size_t bytes, err *e);
    void (*release)(void *ctx, size_t bytes);
    void *ctx;
    /* The query's memory limit (0: none). The reader's memos kept between
     * queries (the keyword memo) are the reader's, not charged to a
     * query: each grows only while it stays within a sixteenth of it. */
    size_t limit;
} store_budget;

/* Right after store_reader_open; without it nothing is accounted. */
void store_reader_set_budget(store_reader *r, const store_budget *b);

uint64_t store_reader_tx_count(const store_reader *r);
/* The largest tx_id of the commits this process applied that the
 * snapshot holds (INT64_MIN: none). */
int64_t store_reader_newest_tx_id(const store_reader *r);
/* Advanced by every checkpoint (which rewrites the pages). */
uint64_t store_reader_generation(const store_reader *r);
uint64_t store_reader_fact_count(const store_reader *r);
uint64_t store_reader_entity_count(const store_reader *r);

/* Dictionary lookups for seek keys: 1 with *id when stored, 0 when the
 * store has never seen it (then nothing can match), or an error. */
int store_reader_entity_id(store_reader *r, const uuid128 *u, uint64_t *id, err *e);
int store_reader_text_id(store_reader *r, const char *text, size_t len, uint64_t *id, err *e);
/* The stored V field for a value, for exact (identity E3) seeks. */
int store_reader_value_key(store_reader *r, const value *v, uint8_t out[FACT_V_SIZE], err *e);

/* Which positions a scan fixes; the store picks the index: EAVT when the
 * entity is bound (with A, and V after A, as further prefix), AVET for
 * attribute and value, AEVT for the attribute, VAET for a ref value, else
 * a full EAVT scan. */
typedef struct store_bound {
    bool has_e, has_a, has_v;
    fact_ids ids; /* e, a, v of the bound positions */
} store_bound;

/* Binding a pattern's entity or attribute term to its stored id, as every
 * seek and estimate does it (a stored value of this reader is its id). Both return 1 when `b` is
 * narrowed (or, for an attribute given as a Ref, when nothing can narrow it: a Ref can name a
 * keyword attribute, E4), 0 when nothing stored can match, otherwise an error code with `e` set. */
int store_bound_entity(store_reader *r, const value *v, store_bound *b, err *e);
int store_bound_attribute(store_reader *r, const value *v, store_bound *b, err *e);

typedef struct store_rec {
    fact f;       /* strings and the entity live as long as the reader */
    fact_ids ids; /* the stored identifiers */
} store_rec;

typedef struct store_scan store_scan;

/* The positions a scan fixes: entity, attribute, value, and whether that
 * value is a Ref. */
typedef struct store_fixed {
    bool e, a, v, v_ref;
} store_fixed;

/* The index (TREE_*) a scan fixing `f` reads, and how many leading key
 * fields it fixes (`fields` may be NULL). The one place the choice is
 * made: store_scan_open uses it, and plan_explain reports it. */
int store_index_for(store_fixed f, int *fields);

int store_scan_open(store_reader *r, const store_bound *b, store_scan **out, err *e);
/* Seeks a scan that store_scan_open opened to the records of `b`, which
 * fixes the positions its bound fixed: its cursor is kept, so a join's
 * probes in key order seek inside the leaf of the probe before
 * (btree_seek). 0, or an error (INT-000 for another kind of scan or
 * bound). */
int store_scan_reseek(store_scan *sc, const store_bound *b, err *e);
/* The same for a bound that differs from the last one only in its entity
 * id `entity` (the scan's prefix holds the entity): its other fields are
 * not looked up or encoded again. 0, or an error (INT-000 when the prefix
 * does not hold the entity). */
int store_scan_reseek_entity(store_scan *sc, uint64_t entity, err *e);
/* What the seek of a scan just opened or sought again found, before
 * anything is read: 1 with the identifiers of its first key in the
 * scan's range (a record, visible or not) and *alone whether the key
 * after it is known to be out of the range (a key of the same leaf), 0
 * when the range is empty, -1 when the seek does not tell (its key lies
 * in a later leaf). */
int store_scan_sought(const store_scan *sc, fact_ids *ids, bool *alone);
/* The records of a bound entity and attribute (value unbound) that
 * decide their (E, A, V) group at counter cut `max_txc` (UINT64_MAX: no
 * cut) and are assertions, in EAVT order, from the history index
 * (store/history.h): one record per group, whatever the length of its
 * history. 0 opened, 1 when it cannot serve the bound (another bound, or
 * a store without the history index: use store_scan_open), or an error. */
int store_scan_latest(store_reader *r, const store_bound *b, uint64_t max_txc, store_scan **out,
                      err *e);
/* A whole order, e.g. TREE_TXLOG for every record in commit order or
 * TREE_EAVT for storage order. */
int store_scan_order(store_reader *r, int order, store_scan **out, err *e);
/* Resumable scans: the keys of `order` from the first one >= from[0..len)
 * (missing bytes count as zero) while their first `bound` bytes equal
 * those of `from` (bound <= len; 0: to the end of the tree). A stream that
 * stops between calls resumes from the successor of the last key it read
 * (store_key_successor), so it needs no lock between calls. */
int store_scan_from(store_reader *r, int order, const uint8_t *from, size_t len, size_t bound,
                    store_scan **out, err *e);
/* The smallest key after the key of `rec` in `order`. */
void store_key_successor(int order, const store_rec *rec, uint8_t key[FACT_KEY_SIZE]);
/* Every record of attribute `attr` (a stored id) in AVET order: by value
 * type, then value (integers and booleans in their order; texts and refs
 * by dictionary location), each (value, entity) group in commit order;
 * `desc`: the value groups from the last one down (entities within a
 * group still ascending), as long as the caller reads fewer than a few
 * dozen groups: then the scan reads the values below the last group
 * forwards and sets *order_lost (`order_lost` NULL: it never does). */
int store_scan_values(store_reader *r, uint64_t attr, bool desc, bool *order_lost, store_scan **out,
                      err *e);
/* The records of attribute `attr` (a stored id) whose V field lies in
 * [lo, hi) by its bytes, in AVET order: by value type, then value
 * (integers in their order; other types by their payload's bytes), each
 * (value, entity) group in commit order. */
int store_scan_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                           const uint8_t hi[FACT_V_SIZE], store_scan **out, err *e);
/* store_estimate for such a range, counted exactly up to 16 records
 * (not kept in the estimate cache). */
int store_estimate_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                               const uint8_t hi[FACT_V_SIZE], size_t cap, size_t *out, err *e);
/* The record groups (an entity's records of one value) of the same
 * range, counted from the tree rather than read: its first 16 keys one
 * by one, then the groups of its leaves from the child summaries their
 * branches keep (file format 6), no leaf read past the first, the two
 * leaves where it starts and ends counted half (it ends anywhere in
 * them); counted until it passes `cap`. 1 with *out, 0 when the summaries
 * do not tell (a leaf written before format 6, or one left unknown since
 * the last checkpoint), or an error. */
int store_count_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                            const uint8_t hi[FACT_V_SIZE], size_t cap, size_t *out, err *e);
/* The V types (value_type) of attribute `attr`'s first and last records
 * in AVET order, every record counted (retracted and not yet valid
 * ones too): 1, 0 when it has none, or an error. All its values are of
 * one type when the two are equal. */
int store_value_types(store_reader *r, uint64_t attr, int *lowest, int *highest, err *e);
/* 1 with *out, 0 at the end, or an error (STG-029 for a damaged page). */
int store_scan_next(store_scan *sc, store_rec *out, err *e);
/* The same, giving only the stored identifiers (nothing decoded). */
int store_scan_next_ids(store_scan *sc, fact_ids *out, err *e);
/* The same for up to `max` (>= 1) records at once, into out[0..*n): 1
 * with *n >= 1 (fewer than `max` only when they are the last, or when
 * the last stands for more groups: store_scan_take_gap), 0 at the end,
 * or an error. A scan's runs are decoded in one loop, with no call per
 * record. */
int store_scan_fill_ids(store_scan *sc, fact_ids *out, size_t max, size_t *n, err *e);
/* Lets a forward scan (not a value-order one, nor a range) count the
 * leaves whose summary (store/fact_summary.h) decides them under `v`
 * instead of decoding them, when every record of such a leaf agrees on
 * the positions of `same` (1 E, 2 A, 4 V) and, with `same_null`, on
 * whether V is Null: for one consumer that reads nothing else of the
 * records (runs of records, exec/op_scan.c). Of a leaf so counted the
 * scan gives two records: its first, standing for its first group's
 * leaf-last (times and flag made to show it when that one is shown,
 * and hide it when not), and its last. The visible groups between them
 * are handed out as a gap: store_scan_fill_ids then ends its records
 * with the first. Until store_scan_open or a seek opens it again. */
void store_scan_skip_leaves(store_scan *sc, const fact_view *v, unsigned same, bool same_null);
/* The visible groups that the last record of the last fill stands for
 * besides its own (0: none), taken. */
uint64_t store_scan_take_gap(store_scan *sc);
/* Lets store_scan_fill_ids mark the records it gives as visible under
 * the view `v` when their leaf's summary says so (each record its own
 * group within the leaf, an assertion valid forever, and every record
 * passing `v`): all of a leaf's records but its last, whose group may go
 * on into the next leaf. Not while the scan counts leaves. Until
 * store_scan_open or a seek opens it again. Whether it will. */
bool store_scan_see_leaves(store_scan *sc, const fact_view *v);
/* Whether every record the last store_scan_fill_ids gave is so marked
 * (the fill then holds marked records only, and unmarked ones only
 * otherwise), and whether it stopped short of `max` where marked and
 * unmarked records meet (*cut: more records follow). */
bool store_scan_filled_shown(const store_scan *sc, bool *cut);
/* How many of the scan's next records are so marked and may be read as
 * rows (store_scan_fill_rows): 0 when the next one is not. */
size_t store_scan_shown_ahead(const store_scan *sc);
/* Up to `max` (and store_scan_shown_ahead) of the next records written
 * straight into rows (run_rows: their positions as
 * store_reader_values gives them, no identifiers in between): 0 with *n
 * of them (fewer than `max` only where the scan's bound ends), or an
 * error (the rows before the failing record written). */
int store_scan_fill_rows(store_scan *sc, const run_rows *rows, size_t max, size_t *n, err *e);
/* Decodes stored identifiers into a record (as store_scan_next gives it). */
int store_reader_decode(store_reader *r, const fact_ids *ids, store_rec *out, err *e);
/* What a record shows in a pattern's positions (entity, attribute, value),
 * the entity, the attribute and a Ref, String or Keyword value left as
 * stored values of this reader (model/value.h), valid until it closes. */
int store_reader_values(store_reader *r, const fact_ids *ids, value out[3], err *e);
/* A V field that is neither a Ref, String, Keyword nor Integer, decoded
 * (store_reader_value_at's rest). */
int store_reader_value_field(store_reader *r, const uint8_t v[FACT_V_SIZE], value *out, err *e);
/* Position `pos` (0 entity, 1 attribute, 2 value) of store_reader_values
 * alone, `src` being store_reader_source(r): inline for a scan that binds
 * a record's positions straight into its row (no call but for the rarer
 * value types). */
static inline int store_reader_value_at(store_reader *r, const value_source *src,
                                        const fact_ids *ids, int pos, value *out, err *e) {
    if (pos == 0) {
        value_set_stored(out, VT_REF, src, ids->e);
        return 0;
    }
    if (pos == 1) {
        value_set_stored(out, VT_KEYWORD, src, ids->a);
        return 0;
    }
    if (field_value_set(out, ids->v[0], format_get_be(ids->v + 1, 8), src))
        return 0;
    return store_reader_value_field(r, ids->v, out, e); /* its error */
}
/* The source of the reader's stored values; its `failed` flag tells
 * that store_reader_check has an error to report. */
const value_source *store_reader_source(const store_reader *r);
/* A failure to decode a stored value inside a comparison (which cannot
 * report it), moved into `e`: 0 when there was none. */
int store_reader_check(store_reader *r, err *e);
/* Before its reader closes (the reader keeps a closed scan for reuse). */
void store_scan_close(store_scan *sc);

/* Records matching `b`, estimated for planning without reading the range:
 * counted exactly up to STORE_ESTIMATE_EXACT, beyond that from where the
 * range's two ends lie in the index's branch pages (a few page reads
 * whatever its size, within about a leaf of keys). Stops at `cap` (then
 * *out = cap: at least that many). */
#define STORE_ESTIMATE_EXACT 128
int store_estimate(store_reader *r, const store_bound *b, size_t cap, size_t *out, err *e);

#endif
