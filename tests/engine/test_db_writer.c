/* The writer slot (db/db_writer.h): a thread committing in a loop cannot
 * keep it from a waiter (issue 20), and the rules of a plain statement's
 * and a write transaction's waits still hold. The steps are ordered by
 * watching the slot's own state, never by timing, except the wait that
 * makes a waiter starve (at least DB_WRITER_STARVE_NS, never at most). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "check.h"
#include "db/db_writer.h"

typedef struct waiter_job {
    db_writer *w;
    bool for_tx;
    int64_t timeout_ms;
    atomic_bool holds; /* took the slot (and keeps it until `release`) */
    atomic_bool release;
    int rc;
} waiter_job;

static void *waiter_main(void *arg) {
    waiter_job *j = arg;
    err e = {0};
    j->rc = db_writer_acquire(j->w, j->for_tx, j->timeout_ms, "same thread", &e);
    err_clear(&e);
    if (j->rc != 0)
        return NULL;
    atomic_store(&j->holds, true);
    while (!atomic_load(&j->release))
        sched_yield();
    db_writer_release(j->w);
    return NULL;
}

static void pause_ms(long ms) {
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* Spins until the slot's state satisfies `cond` (read under its mutex). */
#define AWAIT(w, cond)                  \
    for (bool done_ = false; !done_;) { \
        pthread_mutex_lock(&(w)->mu);   \
        done_ = (cond);                 \
        pthread_mutex_unlock(&(w)->mu); \
        if (!done_)                     \
            sched_yield();              \
    }

static void test_free_slot_is_taken_at_once(void) {
    db_writer w;
    CHECK(db_writer_init(&w) == 0);
    err e = {0};
    CHECK(db_writer_acquire(&w, false, 0, "same thread", &e) == 0);
    CHECK(w.busy && !w.tx && w.head == NULL);
    db_writer_release(&w);
    CHECK(!w.busy);
    db_writer_destroy(&w);
}

/* What a release followed at once by this thread's acquire does when the
 * woken waiter runs only after both (the passed-over case), done in one
 * hold of the slot's mutex: calling db_writer_release and then
 * db_writer_acquire would leave that order to the scheduler, and a waiter
 * running in between takes the free slot and keeps it, with this thread
 * queued behind it for good. */
static void pass_over(db_writer *w) {
    pthread_mutex_lock(&w->mu);
    CHECK(w->busy && !w->handoff && w->head != NULL);
    pthread_cond_signal(&w->head->wake); /* the release's wake-up */
    pthread_mutex_unlock(&w->mu);        /* the slot stayed this thread's */
}

/* The looping thread gets the slot back past the waiter once; when the
 * waiter then finds it taken after waiting longer than the bound, the
 * next release hands it over, and the looping thread queues behind
 * until the queue is empty again. */
static void test_starved_waiter_is_handed_the_slot(void) {
    db_writer w;
    CHECK(db_writer_init(&w) == 0);
    err e = {0};
    CHECK(db_writer_acquire(&w, false, 0, "same thread", &e) == 0);
    waiter_job j = {.w = &w};
    pthread_t t;
    pthread_create(&t, NULL, waiter_main, &j);
    AWAIT(&w, w.head != NULL);
    pause_ms(2 * DB_WRITER_STARVE_NS / 1000000);
    pass_over(&w);
    AWAIT(&w, w.handoff);
    CHECK(!atomic_load(&j.holds));
    db_writer_release(&w); /* handed over: a newcomer no longer gets it */
    CHECK(w.busy && pthread_equal(w.owner, t) && w.head == NULL);
    AWAIT(&w, atomic_load(&j.holds));
    CHECK(!db_writer_handing(&w)); /* the waiter ran: readers may go in */
    atomic_store(&j.release, true);
    CHECK(db_writer_acquire(&w, false, 0, "same thread", &e) == 0); /* after the waiter */
    pthread_join(t, NULL);
    CHECK(j.rc == 0);
    db_writer_release(&w); /* the queue is empty: the hand-off ends */
    CHECK(!w.busy && !w.handoff);
    db_writer_destroy(&w);
}

/* Waiting for a write transaction is bounded (API-020); the queue is left
 * as it was. */
static void test_wait_for_a_transaction_times_out(void) {
    db_writer w;
    CHECK(db_writer_init(&w) == 0);
    err e = {0};
    CHECK(db_writer_acquire(&w, true, 0, "same thread", &e) == 0);
    waiter_job j = {.w = &w, .timeout_ms = 20};
    pthread_t t;
    pthread_create(&t, NULL, waiter_main, &j);
    pthread_join(t, NULL);
    CHECK(j.rc == ERR(API, 20));
    CHECK(w.head == NULL && w.tail == NULL && w.busy && w.tx);
    /* The same thread asking again while its transaction holds the slot. */
    CHECK(db_writer_acquire(&w, false, 0, "same thread", &e) == ERR(INT, 3));
    err_clear(&e);
    db_writer_release(&w);
    CHECK(!w.busy && !w.tx);
    db_writer_destroy(&w);
}

/* Several waiters behind a hold get the slot one after the other: each
 * release wakes the queue's head. */
static void test_every_waiter_gets_the_slot(void) {
    enum { N = 3 };
    db_writer w;
    CHECK(db_writer_init(&w) == 0);
    err e = {0};
    CHECK(db_writer_acquire(&w, false, 0, "same thread", &e) == 0);
    waiter_job j[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        j[i] = (waiter_job){.w = &w};
        pthread_create(&t[i], NULL, waiter_main, &j[i]);
        AWAIT(&w, w.tail != NULL && pthread_equal(w.tail->thread, t[i]));
    }
    db_writer_release(&w);
    for (int i = 0; i < N; i++) {
        AWAIT(&w, atomic_load(&j[i].holds));
        atomic_store(&j[i].release, true);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK(j[i].rc == 0);
    }
    CHECK(!w.busy && w.head == NULL);
    db_writer_destroy(&w);
}

int main(void) {
    test_free_slot_is_taken_at_once();
    test_starved_waiter_is_handed_the_slot();
    test_wait_for_a_transaction_times_out();
    test_every_waiter_gets_the_slot();
    return CHECK_DONE();
}
