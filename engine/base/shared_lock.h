/* A readers-writer lock whose read holds are counted, not owned: a read
 * hold may be given back by another thread than the one that took it (a
 * query cursor keeps its snapshot across calls that may come from any
 * thread, one at a time, and a writer may close it). Readers are preferred,
 * as with the default pthread rwlock: a reader waits only while a writer
 * holds the lock, so a thread that already holds a read hold can always
 * take another. */
#ifndef MG_BASE_SHARED_LOCK_H
#define MG_BASE_SHARED_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct shared_lock {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    size_t readers;
    size_t writers_waiting; /* for the readers to go: the last one signals */
    bool writer;
} shared_lock;

/* 0, or -1 when the system cannot create the lock. */
int shared_lock_init(shared_lock *l);
void shared_lock_destroy(shared_lock *l);
void shared_lock_read(shared_lock *l);
void shared_lock_read_done(shared_lock *l);
void shared_lock_write(shared_lock *l);
void shared_lock_write_done(shared_lock *l);

#endif
