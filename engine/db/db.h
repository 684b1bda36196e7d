/* The database object: parse → execute, the transaction counter, the
 * single writer. Thread-safe: writes and checkpoints take the database's
 * writer lock; queries run on a store snapshot (store_reader), in parallel
 * with each other and with a writer's log append. */
#ifndef MG_DB_DB_H
#define MG_DB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cancel.h"
#include "base/error.h"
#include "db/query_cache.h"
#include "exec/result.h"
#include "host/host_fns.h"
#include "store/store.h"

typedef struct db db;

typedef struct db_options {
    store_options store;       /* read_only, page cache, WAL checkpointing, sync */
    int64_t max_derived_facts; /* default 1000000 */
    int64_t max_results;       /* default 1000000 */
    /* Bytes a query may hold (rows of joins, groups, windows, sorts and
     * the result itself) before failing with QRY-012; 0 = unlimited. */
    int64_t query_memory_limit; /* default DB_DEFAULT_QUERY_MEMORY_LIMIT */
    /* Milliseconds a writer waits for another thread's write transaction
     * before API-020 (db/db_writer.h; default 5000), and a query's time
     * limit before API-013 (default 0: none). */
    int64_t busy_timeout_ms;
    int64_t query_timeout_ms;
    /* Evaluate bound rule calls in full instead of demand-driven (spec
     * language.md §9.7); for tests that compare both. Not an open() option. */
    bool no_magic_sets;
} db_options;

/* 1 GiB: far above any benchmark answer, far below what would take a
 * typical machine down. */
#define DB_DEFAULT_QUERY_MEMORY_LIMIT ((int64_t)1 << 30)

void db_options_default(db_options *o);

/* `path` NULL: in memory. */
int db_open(const char *path, const db_options *o, db **out, err *e);
/* Rolls back an open write transaction (db/db_tx.h), interrupts the
 * cursor fetches running now (they fail with API-013), detaches every
 * other streaming cursor (db_cursor below) and frees. */
void db_close(db *d);

typedef enum db_result_kind {
    DB_RESULT_TRANSACTED,
    DB_RESULT_RETRACTED,
    DB_RESULT_OK,
    DB_RESULT_QUERY
} db_result_kind;

typedef struct db_result {
    db_result_kind kind;
    int64_t tx_id;    /* TRANSACTED, RETRACTED */
    result_set *rows; /* QUERY; the caller frees it */
} db_result;

/* Runs one command of any kind. A write waits for the writer
 * (db/db_writer.h: INT-003 when this thread has a write transaction open,
 * API-020 when another thread's stays open past busy_timeout_ms). */
int db_execute(db *d, const char *text, size_t len, db_result *out, err *e);
/* Runs one (query ...); other commands fail with API-012. */
int db_query(db *d, const char *text, size_t len, result_set **out, err *e);
/* ---- cursors ----------------------------------------------------------
 * A cursor over one (query ...) (exec/query_stream.h): plain projections
 * stream, holding the store snapshot of the moment they opened; a commit
 * leaves them streaming it (store.h). Before a rule registration, a write
 * transaction's commit, a checkpoint (a write starts one when the store
 * wants it: store_wants_quiet) or db_close the database reads the rest of
 * every such cursor into memory and lets go of its snapshot (so a writer
 * never waits for a cursor, even one its own thread holds); the cursor
 * goes on from there with the same answer. A cursor is used by
 * one thread at a time; it may outlive its database. */
typedef struct db_cursor db_cursor;

/* Errors as db_query's, for whatever is computed before the first row. */
int db_cursor_open(db *d, const char *text, size_t len, db_cursor **out, err *e);
/* The column headers (rows of the set are not the cursor's). */
const result_set *db_cursor_columns(const db_cursor *c);
/* Hands out up to `max_rows` rows, written one after the other into
 * `out` (max_rows * column-count values) and handed to `keep` once, as
 * one block: what they borrow (texts, list items) stays valid only during
 * that call. Returns the number given, with *rc 0, or with *rc an error
 * code and `e` set (QRY-012 while reading, storage errors); then the
 * cursor only ends. 0 rows and *rc 0: the end. */
typedef void (*db_rows_fn)(void *ctx, value *rows, size_t count);
size_t db_cursor_read_rows(db_cursor *c, value *out, size_t max_rows, db_rows_fn keep, void *ctx,
                           int *rc, err *e);
/* The same for up to `max_rows` rows handed to `keep` `block` at a time
 * (`out` holds block * column-count values), in one call: one lock, and
 * one interrupt and timeout scope. */
size_t db_cursor_read_blocks(db_cursor *c, value *out, size_t block, size_t max_rows,
                             db_rows_fn keep, void *ctx, int *rc, err *e);
void db_cursor_free(db_cursor *c);

/* ---- host functions (language.md §12; host/host_fns.h) --------------------------
 * Registered in memory on the database (a read-only one too), used by
 * every later query, each resolving the names it calls when it is planned.
 * Safe while other threads run queries: a query keeps the functions it
 * resolved until it ends. */
/* Takes `cb` (its destroy has run on failure).
 * Errors: API-021 a built-in name of that kind (predicates: the built-in
 * operators other than + - * /, which called with one argument are host
 * predicates, language.md §8.5.1; aggregates: every built-in aggregate and window
 * function) or a host function of either kind with that name. */
int db_register_host(db *d, host_kind kind, const char *name, size_t len, const host_callbacks *cb,
                     err *e);
/* Removes it (destroy runs once no query uses it). API-017 when no host
 * function of `kind` has the name. */
int db_unregister_host(db *d, host_kind kind, const char *name, size_t len, err *e);

/* ---- introspection (db_info.c) ----------------------------------------
 * The plan of a (query ...) (plan/explain.h), step by step. */
typedef struct db_plan_step {
    char *clause;      /* the clause's canonical text */
    const char *kind;  /* "pattern" "pseudo" "expression" "not" "or" "rule" */
    const char *join;  /* "nested-loop" or "hash"; NULL: not a pattern step */
    const char *index; /* "EAVT" "AEVT" "AVET"; NULL: a full scan or no index */
    int64_t estimate;  /* records its constants select; -1 unknown */
} db_plan_step;
/* Errors as db_query's before it runs (PRS, API-012, QRY-007, ...). */
int db_explain(db *d, const char *text, size_t len, db_plan_step **steps, size_t *count, err *e);
void db_plan_steps_free(db_plan_step *steps, size_t count);
/* The store's figures (store/store.h), taken in the writer slot (it waits
 * as a checkpoint does: API-020, INT-003). */
int db_stats(db *d, store_stats *out, err *e);
/* The registered rules' canonical texts, in registration order. */
int db_rule_texts(db *d, char ***texts, size_t *count, err *e);
void db_texts_free(char **texts, size_t count);

/* ---- cancellation (base/cancel.h) ---------------------------------------
 * db_execute, db_query, db_cursor_open and each db_cursor_read_blocks of a
 * streaming cursor run as one call: db_interrupt stops the calls running
 * when it is made (API-013), an interrupted write commits nothing; calls
 * that begin after it are not affected. */

/* Async-signal-safe (one lock-free atomic increment) while `d` lives. */
void db_interrupt(db *d);
/* Calls `fn(ctx)` on the thread of each call about every `every` ticks
 * of work (records read, rows produced); non-zero stops the call with
 * API-013. `fn` NULL removes it. Calls already running keep the handler
 * they began with. */
void db_set_progress(db *d, int64_t every, cancel_progress_fn fn, void *ctx);
/* Starts a call's cancel from the database's interrupts, progress handler
 * and query_timeout_ms: what every entry point that runs a query or a
 * write does (query_rules.stop, cancel_poll before a commit). */
void db_cancel_begin(db *d, cancel *c);

int db_checkpoint(db *d, err *e);
uint64_t db_tx_count(db *d);
/* The database's store, for readers beside queries (db/fact_log.h). */
store *db_store(db *d);
/* The database's rules, for the query executor (rules/registry.h). */
struct rules_registry *db_rules(db *d);
/* Its cache of parsed query texts (db/query_cache.h), used by db_execute,
 * db_query and db_cursor_open. */
query_cache_stats db_query_cache_stats(db *d);

#endif
