/* Explicit write transactions (language.md §15, §7.5). A transaction holds the
 * database's writer slot (db/db_writer.h) from begin to its end, so the
 * committed state does not change under it; its transact / retract
 * statements are staged in memory (nothing reaches the store or the file
 * before commit), and commit writes every staged record as one store
 * transaction: one counter value, one tx time, one WAL frame.
 *
 * Reads inside the transaction (language.md §7.5) run on a private in-memory
 * store, the view: a fork of the committed store (store_fork: its pages
 * are read from the store itself, which the writer slot keeps unchanged)
 * with each staged statement committed on top under its own counter
 * value (current+1, current+2, ...) and tx time (never below the previous
 * one's); those commits copy only the pages they change. Every query
 * feature therefore answers exactly as it would after those statements
 * were committed one by one. The view is made at the first read that
 * needs it (a read before any statement is staged runs on the database
 * itself) and then kept up to date statement by statement; making it
 * costs nothing whatever the database's size, except for a memory
 * database holding texts longer than a page, which is copied (a pass
 * over its records).
 *
 * A transaction is used by one thread at a time; it may be committed or
 * rolled back from a thread other than the one that began it. */
#ifndef MG_DB_DB_TX_H
#define MG_DB_DB_TX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "db/db.h"

typedef struct db_tx db_tx;

/* Begins a transaction on `d`. Errors: API-014 read-only database;
 * INT-003 this thread has a transaction open on `d` already; API-020 another
 * thread's transaction stayed open past busy_timeout_ms. */
int db_tx_begin(db *d, db_tx **out, err *e);

/* Runs one command inside the transaction: transact / retract are
 * converted and checked (entity, attribute, value, windows: the errors of
 * db/write.h) and staged, with DB_RESULT_OK; a query sees committed plus
 * staged records; a rule registers at once (and stays on rollback).
 * API-018 once the transaction has ended. */
int db_tx_execute(db_tx *t, const char *text, size_t len, db_result *out, err *e);

/* A cursor over a query's answer on committed plus staged records, read
 * in full when it opens; it outlives the transaction. Other commands fail
 * with API-012. */
int db_tx_cursor_open(db_tx *t, const char *text, size_t len, db_cursor **out, err *e);

/* Commits the staged records as one transaction (none staged: nothing is
 * written and no counter value is consumed). Where several statements
 * wrote the same (entity, attribute, value), the last one's record is the
 * one committed (language.md §15). Errors: those of store_commit (WAL-003
 * size limits, I/O), API-019 when a window given only a :valid-to is
 * empty at the commit instant; then nothing is written. Success or not,
 * the transaction ends. */
int db_tx_commit(db_tx *t, err *e);

/* Discards the staged records and ends the transaction. */
int db_tx_rollback(db_tx *t, err *e);

/* Rolls back a transaction still open, then frees it. NULL: no-op. */
void db_tx_free(db_tx *t);

#endif
