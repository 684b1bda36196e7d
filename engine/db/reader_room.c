/* Readers leave a core to a running writer (reader_room.h). Waiting polls
 * with a short sleep instead of a wake-up from the leaving reader: readers
 * leave every few tens of microseconds, and a wake-up each would cost the
 * writer's core more than the polls do. */
#include "db/reader_room.h"

#include <time.h>
#include <unistd.h>

int reader_room_limit(long cores) {
    if (cores > 2)
        return (int)cores - 1;
    return cores == 2 ? 2 : 1;
}

void reader_room_init(reader_room *r) {
    r->limit = reader_room_limit(sysconf(_SC_NPROCESSORS_ONLN));
    atomic_init(&r->inside, 0);
}

static bool try_enter(reader_room *r) {
    int n = atomic_load_explicit(&r->inside, memory_order_relaxed);
    while (n < r->limit)
        if (atomic_compare_exchange_weak_explicit(&r->inside, &n, n + 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return true;
    return false;
}

reader_room_step reader_room_try(reader_room *r, const db_writer *w, reader_room_wait *s) {
    if (!db_writer_running(w) || s->waited_ns >= READER_ROOM_WAIT_NS)
        return READER_ROOM_FREE;
    /* Handed to a waiter that waits for a core: one more reader would
     * keep it (and every writer queued behind it) waiting, and that wait
     * is no stall. */
    s->handing = db_writer_handing(w);
    if (s->handing)
        return READER_ROOM_WAIT;
    unsigned takes = db_writer_takes(w);
    if (s->waited_ns > 0 && takes == s->takes)
        return READER_ROOM_FREE;
    s->takes = takes;
    return try_enter(r) ? READER_ROOM_IN : READER_ROOM_WAIT;
}

void reader_room_pause(reader_room_wait *s) {
    long ns = s->handing ? READER_ROOM_HANDING_POLL_NS : READER_ROOM_POLL_NS;
    const struct timespec poll = {0, ns};
    nanosleep(&poll, NULL);
    s->waited_ns += ns;
}

bool reader_room_wait_in(reader_room *r, const db_writer *w) {
    reader_room_wait s = {0};
    reader_room_step step;
    while ((step = reader_room_try(r, w, &s)) == READER_ROOM_WAIT)
        reader_room_pause(&s);
    return step == READER_ROOM_IN;
}
