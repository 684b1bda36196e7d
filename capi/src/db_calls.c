/* Calls in flight on a database handle (db_calls.h).
 *
 * Why the structs are never freed: a call checks the registry
 * (handles_live, which never dereferences the pointer) and then counts
 * itself in h->calls. Between the two a concurrent close may finish; if
 * it had freed the struct, the count would land in freed memory. So a
 * closed struct goes to a pool and is only reused as another MiniGrafDb:
 * `calls`, `closed`, `mu` and `drained` stay valid for ever, a late
 * caller sees `closed` (or, if the struct was reused meanwhile, the new
 * handle at the same address, which is what a reused pointer means
 * anyway), and the count is never reset, only incremented and
 * decremented in pairs. The pool holds at most as many structs as were
 * ever open at once.
 *
 * The count is striped: each thread counts its calls in one of
 * API_CALL_STRIPES counters, each on its own cache line, so threads
 * querying one handle do not bounce one line between their cores on every
 * call (issue 18). A thread always uses the same stripe, so each stripe's
 * increments and decrements pair up; close sums them.
 *
 * Ordering (all sequentially consistent): enter increments its stripe and
 * then reads `closed`; close sets `closed` and then reads every stripe. So
 * either the caller sees the close and backs out, or the closer sees the
 * caller and waits for it. */
#include "db_calls.h"

#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "base/thread_slot.h"
#include "handles.h"

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static MiniGrafDb *pool;

static atomic_size_t *stripe(MiniGrafDb *h) {
    return &h->calls[thread_slot() % API_CALL_STRIPES].n;
}

static size_t calls_in_flight(MiniGrafDb *h) {
    size_t n = 0;
    for (int i = 0; i < API_CALL_STRIPES; i++)
        n += atomic_load(&h->calls[i].n);
    return n;
}

int api_db_enter(const MiniGrafDb *ch) {
    MiniGrafDb *h = (MiniGrafDb *)ch;
    if (!handles_live(h, HANDLE_DB)) /* NULL included */
        return handles_check(h, HANDLE_DB);
    return api_db_enter_held(h);
}

int api_db_enter_held(const MiniGrafDb *ch) {
    MiniGrafDb *h = (MiniGrafDb *)ch;
    atomic_fetch_add(stripe(h), 1);
    /* close unregisters before it sets `closed`, and a pooled struct stays
     * closed until it is published again: `closed` alone decides here */
    if (atomic_load(&h->closed)) {
        api_db_leave(h);
        return ERR(API, 18);
    }
    return 0;
}

void api_db_leave(const MiniGrafDb *ch) {
    MiniGrafDb *h = (MiniGrafDb *)ch;
    atomic_fetch_sub(stripe(h), 1);
    /* any call out of a closing handle may be the last: drain sums */
    if (atomic_load(&h->closed) && calls_in_flight(h) == 0) {
        pthread_mutex_lock(&h->mu);
        pthread_cond_broadcast(&h->drained);
        pthread_mutex_unlock(&h->mu);
    }
}

MiniGrafDb *api_db_alloc(void) {
    pthread_mutex_lock(&pool_mu);
    MiniGrafDb *h = pool;
    if (h)
        pool = h->next_free;
    pthread_mutex_unlock(&pool_mu);
    if (!h) {
        h = aligned_alloc(_Alignof(MiniGrafDb), sizeof *h); /* the stripes' lines */
        if (!h)
            return NULL;
        if (pthread_mutex_init(&h->mu, NULL) != 0) {
            free(h);
            return NULL;
        }
        if (pthread_cond_init(&h->drained, NULL) != 0) {
            pthread_mutex_destroy(&h->mu);
            free(h);
            return NULL;
        }
        for (int i = 0; i < API_CALL_STRIPES; i++)
            atomic_init(&h->calls[i].n, 0);
        atomic_init(&h->closed, true);
    }
    h->engine = NULL;
    h->fact_logs = 0;
    h->next_free = NULL;
    return h;
}

int api_db_publish(MiniGrafDb *h) {
    atomic_store(&h->closed, false);
    if (handles_add(h, HANDLE_DB))
        return 1;
    atomic_store(&h->closed, true);
    return 0;
}

void api_db_recycle(MiniGrafDb *h) {
    pthread_mutex_lock(&pool_mu);
    h->next_free = pool;
    pool = h;
    pthread_mutex_unlock(&pool_mu);
}

/* Interrupts the calls inside and waits for them to leave; the interrupt
 * is repeated every millisecond, for a call that entered but had not yet
 * begun its query when the previous one came. */
static void drain(MiniGrafDb *h) {
    pthread_mutex_lock(&h->mu);
    while (calls_in_flight(h) > 0) {
        db_interrupt(h->engine);
        struct timespec ts = clock_deadline_after_ms(1);
        pthread_cond_timedwait(&h->drained, &h->mu, &ts);
    }
    pthread_mutex_unlock(&h->mu);
}

void api_db_close(MiniGrafDb *h) {
    if (!h || !handles_remove(h, HANDLE_DB))
        return; /* NULL, foreign, or another thread closes it */
    atomic_store(&h->closed, true);
    drain(h);
    db_close(h->engine);
    thread_errors_destroy(&h->errors);
    pthread_mutex_lock(&h->mu);
    h->engine = NULL;
    bool last = h->fact_logs == 0;
    pthread_mutex_unlock(&h->mu);
    if (last)
        api_db_recycle(h);
}

void api_db_retain(MiniGrafDb *h) {
    pthread_mutex_lock(&h->mu);
    h->fact_logs++;
    pthread_mutex_unlock(&h->mu);
}

void api_db_release(MiniGrafDb *h) {
    pthread_mutex_lock(&h->mu);
    bool last = --h->fact_logs == 0 && !h->engine && atomic_load(&h->closed);
    pthread_mutex_unlock(&h->mu);
    if (last)
        api_db_recycle(h);
}

void api_db_wait_closed(MiniGrafDb *h) {
    pthread_mutex_lock(&h->mu);
    while (h->engine != NULL) {
        pthread_mutex_unlock(&h->mu);
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        pthread_mutex_lock(&h->mu);
    }
    pthread_mutex_unlock(&h->mu);
}
