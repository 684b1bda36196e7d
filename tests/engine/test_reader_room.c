/* Readers leave a core to a running writer (db/reader_room.h): while a
 * plain statement holds the writer slot and commits, readers beyond the
 * room's limit wait, but never past READER_ROOM_WAIT_NS, nor once the
 * writer stops taking the slot again (unless it is being handed to a
 * writer that has not run yet: then every reader waits), and nothing
 * waits while no writer runs or a write transaction merely stays open.
 * Driven through reader_room_try, one step at a time, with the polls'
 * time counted in the wait by hand, so that no check depends on timing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "check.h"
#include "db/reader_room.h"

typedef struct fixture {
    db_writer w;
    reader_room r;
} fixture;

static void fixture_init(fixture *f, int limit) {
    CHECK(db_writer_init(&f->w) == 0);
    reader_room_init(&f->r);
    CHECK(f->r.limit >= 1);
    f->r.limit = limit;
}

static void hold_slot(fixture *f, bool for_tx) {
    err e = {0};
    CHECK(db_writer_acquire(&f->w, for_tx, DB_WRITER_STARVE_NS, 0, "same thread", &e) == 0);
}

/* The holder lets the slot go and takes it again, as a thread committing
 * in a loop does between two commits. */
static void commit_again(fixture *f) {
    db_writer_release(&f->w);
    hold_slot(f, false);
}

/* One poll gone by, as reader_room_pause counts it, without its sleep. */
static void polled(reader_room_wait *s) {
    s->waited_ns += READER_ROOM_POLL_NS;
}

/* A plain statement holds the slot and one reader fills a room of one. */
static void fill_room(fixture *f) {
    fixture_init(f, 1);
    hold_slot(f, false);
    CHECK(reader_room_enter(&f->r, &f->w));
}

/* A core for the slot's holder, except where that would leave the
 * readers half the machine or less. */
static void test_limit_by_cores(void) {
    CHECK(reader_room_limit(-1) == 1); /* unknown */
    CHECK(reader_room_limit(1) == 1);
    CHECK(reader_room_limit(2) == 2);
    CHECK(reader_room_limit(3) == 2);
    CHECK(reader_room_limit(8) == 7);
}

static void test_no_writer_no_wait(void) {
    fixture f;
    fixture_init(&f, 1);
    reader_room_wait s = {0};
    for (int i = 0; i < 3; i++) /* uncounted: any number go in */
        CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    CHECK(!reader_room_enter(&f.r, &f.w));
    CHECK(f.r.inside == 0);
    db_writer_destroy(&f.w);
}

static void test_committing_writer_fills_the_room(void) {
    fixture f;
    fixture_init(&f, 2);
    hold_slot(&f, false);
    reader_room_wait a = {0}, b = {0}, c = {0};
    CHECK(!reader_room_occupied(&f.r));
    CHECK(reader_room_try(&f.r, &f.w, &a) == READER_ROOM_IN);
    CHECK(reader_room_occupied(&f.r)); /* the writers' patience shortens (db_writer.h) */
    CHECK(reader_room_try(&f.r, &f.w, &b) == READER_ROOM_IN);
    CHECK(f.r.inside == 2);
    CHECK(reader_room_try(&f.r, &f.w, &c) == READER_ROOM_WAIT);
    for (int i = 0; i < READER_ROOM_WAIT_NS / READER_ROOM_POLL_NS - 2; i++) {
        commit_again(&f);
        polled(&c);
        CHECK(reader_room_try(&f.r, &f.w, &c) == READER_ROOM_WAIT);
    }
    reader_room_leave(&f.r, true); /* one leaves: the next goes in */
    commit_again(&f);
    polled(&c);
    CHECK(reader_room_try(&f.r, &f.w, &c) == READER_ROOM_IN);
    reader_room_leave(&f.r, true);
    reader_room_leave(&f.r, true);
    CHECK(f.r.inside == 0 && !reader_room_occupied(&f.r));
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

static void test_wait_is_bounded(void) {
    fixture f;
    fill_room(&f);
    reader_room_wait s = {0};
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_WAIT);
    while (s.waited_ns < READER_ROOM_WAIT_NS) {
        commit_again(&f);
        polled(&s);
    }
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    CHECK(f.r.inside == 1);
    reader_room_leave(&f.r, false);
    CHECK(f.r.inside == 1);
    reader_room_leave(&f.r, true);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

static void test_stalled_writer_lets_readers_in(void) {
    fixture f;
    fill_room(&f);
    reader_room_wait s = {0};
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_WAIT);
    polled(&s); /* a poll with no new take of the slot */
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    CHECK(!reader_room_enter(&f.r, &f.w)); /* a poll's sleep, then in */
    reader_room_leave(&f.r, true);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

static void test_released_slot_lets_waiters_in(void) {
    fixture f;
    fill_room(&f);
    reader_room_wait s = {0};
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_WAIT);
    db_writer_release(&f.w);
    polled(&s);
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    reader_room_leave(&f.r, true);
    db_writer_destroy(&f.w);
}

/* A release hands the slot to a queued writer as db_writer_release does
 * once the head has starved, the waiter here a record with no thread. */
static void hand_over(fixture *f, db_writer_waiter *n) {
    *n = (db_writer_waiter){.thread = pthread_self()};
    CHECK(pthread_cond_init(&n->wake, NULL) == 0);
    pthread_mutex_lock(&f->w.mu);
    f->w.head = f->w.tail = n;
    f->w.handoff = true;
    pthread_mutex_unlock(&f->w.mu);
    db_writer_release(&f->w);
    CHECK(n->granted && f->w.busy && f->w.head == NULL);
}

/* Until the writer handed the slot runs, no reader goes in, though the
 * room has space, nor as at a stall; the bound still holds. */
static void test_handed_slot_keeps_readers_out(void) {
    fixture f;
    fixture_init(&f, 1);
    hold_slot(&f, false);
    db_writer_waiter n;
    hand_over(&f, &n);
    reader_room_wait s = {0}, late = {.waited_ns = READER_ROOM_WAIT_NS};
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_WAIT && s.handing);
    reader_room_pause(&s); /* a short poll: the hand-over takes microseconds */
    CHECK(s.waited_ns == READER_ROOM_HANDING_POLL_NS);
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_WAIT); /* not taken again: no stall */
    CHECK(reader_room_try(&f.r, &f.w, &late) == READER_ROOM_FREE);
    CHECK(f.r.inside == 0);
    /* what the waiter does once it runs (test_db_writer.c checks it) */
    atomic_store(&f.w.handing, false);
    polled(&s);
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_IN);
    reader_room_leave(&f.r, true);
    db_writer_release(&f.w);
    pthread_cond_destroy(&n.wake);
    db_writer_destroy(&f.w);
}

static void test_open_transaction_does_not_count(void) {
    fixture f;
    fixture_init(&f, 1);
    hold_slot(&f, true);
    reader_room_wait s = {0};
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    CHECK(reader_room_try(&f.r, &f.w, &s) == READER_ROOM_FREE);
    CHECK(f.r.inside == 0);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

int main(void) {
    test_limit_by_cores();
    test_no_writer_no_wait();
    test_committing_writer_fills_the_room();
    test_wait_is_bounded();
    test_stalled_writer_lets_readers_in();
    test_released_slot_lets_waiters_in();
    test_handed_slot_keeps_readers_out();
    test_open_transaction_does_not_count();
    return CHECK_DONE();
}
