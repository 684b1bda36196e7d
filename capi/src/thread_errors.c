#include "thread_errors.h"

#include <stdbool.h>
#include <stdlib.h>

struct thread_error {
    pthread_t thread;
    err e;
    thread_error *next;
};

void thread_errors_init(thread_errors *t) {
    pthread_mutex_init(&t->lock, NULL);
    t->head = NULL;
    atomic_init(&t->held, 0);
}

void thread_errors_destroy(thread_errors *t) {
    for (thread_error *n = t->head, *next; n; n = next) {
        next = n->next;
        err_clear(&n->e);
        free(n);
    }
    t->head = NULL;
    pthread_mutex_destroy(&t->lock);
}

/* Called with the lock held. */
static thread_error *entry_for_caller(thread_errors *t, int create) {
    pthread_t self = pthread_self();
    for (thread_error *n = t->head; n; n = n->next)
        if (pthread_equal(n->thread, self))
            return n;
    if (!create)
        return NULL;
    thread_error *n = calloc(1, sizeof *n);
    if (n) {
        n->thread = self;
        n->next = t->head;
        t->head = n;
    }
    return n;
}

int thread_errors_set(thread_errors *t, err *e) {
    int code = e->code;
    pthread_mutex_lock(&t->lock);
    thread_error *n = entry_for_caller(t, 1);
    if (n) {
        bool had = n->e.code != 0;
        err_move(&n->e, e);
        if (!had && n->e.code)
            atomic_fetch_add(&t->held, 1);
        else if (had && !n->e.code)
            atomic_fetch_sub(&t->held, 1);
    }
    pthread_mutex_unlock(&t->lock);
    err_clear(e);
    return code;
}

void thread_errors_clear(thread_errors *t) {
    if (atomic_load(&t->held) == 0)
        return;
    pthread_mutex_lock(&t->lock);
    thread_error *n = entry_for_caller(t, 0);
    if (n && n->e.code) {
        err_clear(&n->e);
        atomic_fetch_sub(&t->held, 1);
    }
    pthread_mutex_unlock(&t->lock);
}

const err *thread_errors_get(thread_errors *t) {
    pthread_mutex_lock(&t->lock);
    thread_error *n = entry_for_caller(t, 0);
    pthread_mutex_unlock(&t->lock);
    return n && n->e.code ? &n->e : NULL;
}
