/* The database object, shared by db.c (commands) and db_cursor.c. */
#ifndef MG_DB_DB_INTERNAL_H
#define MG_DB_DB_INTERNAL_H

#include <pthread.h>

#include "datalog/ast.h"
#include "db/db.h"
#include "db/db_writer.h"
#include "db/query_cache.h"
#include "exec/query.h"

struct rules_registry;
struct host_registry;
struct db_tx;

struct db {
    db_writer writer;    /* the single writer (db_writer.h) */
    struct db_tx *tx;    /* the open write transaction (db_tx.c), or NULL;
                            set and cleared by its holder of `writer` */
    /* Cursors opening (shared) vs. a change that detaches them (exclusive):
     * no cursor can start streaming between the detach and the change. */
    pthread_rwlock_t gate;
    db_cursor *cursors; /* the ones streaming on the store (db_cursor.c) */
    store *s;
    struct rules_registry *rules; /* in memory only (spec 9.1) */
    query_cache *queries;         /* parsed query texts */
    struct host_registry *host_fns; /* host functions (spec 12), in memory only */
    db_options opts;
};

/* A (query ...) from the database's cache of parsed texts; any other
 * command fails with API-012. */
int db_parse_query(db *d, const char *text, size_t len, parsed_query **out, err *e);
/* The limits and rules a query of `d` runs with. */
query_rules db_query_rules(db *d);
const char *db_command_name(command_kind k);

/* ---- prepared queries (db/prepared.c) ---------------------------------- */
/* Runs a parsed (query ...) as db_query runs the one of a text. */
int db_run_query(db *d, const ast_query *q, result_set **out, err *e);
/* A cursor over a parsed (query ...), as db_cursor_open's over a text;
 * `q` stays valid until the cursor calls release(holder) (when it is
 * freed; also when the open fails). */
int db_cursor_open_query(db *d, const ast_query *q, void (*release)(void *holder), void *holder,
                         db_cursor **out, err *e);

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
/* Waits for the writer slot for a plain write or checkpoint (db_writer.h,
 * with the database's busy timeout). */
int db_writer_take(db *d, const char *same_thread, err *e);
/* db_close's part of db_tx.c: rolls `t` back and cuts it off from its
 * database (its later calls fail with API-018). */
void db_tx_close(struct db_tx *t);

#endif
