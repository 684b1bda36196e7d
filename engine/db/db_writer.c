/* The writer slot (db_writer.h): a flag under a mutex, and a condition
 * variable for the waiters. The wait for a transaction is timed against
 * CLOCK_REALTIME, pthread_cond_timedwait's default clock. */
#include "db/db_writer.h"

#include <errno.h>
#include <time.h>

int db_writer_init(db_writer *w) {
    *w = (db_writer){0};
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&w->freed, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    return 0;
}

void db_writer_destroy(db_writer *w) {
    pthread_cond_destroy(&w->freed);
    pthread_mutex_destroy(&w->mu);
}

static struct timespec deadline_after(int64_t ms) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* The deadline is read from the clock only when the slot is found busy:
 * a free slot (every single-fact commit without contention) costs no
 * clock read. */
int db_writer_acquire(db_writer *w, bool for_tx, int64_t timeout_ms, const char *same_thread,
                      err *e) {
    struct timespec deadline;
    bool timed = false;
    int rc = 0;
    pthread_mutex_lock(&w->mu);
    while (w->busy && rc == 0) {
        if (!timed) {
            deadline = deadline_after(timeout_ms > 0 ? timeout_ms : 0);
            timed = true;
        }
        if (w->tx && pthread_equal(w->owner, pthread_self()))
            rc = err_set(e, ERR(INT, 3), "%s", same_thread);
        else if (!w->tx)
            pthread_cond_wait(&w->freed, &w->mu);
        else if (pthread_cond_timedwait(&w->freed, &w->mu, &deadline) == ETIMEDOUT && w->busy &&
                 w->tx)
            rc = err_set(e, ERR(API, 20),
                         "busy: another thread's write transaction is still open after %lld ms "
                         "(busy_timeout_ms)",
                         (long long)timeout_ms);
    }
    if (rc == 0) {
        w->busy = true;
        w->tx = for_tx;
        w->owner = pthread_self();
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void db_writer_release(db_writer *w) {
    pthread_mutex_lock(&w->mu);
    w->busy = false;
    w->tx = false;
    pthread_cond_broadcast(&w->freed);
    pthread_mutex_unlock(&w->mu);
}
