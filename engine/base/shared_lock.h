/* A readers-writer lock whose read holds are counted, not owned: a read
 * hold may be given back by another thread than the one that took it (a
 * query cursor keeps its snapshot across calls that may come from any
 * thread, one at a time, and a writer may close it).
 *
 * Phase-fair: a reader that arrives while a writer holds or waits for the
 * lock waits for that writer's phase to end; when it ends, every reader
 * waiting then goes in before the next writer. So a writer waits at most
 * for the readers already in, never for readers arriving after it (issue
 * 20: three threads spinning queries held four writers to 4 commits in
 * 10 s), and a stream of writers lets the waiting readers in between any
 * two commits.
 *
 * A thread that already holds a read hold may always take another (a
 * query whose host function queries the same database): waiting there
 * would wait for a writer that waits for this very thread. The lock keeps
 * a note per thread of the holds it took (shared_lock.c); a hold given
 * back by another thread leaves a note that is only believed while some
 * read hold exists and until the next write phase. */
#ifndef MG_BASE_SHARED_LOCK_H
#define MG_BASE_SHARED_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/thread_slot.h"

/* While no writer holds or waits for the lock (`shut` false), a read hold
 * is taken and given back with one atomic add, without the mutex: every
 * query takes two read holds, and a mutex for each made threads reading
 * one store queue on it (issue 18). The read holds are counted in stripes,
 * each on its own cache line, a thread in its own (thread_slot); a hold
 * given back on another thread counts down there, so a stripe alone may
 * wrap below zero, and only the stripes' sum (modulo 2^64) is the count.
 * A writer shuts the fast path (under the mutex) before it sums. */
#define SHARED_LOCK_STRIPES 4
typedef struct shared_lock_stripe {
    char gap[THREAD_STRIPE_GAP]; /* padded, not aligned: the locks live in malloc'd structs */
    atomic_size_t n;
} shared_lock_stripe;

typedef struct shared_lock {
    pthread_mutex_t mu;
    pthread_cond_t readers_go;
    pthread_cond_t writer_go;
    shared_lock_stripe readers[SHARED_LOCK_STRIPES]; /* read holds now: the sum */
    char gap[THREAD_STRIPE_GAP];
    atomic_bool shut;       /* a writer holds or waits: readers take the mutex */
    size_t readers_waiting; /* for a writer's phase to end */
    size_t admitted;        /* let in by the last write phase, not in yet */
    size_t writers_waiting;
    _Atomic uint64_t phase; /* write phases ended: dates the per-thread notes */
    bool writer;
} shared_lock;

/* 0, or -1 when the system cannot create the lock. */
int shared_lock_init(shared_lock *l);
void shared_lock_destroy(shared_lock *l);
void shared_lock_read(shared_lock *l);
void shared_lock_read_done(shared_lock *l);
void shared_lock_write(shared_lock *l);
/* The write hold when it can be had now (no writer, none waiting, no
 * read hold); false, changing nothing, otherwise. */
bool shared_lock_try_write(shared_lock *l);
void shared_lock_write_done(shared_lock *l);

#endif
