/* Readers leave a core to a running writer (db/reader_room.h): while a
 * plain statement holds the writer slot, readers beyond the room's limit
 * wait, but never past READER_ROOM_WAIT_NS, and nothing waits while no
 * writer runs or a write transaction merely stays open. Driven through
 * reader_room_try, one step at a time, so that no check depends on
 * timing. */
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
    CHECK(db_writer_acquire(&f->w, for_tx, 0, "same thread", &e) == 0);
}

/* A plain statement holds the slot and one reader fills a room of one. */
static void fill_room(fixture *f) {
    fixture_init(f, 1);
    hold_slot(f, false);
    CHECK(reader_room_enter(&f->r, &f->w));
}

static void test_no_writer_no_wait(void) {
    fixture f;
    fixture_init(&f, 1);
    for (int i = 0; i < 3; i++) /* uncounted: any number go in */
        CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_FREE);
    CHECK(!reader_room_enter(&f.r, &f.w));
    CHECK(f.r.inside == 0);
    db_writer_destroy(&f.w);
}

static void test_running_writer_fills_the_room(void) {
    fixture f;
    fixture_init(&f, 2);
    hold_slot(&f, false);
    CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_IN);
    CHECK(reader_room_enter(&f.r, &f.w));
    CHECK(f.r.inside == 2);
    CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_WAIT);
    CHECK(reader_room_try(&f.r, &f.w, READER_ROOM_WAIT_NS - 1) == READER_ROOM_WAIT);
    reader_room_leave(&f.r, true); /* one leaves: the next goes in */
    CHECK(reader_room_try(&f.r, &f.w, READER_ROOM_POLL_NS) == READER_ROOM_IN);
    reader_room_leave(&f.r, true);
    reader_room_leave(&f.r, true);
    CHECK(f.r.inside == 0);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

static void test_wait_is_bounded(void) {
    fixture f;
    fill_room(&f);
    CHECK(reader_room_try(&f.r, &f.w, READER_ROOM_WAIT_NS) == READER_ROOM_FREE);
    CHECK(!reader_room_enter(&f.r, &f.w)); /* returns, uncounted, after the bound */
    CHECK(f.r.inside == 1);
    reader_room_leave(&f.r, false);
    CHECK(f.r.inside == 1);
    reader_room_leave(&f.r, true);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

static void test_released_slot_lets_waiters_in(void) {
    fixture f;
    fill_room(&f);
    CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_WAIT);
    db_writer_release(&f.w);
    CHECK(reader_room_try(&f.r, &f.w, READER_ROOM_POLL_NS) == READER_ROOM_FREE);
    reader_room_leave(&f.r, true);
    db_writer_destroy(&f.w);
}

static void test_open_transaction_does_not_count(void) {
    fixture f;
    fixture_init(&f, 1);
    hold_slot(&f, true);
    CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_FREE);
    CHECK(reader_room_try(&f.r, &f.w, 0) == READER_ROOM_FREE);
    CHECK(f.r.inside == 0);
    db_writer_release(&f.w);
    db_writer_destroy(&f.w);
}

int main(void) {
    test_no_writer_no_wait();
    test_running_writer_fills_the_room();
    test_wait_is_bounded();
    test_released_slot_lets_waiters_in();
    test_open_transaction_does_not_count();
    return CHECK_DONE();
}
