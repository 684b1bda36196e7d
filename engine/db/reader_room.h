/* Readers leave a core to a running writer (issue 20). On a machine with
 * few cores, readers spinning queries beside a writer that commits
 * non-stop share the cores with it; the writer slot's holder is then one
 * runnable thread among many, descheduled for a scheduler tick at a time
 * while the writers queued behind it wait. So while a plain write
 * statement or a checkpoint holds the writer slot, at most `cores - 1`
 * reader calls run at once, except on two cores (reader_room_limit): there
 * one core would leave the readers half of what they do alone, less what
 * sharing the database costs them, so two go in and the holder shares the
 * cores with them (issue 20). A reader beyond the limit waits,
 * polling every READER_ROOM_POLL_NS, until one leaves, the writer lets
 * the slot go, or the writer has not taken the slot again since the last
 * poll (descheduled, writing a file, or running one long statement: the
 * room is for a stream of short commits), and after READER_ROOM_WAIT_NS
 * goes in anyway. While the slot is being handed over to a queued writer
 * that has not run yet (db_writer_handing), no reader goes in, counted or
 * not, short of READER_ROOM_WAIT_NS: that writer needs a core, and while
 * a reader holds it the slot waits (feat/fair7); a hand-over takes
 * microseconds, so those waits poll every READER_ROOM_HANDING_POLL_NS
 * (a whole poll there left 7% of bench_fairness's cores idle, issue 20).
 * With no writer running a call costs one load of a flag; with cores to
 * spare the limit is never reached. An open write transaction does not
 * count (it may sit idle). */
#ifndef MG_DB_READER_ROOM_H
#define MG_DB_READER_ROOM_H

#include <stdatomic.h>
#include <stdbool.h>

#include "base/thread_slot.h"
#include "db/db_writer.h"

#define READER_ROOM_POLL_NS 500000
#define READER_ROOM_HANDING_POLL_NS 50000 /* a hand-over takes microseconds */
#define READER_ROOM_WAIT_NS 4000000

typedef struct reader_room {
    char gap[THREAD_STRIPE_GAP];
    atomic_int inside; /* reader calls counted in while a writer ran */
    int limit;
    char gap2[THREAD_STRIPE_GAP];
} reader_room;

void reader_room_init(reader_room *r);
/* The room's limit on a machine of `cores` online CPUs: `cores - 1`, but
 * 2 on 2 cores (and 1 on one, or when the count is unknown). */
int reader_room_limit(long cores);

typedef enum { READER_ROOM_FREE, READER_ROOM_IN, READER_ROOM_WAIT } reader_room_step;

/* A reader's wait so far: how long, the writer's takes last seen, and
 * whether the last try found the slot being handed over. */
typedef struct reader_room_wait {
    long waited_ns;
    unsigned takes;
    bool handing;
} reader_room_wait;

/* One try of a wait begun as (reader_room_wait){0}: FREE when no writer
 * runs, the wait is over, or the writer took the slot no more times since
 * the last try (stalled: leaving it the core gives it nothing; on a loaded
 * machine it gives the core to other processes), go in uncounted; IN when
 * counted in; WAIT when the caller should reader_room_pause and try
 * again, as it should while the slot is being handed over. */
reader_room_step reader_room_try(reader_room *r, const db_writer *w, reader_room_wait *s);
/* Sleeps one poll (a short one while the slot is being handed over) and
 * counts it in `s`. */
void reader_room_pause(reader_room_wait *s);
/* The waits of reader_room_enter once a writer runs. */
bool reader_room_wait_in(reader_room *r, const db_writer *w);

/* Before a read call holding no lock: the tries and pauses in a loop.
 * Returns whether the call was counted in; pass it to reader_room_leave.
 * Inline: every read call passes here, almost always with no writer. */
static inline bool reader_room_enter(reader_room *r, const db_writer *w) {
    return db_writer_running(w) && reader_room_wait_in(r, w);
}

/* Whether reader calls were counted in beside a running writer: readers
 * share the cores with the writers. A hint, read without a lock. */
static inline bool reader_room_occupied(const reader_room *r) {
    return atomic_load_explicit(&r->inside, memory_order_relaxed) > 0;
}

static inline void reader_room_leave(reader_room *r, bool counted) {
    if (counted)
        atomic_fetch_sub_explicit(&r->inside, 1, memory_order_relaxed);
}

#endif
