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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

/* A thread waiting for the slot: waiters queue in arrival order, and each
 * is woken alone. The record belongs to the slot (kept on its spare list
 * between waits, freed by db_writer_destroy), not to the waiter's stack,
 * so that a release can wake the waiter after unlocking `mu`: a releaser
 * taken off its core there no longer holds up every writer. A wake-up
 * that arrives late reaches at worst a record reused by a later waiter,
 * which takes it as a spurious wake-up and checks its state again. */
typedef struct db_writer_waiter {
    pthread_cond_t wake;
    struct db_writer_waiter *next;
    pthread_t thread;
    bool for_tx;
    bool granted;     /* handed the slot by db_writer_release */
    int64_t since;    /* queued at (monotonic ns) */
    int64_t patience; /* its own acquire's patience_ns */
} db_writer_waiter;

/* Fairness (issue 20): a free slot goes to whoever asks first, even past
 * the queue, since handing it to a sleeping waiter costs a wake-up per
 * commit; but once the queue's head has waited longer than a patience
 * (seen by the head finding the slot taken again, or by a thread finding
 * it free), the slot is handed over in queue order (`handoff`) until a
 * waiter gets it sooner than that (Go's sync.Mutex works the same way).
 * So a thread that commits in a loop cannot keep the slot from the others.
 *
 * The patience is the caller's, given at each acquire: DB_WRITER_STARVE_NS,
 * 4 ms, among writers alone, where 1 ms cost four writers 10-15% of their
 * rate (a wake-up a hand-off) and shortened no worst wait; and
 * DB_WRITER_STARVE_BESIDE_READERS_NS, 1 ms, beside readers that fill the
 * cores. There the thread that keeps taking the slot keeps its core until
 * the scheduler's tick (4 ms on these machines) while the writers it
 * passed wait on that core's queue, a tick each: commits took up to 24 ms
 * at 4 ms, 10-17 ms at 1 ms (bench_fairness). */
#define DB_WRITER_STARVE_NS 4000000
#define DB_WRITER_STARVE_BESIDE_READERS_NS 1000000

typedef struct db_writer {
    pthread_mutex_t mu;
    bool busy;
    bool tx;         /* held by a write transaction */
    pthread_t owner; /* the thread that took it */
    bool handoff;    /* the slot goes to the queue's head, not to a newcomer */
    db_writer_waiter *head, *tail;
    db_writer_waiter *spare; /* waiter records not in use, linked by `next` */
    atomic_bool running;     /* held by a plain statement or a checkpoint (reader_room.h) */
    atomic_uint takes;       /* counts the slot's takes: readers see the writer progress */
    atomic_bool handing;     /* handed over to a waiter that has not run since (reader_room.h) */
} db_writer;

int db_writer_init(db_writer *w);
void db_writer_destroy(db_writer *w);

/* Takes the slot, for a write transaction when `for_tx`; `patience_ns` is
 * how long this call may pass the queue's head over, and, if it queues,
 * how long it waits before the slot goes round in queue order (above).
 * While another plain statement or checkpoint holds it, waits for it
 * without limit (they are short, and the queue bounds how many go first);
 * while a write transaction of another thread holds it, waits at most
 * `timeout_ms` (>= 0), then fails with API-020. When a write transaction
 * of the calling thread holds it, fails at once with INT-003 and the
 * message `same_thread` (waiting would never end). */
int db_writer_acquire(db_writer *w, bool for_tx, int64_t patience_ns, int64_t timeout_ms,
                      const char *same_thread, err *e);
/* Gives the slot back (from any thread): to the queue's head when it
 * has waited too long, else free, waking the head to take it. */
void db_writer_release(db_writer *w);

/* Whether a plain statement or a checkpoint holds the slot: a hint,
 * read without the lock. */
static inline bool db_writer_running(const db_writer *w) {
    return atomic_load_explicit(&w->running, memory_order_relaxed);
}

/* Whether a release handed the slot to a sleeping waiter that has not
 * run since: the slot is held, but its holder waits for a core. A hint,
 * read without the lock. */
static inline bool db_writer_handing(const db_writer *w) {
    return atomic_load_explicit(&w->handing, memory_order_relaxed);
}

/* How many times the slot was taken (wrapping): unchanged over a while
 * with the slot held means its holder is stalled (descheduled, or in a
 * file write), not committing. */
static inline unsigned db_writer_takes(const db_writer *w) {
    return atomic_load_explicit(&w->takes, memory_order_relaxed);
}

/* The INT-003 message of language.md §15 for a plain write. */
#define DB_WRITER_IN_TX \
    "a WriteTransaction is already in progress on this thread; use tx.execute() instead"

#endif
