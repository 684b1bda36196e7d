/* The database object, shared by db.c (commands) and db_cursor.c. */
#ifndef MG_DB_DB_INTERNAL_H
#define MG_DB_DB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/cancel.h"

#include "datalog/ast.h"
#include "db/db.h"
#include "db/db_writer.h"
#include "db/db_shared.h"
#include "db/query_cache.h"
#include "exec/query.h"
#include "exec/query_keep.h"

struct rules_registry;
struct host_registry;
struct db_tx;

struct db {
    /* The single writer, and the cursors streaming on the store with
     * their gate: cursors opening (shared) vs. a change that detaches them
     * (exclusive), so no cursor can start streaming between the detach and
     * the change. Shared by every handle on the same store (db_shared.h). */
    db_shared *sh;
    struct db_tx *tx;               /* this handle's open write transaction (db_tx.c), or
                                       NULL; set and cleared by its holder of sh->writer */
    store *s;                       /* sh->s */
    struct rules_registry *rules;   /* in memory only (language.md §9.1) */
    query_cache *queries;           /* parsed query texts */
    struct host_registry *host_fns; /* host functions (language.md §12), in memory only */
    db_options opts;
    cancel_source interrupts; /* db_interrupt */
    /* The progress handler (db_set_progress), copied by each call as it
     * begins; `has_progress` spares calls the mutex while there is none. */
    pthread_mutex_t progress_mu;
    atomic_bool has_progress;
    cancel_progress_fn progress;
    void *progress_ctx;
    int64_t progress_every;
};

/* A (query ...) from the database's cache of parsed texts; any other
 * command fails with API-012. */
int db_parse_query(db *d, const char *text, size_t len, parsed_query **out, err *e);
/* The limits and rules a query of `d` runs with. */
query_rules db_query_rules(db *d);
const char *db_command_name(command_kind k);

/* ---- prepared queries (db/prepared.c) ---------------------------------- */
/* Runs a parsed (query ...) as db_query runs the one of a text; `keep`
 * (or NULL) as db_cursor_open_query's. */
int db_run_query(db *d, const ast_query *q, struct query_keep *keep, result_set **out, err *e);
/* A cursor over a parsed (query ...), as db_cursor_open's over a text;
 * `q` (and `keep`) stay valid until the cursor calls release(holder)
 * (when it is freed; also when the open fails). `keep` (or NULL): what
 * runs of `q` keep from one to the next (exec/query_keep.h). */
int db_cursor_open_query(db *d, const ast_query *q, struct query_keep *keep,
                         void (*release)(void *holder), void *holder, db_cursor **out, err *e);

/* Before a change to the store or the rules (the writer lock held, or in
 * db_close): reads every streaming cursor's rest into memory, so none
 * holds a snapshot, and keeps new ones from streaming until
 * db_cursors_release. */
void db_cursors_hold(db *d);
void db_cursors_release(db *d);

/* A cursor over `text`'s answer on store `s` with `now_ms` (a write
 * transaction's reads, db_tx.c): read in full at open, so it holds no
 * snapshot and is not listed on `d`. */
int db_cursor_open_read(db *d, store *s, int64_t now_ms, const char *text, size_t len,
                        db_cursor **out, err *e);
/* Waits for the writer slot, for a write transaction when `for_tx`, else
 * for a plain write or checkpoint (db_writer.h, with the database's busy
 * timeout, and the patience of a writer beside readers when readers are
 * in the room). */
int db_writer_take(db *d, bool for_tx, const char *same_thread, err *e);
/* db_close's part of db_tx.c: rolls `t` back and cuts it off from its
 * database (its later calls fail with API-018). */
void db_tx_close(struct db_tx *t);

#endif
