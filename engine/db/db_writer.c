/* The writer slot (db_writer.h): a flag under a mutex and a queue of
 * waiters. The wait for a transaction is timed against CLOCK_REALTIME,
 * pthread_cond_timedwait's default clock; how long a waiter has waited,
 * against CLOCK_MONOTONIC. */
#include "db/db_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"

int db_writer_init(db_writer *w) {
    *w = (db_writer){0};
    return pthread_mutex_init(&w->mu, NULL) != 0 ? -1 : 0;
}

void db_writer_destroy(db_writer *w) {
    while (w->spare) {
        db_writer_waiter *n = w->spare;
        w->spare = n->next;
        pthread_cond_destroy(&n->wake);
        free(n);
    }
    pthread_mutex_destroy(&w->mu);
}

/* Under `mu`: a spare record, or a new one (NULL when out of memory). */
static db_writer_waiter *record_get(db_writer *w) {
    db_writer_waiter *n = w->spare;
    if (n)
        w->spare = n->next;
    else if ((n = malloc(sizeof *n)) != NULL && pthread_cond_init(&n->wake, NULL) != 0) {
        free(n);
        n = NULL;
    }
    return n;
}

/* Under `mu`, by the waiter leaving the queue. */
static void record_put(db_writer *w, db_writer_waiter *n) {
    n->next = w->spare;
    w->spare = n;
}

static int64_t monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void take(db_writer *w, bool for_tx, pthread_t thread) {
    w->busy = true;
    w->tx = for_tx;
    w->owner = thread;
    atomic_store_explicit(&w->running, !for_tx, memory_order_relaxed);
    /* only takers write it, under `mu`: a load and a store, no locked add */
    atomic_store_explicit(&w->takes, atomic_load_explicit(&w->takes, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static void enqueue(db_writer *w, db_writer_waiter *n) {
    n->next = NULL;
    if (w->tail)
        w->tail->next = n;
    else
        w->head = n;
    w->tail = n;
}

static void dequeue(db_writer *w, db_writer_waiter *n) {
    db_writer_waiter **p = &w->head, *prev = NULL;
    while (*p != n) {
        prev = *p;
        p = &(*p)->next;
    }
    *p = n->next;
    if (w->tail == n)
        w->tail = prev;
}

/* A waiter leaving without the slot passes the wake-up on: the slot may
 * be free with nobody else woken to take it. */
static void leave(db_writer *w, db_writer_waiter *n) {
    dequeue(w, n);
    if (!w->busy && w->head)
        pthread_cond_signal(&w->head->wake);
}

static bool same_thread_tx(const db_writer *w) {
    return w->busy && w->tx && pthread_equal(w->owner, pthread_self());
}

/* Queued: waits until handed the slot, or finds it free outside a
 * hand-off, or (held by a transaction) the deadline passes. */
static int wait_queued(db_writer *w, db_writer_waiter *n, int64_t timeout_ms, err *e) {
    int64_t since = n->since;
    struct timespec deadline = clock_deadline_after_ms(timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        if (n->granted) {
            atomic_store_explicit(&w->handing, false, memory_order_relaxed); /* running now */
            break;
        }
        if (!w->busy && !w->handoff) {
            dequeue(w, n);
            take(w, n->for_tx, n->thread);
            break;
        }
        if (!w->tx)
            pthread_cond_wait(&n->wake, &w->mu);
        else if (pthread_cond_timedwait(&n->wake, &w->mu, &deadline) == ETIMEDOUT && !n->granted &&
                 w->busy && w->tx) {
            leave(w, n);
            return err_set(e, ERR(API, 20),
                           "busy: another thread's write transaction is still open after %lld ms "
                           "(busy_timeout_ms)",
                           (long long)timeout_ms);
        }
        /* Passed over (a newcomer took the slot first) for too long. */
        if (!n->granted && w->busy && w->head == n && monotonic_ns() - since >= n->patience)
            w->handoff = true;
    }
    if (monotonic_ns() - since < n->patience)
        w->handoff = false; /* the queue moves quickly again: newcomers may take it */
    return 0;
}

/* Whether the queue's head has waited `patience_ns` (the asking thread's
 * judgement, db_writer_acquire), long enough to be handed the slot by the
 * thread that finds it free. The head cannot tell while it waits for a
 * core, often the core of the thread that keeps taking the slot, woken
 * onto it by that thread's release: traced, such a head waited for the
 * scheduler's tick, up to 4 ms, once per queued writer (issue 20). */
static bool head_passed_over(const db_writer *w, int64_t patience_ns) {
    return w->head && monotonic_ns() - w->head->since >= patience_ns;
}

/* The slot, free, goes to the queue's head; the hand-offs go on in queue
 * order (`handoff`). */
static db_writer_waiter *hand_to_head(db_writer *w) {
    db_writer_waiter *n = w->head;
    dequeue(w, n);
    n->granted = true;
    take(w, n->for_tx, n->thread);
    atomic_store_explicit(&w->handing, true, memory_order_relaxed);
    w->handoff = true;
    return n;
}

/* A free slot with nobody queued (every single-fact commit without
 * contention) costs no clock read and no queueing. */
int db_writer_acquire(db_writer *w, bool for_tx, int64_t patience_ns, int64_t timeout_ms,
                      const char *same_thread, err *e) {
    pthread_mutex_lock(&w->mu);
    if (!w->busy && !w->handoff) {
        if (!head_passed_over(w, patience_ns)) {
            take(w, for_tx, pthread_self());
            pthread_mutex_unlock(&w->mu);
            return 0;
        }
        pthread_cond_signal(&hand_to_head(w)->wake);
    }
    if (same_thread_tx(w)) {
        pthread_mutex_unlock(&w->mu);
        return err_set(e, ERR(INT, 3), "%s", same_thread);
    }
    db_writer_waiter *n = record_get(w);
    if (!n) {
        pthread_mutex_unlock(&w->mu);
        return err_set(e, ERR(INT, 0),
                       "cannot create a record to wait for the writer slot (out of memory)");
    }
    n->thread = pthread_self();
    n->for_tx = for_tx;
    n->granted = false;
    n->since = monotonic_ns();
    n->patience = patience_ns;
    enqueue(w, n);
    int rc = wait_queued(w, n, timeout_ms, e);
    record_put(w, n);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void db_writer_release(db_writer *w) {
    pthread_mutex_lock(&w->mu);
    db_writer_waiter *n = w->head;
    if (n && w->handoff) {
        hand_to_head(w);
    } else {
        w->busy = false;
        w->tx = false;
        w->handoff = false;
        atomic_store_explicit(&w->running, false, memory_order_relaxed);
    }
    pthread_mutex_unlock(&w->mu);
    /* After the unlock (the record outlives its waiter, db_writer.h): the
     * woken waiter, often run at once on this core, finds `mu` free. */
    if (n)
        pthread_cond_signal(&n->wake);
}
