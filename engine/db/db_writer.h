/* The single writer of a database: one slot, held by a plain write
 * statement (for its duration), a checkpoint, or an explicit write
 * transaction (from db_tx_begin to its end). Kept behind this pair of
 * functions so that it can move (e.g. onto a store shared by two opens of
 * one file) without touching its users.
 *
 * Unlike a mutex the slot may be released by a thread other than the one
 * that took it: a write transaction may be committed from any thread, and
 * db_close rolls an open one back. */
#ifndef MG_DB_DB_WRITER_H
#define MG_DB_DB_WRITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

typedef struct db_writer {
    pthread_mutex_t mu;
    pthread_cond_t freed;
    bool busy;
    bool tx;         /* held by a write transaction */
    pthread_t owner; /* the thread that took it */
} db_writer;

int db_writer_init(db_writer *w);
void db_writer_destroy(db_writer *w);

/* Takes the slot, for a write transaction when `for_tx`. While another
 * plain statement or checkpoint holds it, waits for it without limit
 * (they are short); while a write transaction of another thread holds it,
 * waits at most `timeout_ms` (>= 0), then fails with API-020. When a
 * write transaction of the calling thread holds it, fails at once with
 * INT-003 and the message `same_thread` (waiting would never end). */
int db_writer_acquire(db_writer *w, bool for_tx, int64_t timeout_ms, const char *same_thread,
                      err *e);
/* Gives the slot back (from any thread) and wakes the waiters. */
void db_writer_release(db_writer *w);

/* The INT-003 message of language.md §15 for a plain write. */
#define DB_WRITER_IN_TX \
    "a WriteTransaction is already in progress on this thread; use tx.execute() instead"

#endif
