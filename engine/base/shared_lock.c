#include "base/shared_lock.h"

int shared_lock_init(shared_lock *l) {
    l->readers = 0;
    l->writers_waiting = 0;
    l->writer = false;
    if (pthread_mutex_init(&l->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&l->changed, NULL) != 0) {
        pthread_mutex_destroy(&l->mu);
        return -1;
    }
    return 0;
}

void shared_lock_destroy(shared_lock *l) {
    pthread_cond_destroy(&l->changed);
    pthread_mutex_destroy(&l->mu);
}

void shared_lock_read(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    while (l->writer)
        pthread_cond_wait(&l->changed, &l->mu);
    l->readers++;
    pthread_mutex_unlock(&l->mu);
}

void shared_lock_read_done(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    if (--l->readers == 0 && l->writers_waiting > 0) /* readers wait only for writers */
        pthread_cond_broadcast(&l->changed);
    pthread_mutex_unlock(&l->mu);
}

void shared_lock_write(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    l->writers_waiting++;
    while (l->writer || l->readers > 0)
        pthread_cond_wait(&l->changed, &l->mu);
    l->writers_waiting--;
    l->writer = true;
    pthread_mutex_unlock(&l->mu);
}

void shared_lock_write_done(shared_lock *l) {
    pthread_mutex_lock(&l->mu);
    l->writer = false;
    pthread_cond_broadcast(&l->changed);
    pthread_mutex_unlock(&l->mu);
}
