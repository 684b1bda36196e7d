#include "base/shared_lock.h"

#include "base/thread_slot.h"

/* The read holds this thread took and has not given back, per lock, dated
 * by the lock's write phase: a write phase means no read hold existed, so
 * an older note is stale (its hold was given back by another thread). A
 * note names its lock by address and is only compared, never followed: the
 * lock may be gone. */
#define HOLD_NOTES 8 /* home_of takes the top 3 bits of a hash */

typedef struct hold_note {
    const shared_lock *lock;
    uint64_t phase;
    size_t depth;
} hold_note;

static _Thread_local hold_note notes[HOLD_NOTES];
static _Thread_local unsigned next_evict;

/* The helpers below take the thread's notes from their caller and are
 * inlined into it: each thread-local access out of a shared library is a
 * call (__tls_get_addr), and a call per helper was most of what a read
 * hold's notes cost. */
#define NOTE_STEP static inline __attribute__((always_inline))

static uint64_t phase_of(const shared_lock *l) {
    return atomic_load_explicit(&l->phase, memory_order_relaxed);
}

/* The read holds now. */
static size_t read_holds(const shared_lock *l) {
    size_t n = 0;
    for (int i = 0; i < SHARED_LOCK_STRIPES; i++)
        n += atomic_load((atomic_size_t *)&l->readers[i].n);
    return n;
}

static atomic_size_t *my_stripe(shared_lock *l) {
    return &l->readers[thread_slot() % SHARED_LOCK_STRIPES].n;
}

/* The note a lock takes when it can: every query takes and gives back
 * holds on two locks, and a search of all the notes at each was most of
 * the cost of a hold. */
NOTE_STEP hold_note *home_of(hold_note *mine, const shared_lock *l) {
    _Static_assert(HOLD_NOTES == 8, "home_of picks one of 8 notes");
    return &mine[((uintptr_t)l * UINT64_C(0x9E3779B97F4A7C15)) >> 61];
}

NOTE_STEP bool believed(const hold_note *n, const shared_lock *l) {
    return n->lock == l && n->phase == phase_of(l) && n->depth > 0;
}

/* At most one note of a lock is believed (note_taken takes that one
 * again), and a lock's note is outside its home only when the home was
 * another lock's, held, when it was taken: so when the home is the
 * lock's, no other note of it is believed. */
NOTE_STEP hold_note *note_of(hold_note *mine, const shared_lock *l) {
    hold_note *home = home_of(mine, l);
    if (home->lock == l)
        return believed(home, l) ? home : NULL;
    for (int i = 0; i < HOLD_NOTES; i++)
        if (believed(&mine[i], l))
            return &mine[i];
    return NULL;
}

/* A thread holding a hold that it took: some hold exists, and the note
 * is of this phase. */
static bool holds_already(const shared_lock *l) {
    return read_holds(l) > 0 && note_of(notes, l) != NULL;
}

NOTE_STEP void note_taken(hold_note *mine, const shared_lock *l) {
    hold_note *n = note_of(mine, l), *home = home_of(mine, l);
    if (!n && (home->depth == 0 || home->lock == l))
        n = home;
    for (int i = 0; !n && i < HOLD_NOTES; i++)
        if (mine[i].depth == 0 || mine[i].lock == l) /* free, or this lock's stale note */
            n = &mine[i];
    if (!n) /* full of other locks' notes, most of them stale: reuse in turn */
        n = &mine[next_evict++ % HOLD_NOTES];
    if (n->lock != l || n->phase != phase_of(l))
        *n = (hold_note){.lock = l, .phase = phase_of(l), .depth = 0};
    n->depth++;
}

NOTE_STEP void note_given_back(hold_note *mine, const shared_lock *l) {
    hold_note *n = note_of(mine, l);
    if (n)
        n->depth--;
}

int shared_lock_init(shared_lock *l) {
    *l = (shared_lock){0};
    for (int i = 0; i < SHARED_LOCK_STRIPES; i++)
        atomic_init(&l->readers[i].n, 0);
    atomic_init(&l->shut, false);
    atomic_init(&l->phase, 0);
    if (pthread_mutex_init(&l->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&l->readers_go, NULL) != 0) {
        pthread_mutex_destroy(&l->mu);
        return -1;
    }
    if (pthread_cond_init(&l->writer_go, NULL) != 0) {
        pthread_cond_destroy(&l->readers_go);
        pthread_mutex_destroy(&l->mu);
        return -1;
    }
    return 0;
}

void shared_lock_destroy(shared_lock *l) {
    pthread_cond_destroy(&l->writer_go);
    pthread_cond_destroy(&l->readers_go);
    pthread_mutex_destroy(&l->mu);
}

/* Waits for the end of the write phase under way or waited for: a writer
 * waiting can leave only by holding the lock, so its phase ends once. */
static void wait_write_phase(shared_lock *l) {
    uint64_t seen = phase_of(l);
    l->readers_waiting++;
    while (l->writer || (phase_of(l) == seen && l->writers_waiting > 0))
        pthread_cond_wait(&l->readers_go, &l->mu);
    l->readers_waiting--;
    if (phase_of(l) != seen && l->admitted > 0)
        l->admitted--;
}

static void wake_writer_if_free(shared_lock *l) {
    if (l->writers_waiting > 0 && l->admitted == 0 && !l->writer && read_holds(l) == 0)
        pthread_cond_signal(&l->writer_go);
}

/* Gives a hold back without the mutex; while a writer waits, the last
 * one out wakes it. The writer shuts, then sums (both under the mutex);
 * this counts down, then looks at `shut` (all sequentially consistent):
 * either the writer's sum counts this hold out or this sees it shut. */
static void give_back(shared_lock *l) {
    atomic_fetch_sub(my_stripe(l), 1);
    if (atomic_load(&l->shut)) {
        pthread_mutex_lock(&l->mu);
        wake_writer_if_free(l);
        pthread_mutex_unlock(&l->mu);
    }
}

/* The fast path counts itself in, then looks at `shut`: a writer that
 * shut it meanwhile may already have counted the readers, so the hold is
 * given back and taken the slow way. */
static bool read_fast(shared_lock *l) {
    if (atomic_load(&l->shut))
        return false;
    atomic_fetch_add(my_stripe(l), 1);
    if (!atomic_load(&l->shut))
        return true;
    give_back(l);
    return false;
}

void shared_lock_read(shared_lock *l) {
    if (read_fast(l)) {
        note_taken(notes, l);
        return;
    }
    pthread_mutex_lock(&l->mu);
    if ((l->writer || l->writers_waiting > 0) && !holds_already(l))
        wait_write_phase(l);
    atomic_fetch_add(my_stripe(l), 1);
    note_taken(notes, l);
    pthread_mutex_unlock(&l->mu);
}

void shared_lock_read_done(shared_lock *l) {
    note_given_back(notes, l);
    give_back(l);
}

void shared_lock_write(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    l->writers_waiting++;
    atomic_store(&l->shut, true);
    while (l->writer || l->admitted > 0 || read_holds(l) > 0)
        pthread_cond_wait(&l->writer_go, &l->mu);
    l->writers_waiting--;
    l->writer = true;
    pthread_mutex_unlock(&l->mu);
}

/* Shuts the fast path to count the holds exactly (as shared_lock_write),
 * and opens it again when one is in: a reader that saw it shut meanwhile
 * takes the mutex and finds no writer. */
bool shared_lock_try_write(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    bool free_now = !l->writer && l->writers_waiting == 0 && l->admitted == 0;
    if (free_now) {
        atomic_store(&l->shut, true);
        free_now = read_holds(l) == 0;
        if (free_now)
            l->writer = true;
        else
            atomic_store(&l->shut, false);
    }
    pthread_mutex_unlock(&l->mu);
    return free_now;
}

/* The readers waiting now go in before any writer (phase-fair). */
void shared_lock_write_done(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    l->writer = false;
    atomic_fetch_add_explicit(&l->phase, 1, memory_order_relaxed);
    l->admitted += l->readers_waiting;
    if (l->writers_waiting == 0)
        atomic_store(&l->shut, false);
    if (l->readers_waiting > 0)
        pthread_cond_broadcast(&l->readers_go);
    else
        wake_writer_if_free(l);
    pthread_mutex_unlock(&l->mu);
}
